package hooks

import (
	"reflect"
	"slices"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
)

// Hosts plangit answers, by the name --host takes.
const (
	HostClaude  = hookwire.HostClaude
	HostCodex   = hookwire.HostCodex
	HostCursor  = hookwire.HostCursor
	HostGemini  = hookwire.HostGemini
	HostCopilot = hookwire.HostCopilot
)

// HostEvent is one event of a host that plangit hooks: the host's name for
// it and the plangit (Claude Code) event it is read as.
type HostEvent struct {
	Name  string // as the host's config and payloads spell it
	Event string // plangit's event
}

// hostInfo is what plangit knows of one host.
type hostInfo struct {
	name   string
	host   Host
	events []HostEvent // the events install hooks, in the order it writes them
}

// hosts are the hosts plangit speaks to, Claude Code first.
var hosts = []hostInfo{
	{name: HostClaude, host: Claude{}, events: sameNames(SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreCompact, SessionEnd)},
	{name: HostCodex, host: Codex{}, events: sameNames(SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SubagentStop, PreCompact)},
	{name: HostCursor, host: Cursor{}, events: []HostEvent{{"sessionStart", SessionStart}, {"beforeSubmitPrompt", UserPromptSubmit},
		{"preToolUse", PreToolUse}, {"postToolUse", PostToolUse}, {"postToolUseFailure", PostToolUseFailure}, {"stop", Stop},
		{"subagentStop", SubagentStop}, {"preCompact", PreCompact}, {"sessionEnd", SessionEnd}}},
	{name: HostGemini, host: Gemini{}, events: []HostEvent{{"SessionStart", SessionStart}, {"BeforeAgent", UserPromptSubmit},
		{"BeforeTool", PreToolUse}, {"AfterTool", PostToolUse}, {"AfterAgent", Stop}, {"PreCompress", PreCompact}, {"SessionEnd", SessionEnd}}},
	{name: HostCopilot, host: Copilot{}, events: []HostEvent{{"sessionStart", SessionStart}, {"userPromptSubmitted", UserPromptSubmit},
		{"preToolUse", PreToolUse}, {"postToolUse", PostToolUse}, {"postToolUseFailure", PostToolUseFailure}, {"agentStop", Stop},
		{"subagentStop", SubagentStop}, {"preCompact", PreCompact}, {"sessionEnd", SessionEnd}}},
}

func sameNames(events ...string) []HostEvent {
	out := make([]HostEvent, len(events))
	for i, e := range events {
		out[i] = HostEvent{Name: e, Event: e}
	}
	return out
}

// HostNames lists the hosts plangit speaks to.
func HostNames() []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = h.name
	}
	return out
}

// hostName is the name of host h; "" for one plangit does not list.
func hostName(h Host) string {
	for _, x := range hosts {
		if reflect.TypeOf(x.host) == reflect.TypeOf(h) {
			return x.name
		}
	}
	return ""
}

func lookupHost(name string) (*hostInfo, error) {
	i := slices.IndexFunc(hosts, func(h hostInfo) bool { return strings.EqualFold(h.name, name) })
	if i < 0 {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "unknown host %q; one of %s", name, strings.Join(HostNames(), ", "))
	}
	return &hosts[i], nil
}

// HostNamed is the protocol of a host by name ("claude", "codex", …).
func HostNamed(name string) (Host, error) {
	h, err := lookupHost(name)
	if err != nil {
		return nil, err
	}
	return h.host, nil
}

// HostEvents lists the events of a host that plangit hooks, in the order
// install writes them.
func HostEvents(name string) ([]HostEvent, error) {
	h, err := lookupHost(name)
	if err != nil {
		return nil, err
	}
	return slices.Clone(h.events), nil
}

// recognise names the host that sent a payload when the command did not
// say (--host): the event's spelling and the payload's fields tell hosts
// apart. Claude Code, the first host, is the answer when nothing else
// fits.
func recognise(event string, payload []byte) Host {
	switch hookwire.Recognise(payload) {
	case hookwire.HostCursor:
		return Cursor{}
	case hookwire.HostCopilot:
		return Copilot{}
	case hookwire.HostGemini:
		return Gemini{}
	}
	return Claude{}
}
