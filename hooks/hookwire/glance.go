package hookwire

import (
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/plangit/plangit/render/brief"
	"github.com/plangit/plangit/repo/disk"
)

// The glance: what the read-only hooks say, precomputed from the plan and
// kept in the session's .git/plangit/glance under a key naming the working
// files and the project's config.json as they stood (GlanceKey).
// PreToolUse and UserPromptSubmit run on every tool call and every prompt;
// with a good glance they answer without parsing the plan, and the hook
// binary answers them without plangit at all — and counts PostToolUse's
// tool uses and holds a stop with what the glance says of the plan, when
// it says that its files are the branch's (Landed). Every change writes the glance in the
// same locked step as its commit; a hook that finds none, or a stale one,
// parses the plan and writes it.
//
// What a glance holds is text ready to say, each piece with the key under
// which the turn memory counts it as said, and the rules the hooks apply,
// from config.json. Commands in it are written with CLIMark
// for "plangit", which the answer replaces with the command line that
// reaches the session (CLI).

// GlanceFile is the glance's name in the session's private directory.
const GlanceFile = "glance"

// GlanceVersion changes whenever what a glance holds, or how it is drawn,
// changes, so an old glance is never read as a new one.
const GlanceVersion = "plangit glance 13"

// CLIMark stands for the command that runs plangit in text kept for later:
// a control character, which no plan text can hold.
const CLIMark = "\x1a"

// Glance is what the read-only hooks, PostToolUse's counting and the Stop
// gate need of a session.
type Glance struct {
	Key        string
	Files      []string // the working files Key was computed from
	Landed     string   // FilesKey of the working files when they were known to be the branch's: "" for not known
	Rev        string   // the branch's commit the files were known to be, with Landed
	Status     string   // the plan's status
	Unfinished bool     // the plan is pending, running or paused
	Complete   bool     // every step of the plan is completed or skipped
	Line       Part     // the prompt line (UserPromptSubmit)
	Names      []string // the things the prompt line says, by key: the current and next step
	Step       Part     // the step before a critical tool: the current one, else the next
	Cur        string   // the step in progress, "" for none
	CurText    string   // its text, one line, at most 80 characters
	Sig        string   // the plan's step signature
	Failed     string   // the failed steps' ids, comma-separated: the person is told of each once
	Findings   int      // the newest finding's id (PostPlan.Findings)
	Errors     []GlanceError
	OpenErrors []ToolCount // how many errors each tool has open; Errors holds at most five of a tool's
	Left       []string    // what a stop is told is left (a running plan with steps left), most important first
	// Claims is how many steps hold a claim, live or expired: a plan
	// with claims is answered per agent, by plangit (the hook binary
	// hands it on), and a plan with none pays nothing for them.
	Claims int
	// ClaimKey names the plan's claims, each step's holder and token
	// (ClaimsKey): the hook binary answers an agent who was told them.
	ClaimKey string
	// Leases are the claims' leases as committed, for the hook binary's
	// renewals (Renewals).
	Leases []Lease
	Rules  Rules
}

// ToolCount is a number of something of one tool.
type ToolCount struct {
	Tool string
	N    int
}

// GlanceError is an open error, newest first.
type GlanceError struct {
	Tool, ID, Count string
	Key             string // what the tool acted on, normalised (NormKey)
	Text            string // the message, one line, clipped
}

// Rules are the settings (config.json) the read-only hooks and
// PostToolUse's counting apply.
type Rules struct {
	Off              []string // hook events turned off
	CriticalTools    []string // tools that get the current step and their open errors first
	WriteTools       []string // tools that change files
	ViewTools        []string // tools the 2-action rule counts
	PlanConfirmation bool     // ask before a change while the plan awaits approval
	StepConfirmation bool     // ask before a step starts
	Budget           int      // the context budget, in bytes
	ActionThreshold  int      // look-ups between findings reminders
	AutoAdvance      bool     // a step that took AdvanceAfter tool uses advances
	AdvanceAfter     int
	MaxIterations    int    // tool uses before the plan pauses; 0: no limit
	StopMode         string // gate, always, advise or off
	StopBlockCap     int    // stop_mode always: blocks in a row
	PushOnStop       bool   // push_on stop: the Stop hook pushes the session
}

