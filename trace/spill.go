package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// spillMemMax is how many bytes a column's page buffer holds in memory before
// it moves to a temporary file: a run's small Parquet files (a few thousand
// rows) never touch the disk, whose file creations cost more CPU than their
// writes (ext4's inode allocation), while a long run's row group keeps at most
// this much of each column's pages in memory (29 columns of jobs.parquet:
// under half a megabyte).
const spillMemMax = 16 << 10

// spillPool is a Parquet page buffer pool (parquet.BufferPool) of buffers
// that spill to temporary files in dir once they hold more than memMax bytes
// (spillMemMax if 0). Each file is removed from the directory as soon as it is
// created: its space is the open file's and goes when the file is closed
// (returned to the pool) or the process ends, so that nothing is left behind
// by a run that fails or is killed.
type spillPool struct {
	dir    string
	memMax int
}

// GetBuffer returns a new empty page buffer.
func (p spillPool) GetBuffer() io.ReadWriteSeeker {
	limit := p.memMax
	if limit <= 0 {
		limit = spillMemMax
	}
	return &spillBuffer{dir: p.dir, memMax: limit}
}

// PutBuffer releases a buffer GetBuffer returned, closing its file if it has
// one.
func (p spillPool) PutBuffer(b io.ReadWriteSeeker) {
	if s, ok := b.(*spillBuffer); ok {
		s.release()
	}
}

// spillBuffer is a page buffer held in memory (mem, read and written at off)
// until a write would take it past memMax bytes, when its bytes move to a new
// unlinked temporary file in dir (f), which serves every later call. Either
// way it reads, writes and seeks as the file alone would.
type spillBuffer struct {
	dir    string
	memMax int
	mem    []byte
	off    int64
	f      *os.File
	err    error // the error that prevented the file: every later call fails with it
}

// spill moves the buffer's bytes to a new unlinked temporary file, its offset
// kept.
func (b *spillBuffer) spill() error {
	f, err := os.CreateTemp(b.dir, ".tracereplay-pages-*")
	if err != nil {
		return err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b.mem); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(b.off, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	b.f, b.mem = f, nil
	return nil
}

// Write writes p at the buffer's offset, spilling first if the buffer would
// grow past memMax bytes.
func (b *spillBuffer) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.f == nil && b.off+int64(len(p)) > int64(b.memMax) {
		if err := b.spill(); err != nil {
			b.err = fmt.Errorf("parquet page buffer file: %w", err)
			return 0, b.err
		}
	}
	if b.f != nil {
		return b.f.Write(p)
	}
	if end := b.off + int64(len(p)); end > int64(len(b.mem)) {
		b.mem = append(b.mem, make([]byte, end-int64(len(b.mem)))...)
	}
	n := copy(b.mem[b.off:], p)
	b.off += int64(n)
	return n, nil
}

// Read reads from the buffer's offset; io.EOF at its end.
func (b *spillBuffer) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.f != nil {
		return b.f.Read(p)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if b.off >= int64(len(b.mem)) {
		return 0, io.EOF
	}
	n := copy(p, b.mem[b.off:])
	b.off += int64(n)
	return n, nil
}

// Seek sets the offset for the next Read or Write, as os.File.Seek does.
func (b *spillBuffer) Seek(offset int64, whence int) (int64, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.f != nil {
		return b.f.Seek(offset, whence)
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += int64(len(b.mem))
	default:
		return 0, errors.New("parquet page buffer: seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("parquet page buffer: seek: negative position")
	}
	b.off = offset
	return offset, nil
}

// release closes the buffer's file, if any, and drops its bytes.
func (b *spillBuffer) release() {
	if b.f != nil {
		b.f.Close()
	}
	b.f, b.mem, b.off = nil, nil, 0
}
