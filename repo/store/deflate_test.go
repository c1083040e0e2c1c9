package store

import (
	"bytes"
	"compress/zlib"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/plantest"
)

// inflate reads a zlib stream with the standard library.
func inflate(t testing.TB, z []byte) []byte {
	t.Helper()
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	return out
}

// TestDeflateLooseCodes: every length and distance DEFLATE codes, every
// byte as a literal, and stored blocks, read back by compress/zlib.
func TestDeflateLooseCodes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	var cases [][]byte
	for n := deflateMinMatch; n <= deflateMaxMatch+3; n++ {
		unit := random(n)
		cases = append(cases, append(append(append([]byte{}, unit...), 'x'), unit...)) // a match of n at distance n+1
	}
	for _, d := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 100, 1000, 4096, 16384, 24577, 32767, 32768, 32769, 40000} {
		period := random(d) // repeated: matches at distance d
		cases = append(cases, bytes.Repeat(period, 1+(d+300)/d))
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	cases = append(cases, nil, []byte("a"), []byte("abc"), all, bytes.Repeat([]byte("a"), 1<<17),
		random(1<<16-1), random(1<<16), random(1<<16+1), random(3<<16+7))
	for _, c := range cases {
		for _, header := range [][]byte{nil, []byte("blob 12\x00")} {
			z := deflateLoose(header, c)
			if got, want := inflate(t, z), append(append([]byte{}, header...), c...); !bytes.Equal(got, want) {
				t.Fatalf("round trip of %d bytes: got %d bytes, differing", len(want), len(got))
			}
			if limit := len(header) + len(c) + (len(header)+len(c))/deflateStoredMax*5 + 11; len(z) > limit {
				t.Errorf("%d bytes became %d, more than the stored form's %d", len(header)+len(c), len(z), limit)
			}
		}
	}
}

// TestDeflateLooseRatio: for plans and findings, deflateLoose's stream is
// at most half again as long as compress/flate's fastest level, which git
// uses for loose objects. (For prose, such as this project's markdown, it
// is about a quarter longer; the generated plans here, up to 40%.)
func TestDeflateLooseRatio(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, n := range []int{1, 40, 200} {
		files := plantest.Sized(t, n, now).Files()
		for _, f := range []string{plan.PlanFile, plan.FindingsFile} {
			data := files[f]
			var std bytes.Buffer
			w, _ := zlib.NewWriterLevel(&std, zlib.BestSpeed)
			w.Write(data)
			w.Close()
			ours := deflateLoose(nil, data)
			t.Logf("%d steps, %s: %d bytes; compress/flate %d, deflateLoose %d", n, f, len(data), std.Len(), len(ours))
			if len(ours) > std.Len()*3/2+16 {
				t.Errorf("%d steps, %s: deflateLoose %d bytes, compress/flate %d", n, f, len(ours), std.Len())
			}
		}
	}
}

func FuzzDeflateLoose(f *testing.F) {
	f.Add([]byte("# Plan\n\n- [ ] 1. one\n- [ ] 2. one\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got := inflate(t, deflateLoose([]byte("blob 1\x00"), data)); !bytes.Equal(got[7:], data) {
			t.Fatal("round trip differs")
		}
	})
}
