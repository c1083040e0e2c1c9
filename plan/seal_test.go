package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// Every file plangit writes carries the hash of the rest of it in its
// last line; a person's edit of the rest leaves that line, and every
// reader skips it.
func TestSealNamesTheCopyWritten(t *testing.T) {
	t.Parallel()
	st := &State{Plan: demoPlan(t), Findings: Findings{{ID: "1", Category: CatCode, Title: "Hot path"}}}
	for name, b := range st.Files() {
		sum := Seal(b)
		if len(sum) != sealLen {
			t.Fatalf("%s carries no seal:\n%s", name, b)
		}
		body := strings.TrimSuffix(string(b), "\n"+sealTag+sum+" -->\n")
		want := sha256.Sum256([]byte(body))
		if hex.EncodeToString(want[:sealLen/2]) != sum {
			t.Errorf("%s: the seal is not the hash of the rest of the file", name)
		}
		edited := strings.Replace(string(b), "\n", "\nA line added by hand.\n\n", 1)
		if Seal([]byte(edited)) != sum {
			t.Errorf("%s: an edit above the seal lost it", name)
		}
	}
	again, err := ParseState(st.Files())
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range again.Files() {
		if string(b) != string(st.Files()[name]) {
			t.Errorf("%s does not read back as written", name)
		}
	}
	for _, src := range []string{"", "# T\n", "<!-- plangit sum=0123 -->\n", "x <!-- plangit sum=0123456789abcdef -->\n"} {
		if Seal([]byte(src)) != "" {
			t.Errorf("%q carries no seal of plangit's", src)
		}
	}
}

// A seal line is read as a blank line, wherever it stands: what a parse
// error says of a line after it stays true.
func TestUnsealKeepsLines(t *testing.T) {
	t.Parallel()
	src := "# T\n<!-- plangit sum=0123456789abcdef -->\n## Phase 1: x\n"
	if got := string(unseal([]byte(src))); got != "# T\n\n## Phase 1: x\n" {
		t.Fatalf("unseal: %q", got)
	}
	_, err := ParseFindings([]byte("# Findings\n<!-- plangit sum=0123456789abcdef -->\n```\nx\n```\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "findings.md:3:") {
		t.Fatalf("the error is not on line 3: %v", err)
	}
}
