// Package mcpserver is plangit's MCP server, `plangit mcp`: the plan and its
// history as tools any agent host can call, over standard input and output,
// and the installers that add the server to a host's settings.
//
// The tools are cmd.Tools — the same functions the command line runs —
// and this package only presents them: names, descriptions and schemas
// written for a model, results as the text a person would read (and, with
// PLANGIT_MCP_STRUCTURED=1, as structured content: what --json prints),
// and plangit's errors as tool errors carrying their code. It links the MCP SDK, so only the plangit-mcp
// binary links it; plangit itself, which every hook starts, does not.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plangit/plangit/cmd"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
)

// instructions reach the model with the server's capabilities.
const instructions = `plangit keeps this session's plan in git: every change is a revision. Loop: status; plan init (or import) when there is none; step add; step next; work; step done with result; finding add what you learn; error add what fails. Tools choose the session (the reminder names it) unless you pass session; changes take if_rev.`

// Server is plangit's MCP server over one project.
type Server struct {
	*mcp.Server
	tools *cmd.Tools
	// inputs holds each tool's input names, to refuse any other.
	inputs map[string][]string
	log    *slog.Logger
	// inflight counts the tool calls running, so the process does not
	// end in the middle of a change when the client goes away.
	inflight sync.WaitGroup
	// Structured makes every result carry, as structured content, the
	// data of the command's --json envelope (an error: its error). Off,
	// results are the text alone: hosts that show the model structured
	// content rather than the text (Claude Code 2.1.328 gives it only the
	// JSON) then show it the text, a fraction of the size.
	Structured bool
}

// ran marks, in a tool call's context, that the tool's handler ran:
// a result it did not make is the SDK's refusal of the input.
type ran struct{}

// New builds the server: its tools, the plan files as resources, and a
// prompt that teaches the planning loop. Log messages go to log.
func New(t *cmd.Tools, log *slog.Logger) *Server {
	s := &Server{tools: t, inputs: map[string][]string{}, log: log}
	s.Server = mcp.NewServer(&mcp.Implementation{Name: "plangit", Version: version()}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       log,
		// No logging capability: plangit logs to standard error.
		Capabilities: &mcp.ServerCapabilities{},
	})
	addTool(s, "status", "Progress, current and ready steps, claims, open errors.", t.Status, nil)
	addTool(s, "show", "The plan (include_completed for done steps), or one step and its history.", t.Show,
		map[string][]string{"status": statusNames()})
	addTool(s, "step", "Change a step: add (text), next, claim (prints a token), or an action on id.", t.Step,
		map[string][]string{"action": cmd.Names(cmd.StepActions)})
	addTool(s, "phase", "Add (title) or edit (id) phases.", t.Phase,
		map[string][]string{"action": cmd.Names(cmd.PhaseActions)})
	addTool(s, "plan", "Start a plan for a task of 3+ steps (init: title, new session), or pause, resume, approve, finish, abort (reason) it.", t.Plan,
		map[string][]string{"action": cmd.Names(cmd.PlanActions)})
	addTool(s, "finding", "Add (title), list or rm (ids) findings.", t.Finding,
		map[string][]string{"action": cmd.Names(cmd.FindingActions), "category": categoryNames()})
	addTool(s, "error", "Log a failed call (add: tool, message), list or resolve errors.", t.Error,
		map[string][]string{"action": cmd.Names(cmd.ErrorActions)})
	addTool(s, "history", "log, semantic diff, blame.", t.History,
		map[string][]string{"action": cmd.Names(cmd.HistoryActions)})
	addTool(s, "rollback", "New revision with rev's files; no rev: undo the last.", t.Rollback, nil)
	addTool(s, "import", "Import another tool's plan (todos, task_plan.md, plan.json).", t.Import, nil)
	addTool(s, "deliverable", "Record (text), clear or read the result.", t.Deliverable, nil)
	s.addResources()
	s.addPrompt()
	s.AddReceivingMiddleware(s.toolCalls)
	return s
}

// toolCalls checks and counts every tool call. Inputs a tool does not take
// are refused by name (the schemas leave additionalProperties out, which
// would cost every tool list 29 bytes a tool); an input the SDK refused
// against the schema becomes INVALID_ARGUMENT, like every other bad input.
func (s *Server) toolCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		s.inflight.Add(1)
		defer s.inflight.Done()
		if inputs, known := s.inputs[p.Name]; known && len(p.Arguments) > 0 {
			var args map[string]json.RawMessage
			if json.Unmarshal(p.Arguments, &args) == nil {
				for _, name := range slices.Sorted(maps.Keys(args)) {
					if !slices.Contains(inputs, name) {
						return s.errorResult(nil, plan.Errorf(plan.CodeInvalidArgument, "%s takes no input %q; its inputs: %s", p.Name, name, strings.Join(inputs, ", "))), nil
					}
				}
			}
		}
		handled := new(bool)
		res, err := next(context.WithValue(ctx, ran{}, handled), method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError && !*handled {
			// Refused before the tool ran: the input does not fit its schema.
			msg := strings.NewReplacer(`validating "arguments": `, "", "validating root: ", "").Replace(textOf(r))
			*r = *s.errorResult(nil, plan.Errorf(plan.CodeInvalidArgument, "%s: %s", p.Name, msg))
		}
		return res, err
	}
}

