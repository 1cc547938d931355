package minion

import (
	"os"
	"path/filepath"
	"strings"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// procInMinionKey marks a proc file whose job runs in the minion process
// itself (multiprocessing: False, a job-control job, or a job waiting for
// a free slot): saltutil.signal_job then refuses to signal it. The
// modules package, which reads the files, strips the key; it keeps its
// own copy of the name, as neither package imports the other.
const procInMinionKey = "__brine_in_minion"

// procDir is Salt's proc directory: one file per running job, named by
// its jid, holding the job data and the pid running it (saltutil.running,
// find_job and signal_job read it). Salt writes msgpack; brine JSON.
func procDir(cachedir string) string { return filepath.Join(cachedir, "proc") }

// jobData is the job as Salt's minion receives it (its "load") plus the
// pid, as Salt writes it to the proc file: keyword arguments are packed
// into arg as a trailing mapping marked __kwarg__.
func jobData(job proto.Job, pid int) *value.Map {
	args := value.NewList(append([]any{}, job.Arg.List()...)...)
	if kw := job.Kwarg.Map(); kw.Len() > 0 {
		packed := kw.Copy()
		packed.Set("__kwarg__", true)
		args.Append(packed)
	}
	return value.MapOf(
		"arg", args,
		"fun", job.Fun,
		"jid", job.JID,
		"pid", int64(pid),
		"ret", "",
		"tgt", job.Tgt,
		"tgt_type", job.TgtType,
		"user", job.User,
	)
}

// writeProc records job as run by pid (inMinion: by the minion process
// itself). The file is written under a dot name and renamed, so that a
// reader never sees it half written. Without a cachedir nothing is kept.
func writeProc(cachedir string, job proto.Job, pid int, inMinion bool) error {
	if cachedir == "" || !proto.ValidJID(job.JID) {
		return nil
	}
	dir := procDir(cachedir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data := jobData(job, pid)
	if inMinion {
		data.Set(procInMinionKey, true)
	}
	path := filepath.Join(dir, job.JID)
	tmp := filepath.Join(dir, "."+job.JID+".tmp")
	if err := os.WriteFile(tmp, []byte(value.ToJSON(data, value.JSONOptions{Indent: -1})), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// removeProc forgets a job that ended.
func removeProc(cachedir, jid string) {
	if cachedir == "" || !proto.ValidJID(jid) {
		return
	}
	_ = os.Remove(filepath.Join(procDir(cachedir), jid))
}

// cleanProcs removes, as a minion starts, the proc files of jobs a
// previous run of the minion ran in its own process: those jobs are gone.
// Job processes of that run may still be running: their files stay.
func cleanProcs(cachedir string) {
	if cachedir == "" {
		return
	}
	dir := procDir(cachedir)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			_ = os.Remove(path) // a torn write
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		v, err := value.FromJSON(b)
		if m, ok := v.(*value.Map); err == nil && ok {
			if x, has := m.Get(procInMinionKey); has && value.Truthy(x) {
				_ = os.Remove(path)
			}
		}
	}
}
