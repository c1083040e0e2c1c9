package hookwire

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"github.com/plangit/plangit/repo/disk"
)

// The host's transcript (transcript_path in its payloads) holds everything
// said in the session, as JSON lines. A hook reads from it what the agent
// said in the current turn: the [Step] lines of every message, not only the
// last one a stop payload carries, and the agent's own words for a result.

// transcriptTail bounds what is read of a transcript: its last bytes.
const transcriptTail = 2 << 20

// TurnMessages is what the agent said in the current turn, by the host's
// transcript at path: the text of each of its messages since the person's
// last prompt, oldest first. It reads Claude Code's JSON lines (type
// user/assistant, message.content), Codex CLI's rollout (an event_msg
// user_message begins a turn; response_item messages of role assistant),
// Gemini CLI's (type user/gemini, content) and Copilot CLI's events.jsonl
// (user.message begins a turn; assistant.message's data.content); a line
// it does not know is skipped. It reads at most the file's last 2 MB, never through a symbolic
// link; nil when there is nothing to read.
func TurnMessages(path string) []string {
	if path == "" {
		return nil
	}
	b := readTail(path, transcriptTail)
	if len(b) == 0 {
		return nil
	}
	var msgs []string
	var ids []string // Gemini's message ids, to keep one text per message
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		kind, text, id := transcriptLine(line)
		switch kind {
		case lineTurn:
			msgs, ids = nil, nil
		case lineAgent:
			if id != "" && len(ids) > 0 && ids[len(ids)-1] == id {
				msgs[len(msgs)-1] = text // a message written again, with its tool calls
				continue
			}
			msgs, ids = append(msgs, text), append(ids, id)
		}
	}
	return msgs
}

// What a transcript line is.
const (
	lineOther = iota
	lineTurn  // the person's prompt: a turn begins
	lineAgent // the agent said something
)

// transcriptLine reads one line of a transcript.
func transcriptLine(line []byte) (kind int, text, id string) {
	var typ, role string
	var message, content, payload, data []byte
	Members(line, func(key string, value []byte) error {
		switch key {
		case "type":
			typ, _ = String(value)
		case "message":
			message = value
		case "content":
			content = value
		case "payload":
			payload = value
		case "data":
			data = value
		case "id":
			id, _ = String(value)
		}
		return nil
	})
	switch typ {
	case "user": // Claude Code, Gemini CLI
		if message != nil {
			Members(message, func(key string, value []byte) error {
				if key == "content" {
					content = value
				}
				return nil
			})
		}
		if prompted(content) {
			return lineTurn, "", ""
		}
	case "assistant": // Claude Code
		Members(message, func(key string, value []byte) error {
			if key == "content" {
				text = blocksText(value)
			}
			return nil
		})
		if text != "" {
			return lineAgent, text, ""
		}
	case "gemini":
		if text, _ = String(content); text != "" {
			return lineAgent, text, id
		}
	case "user.message": // Copilot CLI's events.jsonl
		return lineTurn, "", ""
	case "assistant.message":
		Members(data, func(key string, value []byte) error {
			if key == "content" {
				text, _ = String(value)
			}
			return nil
		})
		if text != "" {
			return lineAgent, text, ""
		}
	case "event_msg", "response_item": // Codex CLI
		Members(payload, func(key string, value []byte) error {
			switch key {
			case "type":
				typ, _ = String(value)
			case "role":
				role, _ = String(value)
			case "content":
				content = value
			}
			return nil
		})
		switch {
		case typ == "user_message":
			return lineTurn, "", ""
		case typ == "message" && role == "assistant":
			if text = blocksText(content); text != "" {
				return lineAgent, text, ""
			}
		}
	}
	return lineOther, "", ""
}

// prompted reports whether a user line's content is a person's words: a
// string, or blocks of text with no tool result among them.
func prompted(content []byte) bool {
	if _, ok := String(content); ok {
		return true
	}
	words, results := false, false
	Elements(content, func(block []byte) {
		Members(block, func(key string, value []byte) error {
			switch key {
			case "text":
				words = true
			case "functionResponse", "tool_use_id":
				results = true
			case "type":
				if t, _ := String(value); t == "tool_result" {
					results = true
				}
			}
			return nil
		})
	})
	return words && !results
}

// blocksText joins the text of a message's content: a string, or the text
// of its blocks (Claude Code's {"type":"text"}, Codex's output_text).
func blocksText(content []byte) string {
	if s, ok := String(content); ok {
		return s
	}
	var parts []string
	Elements(content, func(block []byte) {
		var typ, text string
		Members(block, func(key string, value []byte) error {
			switch key {
			case "type":
				typ, _ = String(value)
			case "text":
				text, _ = String(value)
			}
			return nil
		})
		if text != "" && (typ == "text" || typ == "output_text" || typ == "") {
			parts = append(parts, text)
		}
	})
	return joinLines(parts)
}

