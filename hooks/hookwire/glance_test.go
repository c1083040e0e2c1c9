package hookwire

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestGlanceLists: every list of a glance reads back as written, whatever
// the lengths of the others, and each is its own: appending to one read
// back leaves its neighbours alone. A glance whose lines of a list are
// not consecutive, which Encode never writes, is refused even with a
// right checksum.
func TestGlanceLists(t *testing.T) {
	t.Parallel()
	texts := func(n int, p string) []string {
		var l []string
		for i := range n {
			l = append(l, p+strings.Repeat("x", i))
		}
		return l
	}
	for n := range 4 {
		g := &Glance{Key: "k", Status: "running", Files: texts(n, "f"), Names: texts((n+1)%4, "n"), Left: texts((n+2)%4, "l"),
			Rules: Rules{Off: texts((n+3)%4, "o"), CriticalTools: texts(n, "c"), WriteTools: texts(3-n, "w"), ViewTools: texts(n%2, "v")}}
		for i := range n {
			g.Errors = append(g.Errors, GlanceError{Tool: "Bash", ID: "E" + strings.Repeat("1", i+1)})
			g.OpenErrors = append(g.OpenErrors, ToolCount{Tool: "T" + strings.Repeat("t", i), N: i + 1})
		}
		back, ok := DecodeGlance(g.Encode())
		if !ok || !reflect.DeepEqual(back, g) {
			t.Fatalf("read back %v differently:\n got %+v\nwant %+v", ok, back, g)
		}
		lists := []*[]string{&back.Files, &back.Names, &back.Left, &back.Rules.Off, &back.Rules.CriticalTools, &back.Rules.WriteTools, &back.Rules.ViewTools}
		var want [][]string
		for _, l := range lists {
			want = append(want, append(slices.Clone(*l), "appended"))
		}
		for _, l := range lists {
			*l = append(*l, "appended")
		}
		for i, l := range lists {
			if !slices.Equal(*l, want[i]) {
				t.Errorf("list %d after appending to each: %q, want %q", i, *l, want[i])
			}
		}
	}
	body := GlanceVersion + "\nkey \"k\"\nfile \"a\"\nname \"n\"\nfile \"b\"\n"
	if g, ok := decodeGlance(body + "end " + checksum(body) + "\n"); ok {
		t.Errorf("a glance with a list's lines apart reads: %+v", g)
	}
	body = GlanceVersion + "\nkey \"k\"\nfile \"a\"\nfile \"b\"\nname \"n\"\n"
	if g, ok := decodeGlance(body + "end " + checksum(body) + "\n"); !ok || !reflect.DeepEqual(g.Files, []string{"a", "b"}) || !reflect.DeepEqual(g.Names, []string{"n"}) {
		t.Errorf("%+v, %v", g, ok)
	}
}

// TestSameKey: a key recorded with its credentials redacted is the same
// key as the command that carries them, whatever they were; another
// command is not.
func TestSameKey(t *testing.T) {
	t.Parallel()
	rec := `curl -H "Authorization: Bearer [redacted]" https://u:[redacted]@h/x`
	for key, want := range map[string]bool{
		`curl -H "Authorization: Bearer ghp_abc" https://u:pw@h/x`: true,
		`curl -H "Authorization: Bearer other" https://u:p@h/x`:    true,
		`curl -H "Authorization: Bearer " https://u:pw@h/x`:        false, // nothing where the token was
		`curl -H "Authorization: Bearer ghp_abc" https://u:pw@h/y`: false,
		`wget -H "Authorization: Bearer ghp_abc" https://u:pw@h/x`: false,
		`curl -H "Authorization: Bearer ghp_abc"`:                  false,
	} {
		if got := SameKey(rec, key); got != want {
			t.Errorf("SameKey(%q, %q) = %v", rec, key, got)
		}
	}
	if !SameKey("go test ./...", "go test ./...") || SameKey("go test ./...", "go vet ./...") || !SameKey("X=[redacted]", "X=1") {
		t.Error("keys without a credential compare equal, or not")
	}
}
