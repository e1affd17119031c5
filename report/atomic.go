package report

import (
	"bytes"
	"fmt"
	"io"

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
