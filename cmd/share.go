package cmd

import (
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

// shareOptions are what push and fetch share.
type shareOptions struct {
	f          *Factory
	verb       string // push or fetch
	all        bool
	remote     string
	background bool
}

// open finds the remote a command shares through: --remote, else the
// push_remote setting, else the current branch's upstream remote, else
// origin.
func (o *shareOptions) open(what string) (repo.Project, *share.Remote, error) {
	proj, err := o.f.Project()
	if err != nil {
		return proj, nil, err
	}
	if o.remote == "" {
		cfg, err := proj.Config()
		if err != nil {
			return proj, nil, err
		}
		o.remote = cfg.PushRemote
	}
	r, err := share.NewRemote(proj, share.RemoteOptions{Name: o.remote, What: what, Background: o.background})
	return proj, r, err
}

// sessions are the sessions a command works on: those named, or the
// current one.
func (o *shareOptions) sessions(proj repo.Project, args []string) ([]string, error) {
	if len(args) > 0 {
		for _, id := range args {
			if err := repo.ValidateSessionID(id); err != nil {
				return nil, err
			}
		}
		return args, nil
	}
	id, err := o.f.SessionID(proj)
	if plan.HasCode(err, plan.CodePlanNotFound) {
		return nil, plan.Errorf(plan.CodePlanNotFound, "no session chosen and none active; name them (plangit %s SESSION…), or --all; plangit sessions --remote lists those on the remote", o.verb)
	}
	if err != nil {
		return nil, err
	}
	return []string{id}, nil
}

// finish prints a push's or fetch's results and returns its error.
func (o *shareOptions) finish(r *share.Remote, results []share.SyncResult, extra error) error {
	defer o.tellVoided(r, results)
	err := share.SyncError(results)
	if err == nil {
		err = extra
	}
	first := -1
	for i := range results {
		if results[i].Err() != nil {
			first = i
			break
		}
	}
	if o.f.JSON {
		if err != nil {
			return err
		}
		return o.f.print(map[string]any{"remote": r.Name, "url": r.URL, "results": results}, nil)
	}
	if !o.f.Quiet {
		render.SyncResults(o.f.IO.Out, o.f.IO.ErrOut, results, first)
		if len(results) == 0 && o.all {
			fmt.Fprintf(o.f.IO.Out, "no sessions to %s\n", o.verb)
		}
	}
	return err
}

// tellVoided tells the agent the CLI acts for of its claims that the
// merges of a push or fetch voided, once.
func (o *shareOptions) tellVoided(r *share.Remote, results []share.SyncResult) {
	for _, res := range results {
		if res.Merge == nil {
			continue
		}
		if s, err := r.Project.Open(res.Session); err == nil {
			o.f.tellVoided(s)
		}
	}
}

// NewCmdPush builds `plangit push`.
func NewCmdPush(f *Factory) *cobra.Command {
	o := &shareOptions{f: f, verb: "push"}
	var prune bool
	c := &cobra.Command{
		Use:   "push [SESSION…|--all] [--remote NAME] [--prune]",
		Short: "Publish sessions to the project's git remote, under refs/plangit/sessions/",
		Long: `push publishes sessions — the current one, those named, or --all — to the project's git remote,
as refs/plangit/sessions/<id>: not a branch, not a tag, never brought by a plain git fetch.
The remote is --remote, else the push_remote setting, else the current branch's upstream
remote, else origin. git itself does the work, with the project's configuration, so your
credentials, ssh configuration, proxies and insteadOf rules apply; nothing is written into the
project's repository and none of its hooks run.

A push is fast-forward only. When the remote has revisions this machine lacks, nothing is
pushed: the remote's tip is kept beside the session as origin/main, and push fails with
CONFLICT naming both tips; plangit fetch brings the remote's revisions, or settles a
divergence with --ours or --theirs. Pushes of one session take turns on this machine; one
that finds the remote already holding its revision succeeds, and a lock file left on the
remote by a push that was cut off is named, with how to remove it.

--prune also deletes on the remote the sessions plangit cleanup removed here that this
machine had pushed there, each only while the remote still holds what this machine last saw.`,
		Example: `  plangit push
  plangit push --all --remote upstream
  plangit push --prune`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.all && len(args) > 0 {
				return usagef("give SESSION names or --all, not both")
			}
			if o.background {
				return pushBackground(o)
			}
			proj, r, err := o.open("plangit push")
			if err != nil {
				return err
			}
			var ids []string
			switch {
			case o.all:
				if ids, err = proj.SessionIDs(); err != nil {
					return err
				}
			case len(args) > 0 || !prune:
				if ids, err = o.sessions(proj, args); err != nil {
					return err
				}
			default: // --prune alone: the current session, if there is one
				if id, err := f.SessionID(proj); err == nil {
					ids = []string{id}
				}
			}
			opts := share.SyncOptions{Options: f.Options()}
			results := r.Push(ids, opts)
			var perr error
			if prune {
				var pruned []share.SyncResult
				pruned, perr = r.Prune(opts)
				results = append(results, pruned...)
				if len(pruned) == 0 && perr == nil && !f.JSON && !f.Quiet {
					defer fmt.Fprintf(f.IO.Out, "nothing to prune on %s\n", r.Name)
				}
			}
			return o.finish(r, results, perr)
		},
	}
	c.Flags().BoolVar(&o.all, "all", false, "push every session of the project")
	c.Flags().StringVar(&o.remote, "remote", "", "the git remote (default: push_remote, else the branch's upstream remote, else origin)")
	c.Flags().BoolVar(&prune, "prune", false, "also delete on the remote the sessions cleanup removed here after this machine pushed them")
	c.Flags().BoolVar(&o.background, "background", false, "push as a hook does: no prompts, failures to .code-agent/plangit.log")
	c.Flags().MarkHidden("background")
	return c
}

