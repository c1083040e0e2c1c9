// Package redact replaces values that look like credentials with
// "[redacted]" before text from a tool call is recorded: error messages,
// tool inputs, commit summaries, queued hook events, the project's log.
// Its rules are one table (Table); a project adds patterns of its own
// (redact_extra in config.json, New).
//
// It imports the standard library alone, so every package that records
// tool output can use it — the model included — and a program that
// records nothing pays nothing: no rule is compiled before text holding
// one of its hints is redacted.
package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mark is what a redacted value becomes.
const Mark = "[redacted]"

// Cut returns where to cut s to keep at most n bytes: n, or before a Mark
// that n falls inside, so that a cut text shows a Mark whole or not at
// all.
func Cut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	from := max(0, n-len(Mark)+1)
	if i := strings.Index(s[from:min(len(s), n+len(Mark)-1)], Mark); i >= 0 && from+i < n {
		return from + i
	}
	return n
}

// Rule is one form of credential. Its pattern marks the value to redact
// with groups named "secret" (one per alternative); what the pattern
// matches around them is kept. A rule runs only on lines that hold one of
// its hints (lowercase, compared case-blind); a rule with Multiline runs
// on the whole text, its pattern free to cross lines.
type Rule struct {
	Name      string
	Hints     []string
	Pattern   string
	Keeps     string // what of the match stays, in words
	Multiline bool
}

// A value in a shell command, an assignment or a header: quoted (the
// quotes kept), quoted inside a JSON string (\"…\"), or bare. A bare value
// never starts with $ — a variable's name is no secret — and stops at
// white space, quotes, and the shell's and JSON's punctuation. A value
// redacted already is taken as it is, so that a second pass finds nothing
// new.
const value = `(?:\[redacted\]|"(?P<secret>[^"\n]+)"|'(?P<secret>[^'\n]+)'|\\"(?P<secret>[^"\\\n]+)\\"|(?P<secret>[^\s$"'\x60,;&|(){}\[\]\\<>][^\s"'\x60,;&|(){}\[\]\\<>]*))`

// setting is a value that says how, not what: a number of one to three
// digits or a yes or a no (true, off, none…), quoted or bare. An
// assignment of one is kept: PASSWORD_MIN_LENGTH=8 names no password.
const setting = `(?:"` + settingWord + `"|'` + settingWord + `'|\\"` + settingWord + `\\"|` + settingWord + `(?:[\s"'\x60,;&|(){}\[\]\\<>]|$))`

// settingWord is the word of a setting (isSetting says the same).
const settingWord = `(?:[0-9]{1,3}|true|false|yes|no|on|off|none|null)`

// anyValue is a value taken as it is, nothing redacted: what a name that
// holds a file's or a directory's name is given.
const anyValue = `(?:"[^"\n]*"|'[^'\n]*'|[^\s"'\x60,;&|(){}\[\]\\<>]*)`

// flagValue is a flag's value: quoted, or bare and not a variable or
// another flag.
const flagValue = `(?:"(?P<secret>[^"\n]+)"|'(?P<secret>[^'\n]+)'|(?P<secret>[^\s$"'\x60-][^\s"'\x60]*))`

// cookies are a cookie header's name=value pairs, the names kept; up to
// eight pairs, what follows a ninth is kept.
var cookies = cookie + strings.Repeat(`(?:;[ \t]*`+cookie+`)?`, 7)

const cookie = `[^\s=;,"']+=(?:\[redacted\]|(?P<secret>[^\s;,"']+))`

// credential is a header's bare value that looks like a credential rather
// than a word: eight characters or more of a token's, with a digit, or an
// upper-case letter after the first (dXNlcjpw, abc12345; not "failed",
// not "Denied").
var credential = longWith(`[A-Za-z0-9+/=._~-]`, `[0-9]`, `[0-9A-Z]`, 8)

