package cmd

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/hooks/setup"
)

// setupOptions are plangit setup's flags.
type setupOptions struct {
	hosts       []string
	scope       string
	check, undo bool
}

// NewCmdSetup builds `plangit setup`.
func NewCmdSetup(f *Factory) *cobra.Command {
	o := &setupOptions{}
	c := &cobra.Command{
		Use:   "setup [--host a,b] [--scope project|user] [--check | --undo]",
		Short: "Set plangit up for the project's agent hosts: hooks, MCP server, skill (--check, --undo)",
		Long: `setup installs, for each agent host the project has a directory for (.claude, .codex, .cursor,
.gemini, .github/hooks; Claude Code when it has none) or --host names: its hooks (as plangit
hooks install), its MCP server where plangit has one for it (as plangit mcp install: Claude
Code, Codex, Gemini CLI, Cursor) and plangit's Agent Skill — .claude/skills/plangit/SKILL.md
for Claude Code, .agents/skills/plangit/SKILL.md for Codex, Gemini CLI, Copilot CLI and
Cursor (under ~ with --scope user). It prints one line per host saying what it wrote; running
it twice is running it once.

--check says per host what is installed, outdated or missing, and whether the plangit the
hooks run is the one on PATH, of this plangit's version; it exits 1 when anything is missing
or outdated. --undo puts every file setup wrote back byte for byte: files it created are
removed (and the folders it created, when empty), files it changed get their bytes back. What
setup wrote is recorded in .code-agent/setup.json (--scope user: plangit/setup.json in the
user's configuration directory).`,
		Example: `  plangit setup
  plangit setup --host claude,codex --scope user
  plangit setup --check --json
  plangit setup --undo`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return setupRun(f, o)
		},
	}
	c.Flags().StringSliceVar(&o.hosts, "host", nil, "the hosts: "+strings.Join(hooks.HostNames(), ", ")+" (default: those the project has directories for)")
	c.Flags().StringVar(&o.scope, "scope", setup.ScopeProject, "project or user")
	c.Flags().BoolVar(&o.check, "check", false, "say what is installed, outdated or missing; write nothing")
	c.Flags().BoolVar(&o.undo, "undo", false, "put back every file setup wrote in the scope")
	return c
}

func setupRun(f *Factory, o *setupOptions) error {
	if o.check && o.undo {
		return usagef("--check and --undo do not go together: --check writes nothing, --undo puts files back")
	}
	if o.undo && len(o.hosts) > 0 {
		return usagef("--undo puts back everything setup wrote in the scope; it takes no --host")
	}
	if o.scope != setup.ScopeProject && o.scope != setup.ScopeUser {
		return usagef("--scope is project or user, not %q", o.scope)
	}
	proj, err := f.Project()
	if err != nil {
		return err
	}
	targets, chose, err := hookTargets(f, o.hosts, proj.Root, true)
	if err != nil {
		return err
	}
	opts := setup.Options{Root: proj.Root, Scope: o.scope, Hosts: targets, Programs: hookPrograms(""), Getenv: f.Getenv, OS: runtime.GOOS}
	show := func(path string) string {
		if r, err := filepath.Rel(proj.Root, path); o.scope == setup.ScopeProject && err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return path
	}
	switch {
	case o.undo:
		return setupUndo(f, opts, show)
	case o.check:
		return setupCheck(f, opts, show)
	}
	done, err := setup.Setup(opts)
	if err != nil {
		return err
	}
	if exe, err := os.Executable(); err == nil && hooks.FromNpx(exe) {
		fmt.Fprintf(f.IO.ErrOut, "plangit: warning: plangit runs from npx's cache (%s), which npm clears: the hooks stop running when it goes; `npm install -g plangit`, then `plangit setup` again, keeps them\n", filepath.Dir(exe))
	}
	return f.print(map[string]any{"scope": o.scope, "hosts": done, "chose": chose}, func(w io.Writer) {
		if chose != "" && len(o.hosts) == 0 {
			fmt.Fprintln(w, chose)
		}
		for _, h := range done {
			// Each file once, with what went into it.
			var wrote, had []string
			kinds := map[string][]string{}
			for _, p := range h.Parts {
				if p.Changed {
					if kinds[p.Path] == nil {
						wrote = append(wrote, p.Path)
					}
					kinds[p.Path] = append(kinds[p.Path], p.Kind)
				}
			}
			for _, p := range h.Parts {
				if kinds[p.Path] == nil && !slices.Contains(had, show(p.Path)) {
					had = append(had, show(p.Path))
				}
			}
			for i, path := range wrote {
				wrote[i] = fmt.Sprintf("%s (%s)", show(path), strings.Join(kinds[path], ", "))
			}
			switch {
			case len(wrote) == 0:
				fmt.Fprintf(w, "%s: already set up (%s)\n", h.Host, strings.Join(had, ", "))
			case len(had) == 0:
				fmt.Fprintf(w, "%s: wrote %s\n", h.Host, strings.Join(wrote, ", "))
			default:
				fmt.Fprintf(w, "%s: wrote %s; already set up: %s\n", h.Host, strings.Join(wrote, ", "), strings.Join(had, ", "))
			}
			if len(wrote) > 0 && h.Note != "" {
				fmt.Fprintf(w, "  %s\n", h.Note)
			}
		}
	})
}

