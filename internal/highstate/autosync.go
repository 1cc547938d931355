package highstate

import (
	"brine/internal/pyext"
	"brine/internal/value"
)

// autoSync is Salt's load_dynamic, run after the top file is matched: the
// custom modules of the matched environments are synced and loaded, and
// when custom grains came in, the grains are collected again and the
// pillar compiled again with them.
func (r *Run) autoSync(matches *value.Map) error {
	grainsChanged, err := pyext.AutoSync(r.Ctx, envNames(matches))
	if err != nil || !grainsChanged {
		return err
	}
	r.recompilePillar()
	return pyext.RefreshData(r.Ctx)
}

// envNames returns the saltenvs of top file matches, in order (what a
// highstate syncs custom modules for).
func envNames(matches *value.Map) []string {
	var out []string
	matches.Range(func(k, _ any) bool {
		if s, ok := k.(string); ok {
			out = append(out, s)
		}
		return true
	})
	return out
}