// longWith is a pattern of n or more characters of set holding one of
// first at the start or one of later after it (case-sensitive).
func longWith(set, first, later string, n int) string {
	alts := []string{first + set + fmt.Sprintf("{%d,}", n-1)}
	for k := 1; k < n-1; k++ {
		alts = append(alts, fmt.Sprintf("%s{%d}%s%s{%d,}", set, k, later, set, n-1-k))
	}
	alts = append(alts, fmt.Sprintf("%s{%d,}%s%s*", set, n-1, later, set))
	return `(?-i:` + strings.Join(alts, "|") + `)`
}

// rules is the table: every form of credential plangit redacts. A rule
// that runs earlier decides for the text it redacts: the URL's rule comes
// before the assignments', so that the user of https://x-access-token:…@h
// is no assignment swallowing the host.
var rules = [...]Rule{
	{Name: "pem private key", Hints: []string{"private key"}, Multiline: true,
		Pattern: `-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?P<secret>(?s:.+?))(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`,
		Keeps:   "the BEGIN and END lines"},
	{Name: "url password", Hints: []string{"://"},
		Pattern: `(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@"'\\]*:(?P<secret>[^\s/?#"'\\]+)@`,
		Keeps:   "the scheme, the user, the host and the path"},
	{Name: "authorization header", Hints: []string{"authorization"},
		Pattern: `(?i)\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*(?:\[redacted\]|(?:bearer|basic|token|digest|bot|apikey|negotiate|ntlm|aws4-hmac-sha256|sso-key)[ \t]+` + value +
			`|"(?P<secret>[^"\n]+)"|'(?P<secret>[^'\n]+)'|\\"(?P<secret>[^"\\\n]+)\\"|(?P<secret>` + credential + `))`,
		Keeps: "the header's name and scheme; a value that is a word"},
	{Name: "bearer token", Hints: []string{"bearer"},
		Pattern: `(?i)\bbearer[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{15,}[A-Za-z0-9_~+/-]=*)`,
		Keeps:   "the word Bearer"},
	{Name: "secret assignment", Hints: []string{"_key", "-key", "apikey", "token", "secret", "passw", "_pass", "-pass", "pwd", "credential", "creds", "_auth"},
		Pattern: `(?i)(?:\b[a-z0-9_.-]*[_-](?:file|path|dir)\\?["']?[ \t]*(?::=|:|=)[ \t]*` + anyValue +
			`|(?:\b[a-z0-9_.-]*(?:[_-]key|[a-z0-9_.-]token|secret[a-z0-9_-]*|passw(?:or)?d[a-z0-9_-]*|apikey|[_-]pass|[_-]pwd|[_-]?credentials?|[_-]creds)\\?["']?[ \t]*(?::=|:|=)|\btoken[ \t]*=|\b_auth[ \t]*=)[ \t]*(?:` + setting + `|` + value + `))`,
		Keeps: "the name: NAME=, NAME:, \"name\":; a setting (=8, =no); a file's name (NAME_FILE=)"},
	{Name: "json credential name", Hints: []string{`"pwd`, `"pass`, `"auth`, `"credential`, `"creds`, `"session`, `"cookie`, `"sid`},
		Pattern: `(?i)\\?"(?:pwd|pass|auth|credentials?|creds|session|cookie|sid)\\?"[ \t]*:[ \t]*(?:\[redacted\]|"(?P<secret>[^"\n]+)"|\\"(?P<secret>[^"\\\n]+)\\")`,
		Keeps:   "the name: \"pwd\":"},
	{Name: "secret flag", Hints: []string{"passw", "passphrase", "token", "api-key", "apikey", "api_key", "secret", "access-key"},
		Pattern: `(?i)(?:^|[\s"'])--?[a-z0-9_-]*(?:password|passwd|passphrase|token|api-key|apikey|api_key|secret|secret-key|access-key)(?:=|[ \t]+)` + flagValue,
		Keeps:   "the flag: --password=, --token "},
	{Name: "cookie", Hints: []string{"cookie", "-b"},
		Pattern: `(?i)(?:\bset-cookie[ \t]*:[ \t]*` + cookie + `|\bcookie[ \t]*:[ \t]*` + cookies +
			`|\bcurl\b[^\n|;&]*?[ \t](?:-b|--cookie)(?:=|[ \t]+)["']?` + cookies + `)`,
		Keeps: "the cookies' names, a Set-Cookie's attributes"},
	{Name: "mysql -p", Hints: []string{"mysql", "mariadb"},
		Pattern: `\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?[ \t]-p(?:'(?P<secret>[^'\n]+)'|"(?P<secret>[^"\n]+)"|(?P<secret>[^\s"'$\x60][^\s"'\x60]*))`,
		Keeps:   "the command and -p"},
	{Name: "sshpass -p", Hints: []string{"sshpass"},
		Pattern: `\bsshpass\b[^\n|;&]*?[ \t]-p[ \t]*(?P<secret>[^\s"'$\x60-][^\s"'\x60]*)`,
		Keeps:   "the command and -p"},
	{Name: "login -p", Hints: []string{"login"},
		Pattern: `\b(?:docker|podman|buildah|nerdctl|az)\b[^\n|;&]*?\blogin\b[^\n|;&]*?[ \t]-p(?:=|[ \t]+)` + flagValue,
		Keeps:   "the command and -p"},
	{Name: "redis-cli -a", Hints: []string{"redis-cli"},
		Pattern: `\bredis-cli\b[^\n|;&]*?[ \t](?:-a|--pass)(?:=|[ \t]+)` + flagValue,
		Keeps:   "the command and -a"},
	{Name: "htpasswd -b", Hints: []string{"htpasswd"},
		Pattern: `\bhtpasswd(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*(?:[ \t]+[^\s-][^\s]*){1,2}[ \t]+` + value,
		Keeps:   "the command, the file and the user"},
	{Name: "openssl pass:", Hints: []string{"pass:"},
		Pattern: `(?:^|[\s"'])-pass(?:in|out)?[ \t]+(?:"pass:(?P<secret>[^"\n]+)"|'pass:(?P<secret>[^'\n]+)'|pass:(?P<secret>[^\s"'\x60]+))`,
		Keeps:   "the flag and pass:"},
	{Name: "zip -P, 7z -p", Hints: []string{"zip", "7z"},
		Pattern: `\b(?:un)?zip\b[^\n|;&]*?[ \t]-P[ \t]+` + flagValue + `|\b7z[ar]?\b[^\n|;&]*?[ \t]-p(?P<secret>[^\s"'$\x60-][^\s"'\x60]*)`,
		Keeps:   "the command and -P"},
	{Name: "aws configure set", Hints: []string{"configure"},
		Pattern: `\baws[ \t]+configure[ \t]+set[ \t]+(?:--[a-z-]+[ \t]+[^\s-][^\s]*[ \t]+)*[a-z0-9_.-]*(?:secret|token)[a-z0-9_]*[ \t]+` + flagValue,
		Keeps:   "the setting's name"},
	{Name: "curl -u", Hints: []string{"curl"},
		Pattern: `\bcurl\b[^\n|;&]*?[ \t](?:-u|--user)(?:=|[ \t]*)["']?[^\s:"'\x60]+:(?P<secret>[^\s"'$\x60][^\s"'\x60]*)`,
		Keeps:   "the user"},
	{Name: "slack webhook", Hints: []string{"hooks.slack.com"},
		Pattern: `\bhttps://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]{20,})`,
		Keeps:   "the address up to services/"},
	{Name: "github token", Hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		Pattern: `\b(?:gh[pousr]_|github_pat_)(?P<secret>[A-Za-z0-9_]{20,})`,
		Keeps:   "the prefix: ghp_"},
	{Name: "gitlab token", Hints: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glsoat-"},
		Pattern: `\bgl(?:pat|dt|rt|ptt|soat)-(?P<secret>[A-Za-z0-9_-]{20,})`,
		Keeps:   "the prefix: glpat-"},
	{Name: "openai or anthropic key", Hints: []string{"sk-"},
		Pattern: `\bsk-(?:(?:ant-(?:api|admin|sid)[0-9]*-|proj-|svcacct-|admin-)(?P<secret>[A-Za-z0-9_-]{20,})|(?P<secret>[A-Za-z0-9]{20,}))`,
		Keeps:   "the prefix: sk-, sk-ant-api03-, sk-proj-"},
	{Name: "stripe key", Hints: []string{"_live_", "_test_"},
		Pattern: `\b(?:sk|rk|pk)_(?:live|test)_(?P<secret>[A-Za-z0-9]{16,})`,
		Keeps:   "the prefix: sk_live_"},
	{Name: "slack token", Hints: []string{"xox"},
		Pattern: `\bxox[abprs]-(?P<secret>[A-Za-z0-9-]{10,})`,
		Keeps:   "the prefix: xoxb-"},
	{Name: "npm token", Hints: []string{"npm_"},
		Pattern: `\bnpm_(?P<secret>[A-Za-z0-9]{36})\b`,
		Keeps:   "the prefix: npm_"},
	{Name: "aws access key id", Hints: []string{"akia", "asia"},
		Pattern: `\b(?:AKIA|ASIA)(?P<secret>[A-Z0-9]{16})\b`,
		Keeps:   "the prefix: AKIA"},
	{Name: "google api key", Hints: []string{"aiza"},
		Pattern: `\bAIza(?P<secret>[0-9A-Za-z_-]{35})`,
		Keeps:   "the prefix: AIza"},
	{Name: "hugging face token", Hints: []string{"hf_"},
		Pattern: `\bhf_(?P<secret>[A-Za-z0-9]{30,})`,
		Keeps:   "the prefix: hf_"},
	{Name: "vault token", Hints: []string{"hvs.", "hvb.", "hvr.", "s."},
		Pattern: `\bhv[sbr]\.(?P<secret>[A-Za-z0-9_-]{24,})|\bs\.(?P<secret>[A-Za-z0-9]{24})\b`,
		Keeps:   "the prefix: hvs., s. (a legacy s. token has 24 characters exactly)"},
	{Name: "sendgrid key", Hints: []string{"sg."},
		Pattern: `\bSG\.(?P<secret>[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64})`,
		Keeps:   "the prefix: SG."},
	{Name: "webhook signing secret", Hints: []string{"whsec_"},
		Pattern: `\bwhsec_(?P<secret>[A-Za-z0-9+/=]{24,})`,
		Keeps:   "the prefix: whsec_"},
	{Name: "digitalocean token", Hints: []string{"_v1_"},
		Pattern: `\bdo[opr]_v1_(?P<secret>[a-f0-9]{64})`,
		Keeps:   "the prefix: dop_v1_"},
	{Name: "shopify token", Hints: []string{"shp"},
		Pattern: `\bshp(?:at|ss|ca|pa)_(?P<secret>[a-fA-F0-9]{32})`,
		Keeps:   "the prefix: shpat_"},
	{Name: "pypi token", Hints: []string{"pypi-"},
		Pattern: `\bpypi-(?P<secret>AgE[A-Za-z0-9_-]{50,})`,
		Keeps:   "the prefix: pypi-"},
	{Name: "jwt", Hints: []string{"eyj"},
		Pattern: `\b(?P<secret>eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`,
		Keeps:   "nothing"},
}

