#!/usr/bin/env bash
# duckdb-check.sh: prove that an independent Parquet reader (DuckDB) reads
# tracereplay's trace files as we mean them: types, OPTIONAL columns with nulls
# where the source does not know a value, lists, zstd, key/value metadata, order.
#
# Installs @duckdb/node-api with npm into a temporary directory, builds
# cmd/ingest, ingests the committed 50-job SWIM sample and (when present) the
# full FB-2009 SWIM trace from shared/traces beside the repository, and runs
# scripts/duckdb-check.mjs with expectations on them and on the committed
# trace/testdata/sample-trace (a trace with tasks). Expected values for the SWIM
# traces are computed from the TSV with awk, independently of our Go code.
#
# Exit status: 0 all expectations hold, non-zero otherwise.
# Environment: TRACEREPLAY_TRACES (default: ../shared/traces from the repo root),
# DUCKDB_NODE_API_VERSION (default below).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
traces=${TRACEREPLAY_TRACES:-$repo/../shared/traces}
version=${DUCKDB_NODE_API_VERSION:-1.5.6-r.1}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "duckdb-check: installing @duckdb/node-api@$version"
npm install --prefix "$work" --no-save --no-audit --no-fund --loglevel=error "@duckdb/node-api@$version" >/dev/null
cp "$repo/scripts/duckdb-check.mjs" "$work/"
(cd "$repo" && go build -o "$work/ingest" ./cmd/ingest && go build -o "$work/replay" ./cmd/replay)

check() { node "$work/duckdb-check.mjs" "$@"; }

