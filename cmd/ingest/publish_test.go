package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/trace"
)

// mainCmd is the name under which the test binary runs this package's main
// (signal handling and all), as the built ingest binary would: TestSignal
// execs the test binary through a link of that name instead of linking ingest,
// which costs a few CPU-seconds.
const mainCmd = "ingest-main"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == mainCmd {
		main() // exits
	}
	os.Exit(m.Run())
}

func ingest(args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, nil, &stdout, &stderr)
	return code, stderr.String()
}

// TestOutKeepsUserFiles: a file the user put into a trace directory ingest
// wrote is never deleted by a rerun (exit 2 naming it and --force); --force
// replaces the directory; a rerun replaces ingest's own directory.
func TestOutKeepsUserFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace")
	if code, errOut := ingest("--out", out, sample); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, errOut := ingest("--out", out, "--generate", "synthetic", "--param", "jobs=3"); code != exitOK {
		t.Fatalf("rerun over its own trace: exit %d: %s", code, errOut)
	}
	notes := filepath.Join(out, "NOTES.md")
	os.WriteFile(notes, []byte("mine"), 0o644)
	code, errOut := ingest("--out", out, sample)
	if code != exitUsage || !strings.Contains(errOut, "NOTES.md") || !strings.Contains(errOut, "--force") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming NOTES.md and --force", code, errOut)
	}
	if b, _ := os.ReadFile(notes); string(b) != "mine" {
		t.Fatal("the user's file was changed")
	}
	if code, errOut := ingest("--out", out, "--force", sample); code != exitOK {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("--force kept NOTES.md: %v", err)
	}
	tr, err := trace.Read(out)
	if err != nil || len(tr.Jobs) != 50 {
		t.Fatalf("the replaced trace: %v", err)
	}
}

// TestOutLocked: while another run holds --out, ingest fails at once with exit 2
// and creates nothing.
func TestOutLocked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace")
	held, err := safeout.Open(out, trace.TraceOwner, safeout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, errOut := ingest("--out", out, sample)
	if code != exitUsage || !strings.Contains(errOut, "another run is writing it") {
		t.Fatalf("exit %d, stderr %q; want exit 2 saying another run is writing it", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists: %v", out, err)
	}
}

// TestOutRefusesOtherKind: a results directory is not a trace
// directory: replay's marker does not let ingest replace it.
func TestOutRefusesOtherKind(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs")
	res, err := safeout.Open(out, safeout.Owner{Command: "replay", Kind: "results"}, safeout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Publish(context.Background(), func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "manifest.json"), []byte("{}"), 0o644)
	}); err != nil {
		t.Fatal(err)
	}
	res.Close()
	code, errOut := ingest("--out", out, sample)
	if code != exitUsage || !strings.Contains(errOut, "it holds a results replay wrote") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestSignal is issue 10 item 4 for ingest: SIGINT or SIGTERM while the input is
// still being read stops ingest with exit 130 or 143, and it leaves neither the
// output directory nor a temporary or lock file.
func TestSignal(t *testing.T) {
	bin := mainLink(t)
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		parent := t.TempDir()
		cmd := exec.Command(bin, "--out", filepath.Join(parent, "trace"), "-")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdin.Write(data[:len(data)/2]) // ingest now waits for the rest
		if err := waitLock(parent); err != nil {
			t.Errorf("%v: no lock file within 20 s of ingest's start: %v", c.sig, err)
		}
		cmd.Process.Signal(c.sig)
		time.Sleep(100 * time.Millisecond)
		stdin.Write(data[len(data)/2:])
		stdin.Close()
		cmd.Wait()
		if got := cmd.ProcessState.ExitCode(); got != c.code {
			t.Errorf("%v: exit %d, want %d; stderr %q", c.sig, got, c.code, stderr.String())
		}
		if ents, _ := os.ReadDir(parent); len(ents) != 0 {
			t.Errorf("%v: %s holds %v after the signal, want nothing", c.sig, parent, ents)
		}
	}
}

// TestSignalStopsReading: SIGINT while ingest reads an input that is still
// arriving (a line every 20 ms, as a slow decompressor or a file of many
// gigabytes feeds it) stops it at its next read, with 130 and nothing
// written. The readers look at no context; without readOne's contextReader
// ingest reads on until its input ends.
func TestSignalStopsReading(t *testing.T) {
	bin := mainLink(t)
	parent := t.TempDir()
	cmd := exec.Command(bin, "--out", filepath.Join(parent, "trace"), "-")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		cmd.Wait()
	}()
	feeding := make(chan struct{})
	go func() { // the input keeps arriving until the process ends
		defer close(feeding)
		defer stdin.Close()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := stdin.Write([]byte("job" + strconv.Itoa(i) + "\t0\t0\t1000\t100\t10\n")); err != nil {
				return
			}
		}
	}()
	if err := waitLock(parent); err != nil {
		t.Errorf("no lock file within 20 s of ingest's start: %v", err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("ingest did not stop within 10 s of the signal while its input kept arriving")
	}
	<-feeding
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Errorf("exit %d, want 130; stderr %q", got, stderr.String())
	}
	// The signal can come before the first read (just after the lock is
	// taken) or during it.
	if !interruptedRe.MatchString(stderr.String()) {
		t.Errorf("stderr %q: want the interruption named", stderr.String())
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("%s holds %v after the signal, want nothing", parent, ents)
	}
}

// interruptedRe is ingest's message for a signal before or while it reads
// standard input.
var interruptedRe = regexp.MustCompile(`ingest: interrupted (before|while) reading -; nothing written\n`)

// mainLink returns a link named mainCmd to the test binary, which then runs
// this package's main, signal handling and all, as the built ingest does.
func mainLink(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), mainCmd)
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// waitLock waits up to 20 s for the lock file ingest takes in parent once it
// has started and parsed its flags (rather than a fixed time: 300 ms was too
// short once at load average 13), and returns the last Stat error.
func waitLock(parent string) error {
	lock := filepath.Join(parent, ".trace.lock")
	_, err := os.Stat(lock)
	for deadline := time.Now().Add(20 * time.Second); err != nil && time.Now().Before(deadline); _, err = os.Stat(lock) {
		time.Sleep(10 * time.Millisecond)
	}
	return err
}