// Table returns the rules, in the order they apply.
func Table() []Rule { return slices.Clone(rules[:]) }

// compiled holds each rule of the table once compiled: a rule is compiled
// the first time text holds one of its hints.
var compiled [len(rules)]struct {
	once sync.Once
	re   *regexp.Regexp
}

func rule(i int) *regexp.Regexp {
	c := &compiled[i]
	c.once.Do(func() { c.re = regexp.MustCompile(rules[i].Pattern) })
	return c.re
}

// Redactor applies the table and a project's own patterns. The nil
// Redactor applies the table alone.
type Redactor struct {
	extra []*regexp.Regexp
}

// New returns a Redactor that applies the table and then each of extra,
// Go regular expressions: a pattern's match is redacted whole, or only
// its groups named "secret" when it has some. A pattern that does not
// compile is an error naming it by its place in the list (from 1).
func New(extra []string) (*Redactor, error) {
	if len(extra) == 0 {
		return nil, nil
	}
	r := &Redactor{}
	for i, p := range extra {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %d, %q, is not a Go regular expression: %v", i+1, p, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		r.extra = append(r.extra, re)
	}
	return r, nil
}

// String returns s with every credential the rules find replaced by Mark.
// Text with no rule's hint comes back as it is, nothing compiled.
// Redacting twice changes nothing more than redacting once.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	lower := asciiLower(s)
	var has present
	has.add(lower)
	var lines []hits // the table's rules that run line by line
	for i := range rules {
		at := find(lower, &has, rules[i].Hints)
		if at == nil {
			continue
		}
		if rules[i].Multiline {
			s = replace(rule(i), s)
			lower = asciiLower(s)
			has.add(lower)
			continue
		}
		lines = append(lines, hits{rule: i, at: at})
	}
	if len(lines) > 0 {
		s = byLine(s, lines)
	}
	if r != nil {
		for _, re := range r.extra {
			s = replace(re, s)
		}
	}
	return s
}

