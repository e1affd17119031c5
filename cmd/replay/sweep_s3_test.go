package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tracereplay/tracereplay/internal/store"
)

// TestSweepS3 runs a sweep's shards and merge into an in-process fake S3
// (gofakes3) through an s3:// URL with ?endpoint=, and reads the results back
// with report: the same table as from replay --experiment's directory, and the
// same files.
func TestSweepS3(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("results"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "fake")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "fake")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	url := "s3://results/sweeps/s?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true"

	dir := t.TempDir()
	spec := sweepSpecFile(t, dir, "1, 2, 3")
	ctx := context.Background()
	one := filepath.Join(dir, "one")
	if code, _, e := runIn(ctx, "--experiment", spec, "--out", one, "--quiet", "--parallel", "1"); code != 0 {
		t.Fatalf("replay --experiment: exit %d: %s", code, e)
	}
	for _, k := range []string{"0/2", "1/2"} {
		if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", k, "--out", url); code != 0 || !strings.Contains(e, "3 run, 0 skipped") {
			t.Fatalf("shard %s: exit %d: %s", k, code, e)
		}
	}
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "1/2", "--out", url); code != 0 || !strings.Contains(e, "0 run, 3 skipped") {
		t.Fatalf("shard 1/2 again: exit %d: %s", code, e)
	}
	if code, _, e := runIn(ctx, "merge", "--experiment", spec, "--out", url); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	if _, err := backend.HeadObject("results", "sweeps/s/manifest.json"); err != nil {
		t.Fatalf("no manifest.json in the bucket: %v", err)
	}

	got := filepath.Join(dir, "got")
	if err := store.Download(ctx, url, got); err != nil {
		t.Fatal(err)
	}
	sameResults(t, one, got)

	// report reads the bucket (a local copy) as it reads a directory.
	report := filepath.Join(buildTools(t), "report")
	local, err := exec.Command(report, one).Output()
	if err != nil {
		t.Fatalf("report %s: %v", one, err)
	}
	remote, err := exec.Command(report, url).Output()
	if err != nil {
		t.Fatalf("report %s: %v", url, err)
	}
	if string(local) != string(remote) {
		t.Errorf("report of the bucket differs from report of replay --experiment's directory:\n%s\nvs\n%s", remote, local)
	}

	// A missing bucket: exit 2, naming the URL (an unreachable endpoint:
	// TestSweepS3Unreachable).
	bad := "s3://nosuchbucket/x?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true"
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "0/2", "--out", bad); code != 2 || !strings.Contains(e, bad) {
		t.Errorf("--out %s: exit %d: %s", bad, code, e)
	}
}

// TestSweepS3Unreachable: a sweep whose --out names an unreachable endpoint
// exits 2, naming the URL. The S3 client retries for 2 to 5 s of wall time
// before it gives up (with almost no CPU), so the run is a child process
// given TestSweepS3's fake credentials in its own environment, not through
// t.Setenv, and the test runs in parallel with the others.
func TestSweepS3Unreachable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := sweepSpecFile(t, dir, "1, 2, 3")
	bad := "s3://results/x?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true"
	cmd := exec.Command(mainBinary(t), "sweep", "--experiment", spec, "--shard", "0/2", "--out", bad)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=fake", "AWS_SECRET_ACCESS_KEY=fake",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "none"),
		"AWS_EC2_METADATA_DISABLED=true")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), bad) {
		t.Errorf("--out %s: exit %d (%v): %s", bad, code, err, stderr.String())
	}
}