// pushBackground is a push a hook started (push_on): no one reads its
// output, so every failure goes to .code-agent/plangit.log and to the
// session's last-push record, which plangit sessions shows.
func pushBackground(o *shareOptions) error {
	proj, err := o.f.Project()
	if err != nil {
		return err
	}
	id, err := o.f.SessionID(proj)
	if err != nil {
		return err
	}
	opts := share.SyncOptions{Options: o.f.Options()}
	_, r, err := o.open("plangit push")
	var results []share.SyncResult
	if err == nil {
		results = r.Push([]string{id}, opts)
		err = share.SyncError(results)
	} else if s, serr := proj.Open(id); serr == nil {
		share.NotePushFailure(s, o.remote, err, opts)
	}
	if err != nil {
		proj.AppendLog(o.f.Now(), fmt.Sprintf("push session=%s (push_on) %s: %v", id, plan.CodeOf(err), err))
	}
	return err
}

// startPush starts `plangit push --background` for a session and returns
// at once: the hook that asked does not wait for the network. The child
// runs in a session of its own, with no terminal and its standard streams
// on the null device, so the host, which waits for the hook's output to
// close, does not wait for it either.
func startPush(root, session string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	c := exec.Command(exe, "push", "--root", root, "--session", session, "--background")
	c.Dir = root
	detach(c)
	if err := c.Start(); err != nil {
		return err
	}
	return c.Process.Release()
}

// NewCmdFetch builds `plangit fetch`.
func NewCmdFetch(f *Factory) *cobra.Command {
	o := &shareOptions{f: f, verb: "fetch"}
	var sync share.SyncOptions
	c := &cobra.Command{
		Use:   "fetch [SESSION…|--all] [--remote NAME] [--ours|--theirs]",
		Short: "Bring sessions from the project's git remote (fast-forward only)",
		Long: `fetch brings sessions — the current one (--session names one not here yet), those named, or
--all — from refs/plangit/sessions/ on the project's git remote (the same remote push uses). A
session not here becomes a normal session, with the very revisions (the same hashes) the
machine that made them has, and plangit sessions says where it came from. A session here moves
forward to the remote's tip. Every revision fetched is checked first (git's own object checks,
and only plangit's files as plain non-executable files): a session holding anything else, in
any revision, or whose id init would refuse, is refused by name and nothing of it is kept;
the other sessions of the same fetch still come.

When the two histories have diverged, both are kept: the remote's tip as origin/main (plangit
log origin/main, plangit diff HEAD origin/main), and fetch fails with CONFLICT naming both
tips. --ours then records the remote's history beside this machine's plan in a merge
revision; --theirs does the same taking the remote's plan. Either way, the next push is a
fast-forward.`,
		Example: `  plangit sessions --remote
  plangit fetch 20261120-100000-3fa9c1
  plangit fetch --all
  plangit fetch --session s1 --theirs`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.all && len(args) > 0 {
				return usagef("give SESSION names or --all, not both")
			}
			if sync.Ours && sync.Theirs {
				return usagef("--ours and --theirs are alternatives; give one")
			}
			proj, r, err := o.open("plangit fetch")
			if err != nil {
				return err
			}
			sync.Options = f.Options()
			if o.all {
				results, err := r.FetchAll(sync)
				if err != nil {
					return err
				}
				return o.finish(r, results, nil)
			}
			ids, err := o.sessions(proj, args)
			if err != nil {
				return err
			}
			return o.finish(r, r.Fetch(ids, sync), nil)
		},
	}
	c.Flags().BoolVar(&o.all, "all", false, "fetch every session on the remote")
	c.Flags().StringVar(&o.remote, "remote", "", "the git remote (default: push_remote, else the branch's upstream remote, else origin)")
	c.Flags().BoolVar(&sync.Ours, "ours", false, "settle a divergence keeping this machine's plan, the remote's history merged beside it")
	c.Flags().BoolVar(&sync.Theirs, "theirs", false, "settle a divergence taking the remote's plan, this machine's history merged beside it")
	return c
}

// sessionsRemote lists the sessions on a remote (plangit sessions
// --remote).
func sessionsRemote(f *Factory, name string) error {
	o := &shareOptions{f: f, remote: name}
	_, r, err := o.open("plangit sessions --remote")
	if err != nil {
		return err
	}
	rows, skipped, err := r.List()
	if err != nil {
		return err
	}
	return f.print(map[string]any{"remote": r.Name, "url": r.URL, "sessions": rows, "skipped": skipped}, func(w io.Writer) {
		render.RemoteSessions(w, r.Name, r.URL, rows, skipped, f.Now())
	})
}
