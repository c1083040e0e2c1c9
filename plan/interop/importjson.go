package interop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
)

// The JSON formats are read through a tree that keeps every value's
// position, so an error names the field and its line, and every key is
// accounted for: what an import does not use is reported as dropped.

type jkind byte

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "true or false", "a number", "a string", "a list", "an object"}[k]
}

// jnode is one JSON value and where it is in the source.
type jnode struct {
	kind       jkind
	start, end int
	str        string // string, or a number's text
	bool       bool
	keys       []string // an object's keys, in order
	props      map[string]*jnode
	items      []*jnode
}

// parseJSONTree parses src into a tree of positioned values. A key given
// twice keeps its last value, as encoding/json does; dups lists the others.
func parseJSONTree(name string, src []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	skip := func() int {
		off := int(dec.InputOffset())
		for off < len(src) && strings.IndexByte(" \t\r\n:,", src[off]) >= 0 {
			off++
		}
		return off
	}
	var read func() (*jnode, error)
	read = func() (*jnode, error) {
		n := &jnode{start: skip()}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' {
				n.kind, n.props = jObject, map[string]*jnode{}
				for dec.More() {
					kt, err := dec.Token()
					if err != nil {
						return nil, err
					}
					key, _ := kt.(string)
					v, err := read()
					if err != nil {
						return nil, err
					}
					if _, dup := n.props[key]; !dup {
						n.keys = append(n.keys, key)
					}
					n.props[key] = v
				}
			} else {
				n.kind = jArray
				for dec.More() {
					v, err := read()
					if err != nil {
						return nil, err
					}
					n.items = append(n.items, v)
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
		case string:
			n.kind, n.str = jString, t
		case json.Number:
			n.kind, n.str = jNumber, t.String()
		case bool:
			n.kind, n.bool = jBool, t
		case nil:
			n.kind = jNull
		}
		n.end = int(dec.InputOffset())
		return n, nil
	}
	root, err := read()
	if err == nil {
		off := int(dec.InputOffset())
		if rest := bytes.TrimLeft(src[off:], " \t\r\n"); len(rest) > 0 {
			d := &plan.Doc{Name: name, Src: src}
			return nil, d.ErrAt(len(src)-len(rest), "malformed JSON: more after the end of the value")
		}
		return root, nil
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		d := &plan.Doc{Name: name, Src: src}
		return nil, d.ErrAt(len(src), "malformed JSON: the file ends in the middle of a value")
	}
	return nil, jsonError(name, src, err)
}

// jsonError turns a JSON syntax error into PLAN_PARSE_ERROR with a position.
func jsonError(name string, src []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the wrong one included.
		d := &plan.Doc{Name: name, Src: src}
		return d.ErrAt(max(0, int(se.Offset)-1), "malformed JSON: %s", se.Error())
	}
	return plan.WrapError(plan.CodePlanParseError, err, "%s: malformed JSON", name)
}

func (n *jnode) has(key string) bool {
	if n == nil || n.kind != jObject {
		return false
	}
	_, ok := n.props[key]
	return ok
}

// first is a list's first item, nil for an empty list or another value.
func (n *jnode) first() *jnode {
	if n == nil || n.kind != jArray || len(n.items) == 0 {
		return nil
	}
	return n.items[0]
}

// detectJSON tells which JSON format a tree is.
func detectJSON(root *jnode) (string, error) {
	switch root.kind {
	case jArray:
		item := root.first()
		switch {
		case item == nil || item.has("content"):
			return FormatTodos, nil
		case item.has("subject"):
			return FormatTasks, nil
		case item.has("state"):
			return FormatPlanExecute, nil
		case item.has("name") || item.has("dependencies"):
			return FormatPlanManager, nil
		}
	case jObject:
		tasks := root.props["tasks"].first()
		switch {
		case root.has("todos"):
			return FormatTodos, nil
		case root.has("meta") && root.has("tasks"), tasks.has("dependencies") || tasks.has("reasoning") || tasks.has("name"):
			return FormatPlanManager, nil
		case root.has("planResult"), root.has("currentTaskStatus"), root.has("executeState"), root.has("state") && root.has("tasks"), tasks.has("state"):
			return FormatPlanExecute, nil
		case root.has("tasks") || root.has("subject"):
			return FormatTasks, nil
		case root.has("task_description"), root.props["plan"].has("task_description"):
			return FormatPlanTool, nil
		case root.has("current_step_index") || (root.has("goal") && root.has("steps")):
			return FormatMaxclaw, nil
		}
	}
	return "", plan.Errorf(plan.CodeInvalidArgument, "cannot tell which plan format this JSON is; pass --format (one of %s)", strings.Join(ImportFormats, ", "))
}

