//go:build !linux

package pqfile

import "io/fs"

// fileVersion is never known here: without Linux's stat record (its inode
// and status-change time) a file is checked at every open.
func fileVersion(fs.FileInfo) (id fileID, stamp fileStamp, ok bool) {
	return id, stamp, false
}
