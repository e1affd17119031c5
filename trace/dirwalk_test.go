package trace

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// buildTree lays testdata files out as a JobHistoryServer done/ tree with the
// companions and clutter real trees have, and returns its root.
func buildTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	put := func(rel string, data []byte, gz bool) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if gz {
			var b bytes.Buffer
			z := gzip.NewWriter(&b)
			z.Write(data)
			z.Close()
			data = b.Bytes()
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	td := func(rel string) []byte { return readInput(t, filepath.Join("testdata", rel)) }
	sleep := "job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"
	qmc := "job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist"
	tera := "job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist"
	put("done/2012/02/15/000000/"+sleep, td("jhist/"+sleep), false)
	put("done/2012/02/15/000000/job_1329348432655_0001_conf.xml", td("jhist/job_1329348432655_0001_conf.xml"), false)
	put("done/2018/05/17/000000/"+qmc+".gz", td("jhist/"+qmc), true) // compressed, and binary below
	put("done/2018/05/17/000000/job_1526555215992_0001_conf.xml", td("jhist/job_1526555215992_0001_conf.xml"), true)
	put("done/2014/11/19/000000/"+tera, jhistToBinary(t, td("jhist/"+tera)), false)
	put("done/2014/05/16/000000/job_2.4.0-FAILED.jhist", td("jhist/job_2.4.0-FAILED.jhist"), false)
	put("done_intermediate/user/broken.jhist", []byte("Avro-Json\n{\"type\":\"record\"\n"), false)
	put("done_intermediate/user/job_1_1.summary", []byte("jobId=job_1_1,submitTime=1\n"), false)
	put("done/2012/02/15/000000/."+sleep+".crc", []byte{0, 1, 2, 3}, false)
	put("hadoop1/v20-single-input-log", td("hadoop1/v20-single-input-log.gz"), true)
	// a Hadoop 1 history with rack-less hosts that the topology file knows
	small := strings.NewReplacer(`SPLITS="/r1/h1,/r2/h2"`, `SPLITS="cluster50218\.secondleveldomain\.com"`,
		`HOSTNAME="/r2/h2"`, `HOSTNAME="cluster50232\.secondleveldomain\.com"`, `LOCALITY="NODE_LOCAL" `, "").Replace(h1Small)
	put("hadoop1/small", []byte(small), false)
	put("rumen/trace.json", td("rumen/wordcount2.json"), false)
	put("rumen/topology", td("rumen/truncated-topology-output"), false)
	put("sls/inputsls.json", td("sls/inputsls.json"), false)
	put("README", []byte("notes\n"), false)
	return root
}

