package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plangit/plangit/plan"
)

// The server's own stdio transport. The SDK's ends the connection — and
// with it the server, and the answers to every call still running — on the
// first line it cannot decode. This one frames the lines itself, answers
// each line that is not one JSON-RPC 2.0 message with the error JSON-RPC
// calls for, and goes on; it hands the SDK only messages it can take. At
// the end of its input it waits until every call it handed on has been
// answered, so that no call is applied without an answer (a host that
// retried it would apply it twice).

// maxLine bounds one line of input: twice the largest file plangit reads,
// room for an import's content with its escapes. A longer line is refused
// and skipped without being kept.
const maxLine = 2 * plan.MaxFile

// JSON-RPC's error codes for what is not a message.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// wire is the transport: one JSON-RPC message per line of in, answers on
// out.
type wire struct {
	in      io.ReadCloser
	out     io.Writer
	log     *slog.Logger
	maxLine int
}

// Connect implements mcp.Transport.
func (w *wire) Connect(context.Context) (mcp.Connection, error) {
	max := w.maxLine
	if max <= 0 {
		max = maxLine
	}
	c := &wireConn{
		in: w.in, out: w.out, log: w.log, maxLine: max,
		msgs:    make(chan jsonrpc.Message, 16),
		closed:  make(chan struct{}),
		pending: map[jsonrpc.ID]bool{},
		changed: make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// wireConn is one connection over the wire.
type wireConn struct {
	in      io.ReadCloser
	out     io.Writer
	log     *slog.Logger
	maxLine int

	msgs      chan jsonrpc.Message // read and checked, for Read; closed at the end of input
	closed    chan struct{}
	closeOnce sync.Once
	writeMu   sync.Mutex // one line at a time on out

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls handed on, not answered yet
	changed chan struct{}       // closed (and made anew) when pending shrinks
	broken  bool                // a write failed: no answer can go out
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *wireConn) SessionID() string { return "" }

// Read implements mcp.Connection: the next message, or io.EOF once the
// input has ended and every call handed on has been answered.
func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.msgs:
		if ok {
			return msg, nil
		}
	}
	for {
		c.mu.Lock()
		done, changed := len(c.pending) == 0 || c.broken, c.changed
		c.mu.Unlock()
		if done {
			return nil, io.EOF
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-changed:
		}
	}
}

// Write implements mcp.Connection. An answer settles its call, even when
// it cannot be written.
func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		defer c.answered(resp.ID)
	}
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return c.writeLine(data)
}

// Close implements mcp.Connection.
func (c *wireConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.in.Close()
	})
	return nil
}

func (c *wireConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	if err != nil {
		c.mu.Lock()
		c.broken = true
		c.signal()
		c.mu.Unlock()
	}
	return err
}

func (c *wireConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[id] {
		delete(c.pending, id)
		c.signal()
	}
}

// signal wakes a Read waiting for the calls to be answered; c.mu is held.
func (c *wireConn) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// readLoop reads the input line by line until it ends.
func (c *wireConn) readLoop() {
	defer close(c.msgs)
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, size, err := readLine(r, c.maxLine)
		if size > 0 {
			if !c.take(line, size) {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
				select {
				case <-c.closed:
				default:
					c.log.Warn("mcp: reading the input failed", "err", err)
				}
			}
			return
		}
	}
}

// sniffLen is how much of a line too long to read is kept, to find its id.
const sniffLen = 64 << 10

// readLine reads one line, without its end, of at most max bytes; of a
// longer one it keeps the start, and says how long it was.
func readLine(r *bufio.Reader, max int) (line []byte, size int, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1] // the newline
		}
		size += len(chunk)
		if size <= max {
			line = append(line, chunk...)
		} else if len(line) < sniffLen {
			line = append(line, chunk[:min(len(chunk), sniffLen-len(line))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, size, err
		}
	}
}

// take checks one line: a message goes on to the server, anything else is
// answered here. It is false when the connection is closed.
func (c *wireConn) take(line []byte, size int) bool {
	if size > c.maxLine {
		c.refuse(sniffID(line[:min(len(line), sniffLen)]), codeInvalidRequest, fmt.Sprintf("a message of %d bytes is more than the %d plangit reads; it was not read, and nothing was done", size, c.maxLine))
		return true
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return true
	}
	var values []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			c.refuse(nil, codeParseError, "parse error: "+err.Error()+"; send one JSON-RPC 2.0 message per line")
			return true
		}
		values = append(values, v)
	}
	if len(values) > 1 {
		refused := false
		for _, v := range values {
			if id, _, ok := idOf(v); ok && id != nil {
				c.refuse(id, codeInvalidRequest, fmt.Sprintf("%d messages on one line: send one JSON-RPC message per line; none of them was run", len(values)))
				refused = true
			}
		}
		if !refused {
			c.refuse(nil, codeInvalidRequest, fmt.Sprintf("%d messages on one line: send one JSON-RPC message per line; none of them was run", len(values)))
		}
		return true
	}
	v := values[0]
	switch v[0] {
	case '[':
		c.batch(v)
		return true
	case '{':
	default:
		c.refuse(nil, codeInvalidRequest, "a JSON-RPC message is an object, not "+kind(v))
		return true
	}
	msg, id, why := check(v)
	if why != "" {
		c.refuse(id, codeInvalidRequest, why)
		return true
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		// The id the SDK read, which answers will carry.
		c.mu.Lock()
		busy := c.pending[req.ID]
		if !busy {
			c.pending[req.ID] = true
		}
		c.mu.Unlock()
		if busy {
			c.refuse(nil, codeInvalidRequest, fmt.Sprintf("request id %s is in use by a call still running: give each call an id of its own; this one was not run", id))
			return true
		}
	}
	select {
	case c.msgs <- msg:
		return true
	case <-c.closed:
		return false
	}
}