// jreader reads a JSON source into a builder, accounting for every key.
type jreader struct {
	*builder
	d *plan.Doc
}

// jobj is an object being read: the keys read so far are used; the others
// are reported by done.
type jobj struct {
	n    *jnode
	path string
	used map[string]bool
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// errAt is PLAN_PARSE_ERROR at a value, naming its field.
func (r *jreader) errAt(n *jnode, path, format string, args ...any) error {
	return r.d.ErrAt(n.start, "%s: %s", path, fmt.Sprintf(format, args...)).With("field", path)
}

// obj opens n, which must be an object.
func (r *jreader) obj(n *jnode, path, what string) (*jobj, error) {
	if n.kind != jObject {
		return nil, r.errAt(n, path, "%s is an object, not %s", what, n.kind)
	}
	return &jobj{n: n, path: path, used: map[string]bool{}}, nil
}

// get returns a key's value, marking it used; nil when absent or null.
func (o *jobj) get(key string) *jnode {
	v, ok := o.n.props[key]
	if !ok {
		return nil
	}
	o.used[key] = true
	if v.kind == jNull {
		return nil
	}
	return v
}

// str reads a text field: a string (a number or true/false is read as its
// text). Objects and lists are refused.
func (r *jreader) str(o *jobj, key string) (string, error) {
	v := o.get(key)
	if v == nil {
		return "", nil
	}
	switch v.kind {
	case jString, jNumber:
		return v.str, nil
	case jBool:
		return strconv.FormatBool(v.bool), nil
	}
	return "", r.errAt(v, join(o.path, key), "expected text, found %s", v.kind)
}

// num reads a whole-number field.
func (r *jreader) num(o *jobj, key string) (int, bool, error) {
	v := o.get(key)
	if v == nil {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v.str)
	if v.kind != jNumber || err != nil || n < 0 {
		return 0, false, r.errAt(v, join(o.path, key), "expected a whole number, found %s", describe(v))
	}
	return n, true, nil
}

// list reads a list field; absent is empty.
func (r *jreader) list(o *jobj, key string) ([]*jnode, error) {
	v := o.get(key)
	if v == nil {
		return nil, nil
	}
	if v.kind != jArray {
		return nil, r.errAt(v, join(o.path, key), "expected a list, found %s", v.kind)
	}
	return v.items, nil
}

// ids reads a list of ids (strings or numbers).
func (r *jreader) ids(o *jobj, key string) ([]string, error) {
	items, err := r.list(o, key)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, v := range items {
		if v.kind != jString && v.kind != jNumber {
			return nil, r.errAt(v, index(join(o.path, key), i), "an id is text or a number, not %s", v.kind)
		}
		out = append(out, v.str)
	}
	return out, nil
}

// status reads a step status field.
func (r *jreader) status(o *jobj, key string) (plan.StepStatus, error) {
	s, err := r.str(o, key)
	if err != nil {
		return "", err
	}
	st, ok := ImportStatus(s)
	if !ok {
		v := o.get(key)
		return "", plan.Errorf(plan.CodeInvalidArgument, "%s: unknown status %q; plangit reads %s", pos(r.d, v.start, join(o.path, key)), plan.Clip(s), stepStatusNames).With("field", join(o.path, key))
	}
	return st, nil
}

// planStatus reads a plan status field into the plan.
func (r *jreader) planStatus(o *jobj, key string) error {
	s, err := r.str(o, key)
	if err != nil {
		return err
	}
	st, ok := importPlanStatus(s)
	if !ok {
		v := o.get(key)
		return plan.Errorf(plan.CodeInvalidArgument, "%s: unknown plan status %q; plangit reads pending, running (or idle, executing), paused, completed (or done, succeed), failed", pos(r.d, v.start, join(o.path, key)), plan.Clip(s)).With("field", join(o.path, key))
	}
	r.p.Status = st
	return nil
}

// pos is "name:line:col: field" for messages.
func pos(d *plan.Doc, off int, field string) string {
	line, col := d.Position(off)
	return fmt.Sprintf("%s:%d:%d: %s", d.Name, line, col, field)
}

// timeOf reads a time field.
func (r *jreader) timeOf(o *jobj, key string) (time.Time, error) {
	s, err := r.str(o, key)
	if err != nil {
		return time.Time{}, err
	}
	return r.timeField(join(o.path, key), s), nil
}

// textOf reads a multi-line text field, cleaned.
func (r *jreader) textOf(o *jobj, key string) (string, error) {
	v, err := r.str(o, key)
	return r.text(join(o.path, key), v), err
}

// addStep adds the step an object describes: its text under textKey, its
// status under statusKey, its id under idKey. It returns nil, having
// reported the object, when the step has no text.
func (r *jreader) addStep(ph *plan.Phase, o *jobj, textKey, statusKey, idKey string) (*bstep, error) {
	text, err := r.str(o, textKey)
	if err != nil {
		return nil, err
	}
	st, err := r.status(o, statusKey)
	if err != nil {
		return nil, err
	}
	bs := r.step(ph, o.path, text, st)
	if bs == nil {
		r.done(o, nil)
		return nil, nil
	}
	bs.srcID, err = r.str(o, idKey)
	bs.idPath = join(o.path, idKey)
	return bs, err
}

// done reports the keys of o nothing read.
func (r *jreader) done(o *jobj, why func(key string) string) {
	for _, k := range o.n.keys {
		if o.used[k] {
			continue
		}
		v := o.n.props[k]
		if v.kind == jNull {
			continue // null holds nothing
		}
		reason := "not a field plangit knows for this format"
		if why != nil {
			if w := why(k); w != "" {
				reason = w
			}
		}
		r.drop(join(o.path, k), r.raw(v), reason)
	}
}

// raw is a value's source text.
func (r *jreader) raw(v *jnode) string {
	if v.kind == jString {
		return v.str
	}
	return string(r.d.Src[v.start:min(v.end, len(r.d.Src))])
}

func describe(v *jnode) string {
	if v.kind == jNumber || v.kind == jString {
		return fmt.Sprintf("%s %s", v.kind, plan.Clip(v.str))
	}
	return v.kind.String()
}

func importJSON(name string, src []byte, format string, now time.Time) (*Imported, error) {
	root, err := parseJSONTree(name, src)
	if err != nil {
		return nil, err
	}
	if format == "" {
		if format, err = detectJSON(root); err != nil {
			return nil, err
		}
	}
	r := &jreader{builder: newBuilder(name, "", "", now), d: &plan.Doc{Name: name, Src: src}}
	switch format {
	case FormatTodos:
		err = r.todos(root)
	case FormatTasks:
		err = r.tasks(root)
	case FormatMaxclaw:
		err = r.maxclaw(root)
	case FormatPlanTool:
		err = r.planTool(root)
	case FormatPlanManager:
		err = r.planManager(root)
	case FormatPlanExecute:
		err = r.planExecute(root)
	default:
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is not a JSON format", format).Hinted("the file is JSON")
	}
	if err != nil {
		return nil, err
	}
	in, err := r.finish()
	if in != nil {
		in.Format = format
		switch format {
		case FormatMaxclaw, FormatPlanTool, FormatPlanManager, FormatPlanExecute:
			// Their step ids name the same step each time the tool
			// writes its plan again; a todo list's do not.
			in.IDs = r.keptIDs
		}
	}
	return in, err
}

// items reads the list a format keeps its steps in: the root itself when it
// is a list, else the root's key (absent: a format error).
func (r *jreader) items(root *jnode, key string) ([]*jnode, string, *jobj, error) {
	if root.kind == jArray {
		return root.items, "", nil, nil
	}
	o, err := r.obj(root, "", "the file")
	if err != nil {
		return nil, "", nil, err
	}
	v := o.get(key)
	if v == nil {
		return nil, "", nil, r.d.ErrAt(root.start, "no %q list of steps here", key).With("field", key)
	}
	if v.kind != jArray {
		return nil, "", nil, r.errAt(v, key, "expected a list of steps, found %s", v.kind)
	}
	return v.items, key, o, nil
}

// todos reads a TodoWrite list: the bare array or {"todos":[...]}, with the
// persistent-plan extras planTitle, persist and each todo's phaseId.
func (r *jreader) todos(root *jnode) error {
	items, path, top, err := r.items(root, "todos")
	if err != nil {
		return err
	}
	r.p.Title = "Todos"
	if top != nil {
		title, err := r.str(top, "planTitle")
		if err != nil {
			return err
		}
		r.setTitle("planTitle", title)
		if v := top.get("persist"); v != nil {
			r.drop("persist", r.raw(v), "TodoWrite's switch for saving to task_plan.md: an import is always kept")
		}
		r.done(top, nil)
	}
	phases := map[string]*plan.Phase{}
	for i, item := range items {
		p := index(path, i)
		o, err := r.obj(item, p, "a todo")
		if err != nil {
			return err
		}
		phaseID, err := r.str(o, "phaseId")
		if err != nil {
			return err
		}
		ph, ok := phases[phaseID]
		if !ok {
			title := phaseID
			if title == "" {
				title = plan.DefaultPhaseTitle
			}
			ph = r.phase(title)
			phases[phaseID] = ph
		}
		bs, err := r.addStep(ph, o, "content", "status", "id")
		if err != nil {
			return err
		}
		if bs == nil {
			continue
		}
		active, err := r.str(o, "activeForm")
		if err != nil {
			return err
		}
		bs.s.Active = r.line(join(p, "activeForm"), active)
		r.done(o, func(k string) string {
			if k == "priority" {
				return "plangit steps have no priority; plan order says what comes first"
			}
			return ""
		})
	}
	return nil
}

// tasks reads Claude Code task data: a task, a list of tasks, or
// {"tasks":[...]}. blockedBy and blocks both become needs; a deleted task
// is not imported.
func (r *jreader) tasks(root *jnode) error {
	items, path := []*jnode{root}, ""
	if root.kind == jArray || root.has("tasks") {
		var top *jobj
		var err error
		if items, path, top, err = r.items(root, "tasks"); err != nil {
			return err
		}
		if top != nil {
			r.done(top, nil)
		}
	}
	r.p.Title = "Tasks"
	ph := r.phase(plan.DefaultPhaseTitle)
	blocks := map[string][]string{} // task id → the tasks it blocks
	deleted := map[string]bool{}
	var all []*bstep
	for i, item := range items {
		p := index(path, i)
		if path == "" && root.kind == jObject {
			p = "task"
		}
		o, err := r.obj(item, p, "a task")
		if err != nil {
			return err
		}
		status, err := r.str(o, "status")
		if err != nil {
			return err
		}
		id, err := r.str(o, "id")
		if err != nil {
			return err
		}
		if strings.EqualFold(strings.TrimSpace(status), "deleted") {
			subject, _ := r.str(o, "subject")
			r.drop(p, subject, "the task was deleted; it is not imported")
			for _, k := range o.n.keys {
				o.used[k] = true
			}
			deleted[id] = true
			continue
		}
		bs, err := r.addStep(ph, o, "subject", "status", "id")
		if err != nil {
			return err
		}
		if bs == nil {
			continue
		}
		if bs.s.Why, err = r.textOf(o, "description"); err != nil {
			return err
		}
		active, err := r.str(o, "activeForm")
		if err != nil {
			return err
		}
		bs.s.Active = r.line(join(p, "activeForm"), active)
		if bs.needs, err = r.ids(o, "blockedBy"); err != nil {
			return err
		}
		bs.needsPath = join(p, "blockedBy")
		bl, err := r.ids(o, "blocks")
		if err != nil {
			return err
		}
		blocks[id] = bl
		all = append(all, bs)
		r.done(o, func(k string) string {
			switch k {
			case "owner":
				return "plangit steps have no owner"
			case "metadata":
				return "task metadata is not part of the plan"
			}
			return ""
		})
	}
	// "blocks" is the other side of "blockedBy": X blocks Y means Y needs X.
	for _, bs := range all {
		for _, other := range all {
			if other == bs {
				continue
			}
			for _, blocked := range blocks[other.srcID] {
				if blocked == bs.srcID && !strings.Contains(","+strings.Join(bs.needs, ",")+",", ","+other.srcID+",") {
					bs.needs = append(bs.needs, other.srcID)
				}
			}
		}
	}
	// A need on a deleted task is no need.
	for _, bs := range all {
		kept := bs.needs[:0]
		for _, n := range bs.needs {
			if deleted[n] {
				r.drop(bs.needsPath, n, "task "+n+" was deleted, so this step does not wait for it")
				continue
			}
			kept = append(kept, n)
		}
		bs.needs = kept
	}
	return nil
}

// progress reads a {current, total} object into s; one that makes no sense
// is reported.
func (r *jreader) progress(o *jobj, key string, s *plan.Step) error {
	v := o.get(key)
	if v == nil {
		return nil
	}
	po, err := r.obj(v, join(o.path, key), "progress")
	if err != nil {
		return err
	}
	cur, _, err1 := r.num(po, "current")
	total, ok, err2 := r.num(po, "total")
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	r.done(po, nil)
	if !ok || total < 1 || cur > total || total > 1_000_000 {
		r.drop(join(o.path, key), r.raw(v), "progress needs 0 ≤ current ≤ total and total > 0")
		return nil
	}
	s.Progress = plan.Progress{Current: cur, Total: total}
	return nil
}

// stepTimes reads a step's start and completion times.
func (r *jreader) stepTimes(o *jobj, started, completed string, s *plan.Step) (err error) {
	if s.Started, err = r.timeOf(o, started); err != nil {
		return err
	}
	s.Completed, err = r.timeOf(o, completed)
	return err
}

// sessionID reports a source's plan id, which plangit replaces with the
// session's.
func (r *jreader) sessionID(o *jobj, key string) error {
	id, err := r.str(o, key)
	if id != "" {
		r.drop(join(o.path, key), id, "the plan takes its session's id")
	}
	return err
}

// checkCurrent makes the step the source names as current the one kept in
// progress, and reports a name that disagrees with the steps' statuses:
// the statuses win.
func (r *jreader) checkCurrent(field, value string, bs *bstep) {
	switch {
	case bs == nil:
		r.drop(field, value, "names no step of the plan; the steps' statuses say which is under way")
	case bs.s.Status == plan.StepInProgress:
		r.current = bs
	case r.p.Status == plan.PlanRunning && bs.s.Status == plan.StepPending && r.p.Current() == nil:
		// The step the plan is at, not started yet: the statuses agree.
		r.current = bs
	default:
		r.drop(field, value, fmt.Sprintf("names step %q, which is %s; the steps' statuses say which is under way", plan.Clip(bs.s.Text), bs.s.Status))
	}
}

// maxclaw reads a maxclaw plan.json: {id, goal, status, created_at,
// updated_at, steps:[{id, description, status, result, progress,
// started_at, completed_at}], current_step_index, iteration_count}.
func (r *jreader) maxclaw(root *jnode) error {
	o, err := r.obj(root, "", "a maxclaw plan")
	if err != nil {
		return err
	}
	goal, err := r.str(o, "goal")
	if err != nil {
		return err
	}
	r.setTitle("goal", goal)
	r.p.Goal = r.text("goal", goal)
	if err := errors.Join(r.sessionID(o, "id"), r.planStatus(o, "status")); err != nil {
		return err
	}
	if r.p.Status == plan.PlanPending {
		// maxclaw has no approval: its "pending" is a plan not started
		// yet, which plangit keeps running with every step pending.
		r.p.Status = plan.PlanRunning
	}
	if err := r.planTimes(o, "created_at", "updated_at"); err != nil {
		return err
	}
	if n, ok, err := r.num(o, "iteration_count"); err != nil {
		return err
	} else if ok {
		r.p.Iterations = n
	}
	steps, err := r.list(o, "steps")
	if err != nil {
		return err
	}
	ph := r.phase("Steps")
	var all []*bstep
	for i, item := range steps {
		p := index("steps", i)
		so, err := r.obj(item, p, "a step")
		if err != nil {
			return err
		}
		bs, err := r.addStep(ph, so, "description", "status", "id")
		all = append(all, bs)
		if err != nil {
			return err
		}
		if bs == nil {
			continue
		}
		if bs.s.Result, err = r.textOf(so, "result"); err != nil {
			return err
		}
		if err := errors.Join(r.progress(so, "progress", bs.s), r.stepTimes(so, "started_at", "completed_at", bs.s)); err != nil {
			return err
		}
		r.done(so, nil)
	}
	if v := o.get("current_step_index"); v != nil {
		i, err := strconv.Atoi(v.str)
		switch {
		case v.kind != jNumber || err != nil || i < 0:
			return r.errAt(v, "current_step_index", "expected a whole number, found %s", describe(v))
		case i < len(all):
			r.checkCurrent("current_step_index", v.str, all[i])
		case i > len(all) || r.p.Counts().Done != r.p.Counts().Total:
			r.checkCurrent("current_step_index", v.str, nil)
		}
	}
	r.done(o, nil)
	return nil
}

// planTimes reads a plan's creation and update times.
func (r *jreader) planTimes(o *jobj, created, updated string) error {
	c, err := r.timeOf(o, created)
	if err != nil {
		return err
	}
	u, err := r.timeOf(o, updated)
	if err != nil {
		return err
	}
	if !c.IsZero() {
		r.p.Created = c
		if u.IsZero() {
			u = c
		}
	}
	if !u.IsZero() {
		r.p.Updated = u
	}
	return nil
}

// planToolStats are the counts the plan tool stores beside its steps.
var planToolStats = []struct {
	key   string
	count func(plan.Counts) int
}{
	{"total_steps", func(c plan.Counts) int { return c.Total }},
	{"completed_steps", func(c plan.Counts) int { return c.Completed }},
	{"in_progress_steps", func(c plan.Counts) int { return c.InProgress }},
	{"pending_steps", func(c plan.Counts) int { return c.Pending }},
	{"failed_steps", func(c plan.Counts) int { return c.Failed }},
}

// planToolText are the keys a plan-tool step's text may be under, the
// first one present naming the step.
var planToolText = []string{"step", "description", "title", "action", "content", "text", "name"}

// planTool reads a persistent plan tool's plan.json: {task_description,
// steps, total_steps, ...}, steps as strings or as {step, action, status,
// result}; or the tool's whole answer {summary, plan, saved_to,
// plan_file_path}.
func (r *jreader) planTool(root *jnode) error {
	o, err := r.obj(root, "", "a plan")
	if err != nil {
		return err
	}
	if !root.has("task_description") && root.props["plan"].has("task_description") {
		outer := o
		if o, err = r.obj(outer.get("plan"), "plan", "the plan"); err != nil {
			return err
		}
		r.done(outer, func(k string) string {
			switch k {
			case "summary":
				return "the tool's formatted summary, made from the steps"
			case "saved_to", "plan_file_path":
				return "where the tool saved its file"
			}
			return ""
		})
	}
	desc, err := r.str(o, "task_description")
	if err != nil {
		return err
	}
	r.setTitle(join(o.path, "task_description"), desc)
	r.p.Goal = r.text(join(o.path, "task_description"), desc)
	if v := o.get("conversation_id"); v != nil {
		r.drop(join(o.path, "conversation_id"), r.raw(v), "the tool's conversation id; the plan takes its session's id")
	}
	steps, err := r.list(o, "steps")
	if err != nil {
		return err
	}
	ph := r.phase("Steps")
	for i, item := range steps {
		p := index(join(o.path, "steps"), i)
		if item.kind == jString {
			r.step(ph, p, item.str, plan.StepPending)
			continue
		}
		if item.kind != jObject {
			return r.errAt(item, p, "a step is text or an object {step, action, status, result}, not %s", item.kind)
		}
		so, _ := r.obj(item, p, "a step")
		var text, num, numPath string
		var more []string
		for _, k := range planToolText {
			v := so.get(k)
			if v == nil {
				continue
			}
			if k == "step" && v.kind == jNumber {
				num, numPath = v.str, join(p, k)
				continue
			}
			t, err := r.str(so, k)
			if err != nil {
				return err
			}
			if strings.TrimSpace(t) == "" {
				continue
			}
			if text == "" {
				text = t
			} else {
				more = append(more, k+": "+t)
			}
		}
		st, err := r.status(so, "status")
		if err != nil {
			return err
		}
		bs := r.step(ph, p, text, st)
		if bs == nil {
			r.done(so, nil)
			continue
		}
		bs.srcID, bs.idPath = num, numPath
		bs.s.Why = r.text(join(p, "action"), strings.Join(more, "\n"))
		if bs.s.Result, err = r.textOf(so, "result"); err != nil {
			return err
		}
		r.done(so, nil)
	}
	c := r.p.Counts()
	for _, stat := range planToolStats {
		if n, ok, err := r.num(o, stat.key); err != nil {
			return err
		} else if ok {
			why := "a count the tool keeps; plangit counts the steps itself"
			if got := stat.count(c); got != n {
				why += fmt.Sprintf(", and the steps say %d", got)
			}
			r.drop(join(o.path, stat.key), strconv.Itoa(n), why)
		}
	}
	r.done(o, nil)
	return nil
}

// planManager reads a PlanManager plan: {meta:{goal, created_at,
// updated_at}, state:{current_task_id, status}, tasks:[{id, name, status,
// dependencies, reasoning, result}]}.
func (r *jreader) planManager(root *jnode) error {
	items, path, top, err := r.items(root, "tasks")
	if err != nil {
		return err
	}
	var currentID, currentPath string
	if top != nil {
		if mv := top.get("meta"); mv != nil {
			meta, err := r.obj(mv, "meta", "meta")
			if err != nil {
				return err
			}
			goal, err1 := r.str(meta, "goal")
			title, err2 := r.str(meta, "title")
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			if title == "" {
				title = goal
			}
			r.setTitle("meta.title", title)
			r.p.Goal = r.text("meta.goal", goal)
			if err := r.planTimes(meta, "created_at", "updated_at"); err != nil {
				return err
			}
			r.done(meta, nil)
		}
		if sv := top.get("state"); sv != nil {
			state, err := r.obj(sv, "state", "state")
			if err != nil {
				return err
			}
			if err := r.planStatus(state, "status"); err != nil {
				return err
			}
			if currentID, err = r.str(state, "current_task_id"); err != nil {
				return err
			}
			currentPath = "state.current_task_id"
			r.done(state, func(k string) string {
				if k == "progress" {
					return "getPlanStatus's fraction of the tasks done; plangit counts the steps itself"
				}
				return ""
			})
		}
		r.done(top, nil)
	}
	ph := r.phase("Tasks")
	byID := map[string]*bstep{}
	for i, item := range items {
		p := index(path, i)
		o, err := r.obj(item, p, "a task")
		if err != nil {
			return err
		}
		bs, err := r.addStep(ph, o, "name", "status", "id")
		if err != nil {
			return err
		}
		if bs == nil {
			continue
		}
		byID[bs.srcID] = bs
		if bs.needs, err = r.ids(o, "dependencies"); err != nil {
			return err
		}
		bs.needsPath = join(p, "dependencies")
		var err1, err2 error
		bs.s.Why, err1 = r.textOf(o, "reasoning")
		bs.s.Result, err2 = r.textOf(o, "result")
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		for _, k := range []string{"retry_count", "retries"} {
			if n, ok, err := r.num(o, k); err != nil {
				return err
			} else if ok {
				bs.s.Retries = n
			}
		}
		r.done(o, nil)
	}
	if currentID != "" {
		r.checkCurrent(currentPath, currentID, byID[currentID])
	}
	return nil
}

// planExecute reads a Plan-and-Execute plan {state, tasks:[{id,
// description, state, result}]} or the agent's response {planResult,
// currentTaskStatus, executeState, reason, finalResult}.
func (r *jreader) planExecute(root *jnode) error {
	r.p.Title = "Plan and execute"
	planNode, path := root, ""
	var resp *jobj
	if root.has("planResult") || root.has("currentTaskStatus") || root.has("executeState") {
		var err error
		if resp, err = r.obj(root, "", "a response"); err != nil {
			return err
		}
		planNode, path = resp.get("planResult"), "planResult"
		if planNode == nil {
			return r.taskResponse(root, resp)
		}
	}
	items, err := []*jnode(nil), error(nil)
	var po *jobj
	if planNode.kind == jArray {
		items = planNode.items
	} else {
		if po, err = r.obj(planNode, path, "a plan"); err != nil {
			return err
		}
		if err := r.planStatus(po, "state"); err != nil {
			return err
		}
		if items, err = r.list(po, "tasks"); err != nil {
			return err
		}
	}
	ph := r.phase(plan.DefaultPhaseTitle)
	byID := map[string]*bstep{}
	for i, item := range items {
		p := index(join(path, "tasks"), i)
		o, err := r.obj(item, p, "a task")
		if err != nil {
			return err
		}
		bs, err := r.addStep(ph, o, "description", "state", "id")
		if err != nil {
			return err
		}
		if bs == nil {
			continue
		}
		byID[bs.srcID] = bs
		if bs.s.Result, err = r.textOf(o, "result"); err != nil {
			return err
		}
		r.done(o, nil)
	}
	if po != nil {
		r.done(po, nil)
	}
	if resp == nil {
		return nil
	}
	if v := resp.get("executeState"); v != nil {
		before := r.p.Status
		if err := r.planStatus(resp, "executeState"); err != nil {
			return err
		}
		if po != nil && po.n.has("state") && before != r.p.Status {
			r.drop(join(path, "state"), string(before), "executeState, the later word, says "+string(r.p.Status))
		}
	}
	if cv := resp.get("currentTaskStatus"); cv != nil {
		co, err := r.obj(cv, "currentTaskStatus", "the current task")
		if err != nil {
			return err
		}
		id, err := r.str(co, "id")
		if err != nil {
			return err
		}
		st, err := r.status(co, "state")
		if err != nil {
			return err
		}
		bs := byID[id]
		if bs == nil {
			r.drop("currentTaskStatus", r.raw(cv), "names no task of planResult")
			for _, k := range co.n.keys {
				co.used[k] = true
			}
		} else {
			desc, _ := r.str(co, "description")
			if t := r.line("currentTaskStatus.description", desc); t != "" && t != bs.s.Text {
				r.drop("currentTaskStatus.description", desc, "the task's text is planResult's")
			}
			if result, _ := r.str(co, "result"); result != "" {
				bs.s.Result = r.text("currentTaskStatus.result", result)
			}
			bs.s.Status = st // the response's word on the task is the later one
			if st == plan.StepInProgress {
				r.current = bs
			}
			r.done(co, nil)
		}
	}
	return r.responseRest(resp)
}

// taskResponse reads a Plan-and-Execute response that carries no
// planResult: the per-task answer {currentTaskStatus, executeState,
// reason}, which says where one task of the plan stands. It is a partial
// import: the task it names, to apply to a session's plan.
func (r *jreader) taskResponse(root *jnode, resp *jobj) error {
	cv := resp.get("currentTaskStatus")
	if cv == nil {
		return r.d.ErrAt(root.start, "no planResult with the plan's tasks here, and no currentTaskStatus naming one").With("field", "planResult")
	}
	co, err := r.obj(cv, "currentTaskStatus", "the current task")
	if err != nil {
		return err
	}
	id, err := r.str(co, "id")
	if err != nil {
		return err
	}
	desc, err := r.str(co, "description")
	if err != nil {
		return err
	}
	if strings.TrimSpace(id) == "" && strings.TrimSpace(desc) == "" {
		return r.errAt(cv, "currentTaskStatus", "names no task: it has neither an id nor a description")
	}
	st, err := r.status(co, "state")
	if err != nil {
		return err
	}
	text := desc
	if strings.TrimSpace(text) == "" {
		text = id // a task named by its id alone: Update finds it by the id
	}
	r.partial = true
	bs := r.step(r.phase(plan.DefaultPhaseTitle), "currentTaskStatus", text, st)
	bs.srcID, bs.idPath = id, "currentTaskStatus.id"
	if bs.s.Result, err = r.textOf(co, "result"); err != nil {
		return err
	}
	r.done(co, nil)
	if bs.s.Status == plan.StepInProgress {
		r.current = bs
	}
	if resp.get("executeState") != nil {
		if err := r.planStatus(resp, "executeState"); err != nil {
			return err
		}
	}
	return r.responseRest(resp)
}

// responseRest reads a response's finalResult and reason.
func (r *jreader) responseRest(resp *jobj) error {
	final, err := r.str(resp, "finalResult")
	if err != nil {
		return err
	}
	r.p.Result = r.text("finalResult", final)
	reason, err := r.str(resp, "reason")
	if err != nil {
		return err
	}
	if r.p.Status == plan.PlanFailed {
		r.p.Reason = r.text("reason", reason)
	} else if reason != "" {
		r.drop("reason", reason, "why the agent answered as it did, not part of the plan")
	}
	r.done(resp, nil)
	return nil
}
