package cmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/repo"
)

// Shell completion: `plangit completion bash|zsh|fish|powershell` writes
// cobra's script, which asks `plangit __complete ARGS...` for the words to
// offer. These functions answer for arguments and flag values: step ids
// (their text as the description), session ids, revisions, hook events,
// settings and every enumerated flag value. They read the session and
// never change it; a problem means nothing to offer, never an error.

// noWords offers nothing, and no file names either.
const noWords = cobra.ShellCompDirectiveNoFileComp

// choicesKey annotates a flag with the values it accepts.
const choicesKey = "plangit_choices"

// choices makes flag name of c accept only values (checked before the
// command runs) and offers them for completion.
func choices(c *cobra.Command, name string, values ...string) {
	c.Flags().SetAnnotation(name, choicesKey, values)
	c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, noWords))
}

// checkChoices refuses a value outside the choices of any flag given to c.
func checkChoices(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(fl *pflag.Flag) {
		values, ok := fl.Annotations[choicesKey]
		if !ok || err != nil || slices.Contains(values, fl.Value.String()) {
			return
		}
		err = usagef("--%s is one of %s, not %q%s", fl.Name, strings.Join(values, ", "), fl.Value.String(), didYouMean(fl.Value.String(), values, ""))
	})
	return err
}

// withPrefix keeps the completions that start with toComplete.
func withPrefix(toComplete string, words ...cobra.Completion) []cobra.Completion {
	var out []cobra.Completion
	for _, w := range words {
		if strings.HasPrefix(w, toComplete) {
			out = append(out, w)
		}
	}
	return out
}

// describe is a completion with a description cut to one short line.
func describe(word, text string) cobra.Completion {
	return cobra.CompletionWithDesc(word, plan.TruncateText(strings.Join(strings.Fields(text), " "), 60))
}

// firstArg completes the first argument with fn and nothing after it.
func firstArg(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, noWords
		}
		return fn(c, args, toComplete)
	}
}

// completeSteps offers the ids of the steps keep accepts (all when nil),
// each with its text.
func (f *Factory) completeSteps(keep func(*plan.Step) bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		_, st, err := f.State()
		if err != nil {
			return nil, noWords
		}
		var out []cobra.Completion
		for _, s := range st.Plan.Steps() {
			if (keep == nil || keep(s)) && strings.HasPrefix(s.ID, strings.TrimPrefix(toComplete, "#")) {
				out = append(out, describe(s.ID, string(s.Status)+": "+s.Text))
			}
		}
		return out, noWords | cobra.ShellCompDirectiveKeepOrder
	}
}

// completeStepList completes the last id of a comma-separated list
// (--needs 1,2,).
func (f *Factory) completeStepList(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	head, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		head, last = toComplete[:i+1], toComplete[i+1:]
	}
	given := plan.ParseNeeds(head)
	words, dir := f.completeSteps(func(s *plan.Step) bool { return !slices.Contains(given, s.ID) })(c, args, last)
	for i, w := range words {
		words[i] = head + w
	}
	return words, dir | cobra.ShellCompDirectiveNoSpace
}

// canDo keeps the steps action a applies to.
func canDo(a plan.Action) func(*plan.Step) bool {
	return func(s *plan.Step) bool { return slices.Contains(plan.LegalActions(s.Status), a) }
}

// completePhases offers phase ids, each with its title.
func (f *Factory) completePhases(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	_, st, err := f.State()
	if err != nil {
		return nil, noWords
	}
	var out []cobra.Completion
	for _, ph := range st.Plan.Phases {
		if strings.HasPrefix(ph.ID, toComplete) {
			out = append(out, describe(ph.ID, ph.Title))
		}
	}
	return out, noWords | cobra.ShellCompDirectiveKeepOrder
}

// completeSessions offers the project's sessions, each with its title and
// progress.
func (f *Factory) completeSessions(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	proj, err := f.Project()
	if err != nil {
		return nil, noWords
	}
	ids, err := proj.SessionIDs()
	if err != nil {
		return nil, noWords
	}
	var out []cobra.Completion
	for _, id := range ids {
		if !strings.HasPrefix(id, toComplete) {
			continue
		}
		desc := ""
		if s, err := proj.Open(id); err == nil {
			if st, err := s.State(); err == nil {
				c := st.Plan.Counts()
				desc = fmt.Sprintf("%s (%s, %d/%d done)", st.Plan.Title, st.Plan.Status, c.Done, c.Total)
			}
		}
		out = append(out, describe(id, desc))
	}
	return out, noWords
}

// maxRevisionWords bounds how many revisions completion offers.
const maxRevisionWords = 100

// completeRevisions offers revisions, newest first: @N with its summary,
// HEAD and HEAD~N, and short hashes once a hex digit is typed.
func (f *Factory) completeRevisions(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	s, err := f.Session()
	if err != nil {
		return nil, noWords
	}
	revs, err := s.Revisions()
	if err != nil {
		return nil, noWords
	}
	var out []cobra.Completion
	hashes := toComplete != "" && strings.Trim(toComplete, "0123456789abcdef") == ""
	for i := len(revs) - 1; i >= 0 && len(out) < maxRevisionWords; i-- {
		r := revs[i]
		word := "@" + strconv.Itoa(r.N)
		switch {
		case hashes:
			word = r.Hash[:7]
		case strings.HasPrefix(toComplete, "H"):
			word = "HEAD"
			if back := len(revs) - 1 - i; back > 0 {
				word += "~" + strconv.Itoa(back)
			}
		}
		if strings.HasPrefix(word, toComplete) {
			out = append(out, describe(word, r.Summary))
		}
	}
	return out, noWords | cobra.ShellCompDirectiveKeepOrder
}