// batch answers a JSON-RPC batch, which MCP no longer has: every call in
// it gets an error, as a batch of answers, and none is run.
func (c *wireConn) batch(v json.RawMessage) {
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil || len(items) == 0 {
		c.refuse(nil, codeInvalidRequest, "an empty batch")
		return
	}
	var answers []json.RawMessage
	for _, item := range items {
		id, present, _ := idOf(item)
		if !present && isObject(item) {
			continue // a notification: no answer
		}
		answers = append(answers, errorLine(id, codeInvalidRequest, "batches are not supported: send each message on a line of its own; nothing in the batch was run"))
	}
	if len(answers) == 0 {
		return
	}
	data, _ := json.Marshal(answers)
	c.log.Warn("mcp: refused a batch", "messages", len(items))
	c.writeLine(data)
}

// refuse answers a line that is not a message, with id (nil: null).
func (c *wireConn) refuse(id json.RawMessage, code int, msg string) {
	c.log.Warn("mcp: refused a line", "code", code, "error", msg)
	c.writeLine(errorLine(id, code, msg))
}

func errorLine(id json.RawMessage, code int, msg string) json.RawMessage {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	return data
}

// check makes sure v, an object, is a JSON-RPC 2.0 message the SDK takes
// as it is, and decodes it. Otherwise why says what is wrong, and id is
// the message's id when it has a usable one, to answer it by.
func check(v json.RawMessage) (msg jsonrpc.Message, id json.RawMessage, why string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, nil, "not a JSON-RPC message: " + err.Error()
	}
	id, present, ok := idFrom(m)
	if present && !ok {
		return nil, id, "an id is a string or an integer, not " + kind(m["id"])
	}
	if version := ""; json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, id, `"jsonrpc" must be "2.0": this server speaks JSON-RPC 2.0`
	}
	method, isRequest := m["method"]
	if isRequest {
		if kind(method) != "a string" {
			return nil, id, `"method" is a string, not ` + kind(method)
		}
		if present && id == nil {
			return nil, nil, `a request's id is a string or an integer, not null`
		}
	} else {
		_, result := m["result"]
		_, failed := m["error"]
		if !present || id == nil || result == failed {
			return nil, id, `a message without "method" is an answer, with an id and either "result" or "error"`
		}
	}
	if p, ok := m["params"]; ok && !isObject(p) && !bytes.HasPrefix(bytes.TrimSpace(p), []byte("[")) {
		return nil, id, `"params" is an object or an array, not ` + kind(p)
	}
	msg, err := jsonrpc.DecodeMessage(v)
	if err != nil {
		return nil, id, "not a JSON-RPC message: " + err.Error()
	}
	return msg, id, ""
}

// idOf finds v's id: present when v is an object with an "id", ok when it
// is a usable one — a string, an integer the SDK carries exactly, or null
// (then id is nil) — and id as written, to answer by, when it can be sent
// back.
func idOf(v json.RawMessage) (id json.RawMessage, present, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return nil, false, false
	}
	return idFrom(m)
}

// idFrom is idOf of a message already decoded.
func idFrom(m map[string]json.RawMessage) (id json.RawMessage, present, ok bool) {
	raw, present := m["id"]
	if !present {
		return nil, false, false
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "null":
		return nil, true, true
	case raw[0] == '"':
		return raw, true, true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return raw, true, false // a number it can send back, but not carry
		}
		return raw, true, true
	}
	return nil, true, false
}

// sniffID finds the id at the start of a line too long to read: the
// value of a top-level "id" before the line was cut.
func sniffID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if key == "id" {
			if id, _, ok := idOf(json.RawMessage(`{"id":` + string(value) + `}`)); ok {
				return id
			}
			return nil
		}
	}
	return nil
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// kind names a JSON value's type, for messages.
func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil && f != math.Trunc(f) {
		return "a fraction"
	}
	return "a number"
}
