package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/hooks"
)

// NewCmdAttach builds `plangit attach`.
func NewCmdAttach(f *Factory) *cobra.Command {
	var detach bool
	c := &cobra.Command{
		Use:   "attach PLAN | attach --detach",
		Short: "Make this host session an agent of another session's plan (PLANGIT_PLAN does it without a record)",
		Long: `attach makes the agent host's session — --session, $PLANGIT_SESSION, or the host's session id
in its shell — one of the agents of session PLAN's plan: its hooks show PLAN with this agent's
own claimed step first, its stop is held on its own claims only, its todo list syncs into its
claims, and plangit in its shell works on PLAN. No plan is made for the host session, and PLAN
stays where it is (adopt moves a plan instead). --detach ends it.`,
		Example: `  plangit attach 20261120-103000-7f3a9c
  plangit attach --detach`,
		Args: func(cmd *cobra.Command, args []string) error {
			if detach {
				return exactArgs(0, "no PLAN with --detach")(cmd, args)
			}
			return exactArgs(1, "the PLAN (a session id) to work on")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			host := f.SessionFlag
			if host == "" {
				host = f.Getenv("PLANGIT_SESSION")
			}
			for _, name := range hooks.SessionVars {
				if host == "" {
					host = f.Getenv(name)
				}
			}
			if host == "" {
				host = hooks.RecordedShellSession(proj, f.Getenv)
			}
			if host == "" {
				return usagef("say which host session attaches: --session ID (an agent host's shell names its own)")
			}
			if detach {
				was := proj.Attached(host)
				if _, err := proj.Detach(host); err != nil {
					return err
				}
				return f.print(map[string]any{"host_session": host, "detached": was}, func(w io.Writer) {
					if was == "" {
						fmt.Fprintf(w, "session %s was not attached\n", host)
						return
					}
					fmt.Fprintf(w, "session %s no longer works on plan %s\n", host, was)
				})
			}
			if err := proj.Attach(host, args[0]); err != nil {
				return err
			}
			agent := f.Agent()
			return f.print(map[string]any{"host_session": host, "plan": args[0], "agent": agent}, func(w io.Writer) {
				fmt.Fprintf(w, "session %s works on plan %s", host, args[0])
				if agent != "" {
					fmt.Fprintf(w, " as agent %s", agent)
				}
				fmt.Fprintln(w)
				fmt.Fprintf(w, "claim a step: plangit next --claim\n")
			})
		},
	}
	c.Flags().BoolVar(&detach, "detach", false, "end this host session's attachment")
	return c
}
