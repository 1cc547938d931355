package highstate

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"brine/internal/engine"
	"brine/internal/value"
)

// masterEvents is what the run needs of the "event" service a minion
// connected to its master attaches (internal/modules' EventService).
type masterEvents interface {
	FireMaster(tag string, data any, preload *value.Map) bool
}

// eventOptions wires the engine to the job: its jid and minion id, the
// pause files of state.pause and state.soft_kill, and the events of
// fire_event and state_events.
func (r *Run) eventOptions(opts *engine.RunOptions) {
	if v, ok := r.kwargs.Get("__pub_jid"); ok && v != nil {
		opts.JID = value.Str(v)
	}
	opts.MinionID = optString(r.Opts, "id", "")
	opts.StateEvents = optBool(r.Opts, "state_events", false)
	if v, ok := r.kwargs.Get("state_events"); ok && v != nil {
		opts.StateEvents = value.Truthy(v)
	}
	if opts.JID != "" {
		jid := opts.JID
		opts.Pause = func(low *value.Map) string { return r.checkPause(jid, low) }
	}
	local := optBool(r.Opts, "local", false)
	opts.FireEvent = func(tag string, data *value.Map) {
		if local {
			slog.Debug(fmt.Sprintf("Local mode: state event %s not sent: %s", tag, value.ToJSON(data, value.JSONOptions{Indent: -1})))
			return
		}
		s, ok := r.Ctx.Service("event").(masterEvents)
		if !ok {
			slog.Debug(fmt.Sprintf("No master to send state event %s to", tag))
			return
		}
		slog.Debug(fmt.Sprintf("Sending state event %s", tag))
		s.FireMaster(tag, data, value.MapOf("jid", opts.JID))
	}
}

// pausePoll is how often a paused run reads its pause file again.
var pausePoll = time.Second

// checkPause is Salt's State.check_pause: while the pause file of the job
// (cachedir/state_pause/<jid>, written by state.pause and state.soft_kill)
// names the chunk's ID or __all__, the run waits, until the entry is
// removed (state.resume), its duration has passed, or it asks for a kill
// ("kill": the run stops before this chunk).
func (r *Run) checkPause(jid string, low *value.Map) string {
	path := filepath.Join(optString(r.Opts, "cachedir", ""), "state_pause", filepath.Base(jid))
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "run"
	}
	id := value.Str(lowValue(low, "__id__"))
	start := time.Now()
	for tries := 0; ; {
		raw, err := os.ReadFile(path)
		if err != nil {
			slog.Error(fmt.Sprintf("Failed to read in pause data for file located at: %s", path))
			return "run"
		}
		var data map[string]map[string]any
		if err := json.Unmarshal(raw, &data); err != nil {
			// a file being written: read again, a few times
			if tries > 10 {
				return "run"
			}
			tries++
			time.Sleep(pausePoll)
			continue
		}
		entry, ok := data[id]
		if !ok {
			if entry, ok = data["__all__"]; !ok {
				return "run"
			}
		}
		if d, ok := entry["duration"]; ok {
			if n, ok := d.(float64); ok && time.Since(start).Seconds() > n {
				return "run"
			}
		}
		if _, ok := entry["kill"]; ok {
			return "kill"
		}
		time.Sleep(pausePoll)
	}
}
