package history

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// gitSession is newSession in a git project.
func gitSession(t *testing.T, n int) (*session, string) {
	t.Helper()
	root := t.TempDir()
	repotest.Git(t, root, "init", "-q", "-b", "main")
	put(t, root, "a.txt", "one\ntwo\nthree\n")
	put(t, root, "b.txt", "bee\n")
	put(t, root, ".gitignore", "*.log\n")
	repotest.Git(t, root, "add", "-A")
	repotest.Git(t, root, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-q", "-m", "first")
	p, _ := plan.New("s1", "Code test", "change code", []string{"Work"}, t0, false)
	for i := 1; i <= n; i++ {
		p.AddStep(plan.StepSpec{Text: "Step " + strconv.Itoa(i)}, t0)
	}
	s, _, err := repo.Project{Root: root}.Create("s1", &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repotest.Check(t, s.Dir) })
	return &session{Session: s, t: t, now: t0}, root
}

func put(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStepCode(t *testing.T) {
	s, root := gitSession(t, 3)
	s.step("1", plan.ActStart)
	put(t, root, "a.txt", "one\n2\nthree\n")
	put(t, root, "new.txt", "new\n")
	put(t, root, "x.log", "ignored\n")
	s.step("2", plan.ActStart) // runs beside step 1
	os.Remove(filepath.Join(root, "b.txt"))
	s.step("1", plan.ActDone)
	put(t, root, "a.txt", "one\n2\n3\n")
	s.step("2", plan.ActDone)

	d, err := StepRange(s.Session, "1")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.Code()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Fill(cs, true); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range d.Files {
		got[f.Path] = f.Status
	}
	want := map[string]string{"a.txt": "modified", "new.txt": "added", "b.txt": "deleted"}
	if len(got) != len(want) {
		t.Fatalf("step 1 changed %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if len(d.Shared) != 1 || d.Shared[0].Step != "2" {
		t.Errorf("shared: %+v", d.Shared)
	}
	d2, err := StepRange(s.Session, "2")
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Fill(cs, true); err != nil {
		t.Fatal(err)
	}
	if len(d2.Files) != 2 { // b.txt deleted, a.txt's third line
		t.Errorf("step 2 changed %+v", d2.Files)
	}
	if _, err := StepRange(s.Session, "3"); !plan.HasCode(err, plan.CodeInvalidStatus) {
		t.Errorf("a step that never ran: %v", err)
	}
}
