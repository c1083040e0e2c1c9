package hookwire

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// validCases are JSON texts and near misses: every kind of value, every
// escape, each way a text can be cut or bent.
var validCases = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `truex`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e07`, `-12.5e+3`,
	`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u00E9"`, `"\u12"`, `"\x"`, `"\'"`, "\"tab\there\"", "\"nul\x00\"", "\"\xff\xfe\"",
	`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"unterminated`, `"\`,
	`[]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`, `{}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":}`, `{"a":1 "b":2}`,
	`{"a":[{"b":[null,true,{"c":"d"}]}]}`, ` {"a" : [ 1 , 2 ] } `, `{} {}`, `[] x`, "\ufeff{}", `{"a":1}}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000), strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestValidMatchesEncodingJSON: Valid accepts what json.Valid accepts,
// and String decodes what starts as a string as json.Unmarshal does
// (refusing what does not end as one).
func TestValidMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, c := range validCases {
		checkValid(t, []byte(c))
	}
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{`{`, `}`, `[`, `]`, `"`, `\`, `:`, `,`, ` `, `a`, `1`, `-`, `.`, `e`, `u`, `\u00e9`, `\ud83d`, `\ude00`, `true`, `null`, "\xff", "é", "\n", "\x01"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.IntN(10); n >= 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkValid(t, []byte(b.String()))
		checkValid(t, []byte(`"`+b.String()+`"`))
	}
}

// FuzzValid: Valid and String agree with encoding/json on any bytes.
func FuzzValid(f *testing.F) {
	for _, c := range validCases[:len(validCases)-4] {
		f.Add([]byte(c))
	}
	f.Fuzz(checkValid)
}

func checkValid(t *testing.T, b []byte) {
	t.Helper()
	if got, want := Valid(b), json.Valid(b); got != want {
		t.Fatalf("Valid(%q) = %v; json.Valid says %v", b, got, want)
	}
	if len(b) == 0 || b[0] != '"' || b[len(b)-1] == ' ' || b[len(b)-1] == '\n' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' {
		return // String reads a raw value as Members gives it: here, a string
	}
	var want string
	werr := json.Unmarshal(b, &want)
	got, ok := String(b)
	if ok != (werr == nil) || ok && got != want {
		t.Fatalf("String(%q) = %q, %v; json.Unmarshal: %q, %v", b, got, ok, want, werr)
	}
}

// TestUnquotePrefix: the glance's values read back as strconv reads them,
// whatever they hold, and what follows them is left.
func TestUnquotePrefix(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", " ", `"`, `\`, "\n", "\t", "\x00", "\x1a", "\x7f", "\xff", "é", "日本", "😀", "\u2028", "\u00ad", "plan", "\a\b\f\v\r"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.IntN(8); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		v := b.String()
		q := strconv.AppendQuote(nil, v)
		got, rest, err := unquotePrefix(string(q) + ` "next"`)
		if err != nil || got != v || rest != ` "next"` {
			t.Fatalf("%q quoted as %s read back as %q, %q, %v", v, q, got, rest, err)
		}
	}
	for _, bad := range []string{`"unterminated`, `"bad \q escape"`, `x"`, `"\x1"`} {
		if _, _, err := unquotePrefix(bad); err == nil {
			t.Errorf("%s read as a value", bad)
		}
	}
}
