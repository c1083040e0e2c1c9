package cmd

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// runHook answers one hook event from the host's JSON on stdin. It is the
// hot path — every tool call of an agent runs it — so Main reaches it
// without building the command tree. It always exits 0 unless the answer
// blocks on purpose.
func runHook(f *Factory, event, host string) int {
	env := hooks.Env{Now: f.Now, Getenv: f.Getenv, Root: f.RootFlag, Getwd: f.Getwd, LockWait: f.lockWait(), Publish: startPush, Problem: f.nowErr}
	if env.Root == "" {
		env.Root = f.Getenv("PLANGIT_ROOT")
	}
	var h hooks.Host // "": the host the payload shows
	if host != "" {
		var err error
		if h, err = hooks.HostNamed(host); err != nil {
			// A hook never breaks the agent, whatever its command line says.
			fmt.Fprintf(f.IO.ErrOut, "plangit: %v [%s]\n", err, plan.CodeOf(err))
			return 0
		}
	}
	out, code := hooks.Run(h, event, f.IO.In, env)
	f.IO.Out.Write(out)
	return code
}

// NewCmdHook builds `plangit hook`.
func NewCmdHook(f *Factory) *cobra.Command {
	events := strings.Join(repo.HookEvents, ", ")
	var host string
	c := &cobra.Command{
		Use:   "hook [EVENT]",
		Short: "Answer an agent host's hook event (JSON on stdin); plangit hooks install sets these up",
		Long: `hook reads a hook event's JSON from standard input, as the agent host sends it, and answers
in that host's protocol on standard output. --host names the host (hooks install writes it into
every host's entries but Claude Code's); without it the host is recognised from the payload, and
Claude Code is the default. EVENT is the event as the host spells it, or plangit's own: ` + events + `
(also written in kebab case: pre-tool-use); the payload's hook_event_name, where it has one, names
the event, and without EVENT only it does (a host that runs a hook's command without its
arguments still reaches the right event). A hook never breaks the agent: on any failure it
answers nothing, exits 0 and appends the failure to .code-agent/plangit.log.`,
		Example: `  echo '{"session_id":"s1","cwd":".","hook_event_name":"SessionStart","source":"startup"}' | plangit hook SessionStart
  echo '{"conversation_id":"c1","hook_event_name":"preToolUse","workspace_roots":["/work/app"],"tool_name":"Shell","tool_input":{"command":"go test ./..."}}' | plangit hook preToolUse --host cursor`,
		Args: rangeArgs(0, 1, "an EVENT at most"),
		RunE: func(cmd *cobra.Command, args []string) error {
			event := ""
			if len(args) == 1 {
				event = args[0]
			}
			if code := runHook(f, event, host); code != 0 {
				return &hookExit{code}
			}
			return nil
		},
	}
	c.Flags().StringVar(&host, "host", "", "the agent host sending the event: "+strings.Join(hooks.HostNames(), ", ")+" (default: recognised from the payload)")
	return c
}

// hookExit carries a hook's deliberate non-zero exit code.
type hookExit struct{ code int }

func (h *hookExit) Error() string { return fmt.Sprintf("hook exit %d", h.code) }

// NewCmdHooks builds `plangit hooks`.
func NewCmdHooks(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "hooks",
		Short: "Install plangit's hooks into agent hosts' settings, remove them, or show them",
	}
	var hostNames []string
	var scope, command string
	var print bool
	hostFlag := func(c *cobra.Command, what string) {
		c.Flags().StringSliceVar(&hostNames, "host", nil, what+": "+strings.Join(hooks.HostNames(), ", ")+" (repeat or separate with commas)")
	}
	install := &cobra.Command{
		Use:   "install",
		Short: "Add plangit's hooks to agent hosts' hook files (idempotent; keeps everything else)",
		Long: `install merges one command hook per event into each host's hook file, by --scope:

` + hookFilesHelp() + `
--host names the hosts; without it, install picks the hosts whose directory the project has,
and Claude Code when it has none, and says which it chose. Every other key and hook stays as it
was; running it twice is running it once; entries an earlier plangit wrote in another form (a
shell command line) are upgraded in place. Claude Code and Copilot CLI get exec-form entries (a
program and its arguments, no shell), the others a shell command line; every host's entries but
Claude Code's name their host (--host). When plangit-hook is installed beside plangit, Claude
Code's PreToolUse, UserPromptSubmit and PostToolUse hooks run it. --print shows the result without writing it.`,
		Example: `  plangit hooks install
  plangit hooks install --host claude --scope local --print
  plangit hooks install --host cursor,copilot --scope user`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return hooksEdit(f, hostNames, scope, command, print, true)
		},
	}
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove exactly the hooks install added (every host's, without --host)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return hooksEdit(f, hostNames, scope, "", print, false)
		},
	}
	for _, sub := range []*cobra.Command{install, uninstall} {
		sub.Flags().StringVar(&scope, "scope", hooks.ScopeProject, "project, local (Claude Code only) or user")
		sub.Flags().BoolVar(&print, "print", false, "print the hook files instead of writing them")
	}
	hostFlag(install, "the hosts to install for (default: those the project has directories for)")
	hostFlag(uninstall, "the hosts to remove plangit from (default: every host)")
	install.Flags().StringVar(&command, "command", "", "the plangit program the hooks run (default: plangit when on PATH, else this binary)")
	status := &cobra.Command{
		Use:   "status",
		Short: "Show, for every host and scope, whether plangit's hooks are installed, outdated or absent",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return hooksStatus(f, hostNames)
		},
	}
	hostFlag(status, "the hosts to show (default: every host)")
	c.AddCommand(install, uninstall, status)
	return c
}