// hits are where a rule's hints are in a text, in order.
type hits struct {
	rule int
	at   []int
}

// find returns where hints are in lower, in order; nil when nowhere. has
// holds what lower has (at least).
func find(lower string, has *present, hints []string) []int {
	var at []int
	for _, h := range hints {
		if !has.holds(h) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(lower[from:], h)
			if i < 0 {
				break
			}
			at = append(at, from+i)
			from += i + len(h)
		}
	}
	slices.Sort(at)
	return at
}

// present is what a text holds, so that a hint it cannot hold is not
// looked for: its bytes, and in a long text its pairs of bytes.
type present struct {
	bytes [256]bool
	pairs []uint64 // a bit for each pair of bytes (a<<8|b), in a long text
}

// longText is the length from which present keeps pairs too: looking
// for a hint whose first byte is common costs most in a long text.
const longText = 1 << 10

func (p *present) add(s string) {
	for i := 0; i < len(s); i++ {
		p.bytes[s[i]] = true
	}
	if len(s) < longText {
		return
	}
	if p.pairs == nil {
		p.pairs = make([]uint64, 1<<16/64)
	}
	for i := 1; i < len(s); i++ {
		k := uint(s[i-1])<<8 | uint(s[i])
		p.pairs[k/64] |= 1 << (k % 64)
	}
}

