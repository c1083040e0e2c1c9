package repo

import (
	"cmp"
	"os"
	"strings"

	"github.com/plangit/plangit/repo/gitconfig"
)

// Author is who plangit records as the author of the project's commits:
// the person's git identity, as git finds it for the project —
// GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, else author.name/author.email,
// else user.name/user.email from git's configuration (the system's, the
// user's — $XDG_CONFIG_HOME/git/config and ~/.gitconfig, or
// GIT_CONFIG_GLOBAL — the project's .git/config, and GIT_CONFIG_COUNT's
// pairs, later ones winning, include.path and includeIf "gitdir:" followed),
// else the EMAIL variable for the address. With none, the login name
// (USER, LOGNAME), as "name <name@localhost>"; with no login name either,
// plangit <plangit@localhost>, which plangit reads as "no one known".
//
// plangit reads git's files itself rather than asking git: every change
// commits, on the hook path too, and running git would cost each one a
// process start several times the commit's own cost. The files are a few
// hundred bytes; reading them costs tens of microseconds. What it leaves
// out — includeIf "onbranch:" and "hasconfig:", a worktree's own
// config.worktree — git's own commands (plangit push, fetch) see.
func (p Project) Author() Signature {
	name, email := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
	if name == "" || email == "" {
		cfg := gitconfig.Read(p.Root)
		name = cmp.Or(name, cfg["author.name"], cfg["user.name"])
		email = cmp.Or(email, cfg["author.email"], cfg["user.email"], os.Getenv("EMAIL"))
	}
	name, email = identPart(name), identPart(email)
	login := identPart(cmp.Or(os.Getenv("USER"), os.Getenv("LOGNAME"), os.Getenv("USERNAME")))
	if login == "" {
		login = noIdentity.Name
	}
	return Signature{Name: cmp.Or(name, login), Email: cmp.Or(email, login+"@localhost")}
}

// identPart cleans a name or address as git does: no angle brackets or
// line breaks, no space at the ends.
func identPart(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '\n', '\r', 0:
			return -1
		}
		return r
	}, s)
	return strings.Trim(s, " \t.,:;\"'")
}
