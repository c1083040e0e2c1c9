package disk

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// symlink makes a symbolic link at link to target, or skips the test,
// saying so, on Windows where the system makes none (Wine 8.0 reports
// success and makes none). The package is on the ground floor: it cannot
// use repotest.RequireSymlink, whose note lists such skips.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		if fi, lerr := os.Lstat(link); lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
			err = errors.New("no link after os.Symlink")
		}
	}
	if err != nil && runtime.GOOS == "windows" {
		t.Skipf("this system made no symbolic link (Wine 8.0 reports success and makes none): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenDisposition: how Windows is asked to open for each os.O_*
// flag set — never so that the open itself truncates or replaces a file
// (CREATE_ALWAYS, TRUNCATE_EXISTING), which would cut a link's target
// before the handle is seen to be a link's.
func TestOpenDisposition(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flag        int
		disposition uint32
		truncate    bool
	}{
		{os.O_RDONLY, winOpenExisting, false},
		{os.O_WRONLY | os.O_APPEND, winOpenExisting, false},
		{os.O_WRONLY | os.O_TRUNC, winOpenExisting, true},
		{os.O_RDWR | os.O_CREATE, winOpenAlways, false},
		{os.O_WRONLY | os.O_CREATE | os.O_TRUNC, winOpenAlways, true},
		{os.O_WRONLY | os.O_CREATE | os.O_EXCL, winCreateNew, false},
		{os.O_WRONLY | os.O_CREATE | os.O_EXCL | os.O_TRUNC, winCreateNew, false},
	} {
		if d, trunc := openDisposition(c.flag); d != c.disposition || trunc != c.truncate {
			t.Errorf("flag %#x: disposition %d, truncate %v; want %d, %v", c.flag, d, trunc, c.disposition, c.truncate)
		}
	}
}

// TestRefusal: a handle whose attributes say reparse point — a symbolic
// link or a junction, which is a directory too — is refused as a link; a
// directory as a directory; a file, whatever else it is, not.
func TestRefusal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		attrs uint32
		want  error
	}{
		{0x80, nil},        // FILE_ATTRIBUTE_NORMAL
		{0x20 | 0x01, nil}, // archive, read-only
		{winAttrReparsePoint | 0x20, errLink},
		{winAttrReparsePoint | winAttrDirectory, errLink}, // a junction
		{winAttrDirectory, errIsDir},
	} {
		if err := refusal(c.attrs); err != c.want {
			t.Errorf("attributes %#x: %v, want %v", c.attrs, err, c.want)
		}
	}
	// On Windows IsLinkErr knows errLink (on Unix, O_NOFOLLOW's ELOOP).
	if runtime.GOOS == "windows" && (!IsLinkErr(&os.PathError{Op: "open", Path: "p", Err: errLink}) || IsLinkErr(errIsDir)) {
		t.Error("IsLinkErr does not tell a link's refusal from a directory's")
	}
}

// TestOpenFileRefusesLinks: OpenFile and OpenShared, for every way a
// change opens a file, refuse a symbolic link at the path — to a file or
// to none — and neither write, truncate nor create its target; the
// session lock refuses one where it is taken. On Unix O_NOFOLLOW refuses;
// on Windows the open's own check.
func TestOpenFileRefusesLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target, dangling := filepath.Join(dir, "target"), filepath.Join(dir, "none")
	if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, toNone := filepath.Join(dir, "link"), filepath.Join(dir, "link-to-none")
	symlink(t, target, link)
	symlink(t, dangling, toNone)
	opens := map[string]func(string, int, os.FileMode) (*os.File, error){"OpenFile": OpenFile, "OpenShared": OpenShared}
	for name, open := range opens {
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND, os.O_WRONLY | os.O_APPEND | os.O_CREATE, os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_WRONLY | os.O_CREATE | os.O_EXCL} {
			for _, path := range []string{link, toNone} {
				f, err := open(path, flag, 0o644)
				if err == nil {
					f.Write([]byte("through the link\n"))
					f.Close()
					t.Errorf("%s(%s, %#x) opened", name, filepath.Base(path), flag)
				} else if flag&os.O_EXCL == 0 && !IsLinkErr(err) { // O_EXCL: the name exists
					t.Errorf("%s(%s, %#x): %v, not a link's refusal", name, filepath.Base(path), flag, err)
				}
			}
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "kept\n" {
		t.Errorf("the link's target is now %q, %v", b, err)
	}
	if _, err := os.Lstat(dangling); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was made through the dangling link: %v", err)
	}
}

