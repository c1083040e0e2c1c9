package hookwire

import (
	"bytes"
	"slices"
)

// Hosts, by the names the hosts table and --host use. Each but Codex is
// recognised from its payloads (Codex's are Claude Code's shape: its hooks
// name it).
const (
	HostClaude  = "claude"
	HostCodex   = "codex"
	HostCursor  = "cursor"
	HostCopilot = "copilot"
	HostGemini  = "gemini"
)

// Recognise names the host that sent a payload when the command did not
// say (--host): the event's spelling and the payload's fields tell hosts
// apart. Claude Code, the first host, is the answer when nothing else
// fits.
func Recognise(payload []byte) string {
	s := signsOf(payload)
	switch {
	case s.cursor():
		return HostCursor
	case s.gemini():
		return HostGemini
	case s.copilot():
		return HostCopilot
	}
	return HostClaude
}

// utf8BOM is the byte order mark some hosts put before a payload
// (cursor-agent does, by third-party captures).
var utf8BOM = []byte("\xef\xbb\xbf")

// StripBOM removes a leading UTF-8 byte order mark.
func StripBOM(b []byte) []byte { return bytes.TrimPrefix(b, utf8BOM) }

// signs are what a payload shows of the host that sent it, for recognise.
type signs struct {
	cursorVersion, conversationID bool   // Cursor's common fields
	camelFields                   bool   // sessionId or toolName: Copilot CLI's camelCase format
	event                         string // hook_event_name
	stringTime                    bool   // timestamp is a string (ISO 8601)
	transcript                    bool   // transcript_path
}

// signsOf reads a payload's signs; an unreadable payload shows none.
func signsOf(payload []byte) signs {
	var s signs
	members(StripBOM(payload), func(key, value []byte) error {
		switch string(memberName(key)) {
		case "cursor_version":
			s.cursorVersion = true
		case "conversation_id":
			s.conversationID = true
		case "sessionId", "toolName":
			s.camelFields = true
		case "hook_event_name":
			s.event, _ = String(value)
		case "timestamp":
			s.stringTime = len(value) > 0 && value[0] == '"'
		case "transcript_path":
			s.transcript = true
		}
		return nil
	})
	return s
}

// cursor: Cursor's common fields (cursor_version is on every payload), or
// an event name in camelCase, which only Cursor sends (Copilot's camelCase
// payloads name no event).
func (s signs) cursor() bool {
	return s.cursorVersion || s.conversationID || s.event != "" && s.event[0] >= 'a' && s.event[0] <= 'z'
}

// copilotEvents are the PascalCase events of Copilot's "VS Code
// compatible" format that plangit answers: Claude Code's names.
var copilotEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}

// copilot: Copilot's camelCase fields, or its PascalCase format — one of
// Claude Code's event names with an ISO 8601 timestamp, which Claude Code
// does not send. Gemini CLI's payloads also carry a string timestamp and
// share SessionStart and SessionEnd, but with transcript_path, which
// Copilot's SessionStart and SessionEnd lack.
func (s signs) copilot() bool {
	if s.camelFields {
		return true
	}
	if !s.stringTime || !slices.Contains(copilotEvents, s.event) {
		return false
	}
	return !(s.transcript && (s.event == "SessionStart" || s.event == "SessionEnd"))
}

// geminiEvents are the events only Gemini CLI sends.
var geminiEvents = []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "PreCompress", "BeforeModel", "AfterModel", "BeforeToolSelection"}

// gemini: one of Gemini CLI's own event names, or its SessionStart and
// SessionEnd — an ISO 8601 timestamp with transcript_path, which Claude
// Code's lack the one and Copilot's the other.
func (s signs) gemini() bool {
	if slices.Contains(geminiEvents, s.event) {
		return true
	}
	return s.stringTime && s.transcript && (s.event == "SessionStart" || s.event == "SessionEnd")
}
