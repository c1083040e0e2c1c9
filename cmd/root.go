// Package cmd is plangit's command line: cobra commands that parse flags,
// call plan, repo, history, render and hooks, and print through render.
package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Main runs plangit with the process's arguments and returns its exit code.
func Main() int {
	f, args := NewFactory(), os.Args[1:]
	if !f.IO.OutTTY {
		// One write per line costs a system call each: a log of 10,000
		// revisions made 10,000 of them. A terminal still sees lines as
		// they come.
		out := bufio.NewWriterSize(os.Stdout, 64<<10)
		defer out.Flush()
		f.IO.Out = out
	}
	if event, host, ok := hookCall(args); ok {
		return runHook(f, event, host)
	}
	return Run(f, args)
}

// Run runs plangit with args against f and returns the exit code. Errors are
// printed here, once: as a JSON envelope with --json, else as one line on
// standard error.
func Run(f *Factory, args []string) int {
	root := newCmdRootFor(f, args)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	c, err := root.ExecuteC()
	err = cobraCheck(err)
	if err == nil {
		return exitOK
	}
	var he *hookExit
	if errors.As(err, &he) {
		return he.code
	}
	code := exitError
	var ue *usageError
	if errors.As(err, &ue) {
		code = exitUsage
		ue.finish(c)
	}
	if f.JSON || wantsJSON(args) {
		render.JSONError(f.IO.Out, err)
	} else {
		// The message may quote a file, a commit or a remote's answer:
		// cleaned, as the views are.
		msg, hint := plan.Parts(err)
		fmt.Fprintf(f.IO.ErrOut, "plangit: %s [%s]\n", render.Clean(msg), plan.CodeOf(err))
		if hint != "" {
			fmt.Fprintf(f.IO.ErrOut, "  hint: %s\n", render.Clean(hint))
		}
	}
	return code
}

// wantsJSON reports whether --json is among args, for errors raised before
// cobra parsed the flags (a malformed flag).
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// NewCmdRoot builds the plangit command tree.
func NewCmdRoot(f *Factory) *cobra.Command { return newRoot(f, nil, nil) }

// command is one of plangit's commands: its name, its group in the help,
// and its constructor.
type command struct {
	name, group string
	build       func(*Factory) *cobra.Command
}

// commands are plangit's commands, in the order the help lists them
// within each group. TestCommandTable holds each name to what its
// constructor builds. (A function, not a variable: demo runs commands.)
func commands() []command {
	return []command{
		{"init", "plan", NewCmdInit}, {"show", "plan", NewCmdShow}, {"status", "plan", NewCmdStatus}, {"current", "plan", NewCmdCurrent},
		{"ready", "plan", NewCmdReady}, {"next", "plan", NewCmdNext}, {"phase", "plan", NewCmdPhase}, {"step", "plan", NewCmdStep},
		{"import", "plan", NewCmdImport}, {"export", "plan", NewCmdExport}, {"pause", "plan", NewCmdPause}, {"resume", "plan", NewCmdResume}, {"approve", "plan", NewCmdApprove},
		{"abort", "plan", NewCmdAbort}, {"finish", "plan", NewCmdFinish}, {"reset", "plan", NewCmdReset},
		{"finding", "record", NewCmdFinding}, {"findings", "record", NewCmdFindings}, {"error", "record", NewCmdError},
		{"errors", "record", NewCmdErrors}, {"deliverable", "record", NewCmdDeliverable}, {"resolve", "record", NewCmdResolve},
		{"log", "history", NewCmdLog}, {"diff", "history", NewCmdDiff}, {"blame", "history", NewCmdBlame}, {"timeline", "history", NewCmdTimeline},
		{"agents", "history", NewCmdAgents}, {"rollback", "history", NewCmdRollback}, {"undo", "history", NewCmdUndo}, {"graph", "history", NewCmdGraph}, {"report", "history", NewCmdReport},
		{"hook", "agent", NewCmdHook}, {"hooks", "agent", NewCmdHooks}, {"setup", "agent", NewCmdSetup}, {"mcp", "agent", NewCmdMCP}, {"config", "agent", NewCmdConfig},
		{"use", "session", NewCmdUse}, {"adopt", "session", NewCmdAdopt}, {"attach", "session", NewCmdAttach}, {"sessions", "session", NewCmdSessions}, {"push", "session", NewCmdPush},
		{"fetch", "session", NewCmdFetch}, {"cleanup", "session", NewCmdCleanup}, {"gc", "session", NewCmdGC}, {"repair", "session", NewCmdRepair},
		{"demo", "session", NewCmdDemo},
		{"version", "", NewCmdVersion},
	}
}

