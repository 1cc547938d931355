package minion

// beacons.go runs the minion's beacons (Salt's minion setup_beacons and
// process_beacons): every loop_interval, the options' beacons (kept in
// internal/beacons' Store, which beacons.* change) merged with the
// master's and the pillar's go through the beacon engine, and each
// reading is sent to the master as the event salt/beacon/<id>/<name>/...
// with the reading as its data.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"brine/internal/beacons"
	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/fleet/events"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// beaconRunners holds each minion's beacon loop (started once per
// minion, carried over reconnections, which only change its session).
var beaconRunners sync.Map // *Minion -> *beaconRunner

type beaconRunner struct {
	m      *Minion
	sess   atomic.Pointer[Session]
	store  beacons.Store
	engine *beacons.Engine
}

// startBeacons starts the minion's beacons on its first connection and
// hands the loop the new session on the next ones. It stops with ctx.
func (m *Minion) startBeacons(ctx context.Context, sess *Session) {
	if m.cachedir() == "" {
		return
	}
	b := &beaconRunner{m: m, store: beacons.Store{Opts: m.o.Opts}}
	v, loaded := beaconRunners.LoadOrStore(m, b)
	b = v.(*beaconRunner)
	b.sess.Store(sess)
	if loaded {
		return
	}
	initial := value.NewMap(0)
	if bm, ok := mustGet(m.o.Opts, "beacons").(*value.Map); ok {
		initial = value.DeepCopy(bm).(*value.Map)
	} else if mustGet(m.o.Opts, "beacons") != nil {
		m.log.Error("Beacons must be of type dict.")
	}
	if err := b.store.Init(initial); err != nil {
		m.log.Error("starting the beacons", "err", err)
		beaconRunners.Delete(m)
		return
	}
	loop := optFloat(m.o.Opts, "loop_interval", 1)
	if loop <= 0 {
		loop = 1
	}
	b.engine = &beacons.Engine{
		ID: m.id, LoopInterval: loop, Opts: m.o.Opts, Log: m.log,
		Running: b.runningFuns, Call: b.call,
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer beaconRunners.Delete(m)
		defer b.store.Stop()
		defer b.engine.Close()
		t := time.NewTicker(time.Duration(loop * float64(time.Second)))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				b.tick()
			}
		}
	}()
}

// tick runs the beacons once and sends their events.
func (b *beaconRunner) tick() {
	sess := b.sess.Load()
	if sess == nil {
		return
	}
	cur, err := b.store.Current()
	if err != nil {
		b.m.log.Error("reading the beacons", "err", err)
		return
	}
	evs, once := b.engine.Process(beacons.Merged(cur, sess.CachedPillar()), sess.CurrentGrains())
	if len(once) > 0 {
		_, err := b.store.Update(func(bm *value.Map) {
			for _, name := range once {
				if bm.Has(name) {
					beacons.SetEnabled(bm, name, false)
				}
			}
		})
		if err != nil {
			b.m.log.Warn("disabling a run_once beacon", "err", err)
		}
	}
	if len(evs) == 0 {
		return
	}
	c, err := sess.conn()
	if err != nil || c == nil {
		return
	}
	b.m.log.Debug("Firing beacons to master", "events", len(evs))
	for _, ev := range evs {
		me := events.MinionEvent{Data: proto.ValueJSON{V: ev.Data}, Listed: true}
		if err := events.FireMaster(c.NC, b.m.id, ev.Tag, me); err != nil {
			b.m.log.Warn("sending a beacon event", "tag", ev.Tag, "err", err)
		}
	}
}

// runningFuns lists the functions of the jobs in the proc directory.
func (b *beaconRunner) runningFuns() []string {
	dir := procDir(b.m.cachedir())
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		v, err := value.FromJSON(data)
		if m, ok := v.(*value.Map); err == nil && ok {
			if f, ok := m.Get("fun"); ok {
				out = append(out, value.Str(f))
			}
		}
	}
	return out
}

// call runs an execution function for a beacon (Salt's __salt__).
func (b *beaconRunner) call(fun string, args []any, kwargs *value.Map) (any, error) {
	sess := b.sess.Load()
	ctx := execmod.NewContext()
	ctx.Opts = b.m.o.Opts.Copy()
	if sess != nil {
		ctx.Grains = sess.CurrentGrains()
		ctx.Pillar = sess.CachedPillar()
	}
	ctx.SetService("config", config.FromMap(ctx.Opts))
	defer endRun(ctx)
	if err := execmod.RunSetups(ctx); err != nil {
		return nil, err
	}
	fn, ok := ctx.Lookup(fun)
	if !ok {
		return nil, fmt.Errorf("'%s'", fun) // Salt's KeyError
	}
	return safeCall(fn, ctx, args, kwargs)
}
