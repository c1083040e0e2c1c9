package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/redact"
	"github.com/plangit/plangit/repo/confedit"
)

// Config is a project's settings, from .code-agent/config.json. A missing
// file means every default; a missing key means that key's default.
type Config struct {
	RetentionDays    int             `json:"retention_days"`    // cleanup's default age
	Hooks            map[string]bool `json:"hooks"`             // hook event → enabled
	StopMode         string          `json:"stop_mode"`         // gate, always, advise or off
	StopBlockCap     int             `json:"stop_block_cap"`    // stop_mode always: blocks of Stop in a row before it lets the agent stop
	ActionThreshold  int             `json:"action_threshold"`  // view-tool uses between findings reminders (the 2-action rule)
	StrikeLimit      int             `json:"strike_limit"`      // failures of one error before the three-strike warning
	MaxIterations    int             `json:"max_iterations"`    // tool uses before the plan pauses; 0 means no limit
	CriticalTools    []string        `json:"critical_tools"`    // tools that get the current step and their error history first
	ViewTools        []string        `json:"view_tools"`        // tools counted by the 2-action rule
	WriteTools       []string        `json:"write_tools"`       // tools followed by an "update the step" reminder
	PlanConfirmation bool            `json:"plan_confirmation"` // new plans await approval; write tools ask until then
	StepConfirmation bool            `json:"step_confirmation"` // ask before an agent starts a step
	ContextBudget    int             `json:"context_budget"`    // bytes of context a hook may inject
	AutoAdvance      bool            `json:"auto_advance"`      // complete the current step on transition words, or after advance_after tool uses
	AdvanceAfter     int             `json:"advance_after"`     // with auto_advance: tool uses in one step before it advances
	AutoCreatePlan   bool            `json:"auto_create_plan"`  // hooks start a plan from a session's first prompt
	PushOn           string          `json:"push_on"`           // off, stop or session_end: the hook that pushes the session in the background
	PushRemote       string          `json:"push_remote"`       // the remote push and fetch use; "" is the branch's upstream remote, else origin
	CleanupOn        string          `json:"cleanup_on"`        // off, session_start or session_end: the hook that runs cleanup (retention_days)
	MaxRetries       int             `json:"max_retries"`       // times a failed step goes back to pending before the failure sticks
	AutoFinish       bool            `json:"auto_finish"`       // completing the last step completes the plan
	PhaseOrder       string          `json:"phase_order"`       // strict: a phase's steps wait for the earlier phases; free: only needs order steps
	RedactExtra      []string        `json:"redact_extra"`      // Go regular expressions of credentials redacted besides plangit's own table
	ClaimLease       string          `json:"claim_lease"`       // how long a claim holds a step without a renewal (plan.ParseLease: 90s, 15m, 2h)
	Worktree         string          `json:"worktree"`          // shared: linked git worktrees use this, the main worktree's, plans; separate: each keeps its own
	CodeSnapshots    string          `json:"code_snapshots"`    // on: a snapshot of the project's work tree at every step boundary; off: none
	// CodeSnapshotMaxFile is the size in bytes over which a file a
	// snapshot would have to read is recorded by name and size only.
	CodeSnapshotMaxFile int `json:"code_snapshot_max_file"`

	redactor *redact.Redactor // RedactExtra compiled, with the table (validate)
}

// pushOnValues are when hooks may push a session.
var pushOnValues = []string{"off", "stop", "session_end"}

// cleanupOnValues are when hooks may clean up old sessions (the
// Manus-style seed's autoCleanup).
var cleanupOnValues = []string{"off", "session_start", "session_end"}

// WorktreeModes are the values of worktree: shared, the project's linked
// git worktrees use the main worktree's .code-agent/; separate, each
// keeps its own (disk.FindRoot).
var WorktreeModes = []string{"shared", "separate"}

// HookEvents are the hook events plangit answers, in the order of a session.
var HookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}

// StopModes are the values of stop_mode: gate blocks a stop once in a turn
// that worked on the plan while steps are left; always blocks every stop
// while steps are left (up to stop_block_cap in a row); advise tells the
// person what is left; off says nothing.
var StopModes = []string{"gate", "always", "advise", "off"}

// configAliases are older names of settings, read as the new ones.
var configAliases = map[string]string{"step_iteration_limit": "advance_after"}

