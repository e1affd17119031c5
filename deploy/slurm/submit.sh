#!/usr/bin/env bash
# submit.sh SPEC OUT N [SBATCH_OPTION...]: submits a sweep of N shards as a
# Slurm job array (sweep.sbatch) and its merge (merge.sbatch) as a job that runs
# only when every shard succeeded (afterok); prints "ARRAY_JOB_ID MERGE_JOB_ID".
# SBATCH_OPTIONs (e.g. --partition=long --time=4:00:00 -o logs/%x-%A_%a.out)
# go to both submissions. OUT is a directory every node sees (a shared file
# system) or an object-storage URL (s3://bucket/prefix?region=...).
# The environment goes with the jobs (sbatch's default --export=ALL): set
# REPLAY to the replay binary when it is not on the nodes' PATH.
#
# If the merge reports missing cells (a shard failed: the merge job is then
# cancelled, as its dependency can never be met), resubmit those shards with
#   sbatch --array=LIST deploy/slurm/sweep.sbatch SPEC OUT N
# and run the merge again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spec=${1:?usage: submit.sh SPEC OUT N [SBATCH_OPTION...]}
out=${2:?usage: submit.sh SPEC OUT N [SBATCH_OPTION...]}
n=${3:?usage: submit.sh SPEC OUT N [SBATCH_OPTION...]}
shift 3
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: N=$n: want a positive shard count" >&2; exit 2; }
array=$(sbatch --parsable --array=0-$((n - 1)) "$@" "$here/sweep.sbatch" "$spec" "$out" "$n")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes "$@" "$here/merge.sbatch" "$spec" "$out" "$n")
merge=${merge%%;*}
echo "$array $merge"
