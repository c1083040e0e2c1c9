package repo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plangit/plangit/repo/store"
)

// TestAuthor: the person's git identity as git finds it — the user's
// files, includes, includeIf "gitdir:", the project's own config winning,
// the environment over all — and a login name when there is none.
func TestAuthor(t *testing.T) {
	home := t.TempDir()
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("USER", "ann")
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := filepath.Join(home, "work", "shop")
	os.MkdirAll(filepath.Join(work, ".git"), 0o755)
	p := Project{Root: filepath.Join(work, "sub")} // .code-agent in a folder of the work tree
	check := func(want string) {
		t.Helper()
		if sig := p.Author(); sig.Name+" <"+sig.Email+">" != want {
			t.Errorf("author %s <%s>, want %s", sig.Name, sig.Email, want)
		}
	}
	check("ann <ann@localhost>") // no identity: the login name
	t.Setenv("USER", "")
	t.Setenv("LOGNAME", "")
	t.Setenv("USERNAME", "")
	check("plangit <plangit@localhost>")
	if store.Known(p.Author()) {
		t.Error("plangit's own identity reads as someone")
	}

	write(filepath.Join(home, ".config", "git", "config"), "[user]\n\tname = From XDG\n\temail = xdg@example.com\n")
	check("From XDG <xdg@example.com>")
	write(filepath.Join(home, ".gitconfig"), `# the user's
[user]
	name = "Ann  Lee" ; a comment
	email = ann@example.com
[include]
	path = more.inc
[includeIf "gitdir:~/work/"]
	path = ~/.gitconfig-work
[includeIf "gitdir:/elsewhere/"]
	path = ~/.gitconfig-never
`)
	write(filepath.Join(home, "more.inc"), "[core]\n\teditor = vi\n")
	check("Ann  Lee <ann@example.com>")
	write(filepath.Join(home, ".gitconfig-work"), "[user]\n\temail = ann@shop.example\n")
	write(filepath.Join(home, ".gitconfig-never"), "[user]\n\tname = Never\n")
	check("Ann  Lee <ann@shop.example>")
	write(filepath.Join(work, ".git", "config"), "[core]\n\tbare = false\n[user]\n\tname = Ann for the shop\n[author]\n\temail = \"author@shop.example\"\n")
	check("Ann for the shop <author@shop.example>")
	t.Setenv("GIT_AUTHOR_NAME", "Env <Name>")
	t.Setenv("GIT_AUTHOR_EMAIL", "env@example.com")
	check("Env Name <env@example.com>")

	// A linked worktree: .git is a file, the config is in the common
	// directory.
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	linked := filepath.Join(home, "linked")
	write(filepath.Join(linked, ".git"), "gitdir: "+filepath.Join(work, ".git", "worktrees", "linked")+"\n")
	write(filepath.Join(work, ".git", "worktrees", "linked", "commondir"), "../..\n")
	p = Project{Root: linked}
	check("Ann for the shop <author@shop.example>")
}
