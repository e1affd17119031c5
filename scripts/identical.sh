#!/usr/bin/env bash
# identical.sh OUTFILE: runs ingest, replay and report over a fixed set of inputs
# and models (every policy, fixed and flow networks, the lifecycle with faults and
# speculation, trace mode with the observed schedule, an experiment, a paper
# preset) and writes one SHA-256 line per output file to OUTFILE. Two builds give
# byte-identical results when their OUTFILEs are equal:
#   git stash; scripts/identical.sh /tmp/before; git stash pop
#   scripts/identical.sh /tmp/after; diff /tmp/before /tmp/after
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "$1")
# A fixed working directory: outputs name their inputs' paths.
work=${IDENTICAL_WORK:-/tmp/tracereplay-identical}
rm -rf "$work"; mkdir -p "$work"
export GOFLAGS=-buildvcs=false
go build -o "$work/bin/" ./cmd/ingest ./cmd/replay ./cmd/report
bin=$work/bin
tr=internal/validation/testdata/traces
small=samples/traces/fb2009-first50.tsv
r() { "$bin/replay" --quiet --parallel 2 "$@" 2>/dev/null; }

i() { "$bin/ingest" "$@" >/dev/null 2>&1; }
i --out "$work/i-swim" "$small"
i --out "$work/i-jhist" "$tr/jhist"
i --out "$work/i-rumen" "$tr/rumen"
i --out "$work/i-h1" "$tr/hadoop1"
i --generate coupling-table4 --out "$work/i-gen-coupling"
i --generate eas-table1 --out "$work/i-gen-eas"
r --out "$work/r-demo" --tasks
r --trace "$small" --out "$work/r-flow" --tasks --set network=flow --set map_compute_mb_per_s=40
r --trace "$small" --out "$work/r-flowlife" --tasks --set network=flow --set map_compute_mb_per_s=40 --set lifecycle=true \
  --set attempt_failure_rate=0.05 --set straggler_fraction=0.1 --set speculation=late --seed 7
r --trace "$small" --out "$work/r-bar" --set network=bar --alone
r --trace "$small" --out "$work/r-life" --tasks --set lifecycle=true \
  --set attempt_failure_rate=0.05 --set straggler_fraction=0.1 --set speculation=late --seed 7
r --trace "$work/i-rumen" --out "$work/r-rumen" --tasks
r --trace "$work/i-jhist" --out "$work/r-jhist" --tasks
r --trace "$work/i-h1" --out "$work/r-h1" --tasks --set lifecycle=true
r --experiment samples/experiments/ci-sample.toml --out "$work/r-exp"
r --experiment samples/experiments/coupling-twojobs.toml --out "$work/r-coup"
"$bin/report" --out "$work/p-demo" --format svg "$work/r-demo" >"$work/p-demo.txt" 2>&1
"$bin/report" --out "$work/p-coup" --format svg --preset coupling "$work/r-coup" >"$work/p-coup.txt" 2>&1
"$bin/report" validate "$work/r-rumen" >"$work/p-validate.txt" 2>&1 || [[ $? == 1 ]]
# manifest.json records each run's wall time and event rate: hashed without them.
find "$work" -name manifest.json -exec sed -i '/"\(wall_seconds\|events_per_second\)":/d' {} +
(cd "$work" && find . -type f ! -path './bin/*' -print0 | sort -z | xargs -0 sha256sum) >"$out"
echo "identical.sh: $(wc -l <"$out") files hashed into $out"