func TestReadTree(t *testing.T) {
	root := buildTree(t)
	var ds []Diagnostic
	var progress bytes.Buffer
	opt := TreeOptions{HistoryOptions: collect(&ds), Workers: 3, Progress: &progress}
	tr, sum, err := ReadTree(context.Background(), root, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	// 4 .jhist jobs, 2 Hadoop 1 jobs, 2 Rumen jobs (same id), 2 SLS jobs
	if len(tr.Jobs) != 10 {
		t.Fatalf("%d jobs: %+v", len(tr.Jobs), tr.Jobs)
	}
	byID := map[string]Job{}
	for _, j := range tr.Jobs {
		byID[j.ID] = j
	}
	if j := byID["job_1329348432655_0001"]; j.MapMemoryMB != 512 || j.InputPath != "hdfs://localhost:8021/user/user/ignored" {
		t.Errorf("Sleep job not paired with its conf: %+v", j)
	}
	if j := byID["job_1526555215992_0001"]; j.MapMemoryMB != 1024 || j.User != "user" {
		t.Errorf("gzipped QuasiMonteCarlo job not paired with its gzipped conf: %+v", j)
	}
	if j := byID["job_1416424547277_0002"]; j.NumMaps != 2 || j.Status != StatusSucceeded {
		t.Errorf("Avro-Binary TeraGen: %+v", j)
	}
	if _, ok := byID["job_201009241532_0001#2"]; !ok {
		t.Error("repeated Rumen job id not renamed")
	}
	if tr.Meta.SourceFormat != "hadoop1+jhist+rumen+sls" || tr.Meta.Sources[0] != root {
		t.Errorf("meta %+v", tr.Meta)
	}
	// the topology file gives racks to hosts that the histories leave rack-less,
	// and the locality follows
	m := tasksOf(tr, "job_1_0001")[0]
	if m.Rack != "/194.6.133.192" || m.PreferredRacks[0] != "/194.6.133.192" || m.Locality != RackLocal {
		t.Errorf("racks not filled from the topology: %+v", m)
	}
	skipped := sum.Skipped()
	if len(skipped) != 1 || !strings.HasSuffix(skipped[0].Path, "broken.jhist") || skipped[0].Kind != KindJhist ||
		!strings.Contains(skipped[0].Err.Error(), "broken.jhist:2: bad Avro schema") {
		t.Errorf("skipped %+v", skipped)
	}
	if sum.Count(KindJhist, false) != 4 || sum.Count(KindConf, false) != 2 || sum.Count(KindTopology, false) != 1 ||
		sum.Count(KindNotATrace, false) != 3 || sum.Count(KindRumen, false) != 1 {
		t.Errorf("summary %+v", sum.Files)
	}
	if !strings.Contains(progress.String(), "ingest: 15/15 files read, 10 jobs, 1 skipped") {
		t.Errorf("progress %q", progress.String())
	}
	if sum.Diagnostics != len(ds) || !hasDiag(ds, "job ids occur more than once") {
		t.Errorf("%d diagnostics counted, %d reported: %v", sum.Diagnostics, len(ds), ds)
	}
}

// TestReadTreeDeterministic reads the same tree with different numbers of
// workers: the trace, the diagnostics and the summary must not change.
func TestReadTreeDeterministic(t *testing.T) {
	root := buildTree(t)
	read := func(workers int) (*Trace, []Diagnostic, *TreeSummary) {
		var ds []Diagnostic
		tr, sum, err := ReadTree(context.Background(), root, TreeOptions{HistoryOptions: collect(&ds), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		return tr, ds, sum
	}
	tr1, ds1, sum1 := read(1)
	for _, w := range []int{2, 7, 32} {
		tr, ds, sum := read(w)
		if !reflect.DeepEqual(tr, tr1) || !reflect.DeepEqual(ds, ds1) || len(sum.Files) != len(sum1.Files) {
			t.Errorf("%d workers give a different result than 1", w)
		}
	}
}

// TestReadTreeStrict: under Strict the first file in path order that is broken
// or has any warning (Strict turns warnings into errors) is the error.
func TestReadTreeStrict(t *testing.T) {
	root := buildTree(t)
	var ds []Diagnostic
	_, lax, err := ReadTree(context.Background(), root, TreeOptions{HistoryOptions: collect(&ds), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	warned := map[string]bool{}
	for _, d := range ds {
		warned[d.File] = true
	}
	want := ""
	for _, f := range lax.Files {
		if f.Err != nil || warned[f.Path] {
			want = f.Path
			break
		}
	}
	if want == "" {
		t.Fatal("the tree has no broken file")
	}
	for _, w := range []int{1, 4} {
		_, sum, err := ReadTree(context.Background(), root, TreeOptions{HistoryOptions: HistoryOptions{Strict: true}, Workers: w})
		var ie *ParseError
		if !errors.As(err, &ie) || ie.File != want {
			t.Errorf("workers %d: error %v, want one in %s", w, err, want)
		}
		if sum == nil || sum.Files[len(sum.Files)-1].Path != want {
			t.Errorf("workers %d: summary does not end at the failing file", w)
		}
	}
}

func TestReadTreeSingleFileAndErrors(t *testing.T) {
	tr, sum, err := ReadTree(context.Background(), "testdata/hadoop1/v20-single-input-log.gz", TreeOptions{})
	if err != nil || len(tr.Jobs) != 1 || len(sum.Files) != 1 || sum.Files[0].Kind != KindHadoop1 {
		t.Errorf("single file: %v %+v", err, sum)
	}
	if _, _, err := ReadTree(context.Background(), "testdata/does-not-exist", TreeOptions{}); err == nil {
		t.Error("missing root accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ReadTree(ctx, "testdata", TreeOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// a corrupt gzip stream is a skipped file
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.gz"), []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}, 0o644)
	_, sum, err = ReadTree(context.Background(), dir, TreeOptions{})
	if err != nil || len(sum.Skipped()) != 1 {
		t.Errorf("corrupt gzip: %v %+v", err, sum)
	}
}

// TestReadTreeShared reads the whole folder of real traces: every job history,
// Rumen trace and SLS job file in it is read, none is skipped.
func TestReadTreeShared(t *testing.T) {
	t.Parallel()
	sharedFiles(t, "jhist") // skips when absent
	var ds []Diagnostic
	tr, sum, err := ReadTree(context.Background(), sharedTraces, TreeOptions{HistoryOptions: collect(&ds)})
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	if s := sum.Skipped(); len(s) != 0 {
		t.Errorf("skipped %+v", s)
	}
	jobs := 0
	for _, f := range sum.Files {
		dir := filepath.Base(filepath.Dir(f.Path))
		switch {
		case strings.Contains(f.Path, "/swim/") && strings.HasSuffix(f.Path, ".tsv"):
			if f.Kind != KindNotATrace || !strings.HasPrefix(f.Note, "SWIM workload") {
				t.Errorf("%s read as %q (%s)", f.Path, f.Kind, f.Note)
			}
		case strings.HasSuffix(f.Path, ".md"), strings.Contains(f.Path, "/swim/"), strings.HasPrefix(filepath.Base(f.Path), "syn"):
			if f.Kind != KindNotATrace {
				t.Errorf("%s read as %q", f.Path, f.Kind)
			}
		case f.Kind == KindNotATrace:
			t.Errorf("%s (in %s) not recognised", f.Path, dir)
		}
		jobs += f.Jobs
	}
	if jobs != len(tr.Jobs) {
		t.Errorf("files gave %d jobs, trace has %d", jobs, len(tr.Jobs))
	}
	// 5 .jhist jobs, 4+1+2 Hadoop 1 jobs, 2+4+59+89+4+1+1+2+2 Rumen jobs, 2+2 SLS jobs
	if want := 5 + 7 + 164 + 4; len(tr.Jobs) != want {
		t.Errorf("%d jobs, want %d", len(tr.Jobs), want)
	}
}

func TestReadTreeOnly(t *testing.T) {
	root := buildTree(t)
	tr, sum, err := ReadTree(context.Background(), root, TreeOptions{Only: KindRumen})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 2 || tr.Meta.SourceFormat != "rumen" {
		t.Errorf("jobs %+v, format %q", tr.Jobs, tr.Meta.SourceFormat)
	}
	notes := 0
	for _, f := range sum.Files {
		if f.Kind == KindNotATrace && strings.HasSuffix(f.Note, "not rumen") {
			notes++
		}
	}
	// 5 .jhist (one broken), 2 Hadoop 1 and 1 SLS file are left out by name
	if notes != 8 || sum.Count(KindConf, false) != 2 || sum.Count(KindTopology, false) != 1 {
		t.Errorf("%d files left out; summary %+v", notes, sum.Files)
	}
}
