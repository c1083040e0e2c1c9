package hookwire

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// A host whose agent's shell has no variable naming the session (Gemini
// CLI 0.61.0 gives it GEMINI_CLI=1 alone) is reached through records its
// hooks keep: each hook notes, in .code-agent/hosts/HOST/PID, the session
// of the host process PID that runs it — its first ancestor that is
// neither a shell nor plangit itself (hostProcess) — with that process's
// start time. The CLI run in the agent's shell
// walks its own ancestors and takes the record of the nearest one: the
// host process that runs it. Two sessions of the host in one project are
// two processes, each with its record; a record whose process is gone, or
// is another process under the same PID, is stale: never read, and
// removed when a hook records. Process ancestry is read from /proc: where
// there is none, nothing is recorded or found, and the agent's commands
// name --session.

// hostsDir holds the records, under .code-agent.
const hostsDir = "hosts"

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 24

// proc is what /proc says of a process: its stat, and, for a hook
// looking for its host, its executable and command line.
type proc struct {
	pid, ppid int
	comm      string
	start     string   // start time, in clock ticks since boot
	exe       string   // the executable's path (/proc/PID/exe); "" when unread
	args      []string // the command line (/proc/PID/cmdline); nil when unread
}

// readProc reads /proc/PID/stat; ok is false where it cannot. Windows has
// no /proc, and its process IDs are not a /proc's: under Wine the path
// reaches Linux's, where the same number is another process.
func readProc(pid int) (p proc, ok bool) {
	if runtime.GOOS == "windows" {
		return proc{}, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return proc{}, false
	}
	f := strings.Fields(string(b[close+1:]))
	if len(f) < 20 {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, comm: string(b[open+1 : close]), start: f[19]}, true
}

// ancestors are the processes above pid, nearest first, at most
// maxAncestors of them, ending before init, or with the first that last
// accepts (nil: none).
func ancestors(pid int, last func(proc) bool) []proc {
	var out []proc
	for len(out) < maxAncestors {
		p, ok := readProc(pid)
		if !ok || p.ppid <= 1 {
			return out
		}
		parent, ok := readProc(p.ppid)
		if !ok {
			return out
		}
		out = append(out, parent)
		if last != nil && last(parent) {
			return out
		}
		pid = parent.pid
	}
	return out
}

// describe adds to p its executable and command line, where /proc shows
// them (a process of another user's hides its executable).
func describe(p proc) proc {
	at := "/proc/" + strconv.Itoa(p.pid)
	p.exe, _ = os.Readlink(at + "/exe")
	if b, err := os.ReadFile(at + "/cmdline"); err == nil {
		p.args = strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	}
	return p
}

// shellProgram reports whether a process is a shell or a program that
// only runs another (how hosts start hooks: bash -c, env, timeout), which
// a hook looks past to find its host.
func shellProgram(comm string) bool {
	switch comm {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox", "env", "timeout", "nice", "nohup", "stdbuf", "setsid":
		return true
	}
	return false
}

// plangitName reports whether a program's name or path names one of
// plangit's programs: plangit, plangit-hook, plangit-mcp, or another
// plangit-… or plangit.… (plangit.exe, an npm launcher's plangit.js).
func plangitName(name string) bool {
	name = filepath.Base(name)
	return name == "plangit" || strings.HasPrefix(name, "plangit-") || strings.HasPrefix(name, "plangit.")
}