// revisionArgs are the commands whose arguments are revisions.
var revisionArgs = map[string]bool{"log": true, "diff": true, "rollback": true}

// checkRevisions refuses, as a usage error naming the forms plangit reads,
// a revision name it cannot read — in --if-rev, --rev or the arguments of
// log, diff and rollback — before anything runs: a name plangit does not
// understand never stands for HEAD.
func checkRevisions(c *cobra.Command, args []string, ifRev string) error {
	revs := []string{}
	if ifRev != "" {
		revs = append(revs, ifRev)
	}
	if fl := c.Flags().Lookup("rev"); fl != nil && fl.Changed {
		revs = append(revs, fl.Value.String())
	}
	if revisionArgs[c.Name()] && c.Parent() == c.Root() {
		// diff --code STEP: a step id, which diff --code checks itself.
		if fl := c.Flags().Lookup("code"); fl == nil || !fl.Changed || len(args) != 1 || !isStepArg(args[0]) {
			revs = append(revs, args...)
		}
	}
	for _, r := range revs {
		if err := repo.CheckRevName(r); err != nil {
			return asUsage(err)
		}
	}
	return nil
}

// newCmdRootFor builds the tree a command line needs: the root and the
// one command it names. Building all of plangit's commands, their flags
// and their completions took a millisecond of every start. Help,
// completion, a bare plangit and a word plangit does not know (which gets
// a did-you-mean) build the whole tree.
func newCmdRootFor(f *Factory, args []string) *cobra.Command {
	word := commandWord(args)
	for _, c := range commands() {
		if c.name == word {
			return newRoot(f, &c, args)
		}
	}
	return newRoot(f, nil, args)
}

// commandWord is the first word of args that is not a root flag or a
// root flag's value: the command's name; "" when there is none or a word
// it cannot place (an unknown flag, "--").
func commandWord(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case a == "--root" || a == "--session" || a == "--if-rev":
			i++ // its value
		case strings.HasPrefix(a, "--root=") || strings.HasPrefix(a, "--session=") || strings.HasPrefix(a, "--if-rev=") ||
			a == "--json" || a == "--quiet" || a == "--no-color" || a == "-q":
		case strings.HasPrefix(a, "-"):
			return "" // --version, -v, --help, an unknown flag: the whole tree
		default:
			return a
		}
	}
	return ""
}