# Facts every SWIM trace must show: job-level bytes known, everything else null.
swim_expect() { # TSV DIR
	local tsv=$1 dir=$2 rows min max maxin
	read -r rows min max maxin < <(awk -F'\t' '
		NR == 1 { min = $2; maxin = $4 }
		{ if ($4 + 0 > maxin + 0) maxin = $4; max = $2 }
		END { printf "%d %.0f %.0f %s\n", NR, min * 1000, max * 1000, maxin }' "$tsv")
	check "$dir" \
		--fact unsorted="SELECT count(*) FROM (SELECT submit_ms < lag(submit_ms) OVER (ORDER BY file_row_number) AS bad FROM read_parquet('$dir/jobs.parquet', file_row_number=true)) WHERE bad" \
		--fact first3="SELECT string_agg(job_id, ',') FROM (SELECT job_id FROM read_parquet('$dir/jobs.parquet', file_row_number=true) ORDER BY file_row_number LIMIT 3)" \
		--fact queues="SELECT string_agg(DISTINCT queue, ',') FROM jobs" \
		--expect jobs.rows="$rows" \
		--expect jobs.submit_ms.min="$min" --expect jobs.submit_ms.max="$max" \
		--expect jobs.input_bytes.max="$maxin" \
		--expect jobs.submit_ms.type=BIGINT --expect jobs.submit_ms.repetition=REQUIRED \
		--expect jobs.input_bytes.type=BIGINT --expect jobs.input_bytes.repetition=OPTIONAL \
		--expect jobs.input_bytes.nulls=0 --expect jobs.shuffle_bytes.nulls=0 --expect jobs.output_bytes.nulls=0 \
		--expect jobs.num_maps.type=INTEGER --expect jobs.num_maps.repetition=OPTIONAL \
		--expect jobs.num_maps.nulls="$rows" --expect jobs.num_reduces.nulls="$rows" \
		--expect jobs.launch_ms.nulls="$rows" --expect jobs.finish_ms.nulls="$rows" \
		--expect jobs.failed_attempts.nulls="$rows" --expect jobs.wasted_ms.nulls="$rows" \
		--expect jobs.job_id.type=VARCHAR --expect jobs.job_id.nulls=0 \
		--expect jobs.compression=ZSTD \
		--expect jobs.conf_out_of_band_heartbeat.type=INTEGER --expect jobs.conf_out_of_band_heartbeat.repetition=OPTIONAL \
		--expect jobs.conf_out_of_band_heartbeat.nulls="$rows" \
		--expect jobs.meta.tracereplay.schema_version=2.5 \
		--expect jobs.meta.tracereplay.source_format=swim \
		--expect unsorted=0 --expect first3=job0,job1,job2 --expect queues=default
}

echo "duckdb-check: 50-job SWIM sample"
"$work/ingest" --out "$work/fb50" "$repo/samples/traces/fb2009-first50.tsv" >/dev/null
swim_expect "$repo/samples/traces/fb2009-first50.tsv" "$work/fb50"

fb09="$traces/swim/FB-2009_samples_24_times_1hr_0.tsv"
if [[ -f $fb09 ]]; then
	echo "duckdb-check: FB-2009"
	"$work/ingest" --out "$work/fb09" "$fb09" >/dev/null
	swim_expect "$fb09" "$work/fb09"
	check "$work/fb09" --expect jobs.rows=5894 --expect jobs.submit_ms.min=49000 --expect jobs.submit_ms.max=86404000 >/dev/null
else
	echo "duckdb-check: $fb09 not found; skipping FB-2009" >&2
fi

echo "duckdb-check: trace with tasks (trace/testdata/sample-trace)"
check "$repo/trace/testdata/sample-trace" \
	--fact m0_hosts="SELECT preferred_hosts FROM tasks WHERE task_id = 'task_1_0002_m_000000'" \
	--fact m0_racks="SELECT preferred_racks FROM tasks WHERE task_id = 'task_1_0002_m_000000'" \
	--fact r0_hosts="SELECT preferred_hosts FROM tasks WHERE task_id = 'task_1_0002_r_000000'" \
	--fact order="SELECT string_agg(type || index, ',') FROM tasks" \
	--fact r0_report="SELECT report_lag_ms FROM tasks WHERE task_id = 'task_1_0002_r_000000'" \
	--expect tasks.report_lag_ms.type=BIGINT --expect tasks.report_lag_ms.repetition=OPTIONAL \
	--expect tasks.report_lag_ms.nulls=3 --expect r0_report=240 \
	--expect jobs.rows=3 --expect tasks.rows=4 \
	--expect tasks.preferred_hosts.type='VARCHAR[]' --expect tasks.preferred_racks.type='VARCHAR[]' \
	--expect tasks.preferred_hosts.elements=4 \
	--expect m0_hosts='["h1","h2","h3"]' --expect m0_racks='["/r1","/r1",""]' --expect r0_hosts='[]' \
	--expect order=MAP0,MAP1,REDUCE0,MAP0 \
	--expect tasks.index.type=INTEGER --expect tasks.index.repetition=REQUIRED \
	--expect tasks.start_ms.nulls=2 --expect tasks.shuffle_finish_ms.nulls=3 --expect tasks.input_bytes.nulls=3 \
	--expect jobs.reduce_memory_mb.nulls=3 --expect jobs.launch_ms.max=1500 \
	--expect jobs.input_bytes.max=1099511627776 \
	--expect tasks.compression=ZSTD --expect jobs.compression=ZSTD \
	--expect jobs.meta.tracereplay.options='{"a":"1","b":"2","strict":"true"}' \
	--expect jobs.meta.tracereplay.sources='["a.jhist","b.jhist"]' \
	--expect tasks.meta.tracereplay.schema_version=2.5

echo "duckdb-check: a Rumen trace whose job confs set the out-of-band heartbeat (trace/testdata/rumen/trace_1m.json.gz)"
"$work/ingest" --out "$work/gridmix1m" "$repo/trace/testdata/rumen/trace_1m.json.gz" >/dev/null
# Expected from the file itself, independently of our Go code: the jobs whose
# jobProperties set mapreduce.tasktracker.outofband.heartbeat to true.
oob=$(gzip -dc "$repo/trace/testdata/rumen/trace_1m.json.gz" | grep -o '"mapreduce.tasktracker.outofband.heartbeat" *: *"true"' | wc -l)
v021=$(gzip -dc "$repo/trace/testdata/rumen/trace_1m.json.gz" | grep -o '"hadoop.common.configuration.version" *: *"0.21.0"' | wc -l)
check "$work/gridmix1m" \
	--fact oob_on="SELECT count(*) FROM jobs WHERE conf_out_of_band_heartbeat = 1" \
	--fact v021="SELECT count(*) FROM jobs WHERE conf_common_version = '0.21.0'" \
	--expect jobs.conf_out_of_band_heartbeat.nulls=0 --expect oob_on="$oob" --expect v021="$v021" \
	--expect jobs.meta.tracereplay.schema_version=2.5

echo "duckdb-check: replay results (fair on the 50-job sample, with tasks)"
"$work/replay" --trace "$work/fb50" --policy fair --seed 3 --tasks --quiet --out "$work/runs"
run="$work/runs/policy=fair"
check "$run" \
	--fact below_ideal="SELECT count(*) FROM jobs WHERE flowtime_us < ideal_us" \
	--fact flow_mismatch="SELECT count(*) FROM jobs WHERE finish_us - submit_us <> flowtime_us" \
	--fact task_count="SELECT (SELECT sum(maps + reduces) FROM jobs) = (SELECT count(*) FROM tasks)" \
	--fact reduce_before_maps="SELECT count(*) FROM tasks t JOIN jobs j USING (job_index) WHERE t.type = 'REDUCE' AND t.shuffle_end_us < j.last_map_end_us" \
	--fact map_localities="SELECT string_agg(DISTINCT locality, ',' ORDER BY locality) FROM tasks WHERE type = 'MAP'" \
	--expect jobs.rows=50 --expect jobs.policy.type=VARCHAR --expect jobs.flowtime_us.type=BIGINT \
	--expect jobs.slowdown.type=DOUBLE --expect jobs.flowtime_us.nulls=0 \
	--expect jobs.meta.tracereplay.policy=fair --expect jobs.meta.tracereplay.seed=3 \
	--expect below_ideal=0 --expect flow_mismatch=0 --expect task_count=true --expect reduce_before_maps=0 \
	--expect map_localities=NODE_LOCAL \
	--fact alone_avg="SELECT coalesce(avg(alone_us)::VARCHAR, 'null') FROM jobs" \
	--expect jobs.minus1=none --expect tasks.minus1=none --expect nodes.minus1=none \
	--expect timeline.minus1=none --expect timeline.job_index.repetition=OPTIONAL \
	--fact cluster_rows="SELECT count(*) > 0 FROM timeline WHERE job_index IS NULL" --expect cluster_rows=true \
	--expect jobs.alone_us.repetition=OPTIONAL --expect jobs.alone_us.nulls=50 --expect alone_avg=null \
	--expect jobs.first_reduce_launch_us.repetition=OPTIONAL \
	--expect jobs.observed_flowtime_us.nulls=50 --expect jobs.finish_us.nulls=0 \
	--expect tasks.shuffle_end_us.repetition=OPTIONAL --expect tasks.node.nulls=0 \
	--fact statuses="SELECT string_agg(DISTINCT status, ',' ORDER BY status) FROM jobs" \
	--expect jobs.status.type=VARCHAR --expect jobs.status.repetition=REQUIRED --expect statuses=SUCCEEDED \
	--expect jobs.meta.tracereplay.results_schema_version=2
# Sentinels: unknown times are nulls (avg() skips them), and so is the
# timeline's job_index of the whole-cluster rows: no -1 is left in the results.
maps=$(check "$run" --fact m="SELECT count(*) FROM tasks WHERE type = 'MAP'" | sed -n 's/^fact m = //p')
noreduce=$(check "$run" --fact n="SELECT count(*) FROM jobs WHERE reduces = 0" | sed -n 's/^fact n = //p')
check "$run" --expect tasks.shuffle_end_us.nulls="$maps" --expect jobs.first_reduce_launch_us.nulls="$noreduce" >/dev/null

echo "duckdb-check: job status (capacity and observed on the committed .jhist, two of them FAILED)"
"$work/ingest" --out "$work/jhist" "$repo/trace/testdata/jhist" >/dev/null
"$work/replay" --trace "$work/jhist" --policy capacity,observed --quiet --out "$work/jhist-runs"
for p in capacity observed; do
	check "$work/jhist-runs/policy=$p" \
		--fact statuses="SELECT string_agg(status, ',' ORDER BY job_id) FROM jobs" \
		--fact failed="SELECT count(*) FROM jobs WHERE status = 'FAILED'" \
		--expect jobs.rows=5 --expect failed=2 --expect jobs.status.nulls=0 \
		--expect statuses=SUCCEEDED,FAILED,FAILED,SUCCEEDED,SUCCEEDED
done

echo "duckdb-check: all expectations hold"