// GlanceKey names the working files and the project's config as they
// stand: configPath's key, then each file's in dir (FilesKey).
func GlanceKey(configPath, dir string, files []string) string {
	b := make([]byte, 0, 64*(len(files)+1))
	b = append(disk.AppendFileKey(append(b, "config:"...), configPath), ';')
	return string(disk.AppendFilesKey(b, dir, files))
}

// Current reports whether the glance is of the commit the session's
// branch names and of the working files as they stand, which are that
// commit's: only then is what it says what the plan says. A glance is a
// cache, written beside the plan; one that names another commit, or none,
// or files changed since, is not answered from.
func (g *Glance) Current(dir string) bool {
	return g.Rev != "" && g.Landed != "" && g.Landed == disk.FilesKey(dir, g.Files) && g.Rev == BranchTip(dir)
}

// BranchTip is the commit a session's branch names, read from its loose
// ref; "" when there is none or it does not hold one commit id.
func BranchTip(dir string) string {
	b, err := disk.ReadFile(filepath.Join(dir, ".git", "refs", "heads", "main"))
	if err != nil || len(b) != 41 || b[40] != '\n' {
		return ""
	}
	for _, c := range b[:40] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return string(b[:40])
}

// NormKey is plan.NormalizeKey, for the hook's hot path: white space
// collapsed and trimmed, at most 1,000 bytes.
func NormKey(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= 1000 {
		return s
	}
	cut := 1000 - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// Redacted is what a credential in a recorded key became (package
// plan/redact's Mark, which this stdlib-only package cannot import).
const Redacted = "[redacted]"

// SameKey reports whether a key as recorded — its credentials redacted —
// is key as the tool gives it now: equal, each Redacted standing for
// the text (at least a byte) the credential was.
func SameKey(recorded, key string) bool {
	if !strings.Contains(recorded, Redacted) {
		return recorded == key
	}
	pieces := strings.Split(recorded, Redacted)
	rest, ok := strings.CutPrefix(key, pieces[0])
	if !ok {
		return false
	}
	last := pieces[len(pieces)-1]
	for _, p := range pieces[1 : len(pieces)-1] {
		i := strings.Index(rest[min(1, len(rest)):], p)
		if i < 0 {
			return false
		}
		rest = rest[min(1, len(rest))+i+len(p):]
	}
	return len(rest) > len(last) && strings.HasSuffix(rest, last)
}

// ToolParts is what to say before a critical tool that acts on key (for
// a shell tool, its command): the step, the error this very key met
// before, and the tool's other open errors in one line.
func (g *Glance) ToolParts(tool, key string) []Part {
	parts := []Part{g.Step}
	key = NormKey(key)
	var others []string
	var names []string
	for _, e := range g.Errors {
		if e.Tool != tool {
			continue
		}
		if key != "" && SameKey(e.Key, key) {
			parts = append(parts, Part{Key: "error " + e.ID + " " + e.Count,
				Text: brief.Data("`" + ClipKey(e.Key) + "` failed before (error #" + e.ID + ", ×" + e.Count + "): " + e.Text)})
			continue
		}
		what := e.Text
		if e.Key != "" {
			what = "`" + ClipKey(e.Key) + "`"
		}
		if len(what) > 80 {
			what = what[:utf8Start(what, 79)] + "…"
		}
		others = append(others, "#"+e.ID+" ×"+e.Count+" "+what)
		names = append(names, e.ID+":"+e.Count)
	}
	if len(others) > 0 {
		label := "Open " + tool + " errors: "
		if len(parts) > 1 {
			label = "Other open " + tool + " errors: "
		}
		parts = append(parts, Part{Key: "errors " + tool + " " + strings.Join(names, ","),
			Text: brief.Data(label+strings.Join(others, "; ")) + "\n" + CLIMark + " errors --open lists them."})
	}
	return parts
}

// ClipKey cuts a key to 60 bytes for a message.
func ClipKey(k string) string {
	if len(k) <= 60 {
		return k
	}
	return k[:utf8Start(k, 59)] + "…"
}

// utf8Start is the largest i <= n at which a rune of s starts.
func utf8Start(s string, n int) int {
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// A glance is written as lines of a name and Go-quoted values, a format
// read without reflection (see json.go for why that matters here), and
// ends in a checksum of all that comes before it:
//
//	plangit glance 6
//	key "config:-;task_plan.md:812:…"
//	file "task_plan.md"
//	landed "task_plan.md:812:…"
//	status "running" "open"
//	sig "9f3c…"
//	cur "2" "Design the cache"
//	findings "3"
//	line "KEY" "[plangit] …"
//	name "current 2 Design the cache"
//	step "KEY" "[plangit] Current step: …"
//	error "Bash" "1" "2" "go test ./..." "Exit code 1: …"
//	open "Bash" "1"
//	left "[plangit] 3 of 5 steps are not done. …"
//	off "PreCompact"
//	critical "Write"
//	write "Write"
//	view "Read"
//	confirm "plan" "-"
//	budget "2000"
//	count "2" "auto" "10" "0"
//	stop "gate" "3" "-"
//	end 3c6f2a9b0d1e4f57
//
// plangit writes it in place, not by rename (a rename over a file costs a
// tenth of a millisecond on ext4), so a reader may meet a write half done:
// the checksum — FNV-1a 64 of every byte before the end line — makes that
// no glance.
func (g *Glance) Encode() []byte {
	b := []byte(GlanceVersion + "\n")
	line := func(name string, values ...string) {
		b = append(b, name...)
		for _, v := range values {
			b = strconv.AppendQuote(append(b, ' '), v)
		}
		b = append(b, '\n')
	}
	line("key", g.Key)
	for _, f := range g.Files {
		line("file", f)
	}
	line("landed", g.Landed)
	line("rev", g.Rev)
	line("status", g.Status, flag(g.Unfinished, "open"), flag(g.Complete, "complete"))
	line("sig", g.Sig)
	if g.Failed != "" {
		line("failed", g.Failed)
	}
	line("cur", g.Cur, g.CurText)
	line("findings", strconv.Itoa(g.Findings))
	if g.Claims > 0 {
		line("claims", strconv.Itoa(g.Claims))
		line("claimkey", g.ClaimKey)
		for _, l := range g.Leases {
			line("lease", l.Agent, strconv.Itoa(l.Token), strconv.FormatInt(l.Lease, 10), strconv.FormatInt(l.Until, 10))
		}
	}
	line("line", g.Line.Key, g.Line.Text)
	for _, n := range g.Names {
		line("name", n)
	}
	line("step", g.Step.Key, g.Step.Text)
	for _, e := range g.Errors {
		line("error", e.Tool, e.ID, e.Count, e.Key, e.Text)
	}
	for _, o := range g.OpenErrors {
		line("open", o.Tool, strconv.Itoa(o.N))
	}
	for _, l := range g.Left {
		line("left", l)
	}
	r := g.Rules
	for _, e := range r.Off {
		line("off", e)
	}
	for _, t := range r.CriticalTools {
		line("critical", t)
	}
	for _, t := range r.WriteTools {
		line("write", t)
	}
	for _, t := range r.ViewTools {
		line("view", t)
	}
	line("confirm", flag(r.PlanConfirmation, "plan"), flag(r.StepConfirmation, "step"))
	line("budget", strconv.Itoa(r.Budget))
	line("count", strconv.Itoa(r.ActionThreshold), flag(r.AutoAdvance, "auto"), strconv.Itoa(r.AdvanceAfter), strconv.Itoa(r.MaxIterations))
	line("stop", r.StopMode, strconv.Itoa(r.StopBlockCap), flag(r.PushOnStop, "push"))
	return append(b, "end "+checksum(string(b))+"\n"...)
}

func flag(on bool, name string) string {
	if on {
		return name
	}
	return "-"
}

// checksum is sum64 of s, in 16 hex digits.
func checksum(s string) string {
	var b [16]byte
	return string(appendHex16(b[:0], sum64(s)))
}

// sum64 is FNV-1a 64 taken eight bytes at a time (the bytes after the
// last eight one at a time): each step is a bijection of the sum, so a
// glance torn by a write in progress sums differently, in an eighth of
// FNV-1a's steps — every hook call sums its glance.
func sum64(s string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for ; len(s) >= 8; s = s[8:] {
		h ^= uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h *= prime
	}
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

// fnv64a is FNV-1a 64 of s (hash/fnv's New64a, without its interface).
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// appendHex16 appends v in 16 hex digits.
func appendHex16(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[v>>shift&15])
	}
	return b
}

// DecodeGlance reads what Encode wrote; ok is false for anything else.
func DecodeGlance(b []byte) (g *Glance, ok bool) { return decodeGlance(string(b)) }

// ReadGlance reads the glance file at path; ok is false when there is
// none or it is not one Encode wrote.
func ReadGlance(path string) (g *Glance, ok bool) {
	s, err := disk.ReadFileString(path)
	if err != nil {
		return nil, false
	}
	return decodeGlance(s)
}

// decodeGlance reads a glance; its values are parts of s.
func decodeGlance(s string) (g *Glance, ok bool) {
	if s == "" || s[len(s)-1] != '\n' {
		return nil, false
	}
	i := strings.LastIndexByte(s[:len(s)-1], '\n') + 1
	body, end := s[:i], s[i:len(s)-1]
	var sum [16]byte
	if !strings.HasPrefix(end, "end ") || end[4:] != string(appendHex16(sum[:0], sum64(body))) {
		return nil, false
	}
	first, body, _ := strings.Cut(body, "\n")
	if first != GlanceVersion {
		return nil, false
	}
	g = &Glance{}
	number := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	// The lists of strings share one array, as many as the lines, and
	// the lists of errors are made to measure: a list grown line by line
	// is an allocation each time it doubles. A list's lines are
	// consecutive (Encode writes them so); a glance whose are not is
	// refused.
	pool := make([]string, 0, strings.Count(body, "\n"))
	list := func(l *[]string, v string) bool {
		n := len(*l)
		if n > 0 && &(*l)[n-1] != &pool[len(pool)-1] {
			return false
		}
		pool = append(pool, v)
		*l = pool[len(pool)-n-1 : len(pool) : len(pool)]
		return true
	}
	if n := strings.Count(body, "\nerror "); n > 0 {
		g.Errors = make([]GlanceError, 0, n)
	}
	if n := strings.Count(body, "\nopen "); n > 0 {
		g.OpenErrors = make([]ToolCount, 0, n)
	}
	var v [5]string
	for body != "" {
		l := body[:strings.IndexByte(body, '\n')]
		body = body[len(l)+1:]
		name, rest, _ := strings.Cut(l, " ")
		count := glanceValues(name)
		if count == 0 {
			return nil, false
		}
		for i := range count {
			var err error
			if i > 0 {
				if !strings.HasPrefix(rest, " ") {
					return nil, false
				}
				rest = rest[1:]
			}
			if v[i], rest, err = unquotePrefix(rest); err != nil {
				return nil, false
			}
		}
		if rest != "" {
			return nil, false
		}
		good := true
		switch name {
		case "key":
			g.Key = v[0]
		case "file":
			good = list(&g.Files, v[0])
		case "landed":
			g.Landed = v[0]
		case "rev":
			g.Rev = v[0]
		case "status":
			g.Status, g.Unfinished, g.Complete = v[0], v[1] == "open", v[2] == "complete"
		case "sig":
			g.Sig = v[0]
		case "failed":
			g.Failed = v[0]
		case "cur":
			g.Cur, g.CurText = v[0], v[1]
		case "findings":
			g.Findings, good = number(v[0])
		case "claims":
			g.Claims, good = number(v[0])
		case "claimkey":
			g.ClaimKey = v[0]
		case "lease":
			l := Lease{Agent: v[0]}
			var err1, err2, err3 error
			l.Token, err1 = strconv.Atoi(v[1])
			l.Lease, err2 = strconv.ParseInt(v[2], 10, 64)
			l.Until, err3 = strconv.ParseInt(v[3], 10, 64)
			good = err1 == nil && err2 == nil && err3 == nil
			g.Leases = append(g.Leases, l)
		case "line":
			g.Line = Part{Key: v[0], Text: v[1]}
		case "name":
			good = list(&g.Names, v[0])
		case "step":
			g.Step = Part{Key: v[0], Text: v[1]}
		case "error":
			g.Errors = append(g.Errors, GlanceError{Tool: v[0], ID: v[1], Count: v[2], Key: v[3], Text: v[4]})
		case "open":
			var n int
			n, good = number(v[1])
			g.OpenErrors = append(g.OpenErrors, ToolCount{Tool: v[0], N: n})
		case "left":
			good = list(&g.Left, v[0])
		case "off":
			good = list(&g.Rules.Off, v[0])
		case "critical":
			good = list(&g.Rules.CriticalTools, v[0])
		case "write":
			good = list(&g.Rules.WriteTools, v[0])
		case "view":
			good = list(&g.Rules.ViewTools, v[0])
		case "confirm":
			g.Rules.PlanConfirmation, g.Rules.StepConfirmation = v[0] == "plan", v[1] == "step"
		case "budget":
			g.Rules.Budget, good = number(v[0])
		case "count":
			r := &g.Rules
			var a, b, c bool
			r.ActionThreshold, a = number(v[0])
			r.AutoAdvance = v[1] == "auto"
			r.AdvanceAfter, b = number(v[2])
			r.MaxIterations, c = number(v[3])
			good = a && b && c
		case "stop":
			g.Rules.StopMode, g.Rules.PushOnStop = v[0], v[2] == "push"
			g.Rules.StopBlockCap, good = number(v[1])
		}
		if !good {
			return nil, false
		}
	}
	return g, true
}

// glanceValues is how many values a line of the glance has, by its name;
// 0 for a name a glance has no line of.
func glanceValues(name string) int {
	switch name {
	case "key", "file", "landed", "rev", "sig", "failed", "findings", "claims", "claimkey", "name", "left", "off", "critical", "write", "view", "budget":
		return 1
	case "cur", "line", "step", "open", "confirm":
		return 2
	case "status", "stop":
		return 3
	case "count", "lease":
		return 4
	case "error":
		return 5
	}
	return 0
}

// unquotePrefix reads the quoted string at the start of s. What
// strconv.AppendQuote writes — the glance's own values — is read here,
// escape by escape; anything else goes to strconv.
func unquotePrefix(s string) (value, rest string, err error) {
	if len(s) > 1 && s[0] == '"' {
		var b []byte
		start := 1
		for i := 1; ; {
			q := strings.IndexByte(s[i:], '"')
			if q < 0 {
				break
			}
			q += i
			e := strings.IndexByte(s[i:q], '\\')
			if e < 0 {
				if b == nil {
					return s[1:q], s[q+1:], nil
				}
				b = append(b, s[start:q]...)
				return unsafe.String(unsafe.SliceData(b), len(b)), s[q+1:], nil // b is the value's alone
			}
			e += i
			c, n := quoteEscape(s[e+1:])
			if n == 0 {
				break // not one of ours: strconv reads it
			}
			if b == nil {
				b = make([]byte, 0, len(s)) // the value is shorter than its quoting
			}
			b = append(append(b, s[start:e]...), c...)
			i = e + 1 + n
			start = i
		}
	}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", err
	}
	value, err = strconv.Unquote(q)
	return value, s[len(q):], err
}

// quoteEscape reads an escape strconv.AppendQuote writes, s being what
// follows its backslash: the bytes it stands for and its length; 0 for
// another.
func quoteEscape(s string) (string, int) {
	switch s[0] {
	case '\\', '"':
		return s[:1], 1
	case 'a':
		return "\a", 1
	case 'b':
		return "\b", 1
	case 'f':
		return "\f", 1
	case 'n':
		return "\n", 1
	case 'r':
		return "\r", 1
	case 't':
		return "\t", 1
	case 'v':
		return "\v", 1
	case 'x':
		if v, err := strconv.ParseUint(s[1:min(3, len(s))], 16, 8); err == nil && len(s) >= 3 {
			return string([]byte{byte(v)}), 3
		}
	}
	return "", 0
}