// hookFilesHelp lists each host's hook file per scope, for install's help.
func hookFilesHelp() string {
	var b strings.Builder
	home := func(k string) string { return map[string]string{"HOME": "~"}[k] }
	for _, host := range hooks.HostNames() {
		var files []string
		for _, scope := range hooks.Scopes(host) {
			if path, err := hooks.HookFilePath(host, scope, ".", home); err == nil {
				files = append(files, path+" ("+scope+")")
			}
		}
		fmt.Fprintf(&b, "  %-8s %s\n", host, strings.Join(files, ", "))
	}
	return b.String()
}

// hookPrograms are the programs installed hooks run (hooks.FindPrograms):
// what --command names, else plangit as PATH finds it, never a launcher.
func hookPrograms(explicit string) hooks.Programs {
	exe, _ := os.Executable()
	return hooks.FindPrograms(explicit, hooks.ProgramEnv{LookPath: exec.LookPath, Executable: exe, OS: runtime.GOOS})
}

// hookTargets are the hosts a hooks command acts on, each with what to say
// about the choice ("" when --host named them).
func hookTargets(f *Factory, names []string, root string, install bool) ([]string, string, error) {
	for _, n := range names {
		if !slices.Contains(hooks.HostNames(), strings.ToLower(n)) {
			return nil, "", usagef("--host is one of %s, not %q", strings.Join(hooks.HostNames(), ", "), n)
		}
	}
	if len(names) > 0 {
		var out []string
		for _, n := range names {
			if n = strings.ToLower(n); !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out, "", nil
	}
	if !install {
		return hooks.HostNames(), "", nil
	}
	if found := hooks.DetectHosts(root); len(found) > 0 {
		return found, "hosts found in the project: " + strings.Join(found, ", ") + " (--host picks others)", nil
	}
	return []string{hooks.HostClaude}, "no agent host's directory in the project (.claude, .codex, .cursor, .gemini, .github/hooks): installing for Claude Code (--host picks others)", nil
}

func hooksEdit(f *Factory, names []string, scope, command string, print, install bool) error {
	proj, err := f.Project()
	if err != nil {
		return err
	}
	targets, chose, err := hookTargets(f, names, proj.Root, install)
	if err != nil {
		return err
	}
	prog := hookPrograms(command)
	type edit struct {
		Host    string            `json:"host"`
		Scope   string            `json:"scope"`
		Path    string            `json:"path"`
		Changed bool              `json:"changed"`
		Hooks   map[string]string `json:"hooks"`
		Content string            `json:"content,omitempty"`
		Note    string            `json:"note,omitempty"`
		file    *hooks.HookFile
	}
	var edits []edit
	// Every file is read and changed before any is written: one that
	// cannot be read changes nothing anywhere.
	for _, host := range targets {
		if !slices.Contains(hooks.Scopes(host), scope) {
			if len(names) == 0 && !install {
				continue // uninstall from every host: those without the scope have nothing there
			}
			return usagef("--scope is one of %s for %s, not %q", strings.Join(hooks.Scopes(host), ", "), host, scope)
		}
		path, err := hooks.HookFilePath(host, scope, proj.Root, f.Getenv)
		if err != nil {
			return asUsage(err)
		}
		s, err := hooks.LoadHookFile(host, path)
		if err != nil {
			return err
		}
		if install {
			err = s.Install(prog)
		} else {
			err = s.Uninstall()
		}
		if err != nil {
			return err
		}
		e := edit{Host: host, Scope: scope, Path: path, Changed: s.Changed(), file: s}
		if install {
			e.Note = hooks.InstallNote(host, proj.Root, f.Getenv)
		}
		edits = append(edits, e)
	}
	if print {
		for i := range edits {
			edits[i].Content = string(edits[i].file.Bytes())
		}
		return f.print(map[string]any{"files": edits}, func(w io.Writer) {
			for _, e := range edits {
				if len(edits) > 1 {
					fmt.Fprintf(w, "# %s: %s\n", e.Host, e.Path)
				}
				w.Write(e.file.Bytes())
			}
		})
	}
	for i := range edits {
		if err := edits[i].file.Save(); err != nil {
			return err
		}
		edits[i].Hooks = edits[i].file.Installed()
	}
	return f.print(map[string]any{"files": edits, "chose": chose}, func(w io.Writer) {
		if chose != "" {
			fmt.Fprintln(w, chose)
		}
		for _, e := range edits {
			switch {
			case !e.Changed && install:
				fmt.Fprintf(w, "%s: plangit's hooks are already in %s\n", e.Host, e.Path)
			case !e.Changed && len(names) > 0:
				fmt.Fprintf(w, "%s: no plangit hooks in %s\n", e.Host, e.Path)
			case !e.Changed:
			case install:
				fmt.Fprintf(w, "%s: installed plangit's hooks in %s\n", e.Host, e.Path)
			default:
				fmt.Fprintf(w, "%s: removed plangit's hooks from %s\n", e.Host, e.Path)
			}
			if e.Note != "" && e.Changed {
				fmt.Fprintf(w, "  %s\n", e.Note)
			}
		}
		if !install && len(names) == 0 && !slices.ContainsFunc(edits, func(e edit) bool { return e.Changed }) {
			fmt.Fprintf(w, "no plangit hooks in any host's %s files\n", scope)
		}
	})
}

func hooksStatus(f *Factory, names []string) error {
	proj, err := f.Project()
	if err != nil {
		return err
	}
	targets, _, err := hookTargets(f, names, proj.Root, false)
	if err != nil {
		return err
	}
	type row struct {
		Host      string            `json:"host"`
		Scope     string            `json:"scope"`
		Path      string            `json:"path"`
		Exists    bool              `json:"exists"`
		State     string            `json:"state"`
		Differ    []string          `json:"differ,omitempty"`
		Installed map[string]string `json:"installed"`
		Problem   string            `json:"problem,omitempty"`
	}
	var rows []row
	for _, host := range targets {
		for _, scope := range hooks.Scopes(host) {
			path, err := hooks.HookFilePath(host, scope, proj.Root, f.Getenv)
			if err != nil {
				continue
			}
			r := row{Host: host, Scope: scope, Path: path, Installed: map[string]string{}}
			if s, err := hooks.LoadHookFile(host, path); err != nil {
				r.Problem = err.Error()
			} else {
				r.Exists, r.Installed = s.Exists(), s.Installed()
				r.State, r.Differ = s.State(hookPrograms(s.Program()))
			}
			rows = append(rows, r)
		}
	}
	_, pathErr := exec.LookPath("plangit")
	return f.print(map[string]any{"files": rows, "plangit_on_path": pathErr == nil, "hook_binary": hookPrograms("").Hook}, func(w io.Writer) {
		for _, r := range rows {
			where := fmt.Sprintf("%-8s %-8s %s", r.Host, r.Scope, r.Path)
			switch {
			case r.Problem != "":
				fmt.Fprintf(w, "%s: %s\n", where, r.Problem)
			case r.State == hooks.StateOutdated:
				fmt.Fprintf(w, "%s: outdated (%s; plangit hooks install --host %s --scope %s upgrades them)\n", where, strings.Join(r.Differ, ", "), r.Host, r.Scope)
			case r.State == hooks.StateInstalled:
				fmt.Fprintf(w, "%s: installed (%d events)\n", where, len(r.Installed))
			default:
				fmt.Fprintf(w, "%s: absent\n", where)
			}
		}
		if pathErr != nil {
			fmt.Fprintln(w, "note: plangit is not on PATH; hooks installed from here run this binary by its full path")
		}
	})
}

// NewCmdConfig builds `plangit config`.
func NewCmdConfig(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Read and change settings (.code-agent/config.json)",
		Long:  "Settings and their defaults:\n\n" + configHelp(),
	}
	c.AddCommand(&cobra.Command{
		Use:     "get KEY",
		Short:   "Print a setting's value",
		Example: "  plangit config get stop_mode\n  plangit config get hooks.PreToolUse",
		Args:    exactArgs(1, "a KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(f)
			if err != nil {
				return err
			}
			v, err := cfg.Get(args[0])
			if err != nil {
				return asUsage(err)
			}
			return f.print(map[string]any{"key": args[0], "value": rawJSON(v)}, func(w io.Writer) { fmt.Fprintln(w, v) })
		},
	}, &cobra.Command{
		Use:     "set KEY VALUE",
		Short:   "Change a setting (lists of tools are comma-separated)",
		Example: "  plangit config set stop_mode advise\n  plangit config set view_tools Read,Grep,Glob\n  plangit config set hooks.PreCompact false",
		Args:    exactArgs(2, "a KEY and a VALUE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			cfg, err := proj.SetConfig(args[0], args[1])
			if plan.HasCode(err, plan.CodeInvalidArgument) {
				if _, broken := proj.Config(); broken == nil {
					return asUsage(err) // the key or the value given is wrong
				}
			}
			if err != nil {
				return err
			}
			v, _ := cfg.Get(args[0])
			return f.print(map[string]any{"key": args[0], "value": rawJSON(v)}, func(w io.Writer) { fmt.Fprintf(w, "%s = %s\n", args[0], v) })
		},
	}, &cobra.Command{
		Use:   "list",
		Short: "Print every setting",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(f)
			if err != nil {
				return err
			}
			return f.print(cfg, func(w io.Writer) {
				for _, k := range repo.ConfigKeys() {
					v, _ := cfg.Get(k)
					fmt.Fprintf(w, "%s = %s\n", k, v)
				}
			})
		},
	})
	return c
}

