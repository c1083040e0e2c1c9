package history

import (
	"reflect"
	"testing"
)

func TestMerge3(t *testing.T) {
	base := "1\n2\n3\n4\n5\n6\n7\n"
	for _, c := range []struct {
		name, ours, theirs, want string
		hunks                    []MergeHunk
	}{
		{"theirs only", base, "1\nB\n3\n4\n5\n6\n7\n", "1\nB\n3\n4\n5\n6\n7\n", nil},
		{"ours only", "1\n2\n3\n4\n5\nO\n7\n", base, "1\n2\n3\n4\n5\nO\n7\n", nil},
		{"both, other lines", "1\n2\n3\n4\n5\nO\n7\n", "1\nT\n3\n4\n5\n6\n7\n", "1\nT\n3\n4\n5\nO\n7\n", nil},
		{"both, the same change", "1\nX\n3\n4\n5\n6\n7\n", "1\nX\n3\n4\n5\n6\n7\n", "1\nX\n3\n4\n5\n6\n7\n", nil},
		{"insert and delete apart", "0\n1\n2\n3\n4\n5\n6\n7\n", "1\n2\n3\n4\n5\n6\n", "0\n1\n2\n3\n4\n5\n6\n", nil},
		{"no final newline kept", "1\n2\n3\n4\n5\n6\n7", "1\nT\n3\n4\n5\n6\n7\n", "1\nT\n3\n4\n5\n6\n7", nil},
		{"same line", "1\nO\n3\n4\n5\n6\n7\n", "1\nT\n3\n4\n5\n6\n7\n", "", []MergeHunk{{Start: 2, Lines: 1, Base: 2, BaseLine: 1}}},
		{"touching lines", "1\nO\n3\n4\n5\n6\n7\n", "1\n2\nT\n4\n5\n6\n7\n", "", []MergeHunk{{Start: 2, Lines: 2, Base: 2, BaseLine: 2}}},
		{"two conflicts, lines shift", "0\n1\nO\n3\n4\n5\n6\nO\n", "1\nT\n3\n4\n5\n6\nT\n", "", []MergeHunk{{Start: 3, Lines: 1, Base: 2, BaseLine: 1}, {Start: 8, Lines: 1, Base: 7, BaseLine: 1}}},
		{"both insert at one place", "1\n2\n3\nO\n4\n5\n6\n7\n", "1\n2\n3\nT\n4\n5\n6\n7\n", "", []MergeHunk{{Start: 4, Lines: 1, Base: 3, BaseLine: 0}}},
		{"ours deletes what theirs changes", "1\n2\n4\n5\n6\n7\n", "1\n2\nT\n4\n5\n6\n7\n", "", []MergeHunk{{Start: 2, Lines: 0, Base: 3, BaseLine: 1}}},
	} {
		got, hunks := merge3(base, c.ours, c.theirs)
		if got != c.want || !reflect.DeepEqual(hunks, c.hunks) {
			t.Errorf("%s: got %q %+v, want %q %+v", c.name, got, hunks, c.want, c.hunks)
		}
	}
	if got, h := merge3("", "", "a\n"); got != "a\n" || h != nil {
		t.Errorf("from empty: %q %+v", got, h)
	}
	for h, want := range map[MergeHunk]string{{Start: 3, Lines: 2}: "lines 3-4", {Start: 4, Lines: 1}: "line 4", {Start: 2}: "after line 2", {}: "at the top"} {
		if h.String() != want {
			t.Errorf("%+v: %q, want %q", h, h.String(), want)
		}
	}
}