// scriptOf is the file an interpreter runs, by its command line: the
// first argument after the program's that is not an option ("" for none).
// A script run by its #! line has its interpreter's command line with
// the script's path after the interpreter's own options.
func scriptOf(args []string) string {
	for _, a := range args[min(1, len(args)):] {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// hostProcess is the process that runs a hook: the first process of
// chain (its ancestors, nearest first) that is neither a shell nor
// plangit itself; self is this process's executable. Each process, in
// turn, is
//
//  1. a shell, or a program that only runs another (shellProgram) —
//     passed over: how a host starts a hook, and how the agent's shell
//     runs a command;
//  2. plangit: its executable is self, or its name is one of plangit's
//     (plangitName) — passed over: plangit-hook handing a large payload
//     to plangit hook, a wrapper or a version manager's shim named
//     plangit (run by its #! line, a script's process bears the script's
//     name, whatever its interpreter);
//  3. a script that runs plangit: the file its interpreter runs is named
//     as plangit's (scriptOf: an npm launcher, `node …/bin/plangit`) —
//     passed over;
//  4. anything else — the host, whose session the hook records.
//
// A process passed over exits with the hook; a record keyed on it would
// be gone a moment later, and the agent's shell, under the host, would
// find none. ok is false where the chain holds no host.
func hostProcess(chain []proc, self string) (proc, bool) {
	for _, p := range chain {
		if !passedOver(p, self) {
			return p, true
		}
	}
	return proc{}, false
}

// passedOver reports whether a hook looks past p for its host: cases 1
// to 3 of hostProcess.
func passedOver(p proc, self string) bool {
	switch {
	case shellProgram(p.comm): // 1
		return true
	case self != "" && p.exe == self, plangitName(p.comm): // 2
		return true
	case plangitName(scriptOf(p.args)): // 3
		return true
	}
	return false
}

// selfExe is this process's executable as /proc names it: what an
// ancestor's /proc/PID/exe reads when it is the same program.
func selfExe() string {
	exe, _ := os.Readlink("/proc/self/exe")
	return exe
}

// RecordShellSession notes, under codeAgent (a project's .code-agent),
// that the host process running this hook has session: see above. ok is
// false when there is no process tree to read, or the record cannot be
// written; then the CLI in the agent's shell does not find the session by
// itself.
func RecordShellSession(codeAgent, host, session string) bool {
	self := selfExe()
	return recordShell(codeAgent, host, session, hostChain(os.Getpid(), self), self, readProc)
}

// hostChain is the processes above pid up to the host (hostProcess), each
// described: all a hook needs to find its host.
func hostChain(pid int, self string) []proc {
	var chain []proc
	ancestors(pid, func(p proc) bool {
		p = describe(p)
		chain = append(chain, p)
		return !passedOver(p, self)
	})
	return chain
}

// recordShell records session for the host process in chain, when it
// still runs; running reads a process by its PID, to tell stale records.
func recordShell(codeAgent, host, session string, chain []proc, self string, running func(pid int) (proc, bool)) bool {
	p, ok := hostProcess(chain, self)
	if !ok || session == "" || strings.ContainsAny(session, "\n ") {
		return false
	}
	if now, ok := running(p.pid); !ok || now.start != p.start {
		return false // gone, or another process under its PID: never recorded
	}
	dir := filepath.Join(codeAgent, hostsDir, host)
	path := filepath.Join(dir, strconv.Itoa(p.pid))
	line := p.start + " " + session + "\n"
	if b, err := os.ReadFile(path); err == nil && string(b) == line {
		return true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(line), 0o644); err != nil {
		return false
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false
	}
	forgetStale(dir, running)
	return true
}

// forgetStale removes the records of processes that are gone.
func forgetStale(dir string, running func(pid int) (proc, bool)) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, alive := running(pid)
		if _, ok := recordOf(dir, p); !alive || !ok {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// recordOf reads the record of process p in dir: its session, when the
// record is p's (the same start time).
func recordOf(dir string, p proc) (session string, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(p.pid)))
	if err != nil {
		return "", false
	}
	start, session, found := strings.Cut(strings.TrimSpace(string(b)), " ")
	if !found || start != p.start || session == "" {
		return "", false
	}
	return session, true
}

// ShellSession is the session the hooks recorded, under codeAgent, for
// the host process this process runs under (RecordShellSession); "" when
// none did.
func ShellSession(codeAgent, host string) string {
	return shellSession(codeAgent, host, ancestors(os.Getpid(), nil))
}

func shellSession(codeAgent, host string, chain []proc) string {
	dir := filepath.Join(codeAgent, hostsDir, host)
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	for _, p := range chain {
		if session, ok := recordOf(dir, p); ok {
			return session
		}
	}
	return ""
}

// ForgetShellSession removes the record of the host process running this
// hook, if it names session: the host's session ends.
func ForgetShellSession(codeAgent, host, session string) {
	self := selfExe()
	p, ok := hostProcess(hostChain(os.Getpid(), self), self)
	if !ok {
		return
	}
	dir := filepath.Join(codeAgent, hostsDir, host)
	if s, ok := recordOf(dir, p); ok && s == session {
		os.Remove(filepath.Join(dir, strconv.Itoa(p.pid)))
	}
}
