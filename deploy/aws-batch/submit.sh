#!/usr/bin/env bash
# submit.sh QUEUE SPEC OUT N: a tracereplay sweep as an AWS Batch array job of N
# children (child K runs shard K: AWS_BATCH_JOB_ARRAY_INDEX) and a merge job that
# depends on the whole array (it starts when every child succeeded). Register
# the two job definitions first:
#   aws batch register-job-definition --cli-input-json file://deploy/aws-batch/job-definition.json
#   aws batch register-job-definition --cli-input-json file://deploy/aws-batch/merge-job-definition.json
# SPEC is a path inside the image (its samples are under /tracereplay/samples);
# OUT an s3:// URL the job role may write (region from the URL's ?region= or the
# environment). A failed child is retried (retryStrategy) and skips the cells it
# had finished. Needs aws (CLI v2) and jq.
set -euo pipefail
queue=${1:?usage: submit.sh QUEUE SPEC OUT N}
spec=${2:?usage: submit.sh QUEUE SPEC OUT N}
out=${3:?usage: submit.sh QUEUE SPEC OUT N}
n=${4:?usage: submit.sh QUEUE SPEC OUT N}
# As JSON: an s3:// URL's ?region=…&endpoint=… would confuse the CLI's shorthand.
params=$(jq -cn --arg spec "$spec" --arg out "$out" --arg shards "$n" '{spec: $spec, out: $out, shards: $shards}')
# An array job needs at least 2 children.
if ((n < 2)); then echo "submit.sh: N=$n: AWS Batch array jobs have 2 to 10,000 children" >&2; exit 2; fi
array=$(aws batch submit-job --job-name tracereplay-sweep --job-queue "$queue" \
  --job-definition tracereplay-sweep --array-properties size="$n" --parameters "$params" | jq -r .jobId)
merge=$(aws batch submit-job --job-name tracereplay-merge --job-queue "$queue" \
  --job-definition tracereplay-merge --depends-on jobId="$array" --parameters "$params" | jq -r .jobId)
echo "$array $merge"
