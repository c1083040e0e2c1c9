package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

// resolveOptions are plangit resolve's.
type resolveOptions struct {
	ours, theirs bool
	take, field  string
	text         *string
}

// NewCmdResolve builds `plangit resolve`.
func NewCmdResolve(f *Factory) *cobra.Command {
	var o resolveOptions
	var text string
	c := &cobra.Command{
		Use:   "resolve [TARGET] [--ours|--theirs|--take REV|--text TEXT] [--field FIELD]",
		Short: "Settle what a merge left in conflict; with no TARGET, list the conflicts",
		Long: `When both machines changed the same field of a shared session each its own way, the merge
that brought them together (plangit fetch, plangit push) keeps everything else and records
the field as a conflict: the record keeps its value from before the two diverged, the plan
shows both values, and the record takes no other change until the conflict is settled.

resolve settles the conflicts of TARGET — a step (6), the plan's title, goal, status, result or
reason, a phase (phase 2), a finding (finding 3), or the deliverable — or only the one on
--field: --ours takes this machine's side (the one it had before the merge), --theirs the
other's, --take REV the side of that revision (either side's hash, as the conflict names it),
and --text a value of your own, for a field of text. With no TARGET, resolve lists every
conflict and the commands that settle it; with --ours or --theirs and no TARGET, it settles
them all.`,
		Example: `  plangit resolve
  plangit resolve 6 --theirs
  plangit resolve 6 --field text --text "Build the cache, per tenant"
  plangit resolve goal --take e4f5a6b
  plangit resolve --ours`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("text") {
				o.text = &text
			}
			n := 0
			for _, set := range []bool{o.ours, o.theirs, o.take != "", o.text != nil} {
				if set {
					n++
				}
			}
			if n > 1 {
				return usagef("--ours, --theirs, --take and --text are alternatives; give one")
			}
			target := strings.Join(args, " ")
			if n == 0 {
				if target != "" || o.field != "" {
					return usagef("say how to settle it: --ours, --theirs, --take REV or --text TEXT")
				}
				return conflictsRun(f)
			}
			if target == "" && (o.take != "" || o.text != nil || o.field != "") {
				return usagef("--take, --text and --field settle one record: name it (plangit resolve 6 --take REV)")
			}
			return resolveRun(f, target, o)
		},
	}
	c.Flags().BoolVar(&o.ours, "ours", false, "take this machine's side")
	c.Flags().BoolVar(&o.theirs, "theirs", false, "take the other machine's side")
	c.Flags().StringVar(&o.take, "take", "", "take the side of this revision (a hash the conflict names)")
	c.Flags().StringVar(&text, "text", "", "settle a field of text with this value")
	c.Flags().StringVar(&o.field, "field", "", "settle only the conflict on this field (status, text, needs, …)")
	return c
}

// conflictView is one conflict as plangit resolve lists it.
type conflictView struct {
	plan.ConflictAt
	Target string `json:"target"`
	Ours   string `json:"ours,omitempty"`   // this machine's side's revision
	Theirs string `json:"theirs,omitempty"` // the other's
	Settle string `json:"settle"`           // the command that settles it
}

// conflictsRun lists the session's conflicts.
func conflictsRun(f *Factory) error {
	s, st, err := f.State()
	if err != nil {
		return err
	}
	views := []conflictView{}
	for _, c := range st.Conflicts() {
		v := conflictView{ConflictAt: c, Target: c.Target()}
		v.Ours, v.Theirs, _ = share.Sides(s, c.Sides[0].Rev, c.Sides[1].Rev)
		arg := strings.TrimPrefix(v.Target, "step ")
		v.Settle = "plangit resolve " + arg + " --ours|--theirs"
		if c.Step == "" && strings.Contains(c.Field, " ") && v.Target != c.Field {
			v.Settle += " --field " + c.Field[strings.LastIndexByte(c.Field, ' ')+1:]
		}
		views = append(views, v)
	}
	return f.print(map[string]any{"session": s.ID, "conflicts": views}, func(w io.Writer) {
		if len(views) == 0 {
			fmt.Fprintln(w, "no conflicts to settle")
			return
		}
		for _, v := range views {
			side := func(cs plan.ConflictSide) string {
				mark := ""
				switch {
				case v.Ours != "" && strings.HasPrefix(v.Ours, cs.Rev):
					mark = ", ours"
				case v.Theirs != "" && strings.HasPrefix(v.Theirs, cs.Rev):
					mark = ", theirs"
				}
				val := cs.Value
				if cs.Removed {
					val = "removed"
				}
				return fmt.Sprintf("%s (%s%s)", oneLine(val), cs.Rev, mark)
			}
			field := v.Field
			if v.Step != "" {
				field = v.Target + " " + v.Field
			}
			fmt.Fprintf(w, "%s: %s | %s\n  %s\n", field, side(v.Sides[0]), side(v.Sides[1]), v.Settle)
		}
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// resolveRun settles conflicts as o says.
func resolveRun(f *Factory, target string, o resolveOptions) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	if o.take != "" {
		// A revision name plangit reads (HEAD^2, @12) names a side too.
		if h, err := s.Resolve(o.take); err == nil {
			o.take = h
		} else if repo.CheckRevName(o.take) != nil {
			return asUsage(err)
		}
	}
	res, err := s.Update(f.Options(), func(st *plan.State) (plan.Change, error) {
		if err := f.applyRules(s, st); err != nil {
			return plan.Change{}, err
		}
		if o.text != nil || o.take != "" {
			return st.Resolve(target, o.field, plan.Choice{Rev: o.take, Text: o.text}, f.Now())
		}
		// --ours, --theirs: each conflict by its own two sides.
		var todo []plan.ConflictAt
		for _, c := range st.Conflicts() {
			if matches(c, target, o.field) {
				todo = append(todo, c)
			}
		}
		if len(todo) == 0 {
			return st.Resolve(target, o.field, plan.Choice{}, f.Now()) // says what has no conflict
		}
		var done []string
		change := plan.Change{Op: "resolve", Step: todo[0].Step}
		for _, c := range todo {
			ours, theirs, err := share.Sides(s, c.Sides[0].Rev, c.Sides[1].Rev)
			if err != nil {
				return plan.Change{}, err
			}
			rev := ours
			if o.theirs {
				rev = theirs
			}
			t := c.Target()
			ch, err := st.Resolve(t, c.Field, plan.Choice{Rev: rev}, f.Now())
			if err != nil {
				return plan.Change{}, err
			}
			done = append(done, strings.TrimPrefix(ch.Summary, "resolve: "))
			if c.Step != change.Step {
				change.Step = "" // conflicts of several records
			}
		}
		change.Summary = "resolve: " + strings.Join(done, "; ")
		return change, nil
	})
	if err != nil {
		return err
	}
	return f.printChange(s, res, nil)
}

// matches reports whether a conflict is one that target and field name,
// as plan.State.Resolve reads them.
func matches(c plan.ConflictAt, target, field string) bool {
	if field != "" && c.Field != field && !strings.HasSuffix(c.Field, " "+field) {
		return false
	}
	if target == "" {
		return true
	}
	t := strings.Join(strings.Fields(strings.ToLower(target)), " ")
	if id := plan.NormalizeID(strings.TrimPrefix(t, "step ")); c.Step != "" {
		return c.Step == id
	}
	return c.Target() == strings.Replace(t, "#", "", 1)
}
