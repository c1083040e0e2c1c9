package disk

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteAtomic writes data to path through a temporary file in the same
// directory and a rename, so a reader sees the old file or the new one,
// never a part of either, and a killed process leaves no half-written
// file. The file gets mode perm exactly, whatever the umask: it is a
// person's file, whose mode the caller keeps. With durable set the data
// is fsynced before the rename.
func WriteAtomic(path string, data []byte, perm os.FileMode, durable bool) error {
	return WriteVia(filepath.Dir(path), "."+filepath.Base(path)+".tmp*", path, data, perm, durable)
}

// WriteDocument is WriteAtomic for a document plangit writes for a person
// (a report): a new file gets mode 0666 less the umask, as a file a shell
// redirection makes; a file already at path keeps its mode.
func WriteDocument(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		return WriteAtomic(path, data, fi.Mode().Perm(), false)
	}
	tmp, err := TempFile(filepath.Dir(path), "."+filepath.Base(path)+".tmp*", data, 0o666, false)
	if err != nil {
		return err
	}
	if err = Rename(tmp, path); err != nil {
		os.Remove(tmp)
	}
	return err
}

// WriteVia is WriteAtomic through a temporary file in dir, named by
// pattern (TempFile), which must be on path's file system. The temporary
// file is created exclusively, so never through a symbolic link, and the
// rename replaces a symbolic link at path rather than following it.
func WriteVia(dir, pattern, path string, data []byte, perm os.FileMode, durable bool) error {
	tmp, err := TempFile(dir, pattern, data, perm, durable)
	if err != nil {
		return err
	}
	if err = os.Chmod(tmp, perm); err == nil {
		err = Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// TempFile makes a new file in dir holding data, with mode perm (less the
// umask, as git's files have), and returns its path. Its name is pattern
// with the "*" replaced by a random string. The file is created with its
// mode, not changed to it afterwards, and never through a symbolic link.
func TempFile(dir, pattern string, data []byte, perm os.FileMode, durable bool) (string, error) {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36)+suffix)
		f, err := OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil && durable {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp)
			return "", err
		}
		return tmp, nil
	}
}

// PutFile replaces path with data through a new file made in privateDir
// (on path's file system) and put in its place (Replace). The file
// displaced is removed, never written again: a reader that has it open
// reads it whole, as it was. No file a reader may hold is ever written
// over — that is what makes every read of a session whole.
func PutFile(privateDir, path string, data []byte, perm os.FileMode) error {
	tmp, err := TempFile(privateDir, TempPrefix+"put-*", data, perm, false)
	if err != nil {
		return err
	}
	if err := Replace(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// TempPrefix starts the name of every temporary file plangit makes in a
// session's PrivateDir; the next change clears any a killed process left.
const TempPrefix = "tmp-"

// Overwrite writes data over the file at path from its start and cuts
// what is left of the old content, never through a symbolic link: no new
// file, no rename. It is for a file whose content proves itself (a record
// a cut-off copy of which reads as pending or invalid): a reader may see
// it half written.
func Overwrite(path string, data []byte) error {
	f, err := OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
