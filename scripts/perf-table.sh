#!/usr/bin/env bash
# Measures each policy through a trace, one policy per process, and prints
# docs/performance.md's table rows: CPU seconds (user + system) and peak RSS
# from /usr/bin/time, events and events per task from run.json.
#
#   scripts/perf-table.sh OUT [POLICY...]
#
# OUT receives one results directory per policy. Environment:
#   PERF_TRACE  the trace (default: FB-2010 from ../shared/traces/swim)
#   PERF_HW     the hardware model (default: samples/hardware/fb-3000.toml)
#   PERF_SET    extra flags for replay, e.g. "--set lifecycle=true"
# Policies default to every slot policy of the issue 15 table.
set -euo pipefail
out=${1:?usage: scripts/perf-table.sh OUT [POLICY...]}
shift
policies=("$@")
if [ ${#policies[@]} -eq 0 ]; then
	policies=(fifo capacity fair fifo-strict fair-strict eas hybsmrp bar hpfsp coupling)
fi
trace=${PERF_TRACE:-../shared/traces/swim/FB-2010_samples_24_times_1hr_0.tsv}
hw=${PERF_HW:-samples/hardware/fb-3000.toml}
[ -x /usr/bin/time ] || { echo "perf-table: /usr/bin/time is missing (Debian: apt-get install time)" >&2; exit 2; }
bin=$(mktemp -d)/replay
go build -o "$bin" ./cmd/replay
mkdir -p "$out"
echo "| policy | CPU s (user + sys) | peak RSS (MiB) | events | events per task |"
echo "|---|--:|--:|--:|--:|"
for p in "${policies[@]}"; do
	dir="$out/$p"
	rm -rf "$dir"
	# shellcheck disable=SC2086 # PERF_SET is a list of flags
	/usr/bin/time -f "%U %S %M" -o "$out/$p.time" "$bin" --trace "$trace" --hardware "$hw" \
		--policy "$p" --parallel 1 --quiet --out "$dir" ${PERF_SET:-} 2>/dev/null
	read -r user sys kib <"$out/$p.time"
	json=$(find "$dir" -name run.json | head -1)
	python3 - "$p" "$user" "$sys" "$kib" "$json" <<'PY'
import json, sys
p, user, sys_, kib, path = sys.argv[1:]
r = json.load(open(path))
tasks = r["maps"] + r["reduces"]
cpu = float(user) + float(sys_)
print(f"| {p} | {cpu:.1f} ({float(user):.2f} + {float(sys_):.2f}) | {int(kib) / 1024:.0f} | "
      f"{r['events'] / 1e6:.1f} M | {r['events'] / tasks:.2f} |")
PY
done