func (p *present) holds(h string) bool {
	for i := 0; i < len(h); i++ {
		if !p.bytes[h[i]] {
			return false
		}
	}
	if p.pairs != nil {
		for i := 1; i < len(h); i++ {
			k := uint(h[i-1])<<8 | uint(h[i])
			if p.pairs[k/64]&(1<<(k%64)) == 0 {
				return false
			}
		}
	}
	return true
}

// byLine applies each rule to the lines of s that hold one of its hints
// (rules, with where they are).
func byLine(s string, rules []hits) string {
	var b strings.Builder
	done := 0 // s[:done] is in b, or unchanged when b is empty
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line := s[start:end]
		out := line
		for k := range rules {
			h := &rules[k]
			for len(h.at) > 0 && h.at[0] < start {
				h.at = h.at[1:]
			}
			if len(h.at) > 0 && h.at[0] < end {
				out = replace(rule(h.rule), out)
			}
		}
		if out != line {
			b.WriteString(s[done:start])
			b.WriteString(out)
			done = end
		}
		start = end + 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// replace redacts re's matches in s: the groups named "secret" that took
// part, or the whole match when re has none. A value redacted already is
// left as it is, and so is an empty match.
func replace(re *regexp.Regexp, s string) string {
	matches := re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	names := re.SubexpNames()
	var b strings.Builder
	at := 0
	cut := func(from, to int) {
		if to <= from || from < at || strings.HasPrefix(s[from:], Mark) {
			return
		}
		b.WriteString(s[at:from])
		b.WriteString(Mark)
		at = to
	}
	for _, m := range matches {
		whole := true
		for g := 1; g < len(names); g++ {
			if names[g] == "secret" {
				whole = false
				cut(m[2*g], m[2*g+1])
			}
		}
		if whole {
			cut(m[0], m[1])
		}
	}
	if at == 0 {
		return s
	}
	b.WriteString(s[at:])
	return b.String()
}

// asciiLower is s with ASCII letters in lower case, every byte where it
// was; s itself when it has no upper-case ASCII letter.
func asciiLower(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for j := i; j < len(b); j++ {
		if c := b[j]; c >= 'A' && c <= 'Z' {
			b[j] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// JSON redacts a JSON value: every string in it (String), and the whole
// string value of a member whose name says it holds a credential
// ("password", "api_key", "x-auth-token"…). Objects keep their members'
// order; what is not JSON is redacted as text.
func (r *Redactor) JSON(raw []byte) []byte {
	if len(raw) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b bytes.Buffer
	if err := r.copyValue(dec, &b, false); err != nil || dec.More() {
		return []byte(r.String(string(raw)))
	}
	if _, err := dec.Token(); err == nil {
		return []byte(r.String(string(raw))) // more than one value
	}
	return b.Bytes()
}

// copyValue copies the next JSON value of dec to b, redacted; secret says
// its member's name names a credential.
func (r *Redactor) copyValue(dec *json.Decoder, b *bytes.Buffer, secret bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		end := byte('}')
		if t == '[' {
			end = ']'
		}
		b.WriteByte(byte(t))
		for first := true; dec.More(); first = false {
			if !first {
				b.WriteByte(',')
			}
			inner := secret
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				name, _ := k.(string)
				writeString(b, name)
				b.WriteByte(':')
				inner = SecretName(name)
			}
			if err := r.copyValue(dec, b, inner); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		b.WriteByte(end)
	case string:
		if secret && t != "" && !isSetting(t) {
			t = Mark
		}
		writeString(b, r.String(t))
	case json.Number:
		b.WriteString(t.String())
	case bool:
		fmt.Fprint(b, t)
	case nil:
		b.WriteString("null")
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

// SecretName reports whether a member's or variable's name says it holds
// a credential: it ends in key, token, pass, pwd or credentials (api_key,
// x-auth-token, accessToken, DB_PASS, MYSQL_PWD), holds secret or
// password anywhere (client_secret, PGPASSWORD), or is one of auth, pwd,
// session, cookie, sid, creds. A name that ends in file, path or dir
// names where a credential is kept, not the credential (password_file).
func SecretName(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"file", "path", "dir"} {
		if strings.HasSuffix(n, s) {
			return false
		}
	}
	switch n {
	case "authorization", "auth", "pwd", "pass", "session", "cookie", "sid", "creds", "credential", "credentials":
		return true
	}
	for _, sep := range []string{"_", "-", "."} {
		for _, s := range []string{"key", "pass", "pwd", "creds"} {
			if strings.HasSuffix(n, sep+s) {
				return true
			}
		}
	}
	return strings.HasSuffix(n, "token") || strings.HasSuffix(n, "apikey") || strings.HasSuffix(n, "credentials") ||
		strings.Contains(n, "secret") || strings.Contains(n, "password") || strings.Contains(n, "passwd")
}

// isSetting reports whether v, the value of a name that says credential,
// is a setting rather than a credential (settingWord): a number of one to
// three digits, or true, false, yes, no, on, off, none, null
// (PASSWORD_MIN_LENGTH=8, "password_required": "no").
func isSetting(v string) bool {
	if v != "" && len(v) <= 3 && strings.Trim(v, "0123456789") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "none", "null":
		return true
	}
	return false
}