// DefaultConfig is every setting's default.
func DefaultConfig() Config {
	hooks := make(map[string]bool, len(HookEvents))
	for _, e := range HookEvents {
		hooks[e] = true
	}
	return Config{
		RetentionDays:       7,
		Hooks:               hooks,
		StopMode:            "gate",
		StopBlockCap:        3,
		ActionThreshold:     2,
		StrikeLimit:         3,
		MaxIterations:       0,
		CriticalTools:       []string{"Write", "Edit", "MultiEdit", "Bash"},
		ViewTools:           []string{"Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch"},
		WriteTools:          []string{"Write", "Edit", "MultiEdit", "NotebookEdit"},
		PlanConfirmation:    false,
		StepConfirmation:    false,
		ContextBudget:       2000,
		AutoAdvance:         false,
		AdvanceAfter:        10,
		AutoCreatePlan:      true,
		PushOn:              "off",
		CleanupOn:           "off",
		PushRemote:          "",
		MaxRetries:          plan.DefaultMaxRetries,
		AutoFinish:          false,
		PhaseOrder:          string(plan.PhasesStrict),
		RedactExtra:         []string{},
		ClaimLease:          "15m",
		Worktree:            "shared",
		CodeSnapshots:       "on",
		CodeSnapshotMaxFile: 5 << 20,
	}
}

// Lease is the claims' default lease (claim_lease).
func (c Config) Lease() time.Duration {
	d, err := plan.ParseLease(c.ClaimLease)
	if err != nil {
		return plan.DefaultLease
	}
	return d
}

// Rules are the settings that change how a plan behaves, for plan.Plan.Rules.
func (c Config) Rules() plan.Rules {
	return plan.Rules{PhaseOrder: plan.PhaseOrder(c.PhaseOrder), MaxRetries: c.MaxRetries, AutoFinish: c.AutoFinish, Redact: c.redactor}
}

// Redactor redacts credentials in text from tool calls: the table of
// package redact, then the project's redact_extra.
func (c Config) Redactor() *redact.Redactor { return c.redactor }

// ConfigPath is the project's config file.
func (p Project) ConfigPath() string { return filepath.Join(p.Dir(), ConfigFile) }

// Config reads the project's settings. A broken file is an error naming
// the key (or position) at fault.
func (p Project) Config() (Config, error) {
	if err := p.Check(); err != nil {
		return Config{}, err
	}
	b, err := os.ReadFile(p.ConfigPath())
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return Config{}, plan.WrapError(plan.CodeIOError, err, "cannot read %s", p.ConfigPath())
	}
	return ParseConfig(b)
}

// configError is INVALID_ARGUMENT naming the config file and the key.
func configError(key, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if key != "" {
		return plan.Errorf(plan.CodeInvalidArgument, "%s: %s: %s", ConfigFile, key, msg).With("key", key)
	}
	return plan.Errorf(plan.CodeInvalidArgument, "%s: %s", ConfigFile, msg)
}

// ParseConfig reads config.json over the defaults: unknown keys, wrong
// types and impossible values are errors naming the key.
func ParseConfig(b []byte) (Config, error) {
	c := DefaultConfig()
	if len(bytes.TrimSpace(b)) == 0 {
		return c, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")) + 1
			return Config{}, configError("", "malformed JSON at line %d: %s", line, se.Error())
		}
		return Config{}, configError("", "the file must hold a JSON object")
	}
	fields := configFields(&c)
	for old, key := range configAliases {
		if _, both := raw[key]; both && raw[old] != nil {
			return Config{}, configError(old, "is the older name of %s; keep one of them", key)
		}
	}
	for key, value := range raw {
		if alias, ok := configAliases[key]; ok {
			key = alias
		}
		ptr, ok := fields[key]
		if !ok {
			return Config{}, configError(key, "unknown setting; known: %s", strings.Join(ConfigKeys(), ", "))
		}
		if key == "hooks" {
			var hooks map[string]bool
			if err := json.Unmarshal(value, &hooks); err != nil {
				return Config{}, configError(key, "must be an object of event names to true or false")
			}
			for ev, on := range hooks {
				if !slices.Contains(HookEvents, ev) {
					return Config{}, configError("hooks."+ev, "unknown hook event; known: %s", strings.Join(HookEvents, ", "))
				}
				c.Hooks[ev] = on
			}
			continue
		}
		if err := json.Unmarshal(value, ptr); err != nil {
			return Config{}, configError(key, "must be %s", typeName(ptr))
		}
	}
	return c, c.validate()
}

