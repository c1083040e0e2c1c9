package gitconfig

import "testing"

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"/home/a/work/**", "/home/a/work/shop/.git", true},
		{"/home/a/work/**", "/home/a/other/.git", false},
		{"**/shop/.git", "/home/a/work/shop/.git", true},
		{"/home/*/work/**", "/home/a/work/x", true},
		{"/home/*/work/**", "/home/a/b/work/x", false},
		{"/home/a/w?rk/[st]hop/.git", "/home/a/work/shop/.git", true},
		{"/home/a/[!s]hop", "/home/a/shop", false},
	} {
		if got := globMatch(c.p, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}