// newRoot builds the root command with every command under it, or with
// only (when not nil), for the command line args.
func newRoot(f *Factory, only *command, line []string) *cobra.Command {
	var version bool
	root := &cobra.Command{
		Use:   "plangit",
		Short: "A persistent, versioned plan for AI coding agents",
		Long: `plangit keeps an agent's plan, findings and error log in .code-agent/plans/<session>/,
a git repository where every change is one commit: history you can read, diff, blame and roll back.

Start with:  plangit init "Title" --goal "..." --phase "Build"
Then:        plangit step add "..."   plangit next   plangit step done 1 --result "..."`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if version {
				return versionRun(f)
			}
			if len(args) > 0 {
				return unknownCommand(c, args[0])
			}
			return c.Help()
		},
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if err := checkChoices(c); err != nil {
				return err
			}
			if err := checkRevisions(c, args, f.IfRev); err != nil {
				return err
			}
			if skipsEnvCheck(c) {
				return nil
			}
			return f.checkEnv()
		},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err, line) })
	root.Flags().BoolVarP(&version, "version", "v", false, "print plangit's version and the Go version it was built with")
	pf := root.PersistentFlags()
	pf.StringVar(&f.RootFlag, "root", "", "project root holding .code-agent/ (default: $PLANGIT_ROOT, else the nearest ancestor with .code-agent/, else the working directory)")
	pf.StringVar(&f.SessionFlag, "session", "", "session id (default: $PLANGIT_SESSION, else the agent host's session when the project has it, else .code-agent/active)")
	pf.BoolVar(&f.JSON, "json", false, `print one JSON envelope: {"success":true,"data":...} or {"success":false,"error":{...}}`)
	pf.BoolVarP(&f.Quiet, "quiet", "q", false, "print nothing on success")
	pf.BoolVar(&f.NoColor, "no-color", false, "no colour on a terminal (as NO_COLOR does)")
	pf.StringVar(&f.IfRev, "if-rev", "", "for changes: fail with CONFLICT unless the session is at this revision")
	pf.StringVar(&f.AgentFlag, "agent", "", "the agent acting, for claims (default: $PLANGIT_AGENT, else the agent host's name for it)")
	pf.IntVar(&f.Token, "token", 0, "for changes: the fencing token of your claim (next --claim prints it); refused with CLAIMED if the step was claimed since")

	root.AddGroup(&cobra.Group{ID: "plan", Title: "Plan:"}, &cobra.Group{ID: "record", Title: "Findings, errors and the deliverable:"},
		&cobra.Group{ID: "history", Title: "History:"}, &cobra.Group{ID: "session", Title: "Sessions:"},
		&cobra.Group{ID: "agent", Title: "Agent hooks and settings:"})
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		// --json prints one envelope, help too: the text in it. (A
		// command that only groups others answers --help before its
		// flags are read: the command line says.)
		if !f.JSON && !wantsJSON(line) {
			help(c, args)
			return
		}
		var text strings.Builder
		out := c.OutOrStdout()
		c.SetOut(&text)
		help(c, args)
		c.SetOut(out)
		f.JSON = true
		f.print(map[string]any{"command": c.CommandPath(), "help": text.String()}, nil)
	})
	if only != nil {
		// The command line names one of plangit's commands, so it does not
		// ask for completion: cobra need not build its completion command
		// and that command's help texts.
		root.CompletionOptions.DisableDefaultCmd = true
		c := only.build(f)
		c.GroupID = only.group
		root.AddCommand(c)
		registerChoices(root)
		strictTree(root)
		return root
	}
	for _, t := range commands() {
		c := t.build(f)
		c.GroupID = t.group
		root.AddCommand(c)
	}
	root.SetHelpCommand(newCmdHelp())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	registerChoices(root)
	registerCompletions(f, root)
	strictTree(root)
	return root
}

// skipsEnvCheck reports whether c runs without checking plangit's
// environment variables: hooks never fail on them (they log and use the
// defaults), and help, version and completion do not use them.
func skipsEnvCheck(c *cobra.Command) bool {
	for ; c.HasParent(); c = c.Parent() {
		switch c.Name() {
		case "hook", "help", "version", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
			return c.Parent() == c.Root()
		}
	}
	return false
}

// exactArgs is cobra.ExactArgs with plangit's usage error, naming what is
// missing or what is too much.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return rangeArgs(n, n, what)
}

// rangeArgs is cobra.RangeArgs with plangit's usage error: what names the
// arguments the command takes ("a step ID", "at most two revisions").
func rangeArgs(lo, hi int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) < lo:
			return usagef("%s needs %s", commandPath(c), what)
		case len(args) > hi && hi == 0:
			return usagef("%s takes no arguments, not %s", commandPath(c), strings.Join(quoteEach(args), " "))
		case len(args) > hi:
			return usagef("%s takes %s; unexpected %s", commandPath(c), what, strings.Join(quoteEach(args[hi:]), " "))
		}
		return nil
	}
}

// flagChanged reports whether a flag was given on the command line.
func flagChanged(fs *pflag.FlagSet, name string) bool {
	fl := fs.Lookup(name)
	return fl != nil && fl.Changed
}
