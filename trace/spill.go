package trace

import (
	"errors"
	"io"
	"os"
)

// spillPool is a Parquet page buffer pool (parquet.BufferPool) of temporary
// files in dir, each removed from the directory as soon as it is created:
// its space is the open file's and goes when the file is closed (returned to
// the pool) or the process ends, so that nothing is left behind by a run that
// fails or is killed.
type spillPool struct{ dir string }

// GetBuffer returns a new unlinked temporary file, or a buffer that fails
// every call with the error that prevented it.
func (p spillPool) GetBuffer() io.ReadWriteSeeker {
	f, err := os.CreateTemp(p.dir, ".tracereplay-pages-*")
	if err != nil {
		return failedBuffer{err}
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return failedBuffer{err}
	}
	return f
}

// PutBuffer closes a file GetBuffer returned.
func (p spillPool) PutBuffer(b io.ReadWriteSeeker) {
	if f, ok := b.(*os.File); ok {
		f.Close()
	}
}

// failedBuffer is a page buffer that could not be created.
type failedBuffer struct{ err error }

func (b failedBuffer) Read([]byte) (int, error)       { return 0, b.wrap() }
func (b failedBuffer) Write([]byte) (int, error)      { return 0, b.wrap() }
func (b failedBuffer) Seek(int64, int) (int64, error) { return 0, b.wrap() }
func (b failedBuffer) wrap() error {
	return errors.Join(errors.New("parquet page buffer file"), b.err)
}
