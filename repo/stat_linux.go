//go:build linux

package repo

import (
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat copies the stat data git compares to decide a file is unchanged.
func fillStat(e *index.Entry, fi os.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	e.CreatedAt = time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	e.Dev, e.Inode = uint32(st.Dev), uint32(st.Ino)
	e.UID, e.GID = st.Uid, st.Gid
}

// statID is what identifies a file's version beyond its size and
// modification time: its inode, device and change time.
func statID(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(st.Ino, 10) + ":" + strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatInt(st.Ctim.Nano(), 10)
}
