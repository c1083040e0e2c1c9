package hookwire

import (
	"os"
	"strconv"
	"syscall"
)

// statID is what identifies a file's version beyond its size and
// modification time: its inode, device and change time.
func statID(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(st.Ino, 10) + ":" + strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatInt(st.Ctim.Nano(), 10)
}
