#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME (default 20s), one target
# at a time, and fails on the first crash (a crashing input is written to the
# package's testdata/fuzz/<Target>/ by go test). Targets are found with
# `go test -list 'Fuzz.*'`, so a new target is fuzzed without editing this file.
#
#   scripts/fuzz.sh                 # every target, 20 s each
#   FUZZTIME=1m scripts/fuzz.sh ./trace
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}
pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
  mapfile -t pkgs < <(go list ./...)
fi
failed=0
ran=0
for pkg in "${pkgs[@]}"; do
  targets=$(go test -list 'Fuzz.*' "$pkg" | grep '^Fuzz' || true)
  for target in $targets; do
    ran=$((ran + 1))
    echo "== $pkg $target ($fuzztime)"
    log=$(mktemp)
    if go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" >"$log" 2>&1; then
      grep -E '^fuzz: elapsed: .*execs' "$log" | tail -1 || true
    elif ! grep -qE 'Failing input written|panic:' "$log" && grep -q 'context deadline exceeded' "$log"; then
      # Go's fuzzing coordinator sometimes reports its own time limit as a
      # failure when a worker answers late; no input failed, so it is no crash.
      grep -E '^fuzz: elapsed: .*execs' "$log" | tail -1 || true
      echo "note: $pkg $target: the fuzz time ran out while a worker was busy (no failing input)"
    else
      cat "$log"
      echo "FAIL: $pkg $target"
      failed=$((failed + 1))
    fi
    rm -f "$log"
  done
done
echo "== $ran fuzz targets run, $failed failed"
[[ $failed -eq 0 ]]
