// Package share moves sessions between a project's machines through the
// project's own git remote: push, fetch, the merge of a session whose
// history diverged from the remote's copy, the checks of what a fetch
// brings, and the listing and pruning of the sessions on a remote.
//
// Sessions are shared through the project's own git remote, under refs of
// their own that are neither branches nor tags, so a plain `git fetch`
// never brings them:
//
//	refs/plangit/sessions/<id>            on the remote: a session's branch
//	refs/plangit/code/<id>                on the remote: its code snapshots (code.go)
//	refs/plangit/remote/<remote>/main     in a session: the remote's tip as last seen
//
// git itself moves the objects, run in a bare repository plangit makes for
// the fetch or push, which borrows the session's objects (scratchArgs),
// with the project's git configuration layered on the user's (-c
// include.path=<project's .git/config>), so the project's remote, with its
// URL, push URL, insteadOf rules, credential helpers, proxies and ssh
// command, is the one used — and nothing is written into the project's
// repository: no object, no ref, no FETCH_HEAD, no hook run. The
// session's own .git/config is never read.
//
// Package repo keeps what a session records of the sharing (the remotes'
// tips, share.json, the prune list) and lands what a fetch or merge
// brings (Session.MoveTo, Session.LandMerge); this package decides what
// that is.
package share