func loadConfig(f *Factory) (repo.Config, error) {
	proj, err := f.Project()
	if err != nil {
		return repo.Config{}, err
	}
	return proj.Config()
}

// rawJSON keeps a JSON value as JSON inside an envelope.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

func configHelp() string {
	d := repo.DefaultConfig()
	var b strings.Builder
	for _, k := range repo.ConfigKeys() {
		v, _ := d.Get(k)
		fmt.Fprintf(&b, "  %-22s %s\n", k, v)
	}
	return b.String()
}

// NewCmdAdopt builds `plangit adopt`.
func NewCmdAdopt(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "adopt SESSION",
		Short: "Continue SESSION's plan in this session (--session, $PLANGIT_SESSION, or the agent host's session id)",
		Long: `adopt moves an earlier session's plan, history and all, to the current session id, so a new
agent session takes it up: at session start the hooks name unfinished plans and print the
exact command, e.g. plangit adopt 20261120-103000-7f3a9c --session <the new session id>.`,
		Example: `  plangit adopt 20261120-103000-7f3a9c --session 6b1d8c2e-0d4f-4f7e-9d1a-2c3b4a5d6e7f`,
		Args:    exactArgs(1, "the SESSION to adopt"),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			to := f.SessionFlag
			if to == "" {
				to = f.Getenv("PLANGIT_SESSION")
			}
			for _, name := range hooks.SessionVars {
				if to == "" {
					to = f.Getenv(name)
				}
			}
			if to == "" {
				to = hooks.RecordedShellSession(proj, f.Getenv)
			}
			if to == "" {
				return usagef("say which session takes the plan over: --session ID")
			}
			s, res, err := proj.Adopt(args[0], to, f.Options())
			if err != nil {
				return err
			}
			return f.printChange(s, res, func(w io.Writer, st *plan.State) {
				fmt.Fprint(w, render.Summary(st))
			})
		},
	}
}

// hookCall reports whether args run a hook — `hook`, `hook EVENT`, `hook
// EVENT --host NAME` or `hook EVENT --host=NAME` — and which, so Main can
// answer it without building the command tree.
func hookCall(args []string) (event, host string, ok bool) {
	if len(args) == 1 && args[0] == "hook" {
		return "", "", true // the payload names the event
	}
	if len(args) < 2 || args[0] != "hook" || strings.HasPrefix(args[1], "-") {
		return "", "", false
	}
	switch rest := args[2:]; {
	case len(rest) == 0:
	case len(rest) == 1 && strings.HasPrefix(rest[0], "--host="):
		host = strings.TrimPrefix(rest[0], "--host=")
	case len(rest) == 2 && rest[0] == "--host" && !strings.HasPrefix(rest[1], "-"):
		host = rest[1]
	default:
		return "", "", false
	}
	return args[1], host, host != "" || len(args) == 2
}
