package master

import (
	"os"
	"path/filepath"
	"regexp"

	"brine/internal/value"
)

// grainTarget finds grain matching in a top file: G@ in a compound
// target, or `- match: grain` / grain_pcre.
var grainTarget = regexp.MustCompile(`G@|P@|match:\s*['"]?grain`)

// warnGrainPillar logs Salt's warning when a pillar top file targets by
// grain: minions report their own grains, so a minion can claim grains to
// receive pillar meant for others. Only the minion id is bound to a key.
func (m *Master) warnGrainPillar() {
	roots, _ := m.Opts.Get("pillar_roots")
	rm, ok := roots.(*value.Map)
	if !ok {
		return
	}
	rm.Range(func(_, v any) bool {
		l, ok := v.(*value.List)
		if !ok {
			return true
		}
		for _, d := range l.Items {
			dir, ok := d.(string)
			if !ok {
				continue
			}
			top := filepath.Join(dir, "top.sls")
			data, err := os.ReadFile(top)
			if err == nil && grainTarget.Match(data) {
				m.Log.Warn("pillar top file targets by grain: minions set their own grains, so any minion may claim them and receive that pillar; target sensitive pillar by minion id", "file", top)
			}
		}
		return true
	})
}
