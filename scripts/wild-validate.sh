#!/bin/bash
# wild-validate.sh FILES BIN WORK [replay flags...]
#
# Scores trace mode on the 29 job histories found in public repositories
# beyond ../shared/traces (docs/ingest-formats.md, "Histories found in the
# wild"): the 22 Gridmix system-test Rumen traces, and 7 others (Gridmix's
# wordcount.json.gz, Mumak's 19-jobs.trace.json.gz, two Hadoop 0.20 histories
# of the Rumen test data, hRaven's Hadoop 1 Sleep job and dr-elephant's two
# .jhist of job_1526555215992). Each history is ingested alone with
# BIN/ingest (a .jhist from a folder holding it and its _conf.xml), replayed
# with BIN/replay --quiet --parallel 1 --policy fifo,observed on its derived
# cluster (extra replay flags, e.g. --set out_of_band_heartbeat=false, go to
# the Gridmix replays only), and scored with BIN/report validate:
#   WORK/gridmix/validate.txt   the 22 Gridmix traces pooled
#   WORK/wild/validate7.txt     the 7 others pooled
#   WORK/wild/validate29.txt    all 29 pooled
#
# FILES holds the repositories' files at these paths (fetch them with the
# tool library's `fetch`, or clone):
#   hadoop-mapreduce/trunk/...  apache/hadoop-mapreduce, branch trunk
#   twitter+hraven/8a15390a/... twitter/hraven at commit 8a15390a
#   dr-elephant/...             linkedin/dr-elephant
set -u
if [ $# -lt 3 ]; then
	echo "usage: $0 FILES BIN WORK [replay flags...]" >&2
	exit 2
fi
files=$1; bin=$2; work=$3; shift 3
mr=$files/hadoop-mapreduce/trunk/src
gm=$work/gridmix; wild=$work/wild
rm -rf "$gm" "$wild"; mkdir -p "$gm" "$wild/src"

for f in "$mr"/contrib/gridmix/src/test/system/resources/*.json.gz; do
	n=$(basename "$f" .json.gz)
	"$bin/ingest" --out "$gm/i-$n" "$f" >/dev/null 2>&1 || echo "ingest $n failed"
	"$bin/replay" --quiet --parallel 1 --trace "$gm/i-$n" --policy fifo,observed --out "$gm/r-$n" "$@" >/dev/null 2>"$gm/err-$n.txt" || echo "replay $n failed"
done
"$bin/report" validate "$gm"/r-* > "$gm/validate.txt" 2>&1 || echo "report validate (gridmix) failed"

i=0
for f in "$mr"/contrib/gridmix/src/test/data/wordcount.json.gz \
	"$mr"/contrib/mumak/src/test/data/19-jobs.trace.json.gz \
	"$mr"/test/tools/data/rumen/small-trace-test/truncated-job-tracker-log \
	"$mr"/test/tools/data/rumen/small-trace-test/v20-resource-usage-log.gz \
	"$files/twitter+hraven/8a15390a/hraven-etl/src/test/resources/job_201311192236_3583_1386370578196_user1_Sleep+job" \
	dr2 dr4; do
	i=$((i + 1)); n=w$i
	case $f in
	dr2) f=$wild/src/dr2; mkdir -p "$f"; cp "$files"/dr-elephant/test/resources/history/done/2018/05/17/000000/job_1526555215992_0002* "$f"/ ;;
	dr4) f=$wild/src/dr4; mkdir -p "$f"; cp "$files"/dr-elephant/test/resources/history/done_intermediate/user/job_1526555215992_0004* "$f"/ ;;
	esac
	"$bin/ingest" --out "$wild/i-$n" "$f" >/dev/null 2>"$wild/ierr-$n.txt" || echo "ingest $n failed"
	"$bin/replay" --quiet --parallel 1 --trace "$wild/i-$n" --policy fifo,observed --out "$wild/r-$n" >/dev/null 2>"$wild/err-$n.txt" || echo "replay $n failed"
done
"$bin/report" validate "$wild"/r-* > "$wild/validate7.txt" 2>&1 || echo "report validate (7) failed"
"$bin/report" validate "$wild"/r-* "$gm"/r-* > "$wild/validate29.txt" 2>&1 || echo "report validate (29) failed"
grep -h 'pooled.*flowtime' "$gm/validate.txt" "$wild/validate7.txt" "$wild/validate29.txt"
