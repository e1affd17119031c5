package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/memblob" // mem://
	_ "gocloud.dev/blob/s3blob"  // s3:// (and S3-compatible stores: ?endpoint=…)
	"gocloud.dev/gcerrors"
)

// ReachTimeout bounds the check that a bucket can be reached when it is
// opened.
const ReachTimeout = 30 * time.Second

// bucketURL splits a bucket URL into what blob.OpenBucket takes (scheme,
// bucket and query) and the key prefix its path names: s3://b/runs/x?region=r
// opens s3://b?region=r with the prefix "runs/x/".
func bucketURL(loc string) (open, prefix string, err error) {
	u, err := url.Parse(loc)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w: %v", loc, ErrUnreachable, err)
	}
	prefix = strings.Trim(u.Path, "/")
	if prefix != "" {
		prefix += "/"
	}
	u.Path, u.RawPath = "", ""
	return u.String(), prefix, nil
}

// openBucket opens a bucket URL and checks that it can be reached.
func openBucket(ctx context.Context, loc string) (Store, error) {
	open, prefix, err := bucketURL(loc)
	if err != nil {
		return nil, err
	}
	b, err := openScheme(ctx, open)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", loc, ErrUnreachable, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix)
	}
	cctx, cancel := context.WithTimeout(ctx, ReachTimeout)
	defer cancel()
	if ok, err := b.IsAccessible(cctx); !ok || err != nil {
		b.Close()
		if err == nil {
			err = errors.New("the bucket does not exist")
		}
		return nil, fmt.Errorf("%s: %w: %v", loc, ErrUnreachable, err)
	}
	return &bucketStore{b: b, name: loc}, nil
}

// openScheme opens a bucket through gocloud.dev's URL mux; gs:// needs the
// gcs build tag (gcs.go), which links Google's client libraries.
func openScheme(ctx context.Context, open string) (*blob.Bucket, error) {
	if strings.HasPrefix(open, "gs://") && !gcsLinked {
		return nil, errors.New("gs:// needs a replay built with -tags gcs (go build -tags gcs ./cmd/...), or Cloud Storage's S3-compatible API: s3://BUCKET/PREFIX?endpoint=https://storage.googleapis.com&region=auto with HMAC keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	return blob.OpenBucket(ctx, open)
}

// bucketStore is a bucket, or a prefix of one.
type bucketStore struct {
	b    *blob.Bucket
	name string
}

func (s *bucketStore) String() string { return s.name }
func (s *bucketStore) Close() error   { return s.b.Close() }

func (s *bucketStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.b.ReadAll(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%s: %s: %w", s.name, key, ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.name, key, err)
	}
	return b, nil
}

// Put writes one object; an object store replaces an object whole.
func (s *bucketStore) Put(ctx context.Context, key string, data []byte) error {
	if err := s.b.WriteAll(ctx, key, data, nil); err != nil {
		return fmt.Errorf("%s: %s: %w", s.name, key, err)
	}
	return nil
}

// PutNew writes with If-None-Match where the store supports it; where it
// does not, two shards starting in the same instant may both write the
// object (with the same content when they agree on the spec).
func (s *bucketStore) PutNew(ctx context.Context, key string, data []byte) ([]byte, error) {
	if b, err := s.Get(ctx, key); err == nil {
		return b, nil
	} else if !errors.Is(err, ErrNotExist) {
		return nil, err
	}
	err := s.b.WriteAll(ctx, key, data, &blob.WriterOptions{IfNotExist: true})
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return s.Get(ctx, key)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.name, key, err)
	}
	return data, nil
}

func (s *bucketStore) Staging() (string, func(), error) {
	d, err := os.MkdirTemp("", "tracereplay-cells-*")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// Publish removes the cell's last file first (a cell being redone stops
// counting as complete), uploads the new files, removes what the cell held
// and the new one does not, and uploads the last file.
func (s *bucketStore) Publish(ctx context.Context, src, key, last string) error {
	prefix := strings.TrimSuffix(key, "/") + "/"
	if err := s.Delete(ctx, prefix+last); err != nil {
		return err
	}
	had := map[string]bool{}
	it := s.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("%s: list %s: %w", s.name, prefix, err)
		}
		had[obj.Key] = true
	}
	put := func(rel string) error {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		delete(had, prefix+rel)
		return s.Put(ctx, prefix+rel, b)
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel = filepath.ToSlash(rel); rel == last {
			return nil
		}
		return put(rel)
	})
	if err != nil {
		return fmt.Errorf("publish %s/%s: %w", s.name, key, err)
	}
	for k := range had {
		if path.Base(k) != last {
			if err := s.Delete(ctx, k); err != nil {
				return err
			}
		}
	}
	if err := put(last); err != nil {
		return fmt.Errorf("publish %s/%s: %w", s.name, key, err)
	}
	return nil
}

func (s *bucketStore) Delete(ctx context.Context, key string) error {
	err := s.b.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("%s: delete %s: %w", s.name, key, err)
	}
	return nil
}

// Download copies every object under the location loc (a bucket URL) into
// the local directory dst, keys as relative paths; report reads a sweep's
// results from object storage this way.
func Download(ctx context.Context, loc, dst string) error {
	st, err := Open(ctx, loc)
	if err != nil {
		return err
	}
	defer st.Close()
	s, ok := st.(*bucketStore)
	if !ok {
		return fmt.Errorf("%s: not a bucket URL", loc)
	}
	it := s.b.List(nil)
	n := 0
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: list: %w", loc, err)
		}
		if obj.IsDir {
			continue
		}
		rel := filepath.FromSlash(obj.Key)
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("%s: key %q is not a relative path", loc, obj.Key)
		}
		b, err := s.b.ReadAll(ctx, obj.Key)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", loc, obj.Key, err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s: no objects there", loc)
	}
	return nil
}