// TestSessionLockRefusesLink: what the session lock is taken on (the
// .git directory on Unix, the lock file elsewhere) is never reached
// through a symbolic link put in its place.
func TestSessionLockRefusesLink(t *testing.T) {
	t.Parallel()
	private := filepath.Join(t.TempDir(), ".git", PrivateDir)
	if err := os.MkdirAll(private, 0o755); err != nil {
		t.Fatal(err)
	}
	f, path, err := OpenLockTarget(private)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if fi.IsDir() {
		err = os.MkdirAll(filepath.Join(elsewhere, PrivateDir), 0o755)
	} else {
		err = os.WriteFile(elsewhere, nil, 0o644)
	}
	if err == nil {
		err = os.RemoveAll(path)
	}
	if err != nil {
		t.Fatal(err)
	}
	symlink(t, elsewhere, path)
	if f, _, err := OpenLockTarget(private); err == nil || !IsLinkErr(err) {
		if f != nil {
			f.Close()
		}
		t.Errorf("the lock was taken through a link at %s: %v", path, err)
	}
}

// TestOpenFileAsOSOpenFile: where no link is in the way, OpenFile and
// OpenShared open as os.OpenFile does: create, append at the end, cut,
// refuse to make a file that exists, read; and refuse a directory.
func TestOpenFileAsOSOpenFile(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(string, int, os.FileMode) (*os.File, error){"OpenFile": OpenFile, "OpenShared": OpenShared} {
		path := filepath.Join(t.TempDir(), "task_plan.md")
		write := func(flag int, data string) error {
			f, err := open(path, flag, 0o644)
			if err != nil {
				return err
			}
			_, err = f.Write([]byte(data))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		if _, err := open(path, os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a missing file opened: %v", name, err)
		}
		for _, step := range []struct {
			flag int
			data string
		}{{os.O_WRONLY | os.O_CREATE | os.O_EXCL, "one\n"}, {os.O_WRONLY | os.O_APPEND, "two\n"}, {os.O_WRONLY | os.O_APPEND | os.O_CREATE, "three\n"}} {
			if err := write(step.flag, step.data); err != nil {
				t.Fatalf("%s %#x: %v", name, step.flag, err)
			}
		}
		if err := write(os.O_WRONLY|os.O_CREATE|os.O_EXCL, "again\n"); !errors.Is(err, os.ErrExist) {
			t.Errorf("%s: O_EXCL made a file that exists: %v", name, err)
		}
		f, err := open(path, os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 64)
		n, _ := f.Read(b)
		f.Close()
		if got := string(b[:n]); got != "one\ntwo\nthree\n" {
			t.Errorf("%s: read %q", name, got)
		}
		if name == "OpenFile" {
			if err := write(os.O_WRONLY|os.O_CREATE|os.O_TRUNC, "cut\n"); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != "cut\n" {
				t.Errorf("O_TRUNC left %q", b)
			}
			f, err := open(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("C"), 0)
			f.Close()
			if b, _ := os.ReadFile(path); string(b) != "Cut\n" {
				t.Errorf("O_RDWR wrote %q", b)
			}
		}
		if f, err := open(filepath.Dir(path), os.O_RDONLY, 0); err == nil {
			if runtime.GOOS == "windows" {
				t.Errorf("%s opened a directory", name)
			}
			f.Close() // on Unix a directory opens for reading, as os.OpenFile's does
		}
	}
}
