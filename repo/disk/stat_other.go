//go:build !linux

package disk

import (
	"os"
	"strconv"
)

// AppendFileKey appends path's FileKey: size and modification time, and
// no inode to give here.
func AppendFileKey(b []byte, path string) []byte {
	fi, err := os.Lstat(path)
	if err != nil {
		return append(b, '-')
	}
	b = strconv.AppendInt(b, fi.Size(), 10)
	return append(strconv.AppendInt(append(b, ':'), fi.ModTime().UnixNano(), 10), ':')
}

// Lstat is what the hot path asks of a file: whether it is there, what
// kind it is and its size.
func Lstat(path string) (Info, error) { return info(os.Lstat(path)) }

// Stat is Lstat following a symbolic link.
func Stat(path string) (Info, error) { return info(os.Stat(path)) }

func info(fi os.FileInfo, err error) (Info, error) {
	if err != nil {
		return Info{}, err
	}
	return Info{Size: fi.Size(), Regular: fi.Mode().IsRegular(), Dir: fi.IsDir()}, nil
}
