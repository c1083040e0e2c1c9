package repotest

import "testing"

func TestGrouped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"TestB", "TestA"}, "TestA, TestB"},
		{[]string{"TestScripts/share", "TestA", "TestScripts/lock"}, "TestA, TestScripts/{lock, share}"},
		{[]string{"TestScripts/share", "TestScriptsMore"}, "TestScripts/share, TestScriptsMore"},
		{[]string{"TestParity/a/b", "TestParity/c"}, "TestParity/{a/b, c}"},
		{[]string{"TestB", "TestA", "TestB", "TestS/x", "TestS/x"}, "TestA, TestB, TestS/x"},
	} {
		if got := grouped(c.names); got != c.want {
			t.Errorf("grouped(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
