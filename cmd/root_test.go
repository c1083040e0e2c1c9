package cmd

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandTable: the table newCmdRootFor picks a command from names
// each command as its constructor does, and lists every command of the
// whole tree once.
func TestCommandTable(t *testing.T) {
	t.Parallel()
	f := NewFactory()
	var names []string
	for _, c := range commands() {
		if got := c.build(f).Name(); got != c.name {
			t.Errorf("the table says %q; the constructor builds %q", c.name, got)
		}
		names = append(names, c.name)
	}
	var tree []string
	for _, c := range NewCmdRoot(f).Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			tree = append(tree, c.Name())
		}
	}
	slices.Sort(names)
	slices.Sort(tree)
	if !slices.Equal(names, tree) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("the table lists\n%q\nthe whole tree has\n%q", names, tree)
	}
}

// TestCommandWord: the word a command line names, past the root's flags
// and their values; none where the whole tree must be built.
func TestCommandWord(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"step", "done", "3"}, "step"},
		{[]string{"--session", "s1", "--json", "step", "done"}, "step"},
		{[]string{"--root=/x", "-q", "--no-color", "log"}, "log"},
		{[]string{"--if-rev", "HEAD", "undo"}, "undo"},
		{[]string{"--session"}, ""},
		{[]string{}, ""},
		{[]string{"--version"}, ""},
		{[]string{"-v"}, ""},
		{[]string{"--bogus", "step"}, ""},
		{[]string{"--", "step"}, ""},
		{[]string{"stpe", "done"}, "stpe"},
	} {
		if got := commandWord(c.args); got != c.want {
			t.Errorf("commandWord(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	// A word that is no command builds the whole tree, for its
	// did-you-mean; a command, only itself.
	f := NewFactory()
	if n := len(newCmdRootFor(f, []string{"stpe"}).Commands()); n < len(commands()) {
		t.Errorf("an unknown word built %d commands", n)
	}
	root := newCmdRootFor(f, []string{"--json", "step", "done", "3"})
	if got := names(root.Commands()); !slices.Equal(got, []string{"step"}) {
		t.Errorf("step done built %q", got)
	}
}

func names(cs []*cobra.Command) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name())
	}
	return out
}
