package hooks

import (
	"fmt"

	"github.com/plangit/plangit/repo/share"
)

// publish starts a push of the session in the background when push_on
// names this event: the hook answers at once, and the push's failures go
// to .code-agent/plangit.log and to plangit sessions. A session whose head
// a remote already holds, as far as this machine knows, starts nothing.
func (e *engine) publish() {
	want := map[string]string{Stop: "stop", SessionEnd: "session_end"}[e.in.Event]
	if e.env.Publish == nil || want == "" || e.cfg.PushOn != want {
		return
	}
	s, err := e.session()
	if err != nil || s == nil || share.Published(s) {
		return
	}
	if err := e.env.Publish(e.proj.Root, s.ID); err != nil {
		e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s push_on: cannot start the push: %v", e.in.Event, s.ID, err))
	}
}