func (c *Config) validate() error {
	positive := map[string]int{"retention_days": c.RetentionDays, "stop_block_cap": c.StopBlockCap, "action_threshold": c.ActionThreshold,
		"strike_limit": c.StrikeLimit, "context_budget": c.ContextBudget, "advance_after": c.AdvanceAfter}
	for _, k := range ConfigKeys() {
		if v, ok := positive[k]; ok && v < 1 {
			return configError(k, "must be at least 1, not %d", v)
		}
	}
	if c.MaxIterations < 0 {
		return configError("max_iterations", "must be 0 (no limit) or more, not %d", c.MaxIterations)
	}
	if c.MaxRetries < 0 {
		return configError("max_retries", "must be 0 (fail outright) or more, not %d", c.MaxRetries)
	}
	if _, ok := plan.ParsePhaseOrder(c.PhaseOrder); !ok {
		return configError("phase_order", "must be strict or free, not %q", c.PhaseOrder)
	}
	if c.ContextBudget < 200 {
		return configError("context_budget", "must be at least 200 bytes, not %d", c.ContextBudget)
	}
	if !slices.Contains(StopModes, c.StopMode) {
		return configError("stop_mode", "must be gate, always, advise or off, not %q", c.StopMode)
	}
	if !slices.Contains(pushOnValues, c.PushOn) {
		return configError("push_on", "must be off, stop or session_end, not %q", c.PushOn)
	}
	if !slices.Contains(cleanupOnValues, c.CleanupOn) {
		return configError("cleanup_on", "must be off, session_start or session_end, not %q", c.CleanupOn)
	}
	if strings.ContainsAny(c.PushRemote, " \t\n:") {
		return configError("push_remote", "must be the name of a git remote, not %q", c.PushRemote)
	}
	if _, err := plan.ParseLease(c.ClaimLease); err != nil {
		return configError("claim_lease", "%s", err.(*plan.Error).Message)
	}
	if !slices.Contains(WorktreeModes, c.Worktree) {
		return configError("worktree", "must be shared or separate, not %q", c.Worktree)
	}
	if c.CodeSnapshots != "on" && c.CodeSnapshots != "off" {
		return configError("code_snapshots", "must be on or off, not %q", c.CodeSnapshots)
	}
	if c.CodeSnapshotMaxFile < 1 {
		return configError("code_snapshot_max_file", "must be a size in bytes of at least 1, not %d", c.CodeSnapshotMaxFile)
	}
	r, err := redact.New(c.RedactExtra)
	if err != nil {
		return configError("redact_extra", "%v", err)
	}
	c.redactor = r
	return nil
}

// configFields maps each key to its field in c.
func configFields(c *Config) map[string]any {
	return map[string]any{
		"retention_days": &c.RetentionDays, "hooks": &c.Hooks, "stop_mode": &c.StopMode, "stop_block_cap": &c.StopBlockCap,
		"action_threshold": &c.ActionThreshold, "strike_limit": &c.StrikeLimit, "max_iterations": &c.MaxIterations,
		"critical_tools": &c.CriticalTools, "view_tools": &c.ViewTools, "write_tools": &c.WriteTools,
		"plan_confirmation": &c.PlanConfirmation, "step_confirmation": &c.StepConfirmation, "context_budget": &c.ContextBudget,
		"auto_advance": &c.AutoAdvance, "advance_after": &c.AdvanceAfter, "auto_create_plan": &c.AutoCreatePlan,
		"push_on": &c.PushOn, "push_remote": &c.PushRemote, "cleanup_on": &c.CleanupOn,
		"max_retries": &c.MaxRetries, "auto_finish": &c.AutoFinish, "phase_order": &c.PhaseOrder,
		"redact_extra": &c.RedactExtra, "claim_lease": &c.ClaimLease, "worktree": &c.Worktree,
		"code_snapshots": &c.CodeSnapshots, "code_snapshot_max_file": &c.CodeSnapshotMaxFile,
	}
}

