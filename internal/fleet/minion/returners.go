package minion

import (
	"log/slog"
	"strings"

	"brine/internal/fleet/proto"
	"brine/internal/fleet/returners"
	"brine/internal/schedule"
)

// runReturners runs, after a job's return went to the master, the
// returners the job names (`brine run --return NAME[,NAME]`) and those of
// the minion option return, each once, with the return as Salt's minion
// hands it to them (returners.Load, with the job's ret_config and
// ret_kwargs). A returner that fails is logged; the job's return is not
// affected.
func (m *Minion) runReturners(sess *Session, job proto.Job, ret proto.Return) {
	names := job.Ret
	if extra := returners.NamesOf(mustGet(m.o.Opts, "return")); len(extra) > 0 {
		names = strings.Join(append([]string{names}, extra...), ",")
	}
	if len(returners.SplitNames(names)) == 0 {
		return
	}
	spec := proto.ReturnSpec{}
	if job.Ret != "" {
		spec = job.ReturnSpec
	}
	load := returners.Load(ret, spec, job.User)
	cfg := returners.Config{Opts: m.o.Opts, Grains: sess.CurrentGrains(), Pillar: sess.CachedPillar()}
	for name, err := range returners.Default.RunAll(names, load, cfg) {
		m.log.Error("the return failed for job", "jid", job.JID, "returner", name, "err", err)
	}
}

// The scheduler hands the returns of scheduled jobs that name returners
// (the job's returner, schedule_returner) to the same registry.
func init() {
	schedule.SetReturners(func(c schedule.ReturnCall) {
		cfg := returners.Config{Opts: c.Opts, Grains: c.Grains, Pillar: c.Pillar}
		for name, err := range returners.Default.RunAll(strings.Join(c.Names, ","), c.Ret, cfg) {
			slog.Error("the return of a scheduled job failed", "returner", name, "err", err)
		}
	})
}
