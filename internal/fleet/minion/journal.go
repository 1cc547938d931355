package minion

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"brine/internal/fleet/proto"
)

// Files of the job journal under the minion's cachedir.
const (
	journalFile = "minion_jobs"    // one line per event: "<jid> taken|done"
	pendingDir  = "minion_returns" // <jid>.json: returns not yet stored
)

// journal remembers, across restarts, the jobs a minion took and the
// returns the master has not acknowledged yet, so that a job is run at
// most once even when the minion restarts mid-job or before its return
// got through. Jobs older than the catch-up window are refused anyway,
// so entries older than twice the window are dropped. With no cachedir
// the journal lives in memory only.
//
// A job is recorded as taken before it runs; when its return is stored
// (or refused for good) it is recorded as done and its pending return
// (written when the first delivery failed) removed. After a restart a job taken but neither done nor pending was
// interrupted: it is not run again (see Minion.recover).
type journal struct {
	dir    string // "" keeps everything in memory
	window time.Duration

	mu    sync.Mutex
	lines int              // lines in the file, for compaction
	taken map[string]bool  // jid -> done
	now   func() time.Time // for tests
	// unfinished are the jobs the previous run took and did not finish,
	// as read when the journal was opened: a job this run takes before
	// Minion.recover looks is not among them.
	unfinished []string
}

// openJournal reads (and compacts) the journal under cachedir.
func openJournal(cachedir string, window time.Duration) (*journal, error) {
	j := &journal{window: window, taken: map[string]bool{}, now: time.Now}
	if cachedir == "" {
		return j, nil
	}
	j.dir = cachedir
	if err := os.MkdirAll(filepath.Join(cachedir, pendingDir), 0o700); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(cachedir, journalFile))
	switch {
	case err == nil:
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			jid, state, ok := strings.Cut(sc.Text(), " ")
			if !ok || !proto.ValidJID(jid) {
				continue // a torn last line after a crash
			}
			j.taken[jid] = j.taken[jid] || state == "done"
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading the job journal: %w", err)
		}
	case !os.IsNotExist(err):
		return nil, err
	}
	// Pending returns are taken jobs too, whatever the journal says.
	for _, jid := range j.pendingJIDs() {
		if _, ok := j.taken[jid]; !ok {
			j.taken[jid] = false
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.rewrite(); err != nil {
		return nil, err
	}
	for jid, done := range j.taken {
		if !done {
			j.unfinished = append(j.unfinished, jid)
		}
	}
	sort.Strings(j.unfinished)
	return j, nil
}

// expired reports whether jid is older than the journal keeps.
func (j *journal) expired(jid string) bool {
	t, err := proto.JIDTime(jid)
	return err != nil || j.now().Sub(t) > 2*j.window
}

// rewrite replaces the file with the live entries; j.mu is held.
func (j *journal) rewrite() error {
	for jid := range j.taken {
		if j.expired(jid) {
			delete(j.taken, jid)
		}
	}
	if j.dir == "" {
		j.lines = len(j.taken)
		return nil
	}
	jids := make([]string, 0, len(j.taken))
	for jid := range j.taken {
		jids = append(jids, jid)
	}
	sort.Strings(jids)
	var b strings.Builder
	for _, jid := range jids {
		state := "taken"
		if j.taken[jid] {
			state = "done"
		}
		fmt.Fprintf(&b, "%s %s\n", jid, state)
	}
	path := filepath.Join(j.dir, journalFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	j.lines = len(jids)
	return nil
}

// appendLine records one event; j.mu is held. The write goes straight to
// the file (no buffering), so it survives the process being killed. The
// file is not kept open: a process may run thousands of minions.
func (j *journal) appendLine(jid, state string) error {
	if j.dir == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(j.dir, journalFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s %s\n", jid, state)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	j.lines++
	if j.lines > 4096 && j.lines > 4*len(j.taken) {
		return j.rewrite()
	}
	return nil
}

// take records jid as taken and reports whether it was new.
func (j *journal) take(jid string) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, seen := j.taken[jid]; seen {
		return false, nil
	}
	j.taken[jid] = false
	if j.dir == "" && len(j.taken) > 4096 && len(j.taken) > 2*j.lines {
		_ = j.rewrite() // memory only: drop expired entries
	}
	return true, j.appendLine(jid, "taken")
}

// interrupted returns the jobs a previous run of the minion took and did
// not finish: taken when the journal was opened, still not done and
// without a pending return. Jobs this run took are never among them.
func (j *journal) interrupted() []string {
	pending := map[string]bool{}
	for _, jid := range j.pendingJIDs() {
		pending[jid] = true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, jid := range j.unfinished {
		if done, ok := j.taken[jid]; ok && !done && !pending[jid] {
			out = append(out, jid)
		}
	}
	return out
}

// setPending keeps an encoded return until the master stores it.
func (j *journal) setPending(jid string, data []byte) error {
	if j.dir == "" {
		return nil
	}
	path := filepath.Join(j.dir, pendingDir, jid+".json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// pendingJIDs lists the jobs whose returns are pending.
func (j *journal) pendingJIDs() []string {
	if j.dir == "" {
		return nil
	}
	ents, _ := os.ReadDir(filepath.Join(j.dir, pendingDir))
	var out []string
	for _, e := range ents {
		if jid, ok := strings.CutSuffix(e.Name(), ".json"); ok && proto.ValidJID(jid) {
			out = append(out, jid)
		}
	}
	sort.Strings(out)
	return out
}

// pending returns a pending encoded return.
func (j *journal) pending(jid string) ([]byte, error) {
	return os.ReadFile(filepath.Join(j.dir, pendingDir, jid+".json"))
}

// done records that jid's return is stored (or refused for good),
// removing its pending copy when kept says there is one.
func (j *journal) done(jid string, kept bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.taken[jid] = true
	err := j.appendLine(jid, "done")
	if j.dir != "" && kept {
		if rerr := os.Remove(filepath.Join(j.dir, pendingDir, jid+".json")); rerr != nil && !os.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	return err
}