// ConfigKeys lists every setting, sorted.
func ConfigKeys() []string {
	keys := make([]string, 0, 16)
	for k := range configFields(&Config{}) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func typeName(ptr any) string {
	switch ptr.(type) {
	case *int:
		return "a whole number"
	case *bool:
		return "true or false"
	case *string:
		return "a string"
	case *[]string:
		return "a list of strings"
	}
	return "of another type"
}

// Get returns a setting's value as JSON; "hooks.Stop" reads one hook toggle.
func (c Config) Get(key string) (string, error) {
	if ev, ok := strings.CutPrefix(key, "hooks."); ok {
		on, known := c.Hooks[ev]
		if !known {
			return "", configError(key, "unknown hook event; known: %s", strings.Join(HookEvents, ", "))
		}
		return strconv.FormatBool(on), nil
	}
	if alias, ok := configAliases[key]; ok {
		key = alias
	}
	ptr, ok := configFields(&c)[key]
	if !ok {
		return "", configError(key, "unknown setting; known: %s", strings.Join(ConfigKeys(), ", "))
	}
	b, _ := json.Marshal(ptr)
	return string(b), nil
}

// Set changes one setting from its text: a number, true/false, a word, or
// a comma-separated list for tool names; "hooks.Stop" sets one hook toggle;
// redact_extra, whose patterns hold commas, takes a JSON list of patterns
// or a single one ("" for none). The result is validated.
func (c *Config) Set(key, value string) error {
	next := c.clone()
	if ev, ok := strings.CutPrefix(key, "hooks."); ok {
		if !slices.Contains(HookEvents, ev) {
			return configError(key, "unknown hook event; known: %s", strings.Join(HookEvents, ", "))
		}
		on, err := strconv.ParseBool(value)
		if err != nil {
			return configError(key, "must be true or false, not %q", value)
		}
		next.Hooks[ev] = on
		*c = next
		return nil
	}
	if alias, ok := configAliases[key]; ok {
		key = alias
	}
	ptr, ok := configFields(&next)[key]
	if !ok {
		return configError(key, "unknown setting; known: %s", strings.Join(ConfigKeys(), ", "))
	}
	switch p := ptr.(type) {
	case *int:
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return configError(key, "must be a whole number, not %q", value)
		}
		*p = n
	case *bool:
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return configError(key, "must be true or false, not %q", value)
		}
		*p = b
	case *string:
		*p = strings.TrimSpace(value)
	case *[]string:
		var list []string
		if key == "redact_extra" {
			list, err := patternList(value)
			if err != nil {
				return err
			}
			*p = list
			break
		}
		for _, v := range strings.Split(value, ",") {
			if v = strings.TrimSpace(v); v != "" {
				list = append(list, v)
			}
		}
		*p = list
	default:
		return configError(key, "set it per event: hooks.EVENT true|false")
	}
	if err := next.validate(); err != nil {
		return err
	}
	*c = next
	return nil
}

// patternList reads redact_extra's value for Set: a JSON list of
// strings, or one pattern; nothing for "".
func patternList(value string) ([]string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return []string{}, nil
	}
	if !strings.HasPrefix(v, "[") {
		return []string{value}, nil
	}
	var list []string
	if err := json.Unmarshal([]byte(v), &list); err != nil {
		return nil, configError("redact_extra", "must be a JSON list of patterns, [\"...\", \"...\"], or one pattern: %v", err)
	}
	if list == nil {
		list = []string{}
	}
	return list, nil
}

func (c Config) clone() Config {
	n := c
	n.Hooks = make(map[string]bool, len(c.Hooks))
	for k, v := range c.Hooks {
		n.Hooks[k] = v
	}
	n.CriticalTools, n.ViewTools, n.WriteTools = slices.Clone(c.CriticalTools), slices.Clone(c.ViewTools), slices.Clone(c.WriteTools)
	n.RedactExtra = slices.Clone(c.RedactExtra)
	return n
}

// SetConfig changes one setting in .code-agent/config.json, as Config.Set
// reads it, and returns the settings that result. Only that key is
// written: the file's other keys and its formatting stay byte for byte, a
// file that did not exist holds just that key, and a key left out keeps
// following its default. A broken file is an error naming the key, and is
// not written.
func (p Project) SetConfig(key, value string) (Config, error) {
	if err := p.Check(); err != nil {
		return Config{}, err
	}
	b, err := os.ReadFile(p.ConfigPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Config{}, plan.WrapError(plan.CodeIOError, err, "cannot read %s", p.ConfigPath())
	}
	c, err := ParseConfig(b)
	if err != nil {
		return Config{}, err
	}
	if err := c.Set(key, value); err != nil {
		return Config{}, err
	}
	path := []string{key}
	if ev, ok := strings.CutPrefix(key, "hooks."); ok {
		path = []string{"hooks", ev}
	}
	v, _ := c.Get(key)
	doc, err := confedit.Parse(b)
	if err != nil {
		return Config{}, configError("", "%v", err)
	}
	// A setting the file holds under its older name, or its newer, is
	// written where it is.
	for old, name := range configAliases {
		if key == old || key == name {
			path = []string{name}
			if doc.Lookup(old) != nil {
				path = []string{old}
			}
		}
	}
	if old := doc.Lookup(path...); old != nil && jsonEqual(doc.Text(old), []byte(v)) {
		return c, nil // already so: nothing to write
	}
	if err := doc.Set(path, json.RawMessage(v)); err != nil {
		return Config{}, configError(key, "%v", err)
	}
	if err := p.ensureDir(); err != nil {
		return Config{}, err
	}
	return c, WriteFileAtomic(p.ConfigPath(), doc.Bytes(), 0o644, true)
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
