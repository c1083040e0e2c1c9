package repotest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CodeProject lays out a project of n tracked files as a real one is: a
// few files at the top, source files nested three levels deep in
// directories of about 25 files, a .gitignore with its ignored build
// output and logs; committed and packed (git gc), then three tracked
// files modified and three untracked ones added. It returns the paths of
// the tracked files, in a fixed order. The files' times are set an hour
// back before git add, so that no index entry is racily clean.
func CodeProject(tb testing.TB, root string, n int) []string {
	tb.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 7))
	words := strings.Fields("func return if else for range var const type struct interface map chan go defer select case switch package import err nil string int byte bool")
	content := func(i int) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i%97)
		for size := 300 + r.IntN(3000); b.Len() < size; {
			b.WriteString(words[r.IntN(len(words))])
			if r.IntN(8) == 0 {
				b.WriteString("\n")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString("\n")
		return []byte(b.String())
	}
	put := func(name string, data []byte) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	tracked := []string{".gitignore", "README.md", "go.mod", "Makefile"}
	put(".gitignore", []byte("build/\n*.log\n/vendor/\n.env\n"))
	put("README.md", []byte("# project\n"))
	put("go.mod", []byte("module example.com/project\n\ngo 1.26\n"))
	put("Makefile", []byte("all:\n\tgo build ./...\n"))
	for i := len(tracked); i < n; i++ {
		d := i / 25
		name := fmt.Sprintf("pkg/m%02d/s%02d/d%02d/file%04d.go", d/100, d/10%10, d%10, i)
		put(name, content(i))
		tracked = append(tracked, name)
	}
	for i := range 20 {
		put(fmt.Sprintf("build/out%02d.o", i), content(i))
	}
	put("debug.log", []byte("log\n"))
	put(".env", []byte("SECRET=1\n"))
	past := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, past, past)
		}
		return nil
	})
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "gc.auto=0"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com",
			"GIT_COMMITTER_NAME=dev", "GIT_COMMITTER_EMAIL=dev@example.com", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	git("gc", "-q")
	put(".code-agent/.gitignore", []byte("*\n"))
	for i := range 3 {
		name := tracked[len(tracked)/2+i*7]
		put(name, append(content(i), "// modified\n"...))
		put(fmt.Sprintf("pkg/new%d.go", i), content(n+i))
	}
	return tracked
}
