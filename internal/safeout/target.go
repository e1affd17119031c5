package safeout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options change what Open accepts.
type Options struct {
	// Force replaces the target whatever it holds (the user's --force).
	Force bool
}

// Target is an output directory locked for one command: Open it, Publish the
// new contents, Close it.
type Target struct {
	path, parent, base string
	owner              Owner
	opt                Options
	lock               *lockFile
	made               []string // parent directories Open created, outermost last
	published          bool
	// Recovered describes what Open found left by an interrupted earlier run
	// and repaired, one sentence each (for a note on stderr).
	Recovered []string
}

// Open locks the output directory path for owner and checks that it may be
// replaced. It creates path's parent directory if needed, takes the lock (a
// second Open of the same path, in this process or another, fails at once
// with an error wrapping ErrLocked), repairs what an interrupted earlier run
// left beside path (restores path from .NAME.old-* when path is missing,
// removes stale .NAME.old-* and .NAME.tmp-* directories), and refuses (an
// error wrapping ErrNotOwned) a path it may not replace unless opt.Force.
func Open(path string, owner Owner, opt Options) (*Target, error) {
	if path == "" {
		return nil, errors.New("empty output path")
	}
	clean := filepath.Clean(path)
	parent, base := filepath.Split(clean)
	if parent == "" {
		parent = "."
	}
	if base == "." || base == ".." || base == "" {
		return nil, fmt.Errorf("refusing to replace %s: %w", path, refuse("name a directory of its own, not the current, parent or root directory"))
	}
	t := &Target{path: clean, parent: parent, base: base, owner: owner, opt: opt}
	if err := t.makeParent(); err != nil {
		t.removeMade()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	lk, err := acquire(filepath.Join(parent, "."+base+".lock"))
	if err != nil {
		t.removeMade()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.lock = lk
	if err := t.recover(); err != nil {
		t.Close()
		return nil, fmt.Errorf("%s: recovering from an interrupted run: %w", path, err)
	}
	if err := t.Check(); err != nil {
		t.Close()
		if len(t.Recovered) > 0 {
			err = fmt.Errorf("%w (note: %s)", err, strings.Join(t.Recovered, "; "))
		}
		return nil, err
	}
	return t, nil
}

// Path returns the target directory.
func (t *Target) Path() string { return t.path }

// Check reports whether the target may be replaced (see Open); with Force it
// always may.
func (t *Target) Check() error {
	if t.opt.Force {
		return nil
	}
	if err := checkOwned(t.path, t.owner); err != nil {
		if errors.Is(err, ErrNotOwned) {
			return fmt.Errorf("refusing to replace %s: not a %s directory %s wrote (%w); pass --force to replace it anyway",
				t.path, t.owner.Kind, t.owner.Command, err)
		}
		return fmt.Errorf("%s: %w", t.path, err)
	}
	return nil
}

// Close releases the lock; the lock file is removed, and so are the parent
// directories Open created when nothing was published. Close may be called
// more than once.
func (t *Target) Close() error {
	if t.lock == nil {
		return nil
	}
	err := t.lock.release()
	t.lock = nil
	if !t.published {
		t.removeMade()
	}
	return err
}

// makeParent creates the missing parent directories of the target, recording
// them in t.made.
func (t *Target) makeParent() error {
	var missing []string
	for d := t.parent; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		t.made = append([]string{missing[i]}, t.made...)
	}
	return nil
}

// removeMade removes the (still empty) directories makeParent created.
func (t *Target) removeMade() {
	for _, d := range t.made {
		os.Remove(d)
	}
	t.made = nil
}

// tmpPrefix and oldPrefix start the names of the hidden directories beside
// the target: the one being built, and the old contents moved aside.
func (t *Target) tmpPrefix() string { return "." + t.base + ".tmp-" }
func (t *Target) oldPrefix() string { return "." + t.base + ".old-" }

// ours reports whether name is prefix followed by the digits os.MkdirTemp
// puts in place of "*".
func ours(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return false
	}
	return strings.Trim(rest, "0123456789") == ""
}

