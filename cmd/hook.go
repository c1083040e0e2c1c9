package cmd

import (
	"fmt"
	"io"
	"os"
	"os/exec"
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
		Use:   "hook EVENT",
		Short: "Answer an agent host's hook event (JSON on stdin); plangit hooks install sets these up",
		Long: `hook reads a hook event's JSON from standard input, as Claude Code sends it, and answers in
Claude Code's protocol on standard output. Events: ` + events + ` (also written in kebab
case: pre-tool-use). A hook never breaks the agent: on any failure it answers nothing, exits 0
and appends the failure to .code-agent/plangit.log.`,
		Example: `  echo '{"session_id":"s1","cwd":".","hook_event_name":"SessionStart","source":"startup"}' | plangit hook SessionStart`,
		Args:    exactArgs(1, "an EVENT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := runHook(f, args[0], host); code != 0 {
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
		Short: "Install plangit's hooks into Claude Code's settings, remove them, or show them",
	}
	var scope, command string
	var print bool
	install := &cobra.Command{
		Use:   "install",
		Short: "Add plangit's hooks to Claude Code's settings (idempotent; keeps everything else)",
		Long: `install merges one command hook per event — plangit hook EVENT — into .claude/settings.json
(--scope project, the default), .claude/settings.local.json (--scope local) or
~/.claude/settings.json (--scope user). Every other key and hook stays as it was; running it
twice is running it once. --print shows the result without writing it.`,
		Example: `  plangit hooks install
  plangit hooks install --scope local --print`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return hooksEdit(f, scope, command, print, true)
		},
	}
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove exactly the hooks install added",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return hooksEdit(f, scope, "", print, false)
		},
	}
	for _, sub := range []*cobra.Command{install, uninstall} {
		sub.Flags().StringVar(&scope, "scope", repoScopeDefault, "project, local or user")
		sub.Flags().BoolVar(&print, "print", false, "print the settings file instead of writing it")
	}
	install.Flags().StringVar(&command, "command", "", "the plangit program the hooks run (default: plangit when on PATH, else this binary)")
	status := &cobra.Command{
		Use:   "status",
		Short: "Show which plangit hooks each settings scope has",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return hooksStatus(f)
		},
	}
	c.AddCommand(install, uninstall, status)
	return c
}

const repoScopeDefault = hooks.ScopeProject

// hookCommand is the program installed hooks run: plangit when it is on
// PATH, else the absolute path of this binary.
func hookCommand(explicit string) string {
	if explicit != "" {
		return quoteArgs([]string{explicit})
	}
	if p, err := exec.LookPath("plangit"); err == nil && p != "" {
		return "plangit"
	}
	if exe, err := os.Executable(); err == nil {
		return quoteArgs([]string{exe})
	}
	return "plangit"
}

func hooksEdit(f *Factory, scope, command string, print, install bool) error {
	proj, err := f.Project()
	if err != nil {
		return err
	}
	path, err := hooks.SettingsPath(scope, proj.Root, f.Getenv("HOME"))
	if err != nil {
		return asUsage(err)
	}
	s, err := hooks.LoadSettings(path)
	if err != nil {
		return err
	}
	if install {
		err = s.Install(hookCommand(command))
	} else {
		err = s.Uninstall()
	}
	if err != nil {
		return err
	}
	if print {
		if f.JSON {
			return f.print(map[string]any{"path": path, "settings": string(s.Bytes())}, nil)
		}
		f.IO.Out.Write(s.Bytes())
		return nil
	}
	if err := s.Save(); err != nil {
		return err
	}
	verb := map[bool]string{true: "installed", false: "removed"}[install]
	return f.print(map[string]any{"path": path, "changed": s.Changed(), "hooks": s.Installed()}, func(w io.Writer) {
		switch {
		case !s.Changed() && install:
			fmt.Fprintf(w, "plangit's hooks are already in %s\n", path)
		case !s.Changed():
			fmt.Fprintf(w, "no plangit hooks in %s\n", path)
		default:
			fmt.Fprintf(w, "%s plangit's hooks in %s\n", verb, path)
		}
	})
}

func hooksStatus(f *Factory) error {
	proj, err := f.Project()
	if err != nil {
		return err
	}
	type scopeStatus struct {
		Scope     string            `json:"scope"`
		Path      string            `json:"path"`
		Exists    bool              `json:"exists"`
		Installed map[string]string `json:"installed"`
		Problem   string            `json:"problem,omitempty"`
	}
	var rows []scopeStatus
	for _, scope := range []string{hooks.ScopeProject, hooks.ScopeLocal, hooks.ScopeUser} {
		path, err := hooks.SettingsPath(scope, proj.Root, f.Getenv("HOME"))
		if err != nil {
			continue
		}
		row := scopeStatus{Scope: scope, Path: path, Installed: map[string]string{}}
		if s, err := hooks.LoadSettings(path); err != nil {
			row.Problem = err.Error()
		} else {
			row.Exists, row.Installed = s.Exists(), s.Installed()
		}
		rows = append(rows, row)
	}
	_, pathErr := exec.LookPath("plangit")
	return f.print(map[string]any{"scopes": rows, "plangit_on_path": pathErr == nil}, func(w io.Writer) {
		for _, r := range rows {
			switch {
			case r.Problem != "":
				fmt.Fprintf(w, "%-7s %s: %s\n", r.Scope, r.Path, r.Problem)
			case len(r.Installed) == 0:
				fmt.Fprintf(w, "%-7s %s: no plangit hooks\n", r.Scope, r.Path)
			default:
				var events []string
				for _, e := range repo.HookEvents {
					if _, ok := r.Installed[e]; ok {
						events = append(events, e)
					}
				}
				fmt.Fprintf(w, "%-7s %s: %d of %d events (%s)\n", r.Scope, r.Path, len(events), len(repo.HookEvents), strings.Join(events, ", "))
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

// hookCall reports whether args run a hook — `hook EVENT`, `hook EVENT
// --host NAME` or `hook EVENT --host=NAME` — and which, so Main can answer
// it without building the command tree.
func hookCall(args []string) (event, host string, ok bool) {
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
