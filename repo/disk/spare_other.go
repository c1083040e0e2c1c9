//go:build !linux

package disk

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Without renameat2, a file is put in place through a temporary file and
// a rename (see spare_linux.go).

// PutFile replaces path with data through a temporary file in privateDir.
func PutFile(privateDir, path string, data []byte, perm os.FileMode) error {
	for try := 0; ; try++ {
		tmp := filepath.Join(privateDir, "tmp-"+strconv.FormatInt(time.Now().UnixNano(), 36)+strconv.Itoa(try))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, os.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			os.Remove(tmp)
		}
		return err
	}
}

// Replace puts the file at tmp in place of the one at path.
func Replace(tmp, path string) error { return os.Rename(tmp, path) }

// SwapIn puts the file at tmp in place of the one at path. Without an
// atomic exchange, a save landing between the caller's check and this
// rename is replaced.
func SwapIn(tmp, path string, exists bool) (bool, error) {
	return true, os.Rename(tmp, path)
}

// SwapBack cannot undo SwapIn here.
func SwapBack(tmp, path string) error { return errors.ErrUnsupported }
