package report

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/tracereplay/tracereplay/internal/safeout"
)

// WriteFileAtomic writes the output of write to path through a temporary file in
// the same directory that is synced and renamed over path only once write
// succeeded (safeout.WriteFile), so readers never see a half-written file. The
// file gets mode 0644.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return safeout.WriteFile(path, buf.Bytes())
}

// writeTempRename writes path atomically with fill (which may seek, as Arrow's
// file writer does); see safeout.WriteFileFunc.
func writeTempRename(path string, fill func(*os.File) error) error {
	return safeout.WriteFileFunc(path, fill)
}

// writeBytesAtomic writes data to path atomically (safeout.WriteFile).
func writeBytesAtomic(path string, data []byte) error { return safeout.WriteFile(path, data) }