// recover repairs what an interrupted Publish left beside the target; the lock
// is held, so nothing else is publishing it.
func (t *Target) recover() error {
	ents, err := os.ReadDir(t.parent)
	if err != nil {
		return err
	}
	_, statErr := os.Lstat(t.path)
	missing := errors.Is(statErr, fs.ErrNotExist)
	for _, e := range ents {
		p := filepath.Join(t.parent, e.Name())
		switch {
		case ours(e.Name(), t.oldPrefix()) && missing:
			if err := os.Rename(p, t.path); err != nil {
				return err
			}
			missing = false
			t.Recovered = append(t.Recovered, fmt.Sprintf("restored %s from %s, left by an interrupted run", t.path, p))
		case ours(e.Name(), t.oldPrefix()):
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			t.Recovered = append(t.Recovered, fmt.Sprintf("removed %s, the old contents of %s left by an interrupted run", p, t.path))
		case ours(e.Name(), t.tmpPrefix()):
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			t.Recovered = append(t.Recovered, fmt.Sprintf("removed %s, left by an interrupted run", p))
		}
	}
	return nil
}

// Publish replaces the target with a directory built by fill: fill writes into
// tmp, a fresh hidden directory beside the target; Publish adds the marker,
// syncs every file, checks that the target may still be replaced and that ctx
// is not done, and swaps tmp into place (see the package comment). On any
// error, or when ctx is done, tmp is removed and the target left as it was.
func (t *Target) Publish(ctx context.Context, fill func(tmp string) error) (err error) {
	if t.lock == nil {
		return fmt.Errorf("%s: publish after Close", t.path)
	}
	tmp, err := os.MkdirTemp(t.parent, t.tmpPrefix()+"*")
	if err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it private
		return fmt.Errorf("%s: %w", t.path, err)
	}
	if err := fill(tmp); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: not replaced: %w", t.path, err)
	}
	if err := writeMarker(tmp, t.owner); err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	if err := syncTree(tmp); err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	if err := t.Check(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: not replaced: %w", t.path, err)
	}
	if err := t.swap(tmp); err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	t.published = true
	return nil
}

// swap puts tmp in the target's place.
func (t *Target) swap(tmp string) error {
	if _, err := os.Lstat(t.path); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, t.path); err != nil {
			return err
		}
		return syncDir(t.parent)
	}
	switch err := exchange(tmp, t.path); {
	case err == nil:
		// tmp now holds the old contents.
		if err := syncDir(t.parent); err != nil {
			return err
		}
		return os.RemoveAll(tmp)
	case !errors.Is(err, errNoExchange):
		return err
	}
	return t.swapAside(tmp)
}

// swapAside is swap without an atomic exchange: the old directory is renamed
// to .NAME.old-*, tmp to the target, then the old one removed. A crash between
// the two renames leaves the old directory aside; the next Open restores it.
func (t *Target) swapAside(tmp string) error {
	hold, err := os.MkdirTemp(t.parent, t.oldPrefix()+"*")
	if err != nil {
		return err
	}
	if err := os.Remove(hold); err != nil { // only its unique name is needed
		return err
	}
	if err := os.Rename(t.path, hold); err != nil {
		return err
	}
	if err := os.Rename(tmp, t.path); err != nil {
		if rerr := os.Rename(hold, t.path); rerr != nil {
			return fmt.Errorf("%w (and restoring the old directory failed: %v; it is at %s)", err, rerr, hold)
		}
		return err
	}
	if err := syncDir(t.parent); err != nil {
		return err
	}
	return os.RemoveAll(hold)
}

// syncTree fsyncs every file and directory under dir.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return syncDir(p)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

// IsScratch reports whether a directory entry's name is one of the hidden
// directories Publish works with beside a target (.NAME.tmp-* or
// .NAME.old-*): a reader walking a tree should skip them, as they hold a
// half-built or a replaced output.
func IsScratch(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	for _, mark := range []string{".tmp-", ".old-"} {
		if i := strings.LastIndex(name, mark); i > 0 && ours(name[i:], mark) {
			return true
		}
	}
	return false
}
