#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME (default 20s), one target
# at a time, and fails on the first crash (a crashing input is written to the
# package's testdata/fuzz/<Target>/ by go test). Targets are found with
# `go test -list 'Fuzz.*'`, so a new target is fuzzed without editing this file.
#
#   scripts/fuzz.sh                 # every target, 20 s each
#   FUZZTIME=1m scripts/fuzz.sh ./trace
#
# A target that stalls fails too: each must make at least FUZZ_EXECS_PER_MIN
# (default 10,000) executions per minute of FUZZTIME, i.e. 3,334 in the default
# 20 s, as Go's coordinator counts them (the last "execs: N" line). The floor
# is skipped when FUZZTIME is a count (100x) or FUZZ_EXECS_PER_MIN=0.
#
# New inputs are minimized for at most FUZZMINIMIZETIME (default 100x calls):
# the coordinator reports a worker's executions only when its minimization
# ends, and Go's default (60 s per input) hid whole 20 s runs behind one
# minimization (FuzzDecodeAllocRows: "execs: 7", while ~36,000 ran).
#
# Counts of one 20 s run per target (this script, 2026-11-25) on a shared
# 2-core machine with a load average of 7-10; the lowest passing is 7.6 times
# the floor (FuzzExperiment):
#   report         FuzzDecodeJobs 60,624  FuzzDecodeAllocRows 71,709
#                  FuzzLoadRun 48,423  FuzzPathLabels 76,493  FuzzHybApp 70,121
#                  FuzzParseThresholds 72,956
#   replay         FuzzParseHardware 97,868  FuzzExperiment 25,282
#   policy         FuzzStaticAllocators 137,766  FuzzPolicySpec 84,149
#   trace          FuzzJhist 90,053  FuzzJhistSchema 101,968  FuzzHadoop1 97,792
#                  FuzzCompactCounters 151,403  FuzzRumen 117,879
#                  FuzzRumenTopology 130,419  FuzzSLS 106,027  FuzzSLSNodes 145,891
#                  FuzzConf 121,709  FuzzDetect 198,921  FuzzSWIM 136,661
#                  FuzzReadInput 138,709  FuzzSyntheticParams 157,185
#                  FuzzHybSMRPParams 164,403
#   internal/flow  FuzzOps 31,222 (1,411, stalled, while it ran up to 255
#                  flow operations per input; 16,108 at 64; now at most 40)
# FuzzLoadRun and FuzzOps were re-measured on 2026-11-27, after a CI machine
# made 2,237 and 6,541 (FuzzLoadRun stalled). FuzzLoadRun wrote and read its
# three files every execution, three quarters of its time here; it reads them
# from memory now (14,859 here before).
# The seed corpus and Go's cache of earlier inputs ($GOCACHE/fuzz) are run
# first, inside FUZZTIME: a cache of hundreds of slow inputs eats into the
# count (FuzzOps: 11 of its 20 s), a fresh CI cache does not.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}
minimizetime=${FUZZMINIMIZETIME:-100x}
per_min=${FUZZ_EXECS_PER_MIN:-10000}

# seconds of a Go duration made of h, m and s parts (20s, 1m, 1m30s), empty
# for anything else (a count such as 100x)
duration_seconds() {
  local d=$1 total=0 n unit
  [[ $d =~ ^([0-9]+[hms])+$ ]] || return 0
  while [[ $d =~ ^([0-9]+)([hms])(.*)$ ]]; do
    n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]} d=${BASH_REMATCH[3]}
    case $unit in
      h) total=$((total + n * 3600)) ;;
      m) total=$((total + n * 60)) ;;
      s) total=$((total + n)) ;;
    esac
  done
  echo "$total"
}
floor=0
if secs=$(duration_seconds "$fuzztime") && [[ -n $secs && $per_min -gt 0 ]]; then
  floor=$(((per_min * secs + 59) / 60))
  echo "== floor: $floor executions per target in $fuzztime ($per_min per minute)"
elif [[ $per_min -gt 0 ]]; then
  echo "== no execution floor: FUZZTIME=$fuzztime is not a duration in h, m and s"
fi

pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
  mapfile -t pkgs < <(go list ./...)
fi
failed=0
stalled=0
ran=0
for pkg in "${pkgs[@]}"; do
  targets=$(go test -list 'Fuzz.*' "$pkg" | grep '^Fuzz' || true)
  for target in $targets; do
    ran=$((ran + 1))
    echo "== $pkg $target ($fuzztime)"
    log=$(mktemp)
    ok=1
    if go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" >"$log" 2>&1; then
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
      ok=0
    fi
    if [[ $ok -eq 1 && $floor -gt 0 ]]; then
      execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
      if [[ -z $execs || $execs -lt $floor ]]; then
        echo "STALLED: $pkg $target: ${execs:-no} executions in $fuzztime, below the floor of $floor"
        stalled=$((stalled + 1))
      fi
    fi
    rm -f "$log"
  done
done
echo "== $ran fuzz targets run, $failed failed, $stalled stalled"
[[ $failed -eq 0 && $stalled -eq 0 ]]