// addTool adds one tool: its input schema inferred from In, with enums
// for the inputs that take a fixed set of values.
func addTool[In any](s *Server, name, desc string, h func(In) (*cmd.ToolResult, error), enums map[string][]string) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	for prop, p := range schema.Properties {
		// A pointer or a slice is only optional here; null is no value.
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
		if values, ok := enums[prop]; ok {
			target := p
			if p.Items != nil {
				target = p.Items
			}
			target.Enum = make([]any, len(values))
			for i, v := range values {
				target.Enum[i] = v
			}
		}
	}
	schema.AdditionalProperties = nil
	s.inputs[name] = schema.PropertyOrder
	mcp.AddTool(s.Server, &mcp.Tool{Name: name, Description: desc, InputSchema: schema},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (result *mcp.CallToolResult, out any, _ error) {
			if handled, ok := ctx.Value(ran{}).(*bool); ok {
				*handled = true
			}
			defer func() {
				// A bug in a tool is that call's error, not the end of the
				// server the host started for its whole session.
				if p := recover(); p != nil {
					s.log.Error("tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
					result, out = s.errorResult(nil, fmt.Errorf("plangit failed inside the %s tool: %v", name, p)), nil
				}
			}()
			res, err := h(in)
			if err != nil {
				return s.errorResult(res, err), nil, nil
			}
			text := res.Text
			if note := res.Note(); note != "" {
				text = note + "\n" + text
			}
			if !s.Structured {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, res.Data, nil
		})
}

// errorResult is a tool error carrying plangit's code: as text, "CODE:
// message", and structured, the error of the --json envelope.
func errorResult(res *cmd.ToolResult, err error) *mcp.CallToolResult {
	body := render.ErrorOf(err)
	text := fmt.Sprintf("%s: %s", body.Code, body.Message)
	if body.Hint != "" {
		text += "\nhint: " + body.Hint
	}
	if note := res.Note(); note != "" {
		text += "\n" + note
	}
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: body}
	r.SetError(err)
	return r
}

// errorResult is errorResult, its structured content kept only when the
// server gives structured content (Structured).
func (s *Server) errorResult(res *cmd.ToolResult, err error) *mcp.CallToolResult {
	r := errorResult(res, err)
	if !s.Structured {
		r.StructuredContent = nil
	}
	return r
}

// textOf is a result's text.
func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// Wait waits for the tool calls still running.
func (s *Server) Wait() { s.inflight.Wait() }

// fileURI is the template of the plan files' URIs.
const fileURI = "plangit://{session}/{file}"

// addResources offers the session's files: plangit://SESSION/task_plan.md,
// findings.md, errors.md and deliverable.md.
func (s *Server) addResources() {
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "session-file", URITemplate: fileURI, MIMEType: "text/markdown",
		Description: "A session's file: task_plan.md, findings.md, errors.md or deliverable.md",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "plangit" {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		data, err := s.tools.File(u.Host, strings.TrimPrefix(u.Path, "/"))
		if err != nil {
			if plan.HasCode(err, plan.CodeIOError) {
				return nil, err
			}
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(data)}}}, nil
	})
}

// loop is the planning loop, as the prompt teaches it.
const loop = `Work through a plangit plan with its tools:
1. status. No plan: plan {action:init, title, goal, phases}, then step {action:add, text, phase, needs} for each step.
2. step {action:next} starts the first ready step; step {action:start, id} a given one.
3. Work on it. After every two look-ups, finding {action:add, category, title, content} what you learned.
4. A tool call failed: error {action:add, tool, message}. The same error three times: change approach, or step {action:block, id, reason}.
5. step {action:done, id, result} with what it produced; step {action:progress, id, progress:"2/5"} on the way.
6. Plans change: step add, edit, skip (reason), rm; a mistaken completion: step {action:revert, id}.
7. All done: deliverable {text}, then plan {action:finish, result}.
Pass the session the reminders name, and if_rev when you acted on a revision you read.`

// addPrompt offers the planning loop as a prompt.
func (s *Server) addPrompt() {
	s.AddPrompt(&mcp.Prompt{
		Name:        "plan-loop",
		Description: "How to work through a task with a plangit plan",
		Arguments:   []*mcp.PromptArgument{{Name: "task", Description: "the task to plan"}},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text := loop
		if task := strings.TrimSpace(req.Params.Arguments["task"]); task != "" {
			text = "The task: " + task + "\n\n" + text
		}
		return &mcp.GetPromptResult{Description: "the plangit planning loop",
			Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	})
}

func statusNames() []string {
	return []string{"pending", "in_progress", "completed", "failed", "skipped", "blocked"}
}

func categoryNames() []string {
	out := make([]string, len(plan.Categories))
	for i, c := range plan.Categories {
		out[i] = string(c)
	}
	return out
}

// version is plangit's version (cmd.Version): the release's, or the
// module's as go install recorded it.
func version() string {
	if v := cmd.Version(); v != "(devel)" {
		return v
	}
	return "devel"
}
