package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestBucketURL(t *testing.T) {
	for _, c := range []struct{ in, open, prefix string }{
		{"s3://b/runs/x?region=r&endpoint=http://h:9000", "s3://b?region=r&endpoint=http://h:9000", "runs/x/"},
		{"s3://b?region=r", "s3://b?region=r", ""},
		{"mem://", "mem:", ""},
	} {
		open, prefix, err := bucketURL(c.in)
		if err != nil || prefix != c.prefix || (open != c.open && open != "mem://") {
			t.Errorf("bucketURL(%q) = %q, %q, %v; want %q, %q", c.in, open, prefix, err, c.open, c.prefix)
		}
	}
	for loc, local := range map[string]bool{"dir": true, "/a/b": true, "file:///a/b": true, `C:\x`: true, "s3://b": false, "mem://": false, "gs://b/p": false} {
		if IsLocal(loc) != local {
			t.Errorf("IsLocal(%q) = %v", loc, !local)
		}
	}
}

// TestLocalPublish: a cell replaced by Publish is the new one whole; PutNew
// keeps the first object.
func TestLocalPublish(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, files := range []map[string]string{{"a": "1", "b": "1", "last": "1"}, {"a": "2", "last": "2"}} {
		src, cleanup, err := st.Staging()
		if err != nil {
			t.Fatal(err)
		}
		for f, v := range files {
			os.WriteFile(filepath.Join(src, f), []byte(v), 0o644)
		}
		if err := st.Publish(ctx, src, "x=1/y=2", "last"); err != nil {
			t.Fatal(err)
		}
		cleanup()
		ents, _ := os.ReadDir(filepath.Join(dir, "x=1", "y=2"))
		if len(ents) != len(files) {
			t.Errorf("publish %d: %d files, want %d", i, len(ents), len(files))
		}
		if b, _ := st.Get(ctx, "x=1/y=2/a"); string(b) != files["a"] {
			t.Errorf("publish %d: a = %q", i, b)
		}
	}
	if b, err := st.PutNew(ctx, "s.json", []byte("first")); err != nil || string(b) != "first" {
		t.Fatalf("PutNew: %q %v", b, err)
	}
	if b, err := st.PutNew(ctx, "s.json", []byte("second")); err != nil || string(b) != "first" {
		t.Fatalf("PutNew again: %q %v", b, err)
	}
	if _, err := st.Get(ctx, "nothing"); !errors.Is(err, ErrNotExist) {
		t.Errorf("Get of nothing: %v", err)
	}
	if err := CleanStaging(st); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, "nosuch://x"); !errors.Is(err, ErrUnreachable) {
		t.Errorf("unknown scheme: %v", err)
	}
}
