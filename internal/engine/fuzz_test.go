package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"brine/internal/engine"
	"brine/internal/value"
)

// FuzzRun runs arbitrary chunk lists (requisites, names, orders and other
// keywords as a state tree could write them) through the engine with the
// test registry: odd input is a result or an error, never a panic. Keys
// that run commands on the machine are dropped.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		`[{"id": "a", "fun": "t.ok", "require": [{"t": "b"}]}, {"id": "b", "fun": "t.chg"}]`,
		`[{"id": "a", "fun": "t.ok", "watch": [{"t": "a"}]}, {"id": "b", "fun": "t.fail", "onfail": ["a"]}]`,
		`[{"id": "a", "fun": "t.chg", "prereq": [{"t": "b"}]}, {"id": "b", "fun": "t.ok", "prereq": [{"t": "a"}]}]`,
		`[{"id": "a", "fun": "t.ok", "listen": [{"t": "x"}], "retry": {"attempts": 2}}, {"id": "x", "fun": "nw.chg"}]`,
		`[{"id": "a", "fun": "t.need", "require_any": [{"t": "b"}, {"nope": "c"}], "order": "last"}]`,
		`[{"id": "a", "fun": "t.ok", "require": "b"}, {"id": 3, "fun": "t.ok", "onchanges": [null, 1, {}]}]`,
		`[{"id": "a", "fun": "t.ok", "failhard": true, "parallel": true}, {"id": "b", "fun": "t.failchg", "onchanges_any": [{"t": "a"}]}]`,
	} {
		f.Add(s, false)
	}
	funs := map[string]bool{"t.ok": true, "t.chg": true, "t.fail": true, "t.failchg": true, "nw.ok": true, "nw.chg": true, "t.need": true}
	drop := map[string]bool{"onlyif": true, "unless": true, "creates": true, "check_cmd": true}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, src string, test bool) {
		v, err := value.FromJSON([]byte(src))
		if err != nil {
			return
		}
		l, ok := v.(*value.List)
		if !ok || len(l.Items) > 20 {
			return
		}
		var chunks []*value.Map
		for i, it := range l.Items {
			m, ok := it.(*value.Map)
			if !ok {
				return
			}
			fun := value.Str(get(m, "fun"))
			if !funs[fun] {
				fun = "t.ok"
			}
			mod, fn, _ := strings.Cut(fun, ".")
			c := value.MapOf("state", mod, "__id__", get(m, "id"), "__sls__", "main", "__env__", "base",
				"name", get(m, "id"), "fun", fn, "order", int64(10000+i))
			m.Range(func(k, v any) bool {
				if ks, _ := k.(string); !drop[ks] && ks != "fun" && ks != "id" && ks != "state" {
					c.Set(k, v)
				}
				return true
			})
			chunks = append(chunks, c)
		}
		_, _ = engine.Run(chunks, engine.RunOptions{
			Test:     test,
			Registry: testRegistry(),
			Now:      func() time.Time { return now },
			Sleep:    func(context.Context, time.Duration) {},
		})
	})
}

func get(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}
