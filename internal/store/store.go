// Package store is where a sharded sweep keeps its results: a local directory
// (a path or a file:// URL) or a bucket of object storage named by a URL that
// gocloud.dev/blob opens (s3://, gs://, mem://; see blob.go).
//
// A cell is built in a local staging directory and then published under its
// key: on a local directory by one rename, so that a cell is either absent or
// complete; in a bucket by uploading its files with the file named last
// (cell.json) uploaded after all the others, so that a cell whose last file is
// present is complete and one without it is not taken as done. A bucket has no
// rename: an upload killed half-way leaves some of the cell's objects without
// its last file, until the cell is redone.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrNotExist is returned (wrapped) by Get for a key that holds nothing.
var ErrNotExist = fs.ErrNotExist

// ErrUnreachable is returned (wrapped) by Open when the URL names a scheme
// that is not known, a malformed URL, or a bucket that cannot be reached.
var ErrUnreachable = errors.New("results location not usable")

// Store is a results location: keys are slash-separated paths relative to it.
type Store interface {
	// Get reads the object at key; a missing object is ErrNotExist.
	Get(ctx context.Context, key string) ([]byte, error)
	// Put writes the object at key atomically: readers see the old object or
	// the whole new one.
	Put(ctx context.Context, key string, data []byte) error
	// PutNew writes data at key unless an object is there already, and
	// returns what is at key afterwards (data when it was written).
	PutNew(ctx context.Context, key string, data []byte) ([]byte, error)
	// Staging returns a new empty local directory in which a cell is built
	// before Publish, and a function that removes it.
	Staging() (string, func(), error)
	// Publish moves the files of the local directory src under key,
	// replacing what was there; the file named last is written after all
	// the others.
	Publish(ctx context.Context, src, key, last string) error
	// Delete removes the object at key (nothing when it is absent).
	Delete(ctx context.Context, key string) error
	// String is the location as the user named it.
	String() string
	// Close releases the location.
	Close() error
}

// IsLocal reports whether loc names a local directory: a path, or a file://
// URL.
func IsLocal(loc string) bool {
	u, err := url.Parse(loc)
	if err != nil || u.Scheme == "" || u.Scheme == "file" {
		return true
	}
	// A Windows drive letter parses as a scheme of one letter.
	return len(u.Scheme) == 1
}

// LocalPath is the directory a local location names.
func LocalPath(loc string) (string, error) {
	if strings.HasPrefix(loc, "file://") {
		u, err := url.Parse(loc)
		if err != nil {
			return "", fmt.Errorf("%s: %w: %v", loc, ErrUnreachable, err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Errorf("%s: %w: a file:// URL names a path on this machine (file:///abs/path)", loc, ErrUnreachable)
		}
		return filepath.FromSlash(u.Path), nil
	}
	return loc, nil
}

// Open opens the results location loc: a local directory (created when
// needed) or a bucket URL. A bucket that cannot be reached is an error
// wrapping ErrUnreachable.
func Open(ctx context.Context, loc string) (Store, error) {
	if IsLocal(loc) {
		p, err := LocalPath(loc)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, fmt.Errorf("%q: %w: empty path", loc, ErrUnreachable)
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", loc, ErrUnreachable, err)
		}
		return &localStore{dir: p, name: loc}, nil
	}
	return openBucket(ctx, loc) // blob.go
}

// localStore is a directory on this machine.
type localStore struct {
	dir, name string
}

// stagingDir is the folder under a local store in which cells are built, so
// that Publish is a rename on one file system. Its name starts with a dot:
// Hive readers (Spark, DuckDB's hive_partitioning with a glob of
// partitions) do not take it for a partition.
const stagingDir = ".sweep-staging"

func (s *localStore) path(key string) string { return filepath.Join(s.dir, filepath.FromSlash(key)) }

func (s *localStore) String() string { return s.name }
func (s *localStore) Close() error   { return nil }

func (s *localStore) Get(_ context.Context, key string) ([]byte, error) {
	b, err := os.ReadFile(s.path(key))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path(key), err)
	}
	return b, nil
}

func (s *localStore) Put(_ context.Context, key string, data []byte) error {
	p := s.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(p, data)
}

func (s *localStore) PutNew(_ context.Context, key string, data []byte) ([]byte, error) {
	p := s.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	// Written whole beside it, then linked into place: link fails when the
	// name exists, so two shards starting at once agree on one object.
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if err := os.Link(tmp.Name(), p); err == nil {
		return data, syncDir(filepath.Dir(p))
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return b, nil
}

func (s *localStore) Staging() (string, func(), error) {
	base := filepath.Join(s.dir, stagingDir)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", nil, err
	}
	d, err := os.MkdirTemp(base, "cell-*")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// Publish renames src into place. A cell there already (one being redone,
// or left without its last file) is renamed aside into the staging folder
// first and removed after: readers see the old cell, no cell for an instant,
// or the new one, never a mixture.
func (s *localStore) Publish(_ context.Context, src, key, last string) error {
	if _, err := os.Stat(filepath.Join(src, last)); err != nil {
		return fmt.Errorf("publish %s: %w", key, err)
	}
	dst := s.path(key)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := syncTree(src); err != nil {
		return fmt.Errorf("publish %s: %w", dst, err)
	}
	if _, err := os.Lstat(dst); err == nil {
		aside, err := os.MkdirTemp(filepath.Join(s.dir, stagingDir), "old-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(aside)
		// Its last file goes first, so that it stops counting as complete
		// before anything else of it moves.
		os.Remove(filepath.Join(dst, last))
		if err := os.Rename(dst, filepath.Join(aside, "cell")); err != nil {
			return fmt.Errorf("publish %s: %w", dst, err)
		}
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("publish %s: %w", dst, err)
	}
	return syncDir(filepath.Dir(dst))
}

func (s *localStore) Delete(_ context.Context, key string) error {
	err := os.RemoveAll(s.path(key))
	if err != nil {
		return fmt.Errorf("%s: %w", s.path(key), err)
	}
	return nil
}

// CleanStaging removes what killed shards left in a local store's staging
// folder; merge calls it once every shard is done. It does nothing for a
// bucket (nothing is staged there).
func CleanStaging(st Store) error {
	if s, ok := st.(*localStore); ok {
		return os.RemoveAll(filepath.Join(s.dir, stagingDir))
	}
	return nil
}

// JoinKey joins slash-separated key parts.
func JoinKey(parts ...string) string { return path.Join(parts...) }

// writeFileAtomic writes a hidden temporary file beside p, syncs it and
// renames it over p.
func writeFileAtomic(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", p, err)
	}
	return syncDir(filepath.Dir(p))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// syncTree syncs every file and directory under dir.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
			return fmt.Errorf("sync %s: %w", p, err)
		}
		return nil
	})
}