func joinLines(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// readTail reads at most the last n bytes of the regular file at path,
// from the start of a line.
func readTail(path string, n int64) []byte {
	f, err := disk.OpenShared(path, os.O_RDONLY|disk.NonBlock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	off := max(fi.Size()-n, 0)
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return nil
	}
	if off > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}

// commandTail bounds what CommandExit reads of a transcript, from its end.
const commandTail = 8 << 20

// CommandExit finds in Codex CLI's transcript at path how the shell
// command of call id ended: the item_completed event whose item is a
// CommandExecution of that id, with its exit_code and aggregated_output.
// Codex's PostToolUse gives only the command's output, and writes this
// event before it runs the hook. The transcript is read from its end, a
// block at a time, at most its last 8 MB; ok is false when the call is not
// found there or the file cannot be read (never through a symbolic link).
func CommandExit(path, id string) (code int, output string, ok bool) {
	if path == "" || id == "" {
		return 0, "", false
	}
	needle := AppendString([]byte(`"id":`), id)
	line := lastLine(path, commandTail, func(line []byte) bool {
		return bytes.Contains(line, needle) && bytes.Contains(line, []byte(`"item_completed"`))
	})
	if line == nil {
		return 0, "", false
	}
	var payload, item []byte
	var typ string
	Members(line, func(key string, value []byte) error {
		if key == "payload" {
			payload = value
		}
		return nil
	})
	Members(payload, func(key string, value []byte) error {
		switch key {
		case "type":
			typ, _ = String(value)
		case "item":
			item = value
		}
		return nil
	})
	if typ != "item_completed" {
		return 0, "", false
	}
	var kind, itemID string
	var exit []byte
	Members(item, func(key string, value []byte) error {
		switch key {
		case "type":
			kind, _ = String(value)
		case "id":
			itemID, _ = String(value)
		case "exit_code":
			exit = value
		case "aggregated_output":
			output, _ = String(value)
		}
		return nil
	})
	code, err := strconv.Atoi(string(bytes.TrimSpace(exit)))
	if kind != "CommandExecution" || itemID != id || err != nil {
		return 0, "", false
	}
	return code, output, true
}

// lastLine is the last line of the regular file at path that match
// accepts, reading backwards a block at a time and at most max bytes; nil
// when none does within them.
func lastLine(path string, max int64, match func(line []byte) bool) []byte {
	f, err := disk.OpenShared(path, os.O_RDONLY|disk.NonBlock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	const block = 64 << 10
	pos, read := fi.Size(), int64(0)
	var carry []byte // the start of the line the blocks read so far begin in
	for pos > 0 && read < max {
		n := min(block, pos)
		pos -= n
		read += n
		buf := make([]byte, n, n+int64(len(carry)))
		if _, err := f.ReadAt(buf, pos); err != nil && err != io.EOF {
			return nil
		}
		buf = append(buf, carry...)
		for {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				break
			}
			if line := buf[i+1:]; match(line) {
				return line
			}
			buf = buf[:i]
		}
		carry = buf
	}
	if pos == 0 && match(carry) {
		return carry
	}
	return nil
}

// PromptShrank is the id of the last response in Gemini CLI's transcript
// at path when it shows the model's context cut since the previous
// request: the prompt of that response (a "gemini" line's tokens.input) is
// less than half that of the response before, which held at least 8,192
// tokens; "" otherwise. Gemini fires
// PreCompress before every request (0.61.0: before it checks whether the
// history needs compressing) and no SessionStart after it compresses:
// a prompt that shrank is how a compression that happened shows. The
// transcript is read from its end, at most its last 4 MB.
func PromptShrank(path string) string {
	if path == "" {
		return ""
	}
	var ids []string
	var tokens []int
	lastLine(path, 4<<20, func(line []byte) bool {
		if !bytes.Contains(line, []byte(`"tokens"`)) {
			return false
		}
		var typ, id string
		var input int
		var have bool
		Members(line, func(key string, value []byte) error {
			switch key {
			case "type":
				typ, _ = String(value)
			case "id":
				id, _ = String(value)
			case "tokens":
				Members(value, func(k string, v []byte) error {
					if k == "input" {
						n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
						input, have = n, err == nil
					}
					return nil
				})
			}
			return nil
		})
		if typ != "gemini" || !have || len(ids) > 0 && ids[len(ids)-1] == id {
			return false // a message written again, with its tool calls
		}
		ids, tokens = append(ids, id), append(tokens, input)
		return len(tokens) == 2
	})
	if len(tokens) == 2 && tokens[1] >= 8192 && tokens[0]*2 < tokens[1] {
		return ids[0]
	}
	return ""
}
