package pqfile

import (
	"io/fs"
	"syscall"
)

// fileVersion is the identity and stamps of the file st describes (fstat's
// device, inode, size, and modification and status-change times); ok is
// false when st carries no stat record.
func fileVersion(st fs.FileInfo) (id fileID, stamp fileStamp, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return id, stamp, false
	}
	id = fileID{dev: uint64(s.Dev), ino: uint64(s.Ino)}
	stamp = fileStamp{size: s.Size, mtime: s.Mtim.Nano(), ctime: s.Ctim.Nano()}
	return id, stamp, true
}