func setupCheck(f *Factory, opts setup.Options, show func(string) string) error {
	found, err := setup.Check(opts)
	if err != nil {
		return err
	}
	var program string
	for _, h := range found {
		if program == "" {
			program = h.Program
		}
	}
	exe, _ := os.Executable()
	prog := setup.CheckProgram(program, exec.LookPath, exe)
	missing, outdated := 0, 0
	for _, h := range found {
		for _, p := range h.Parts {
			switch p.State {
			case setup.StateMissing:
				missing++
			case setup.StateOutdated:
				outdated++
			}
		}
	}
	ok := missing == 0 && outdated == 0 && (prog.OnPath == "" || prog.SameVersion)
	err = f.print(map[string]any{"scope": opts.Scope, "hosts": found, "program": prog, "ok": ok}, func(w io.Writer) {
		for _, h := range found {
			for _, p := range h.Parts {
				line := fmt.Sprintf("%-8s %-6s %-9s %s", h.Host, p.Kind, p.State, show(p.Path))
				if p.Detail != "" {
					line += " (" + p.Detail + ")"
				}
				fmt.Fprintln(w, line)
			}
		}
		switch {
		case prog.Hooks == "":
		case prog.OnPath == "":
			fmt.Fprintf(w, "the hooks run %s; PATH finds no plangit\n", prog.Hooks)
		case prog.HooksOn:
			fmt.Fprintf(w, "the hooks run %s, the plangit PATH finds (%s)\n", prog.Hooks, prog.OnPath)
		default:
			fmt.Fprintf(w, "the hooks run %s, not the plangit PATH finds (%s)\n", prog.Hooks, prog.OnPath)
		}
		if prog.OnPath != "" && prog.SameVersion {
			fmt.Fprintf(w, "the plangit PATH finds is this one's version: %s\n", prog.Version)
		}
		if prog.OnPath != "" && !prog.SameVersion {
			fmt.Fprintf(w, "the plangit PATH finds is %q, this one %q: put this one on PATH, or run setup with that one\n", prog.PathVersion, prog.Version)
		}
		if ok {
			fmt.Fprintln(w, "everything is set up")
		} else if missing+outdated > 0 {
			fmt.Fprintf(w, "%d missing, %d outdated: plangit setup installs them\n", missing, outdated)
		}
	})
	if err == nil && !ok {
		return &hookExit{exitError} // the report is the answer
	}
	return err
}

func setupUndo(f *Factory, opts setup.Options, show func(string) string) error {
	undone, err := setup.Undo(opts)
	if err != nil {
		return err
	}
	if undone == nil {
		undone = []setup.Undone{}
	}
	return f.print(map[string]any{"scope": opts.Scope, "files": undone}, func(w io.Writer) {
		if len(undone) == 0 {
			fmt.Fprintf(w, "nothing to undo: setup wrote nothing in the %s scope\n", opts.Scope)
		}
		for _, u := range undone {
			switch u.Action {
			case "kept":
				fmt.Fprintf(w, "kept %s: %s\n", show(u.Path), u.Why)
			case "uninstalled":
				fmt.Fprintf(w, "took plangit out of %s: changed since setup, the rest kept\n", show(u.Path))
			default:
				fmt.Fprintf(w, "%s %s\n", u.Action, show(u.Path))
			}
		}
	})
}