// completeTools offers the tools of the error log.
func (f *Factory) completeTools(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	_, st, err := f.State()
	if err != nil {
		return nil, noWords
	}
	var tools []string
	for _, e := range st.Errors {
		if !slices.Contains(tools, e.Tool) {
			tools = append(tools, e.Tool)
		}
	}
	return withPrefix(toComplete, tools...), noWords
}

// completeHookEvents offers the hook events.
func completeHookEvents(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return withPrefix(toComplete, repo.HookEvents...), noWords
}

// configKeys are the keys config get and set take: every setting, and
// hooks.EVENT for each hook toggle.
func configKeys() []string {
	keys := repo.ConfigKeys()
	for _, e := range repo.HookEvents {
		keys = append(keys, "hooks."+e)
	}
	return keys
}

// completeConfig offers config get's and set's KEY, each with its
// default, then for config set the values of KEY when they can be listed.
func completeConfig(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	d := repo.DefaultConfig()
	if len(args) == 0 {
		var out []cobra.Completion
		for _, k := range configKeys() {
			if k == "hooks" && c.Name() == "set" {
				continue // set per event
			}
			if v, err := d.Get(k); err == nil && strings.HasPrefix(k, toComplete) {
				out = append(out, describe(k, "default "+v))
			}
		}
		return out, noWords
	}
	if len(args) > 1 {
		return nil, noWords
	}
	switch v, _ := d.Get(args[0]); {
	case args[0] == "stop_mode":
		return withPrefix(toComplete, repo.StopModes...), noWords
	case v == "true" || v == "false":
		return withPrefix(toComplete, "true", "false"), noWords
	}
	return nil, noWords
}

// categoryNames lists the finding categories.
func categoryNames() []string {
	names := make([]string, len(plan.Categories))
	for i, c := range plan.Categories {
		names[i] = string(c)
	}
	return names
}

// registerCompletions wires completion into the tree under root, by
// command path, so the commands' constructors stay about running them.
func registerCompletions(f *Factory, root *cobra.Command) {
	root.RegisterFlagCompletionFunc("session", f.completeSessions)
	root.RegisterFlagCompletionFunc("if-rev", f.completeRevisions)
	root.RegisterFlagCompletionFunc("root", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	walk(root, func(c *cobra.Command) {
		path := commandPath(c)
		if c.ValidArgsFunction == nil && c.Runnable() && !strings.HasPrefix(path, "completion") {
			c.ValidArgsFunction = cobra.NoFileCompletions
		}
		flag := func(name string, fn cobra.CompletionFunc) {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		for _, a := range plan.Actions {
			if path == "step "+string(a) {
				c.ValidArgsFunction = firstArg(f.completeSteps(canDo(a)))
			}
		}
		switch path {
		case "step edit":
			c.ValidArgsFunction = firstArg(f.completeSteps(func(s *plan.Step) bool { return !s.Status.Resolved() }))
		case "step rm":
			c.ValidArgsFunction = firstArg(f.completeSteps(func(s *plan.Step) bool { return s.Status == plan.StepPending }))
		case "step progress":
			c.ValidArgsFunction = firstArg(f.completeSteps(func(s *plan.Step) bool { return !s.Status.Resolved() }))
		case "step revert":
			c.ValidArgsFunction = firstArg(f.completeSteps(nil))
		case "use", "adopt":
			c.ValidArgsFunction = firstArg(f.completeSessions)
		case "rollback":
			c.ValidArgsFunction = firstArg(f.completeRevisions)
		case "diff":
			c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) >= 2 {
					return nil, noWords
				}
				return f.completeRevisions(c, args, toComplete)
			}
		case "hook":
			c.ValidArgsFunction = firstArg(completeHookEvents)
		case "config get":
			c.ValidArgsFunction = firstArg(completeConfig)
		case "config set":
			c.ValidArgsFunction = completeConfig
		case "import":
			c.ValidArgsFunction = nil // a file name
		}
		flag("step", f.completeSteps(nil))
		flag("after", f.completeSteps(nil))
		flag("needs", f.completeStepList)
		flag("phase", f.completePhases)
		flag("rev", f.completeRevisions)
		flag("tool", f.completeTools)
		flag("category", cobra.FixedCompletions(categoryNames(), noWords))
		switch path {
		case "hooks install", "hooks uninstall", "hooks status", "hook":
			c.RegisterFlagCompletionFunc("host", cobra.FixedCompletions(hooks.HostNames(), noWords))
		}
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if _, ok := c.GetFlagCompletionFunc(fl.Name); !ok && fl.Value.Type() != "bool" && !slices.Contains(fileFlags, fl.Name) {
				c.RegisterFlagCompletionFunc(fl.Name, cobra.NoFileCompletions)
			}
		})
	})
}

// registerChoices gives the flags that take one of a list of values their
// list, which checkChoices holds them to (and completion offers). It runs
// on every tree, whole or not (newCmdRootFor).
func registerChoices(root *cobra.Command) {
	walk(root, func(c *cobra.Command) {
		switch commandPath(c) {
		case "import", "init":
			choices(c, "format", interop.ImportFormats...)
		case "graph":
			choices(c, "format", "mermaid", "dot")
		case "hooks install", "hooks uninstall":
			choices(c, "scope", hooks.ScopeProject, hooks.ScopeLocal, hooks.ScopeUser)
		}
	})
}

// fileFlags are the flags whose value is a file name, which the shell
// completes itself; other flags without a list of values offer nothing.
var fileFlags = []string{"from", "html", "out", "command"}

// walk calls fn on c and every command under it.
func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}
