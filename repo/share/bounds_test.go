package share_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/share"
)

// zeros reads as NUL bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// zeroBlob writes a blob of n NUL bytes into the remote, streamed through
// git fast-import (which packs a blob this large as it reads it), and
// returns its hash.
func (h *hostileRemote) zeroBlob(n int64) string {
	h.w.t.Helper()
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = h.w.bare
	cmd.Stdin = io.MultiReader(strings.NewReader(fmt.Sprintf("blob\ndata %d\n", n)), io.LimitReader(zeros{}, n), strings.NewReader("\n"))
	if out, err := cmd.CombinedOutput(); err != nil {
		h.w.t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	sum := sha1.New()
	fmt.Fprintf(sum, "blob %d\x00", n)
	io.Copy(sum, io.LimitReader(zeros{}, n))
	return hex.EncodeToString(sum.Sum(nil))
}

// TestFetchRefusesFileOverLimit: a remote session whose task_plan.md is
// over the file limit is refused like any hostile tree, naming the file
// and its size, and leaves nothing: its size is read from the pack
// entry's header, never by inflating it, so a 1 GB file of zeros (a
// megabyte packed) is refused by a plangit fetch that stays under 100 MB.
// go test ./... fetches a file just over the limit and one of 128 MB;
// PLANGIT_LONG=1 one of 1 GB too. A session here that the remote moves to
// such a tip keeps what it had.
func TestFetchRefusesFileOverLimit(t *testing.T) {
	t.Parallel()
	bin := repotest.Program(repotest.RequirePrograms(t), "plangit")
	w := newWorld(t, fileRemote)
	w.start(w.agent, "clean")
	ra, rr := w.remote(w.agent), w.remote(w.reviewer)
	statuses(t, ra.Push([]string{"clean"}, w.opts()), "clean:created")
	h := newHostileRemote(w, "clean")
	sizes := []int64{plan.MaxFile + 1, 128 << 20}
	if repotest.Long() {
		sizes = append(sizes, 1<<30)
	}
	tips := map[int64]string{}
	for _, size := range sizes {
		blob := h.zeroBlob(size)
		tips[size] = h.commit(h.tree([]string{"100644 blob " + blob + "\t" + plan.PlanFile}, plan.PlanFile), h.tip, "a large plan")
		h.publish("big"+strconv.FormatInt(size, 10), tips[size])
	}
	// git holds a file under its core.bigFileThreshold (512 MB) whole as
	// it receives it; one of 1 MB makes it stream every file here, as it
	// streams a 1 GB one, so that the peak is plangit's.
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\tbigFileThreshold = 1m\n"), 0o644)
	before := projectState(t, w.reviewer.Root)
	for _, size := range sizes {
		id := "big" + strconv.FormatInt(size, 10)
		cmd := exec.Command(bin, "fetch", id, "--json")
		cmd.Dir = w.reviewer.Root
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		peak, measured, err := runMeasured(t, cmd)
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("plangit fetch %s: %v\n%s", id, err, stderr.String())
		}
		var env struct {
			Success bool
			Error   struct{ Code, Message string }
		}
		json.Unmarshal(stdout.Bytes(), &env)
		why := fmt.Sprintf("session %s on origin is refused: its tip %s holds a task_plan.md of %d bytes, and plangit reads a session's files up to %d bytes", id, tips[size][:7], size, plan.MaxFile)
		if env.Success || !strings.Contains(stdout.String(), "INVALID_ARGUMENT") || !strings.Contains(stdout.String(), why) {
			t.Errorf("plangit fetch %s: %s\n%s\nwant %q", id, stdout.String(), stderr.String(), why)
		}
		// The process's peak, and its children's (git's): the largest
		// resident set among them.
		t.Logf("fetch of a %d MB file: peak memory %d MB", size>>20, peak>>20)
		if measured && peak > 100<<20 {
			t.Errorf("fetch of a %d MB file took %d MB of memory", size>>20, peak>>20)
		}
		if _, err := os.Lstat(filepath.Join(w.reviewer.PlansDir(), id)); !os.IsNotExist(err) {
			t.Errorf("%s: the refused session left %v", id, err)
		}
	}
	if after := projectState(t, w.reviewer.Root); after != before {
		t.Errorf("a refused fetch changed the project's repository:\n%s\n%s", before, after)
	}

	statuses(t, rr.Fetch([]string{"clean"}, w.opts()), "clean:new")
	r1 := w.open(w.reviewer, "clean")
	headBefore, objsBefore, refsBefore := head(t, r1), w.git(r1.Dir, "count-objects", "-v"), w.git(r1.Dir, "for-each-ref")
	h.publish("clean", tips[sizes[0]])
	res := rr.Fetch([]string{"clean"}, w.opts())
	statuses(t, res, "clean:failed")
	if !strings.Contains(res[0].Message, "holds a task_plan.md of") {
		t.Errorf("clean moved to a large tip: %v", res[0].Err())
	}
	if head(t, r1) != headBefore || w.git(r1.Dir, "count-objects", "-v") != objsBefore || w.git(r1.Dir, "for-each-ref") != refsBefore {
		t.Errorf("the refused fetch changed the session")
	}
	if left, _ := filepath.Glob(filepath.Join(r1.GitDir(), "plangit", "tmp-*")); len(left) != 0 {
		t.Errorf("the refused fetch left %v", left)
	}
	h.publish("clean", h.tip)
	for _, size := range sizes {
		w.git(w.bare, "update-ref", "-d", share.RemoteRef("big"+strconv.FormatInt(size, 10)))
	}
	fsckAll(t, w)
}
