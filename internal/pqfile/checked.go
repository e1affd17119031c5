package pqfile

import (
	"io"
	"io/fs"
	"sync"

	"github.com/tracereplay/tracereplay/internal/pqbounds"
)

// Checked runs the bounds check (pqbounds.Check) once per version of a
// file: a reader that reads one file several times in a process (the trace
// reader opens a trace's files once per pass) decompresses its pages to
// check them at the first open only, and at the first open after the file
// changed. The zero Checked is ready to use, and is safe for concurrent use.
//
// A version is the identity and the stamps that fstat gives the open file
// being checked: device and inode, size, modification and status-change
// times (to the nanosecond). Writing the file in place changes its
// modification and status-change times, truncating it its size too;
// replacing it (a rename over it, a new trace written at the path) changes
// its inode; restoring the old modification time (touch -r, os.Chtimes)
// changes the status-change time, which only the kernel sets. The stamps
// are taken from the file handed to the check, before the check reads it,
// so that a version is only remembered as checked if the bytes checked were
// that version's. A file that fails the check is not remembered: the next
// open checks it again.
//
// This keeps what the check protects against. It exists because parquet-go
// allocates from a file's claims before reading what backs them; a file
// whose claims passed cannot change without its stamps changing, except by a
// write in the same clock tick as the check's fstat, which is the race every
// open already has between the check and parquet-go's reads of the same
// file (a stream reads it for minutes after the check). The alternative,
// sharing one open file (or one parquet.File) among a process's passes, was
// not chosen: an open file still sees writes made in place after its check,
// so it would need these stamps too, and it would not see a file replaced at
// its path, which the readers must find when a trace changes between two
// cells of a run.
//
// Only files that can give these stamps are remembered (an *os.File on
// Linux); any other reader is checked at each open, as pqbounds.Check does.
type Checked struct {
	mu   sync.Mutex
	seen map[fileID]fileStamp // the version of each file that passed
	runs map[string]int       // checks run, by the file's name
}

// fileID is a file's device and inode.
type fileID struct{ dev, ino uint64 }

// fileStamp is what changes when a file is written: its size, and its
// modification and status-change times in nanoseconds.
type fileStamp struct{ size, mtime, ctime int64 }

// statFile is a reader that is an open file (*os.File).
type statFile interface {
	Stat() (fs.FileInfo, error)
	Name() string
}

// Check checks the file r of size bytes as pqbounds.Check does, unless this
// version of it has passed before (see Checked).
func (c *Checked) Check(r io.ReaderAt, size int64) error {
	f, ok := r.(statFile)
	if !ok {
		return pqbounds.Check(r, size)
	}
	var id fileID
	var stamp fileStamp
	if st, err := f.Stat(); err == nil {
		id, stamp, ok = fileVersion(st)
	} else {
		ok = false
	}
	ok = ok && stamp.size == size // the size checked is the stamps' size
	if ok {
		c.mu.Lock()
		s, seen := c.seen[id]
		c.mu.Unlock()
		if seen && s == stamp {
			return nil
		}
	}
	err := pqbounds.Check(r, size)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]int{}
	}
	c.runs[f.Name()]++
	if ok && err == nil {
		if c.seen == nil {
			c.seen = map[fileID]fileStamp{}
		}
		c.seen[id] = stamp
	}
	return err
}

// Runs is how many times Check ran the bounds check on a file opened by the
// name name (os.File.Name), whether or not it passed.
func (c *Checked) Runs(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[name]
}
