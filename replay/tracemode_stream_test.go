package replay_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestTraceHardwareStreamedAsHeld: the cluster derived from every real
// history (historyInputs) read as its jobs arrive (trace.OpenTaskStream with
// its attempts) is the cluster derived from it read whole: on a slot cluster
// and on a YARN one (NodeManager sizes from the containers' peaks), with its
// attempts and without them (slots from the tasks), and with the peaks'
// sweep draining after every 1, 2, 3 and 7 attempts (TraceHardwareChunk)
// as well as after useChunk: the real histories are smaller than one chunk.
// A synthetic trace (attemptTrace) too, whose attempts' peaks are not its
// tasks'. The fast lane drains after useChunk and one of the four small
// chunks in turn (every chunk still on every cluster, with and without
// attempts, over the inputs); the full suite after all five each time.
func TestTraceHardwareStreamedAsHeld(t *testing.T) {
	t.Parallel()
	var err error
	yarn := replay.DefaultHardware()
	yarn.Cluster = replay.ClusterYARN
	compared, withAttempts := 0, 0
	inputs := append(historyInputs(t), "attemptTrace(300)")
	for n, in := range inputs {
		var tr *trace.Trace
		if n == len(inputs)-1 {
			tr = attemptTrace(300) // killed copies beside and failed attempts before: peaks unlike the tasks'
		} else if tr, _, err = trace.ReadTree(context.Background(), in, trace.TreeOptions{}); err != nil || len(tr.Jobs) == 0 || len(tr.Tasks) == 0 {
			continue // configurations, topologies, SLS SYNTH specs
		}
		for _, dropAttempts := range []bool{false, true} {
			if dropAttempts {
				if len(tr.Attempts) == 0 {
					continue
				}
				tr.Attempts = nil
			}
			dir := filepath.Join(t.TempDir(), fmt.Sprint(n))
			if err := trace.Write(dir, tr); err != nil {
				t.Fatal(err)
			}
			held, err := trace.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			seen := replay.NewTraceHosts()
			streamed, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Attempts: true, Visit: seen.Visit})
			if err != nil || !ok {
				t.Fatalf("%s: OpenTaskStream: %v %v", in, ok, err)
			}
			if len(held.Attempts) > 0 {
				withAttempts++
			}
			for ci, base := range []replay.Hardware{replay.DefaultHardware(), yarn} {
				want, wantOK, wantErr := replay.TraceHardware(held, base)
				chunks := []int{0, 1, 2, 3, 7}
				if testgate.IsFast() {
					turn := n + ci
					if dropAttempts {
						turn += 2
					}
					chunks = []int{0, chunks[1+turn%4]}
				}
				for _, chunk := range chunks {
					var got replay.Hardware
					var gotOK bool
					var gotErr error
					if chunk == 0 {
						got, gotOK, gotErr = replay.TraceHardware(streamed, base)
					} else {
						got, gotOK, gotErr = replay.TraceHardwareChunk(streamed, base, chunk)
					}
					if !reflect.DeepEqual(got, want) || gotOK != wantOK || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
						t.Errorf("%s (attempts dropped %v, cluster %s, chunk %d): streamed\n%+v %v %v\nheld\n%+v %v %v",
							in, dropAttempts, base.Cluster, chunk, got, gotOK, gotErr, want, wantOK, wantErr)
					}
				}
				// The hosts seen as the stream's check read its tasks
				// stand for the pass over them (replay's loadTrace).
				got, gotOK, gotErr := replay.TraceHardwareSeen(streamed, base, seen)
				if !reflect.DeepEqual(got, want) || gotOK != wantOK || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Errorf("%s (attempts dropped %v, cluster %s): streamed, hosts seen\n%+v %v %v\nheld\n%+v %v %v",
						in, dropAttempts, base.Cluster, got, gotOK, gotErr, want, wantOK, wantErr)
				}
				compared++
			}
		}
	}
	if compared == 0 || withAttempts == 0 {
		t.Fatalf("%d clusters compared, %d traces with attempts", compared, withAttempts)
	}
	t.Logf("%d clusters compared (%d traces with attempts)", compared, withAttempts)
}

// TestTraceHardwareStreamedGoneBad: a tasks.parquet or attempts.parquet
// that goes bad after the trace was opened (an unknown type two thirds in)
// fails the derivation of its cluster with an error naming the file and the
// row that is bad input.
func TestTraceHardwareStreamedGoneBad(t *testing.T) {
	tr := attemptTrace(300)
	for _, file := range []string{trace.TasksFile, trace.AttemptsFile} {
		dir, held, streamed := streamDir(t, tr, trace.StreamOptions{Attempts: true})
		if _, ok, err := replay.TraceHardware(streamed, replay.DefaultHardware()); !ok || err != nil {
			t.Fatalf("before: %v %v", ok, err)
		}
		path := filepath.Join(dir, file)
		var want string
		if file == trace.TasksFile {
			bad := 2 * len(held.Tasks) / 3
			rewriteRow(t, path, func(rows []trace.TaskRow) { rows[bad].Type = "SHUFFLE" })
			want = fmt.Sprintf("%s: row %d: task %q: type \"SHUFFLE\"", path, bad, held.Tasks[bad].TaskID)
		} else {
			bad := 2 * len(held.Attempts) / 3
			rewriteRow(t, path, func(rows []trace.AttemptRow) { rows[bad].Type = "SHUFFLE" })
			want = fmt.Sprintf("%s: row %d: attempt %q: type \"SHUFFLE\"", path, bad, held.Attempts[bad].AttemptID)
		}
		_, ok, err := replay.TraceHardware(streamed, replay.DefaultHardware())
		if ok || err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "cluster derived from the trace: ") ||
			!errors.Is(err, trace.ErrBadInput) {
			t.Errorf("%s gone bad: %v %v\nwant bad input with %q", file, ok, err, want)
		}
	}
}
