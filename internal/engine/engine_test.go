package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"brine/internal/engine"
	"brine/internal/statemod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// testRegistry has a "t" module: ok (no changes), chg (changes), fail,
// failchg, and a mod_watch that reports it fired; "nw" has no mod_watch.
func testRegistry() *statemod.Registry {
	r := statemod.NewRegistry()
	name := []statemod.Param{statemod.Req("name")}
	add := func(full string, res any, changes bool) {
		r.Register(&statemod.Function{Name: full, Params: name, Kwargs: true, Run: func(c *statemod.Call) (*value.Map, error) {
			ch := value.NewMap(0)
			if changes {
				ch.Set("x", "y")
			}
			result := res
			if c.Test && changes {
				result = nil
			}
			return value.MapOf("name", c.Get("name"), "changes", ch, "result", result, "comment", full), nil
		}})
	}
	add("t.ok", true, false)
	add("t.chg", true, true)
	add("t.fail", false, false)
	add("t.failchg", false, true)
	add("nw.ok", true, false)
	add("nw.chg", true, true)
	r.Register(&statemod.Function{Name: "t.mod_watch", Params: name, Kwargs: true, Run: func(c *statemod.Call) (*value.Map, error) {
		return value.MapOf("name", c.Get("name"), "changes", value.MapOf("fired", c.Str("sfun")), "result", true, "comment", "watch fired"), nil
	}})
	r.Register(&statemod.Function{Name: "t.need", Params: []statemod.Param{statemod.Req("name"), statemod.Req("thing")}, Run: func(c *statemod.Call) (*value.Map, error) {
		return statemod.Ret(c.Get("name"), true, ""), nil
	}})
	var n atomic.Int64
	r.Register(&statemod.Function{Name: "t.flaky", Params: name, Kwargs: true, Run: func(c *statemod.Call) (*value.Map, error) {
		ok := n.Add(1) >= 3
		return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", ok, "comment", fmt.Sprintf("try %d", n.Load())), nil
	}})
	r.Register(&statemod.Function{Name: "t.sleep", Params: name, Kwargs: true, Run: func(c *statemod.Call) (*value.Map, error) {
		time.Sleep(50 * time.Millisecond)
		return value.MapOf("name", c.Get("name"), "changes", value.MapOf("slept", true), "result", true, "comment", "slept"), nil
	}})
	return r
}

// lows parses a YAML list of chunks written as "id: mod.fun" followed by
// extra keys, e.g. {id: a, fun: t.ok, require: [{t: b}]}.
func lows(t *testing.T, src string) []*value.Map {
	t.Helper()
	v, err := yamlload.Load([]byte(src), "chunks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []*value.Map
	for i, it := range v.(*value.List).Items {
		m := it.(*value.Map)
		full := m.Copy()
		id, _ := m.Get("id")
		fun, _ := m.Get("fun")
		mod, f, _ := strings.Cut(fun.(string), ".")
		c := value.MapOf("state", mod, "__id__", id, "__sls__", "main", "__env__", "base")
		if n, ok := m.Get("name"); ok {
			c.Set("name", n)
		} else {
			c.Set("name", id)
		}
		full.Range(func(k, v any) bool {
			switch k {
			case "id", "fun", "name":
			default:
				c.Set(k, v)
			}
			return true
		})
		c.Set("fun", f)
		c.Set("order", int64(10000+i))
		out = append(out, c)
	}
	return out
}

func run(t *testing.T, src string, test bool) *value.Map {
	t.Helper()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ret, err := engine.Run(lows(t, src), engine.RunOptions{
		Test:     test,
		Registry: testRegistry(),
		Now:      func() time.Time { return now },
		Sleep:    func(context.Context, time.Duration) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ret
}

// summary renders the running dict as "id result run_num comment" lines in
// run order.
func summary(running *value.Map) string {
	lines := make([]string, running.Len())
	running.Range(func(k, v any) bool {
		m := v.(*value.Map)
		rn, _ := m.Get("__run_num__")
		res, _ := m.Get("result")
		cm, _ := m.Get("comment")
		id, _ := m.Get("__id__")
		n := int(rn.(int64))
		for n >= len(lines) {
			lines = append(lines, "")
		}
		lines[n] = fmt.Sprintf("%s %s %s", value.Str(id), value.Str(res), strings.ReplaceAll(value.Str(cm), "\n", "|"))
		return true
	})
	return strings.Join(lines, "\n")
}

func TestRequisites(t *testing.T) {
	tests := []struct {
		name, src, want string
		test            bool
	}{
		{"require ok", `
- {id: a, fun: t.ok, require: [{t: b}]}
- {id: b, fun: t.ok}`, "b True t.ok\na True t.ok", false},
		{"require failed", `
- {id: a, fun: t.fail}
- {id: b, fun: t.ok, require: [{t: a}]}`, "a False t.fail\nb False One or more requisite failed: main.a", false},
		{"require by id string", `
- {id: a, fun: t.ok}
- {id: b, fun: t.ok, require: [a]}`, "a True t.ok\nb True t.ok", false},
		{"require glob", `
- {id: web1, fun: t.ok}
- {id: web2, fun: t.fail}
- {id: b, fun: t.ok, require: [{t: 'web*'}]}`, "web1 True t.ok\nweb2 False t.fail\nb False One or more requisite failed: main.web2", false},
		{"require sls", `
- {id: a, fun: t.ok}
- {id: b, fun: t.ok, require: [{sls: main}]}`, "a True t.ok\nb False Recursive requisite found", false},
		{"require missing", `
- {id: a, fun: t.ok, require: [{t: nope}]}`, "a False The following requisites were not found:|                   require:|                       t: nope|", false},
		{"cycle", `
- {id: a, fun: t.ok, require: [{t: b}]}
- {id: b, fun: t.ok, require: [{t: a}]}`, "b False Recursive requisite found\na False One or more requisite failed: main.b", false},
		{"require_any", `
- {id: a, fun: t.fail}
- {id: b, fun: t.ok}
- {id: c, fun: t.ok, require_any: [{t: a}, {t: b}]}`, "a False t.fail\nb True t.ok\nc True t.ok", false},
		{"require_any all fail", `
- {id: a, fun: t.fail}
- {id: c, fun: t.ok, require_any: [{t: a}]}`, "a False t.fail\nc False One or more requisite failed: main.a", false},
		{"onchanges met", `
- {id: a, fun: t.chg}
- {id: b, fun: t.ok, onchanges: [{t: a}]}`, "a True t.chg\nb True t.ok", false},
		{"onchanges not met", `
- {id: a, fun: t.ok}
- {id: b, fun: t.ok, onchanges: [{t: a}]}`, "a True t.ok\nb True State was not run because none of the onchanges reqs changed", false},
		{"onchanges_any", `
- {id: a, fun: t.ok}
- {id: b, fun: t.chg}
- {id: c, fun: t.ok, onchanges_any: [{t: a}, {t: b}]}`, "a True t.ok\nb True t.chg\nc True t.ok", false},
		{"onfail runs", `
- {id: a, fun: t.fail}
- {id: b, fun: t.ok, onfail: [{t: a}]}`, "a False t.fail\nb True t.ok", false},
		{"onfail skipped", `
- {id: a, fun: t.ok}
- {id: b, fun: t.ok, onfail: [{t: a}]}`, "a True t.ok\nb True State was not run because onfail req did not change", false},
		{"onfail_all partial", `
- {id: a, fun: t.ok}
- {id: b, fun: t.fail}
- {id: c, fun: t.ok, onfail_all: [{t: a}, {t: b}]}`, "a True t.ok\nb False t.fail\nc True State was not run because onfail req did not change", false},
		{"onfail_any one", `
- {id: a, fun: t.ok}
- {id: b, fun: t.fail}
- {id: c, fun: t.ok, onfail_any: [{t: a}, {t: b}]}`, "a True t.ok\nb False t.fail\nc True t.ok", false},
		{"watch fires mod_watch", `
- {id: a, fun: t.chg}
- {id: b, fun: t.ok, watch: [{t: a}]}`, "a True t.chg\n\nb True watch fired", false},
		{"watch without changes", `
- {id: a, fun: t.ok}
- {id: b, fun: t.ok, watch: [{t: a}]}`, "a True t.ok\nb True t.ok", false},
		{"watch without mod_watch is require", `
- {id: a, fun: t.chg}
- {id: b, fun: nw.ok, watch: [{t: a}]}`, "a True t.chg\nb True nw.ok", false},
		{"watch failed", `
- {id: a, fun: t.fail}
- {id: b, fun: t.ok, watch: [{t: a}]}`, "a False t.fail\nb False One or more requisite failed: main.a", false},
		{"prereq runs when target would change", `
- {id: a, fun: t.ok, prereq: [{t: b}]}
- {id: b, fun: t.chg, prerequired: [{t: a}]}`, "a True t.ok\nb True t.chg", false},
		{"prereq skipped when target would not change", `
- {id: a, fun: t.ok, prereq: [{t: b}]}
- {id: b, fun: t.ok, prerequired: [{t: a}]}`, "a True No changes detected\nb True t.ok", false},
		{"test mode", `
- {id: a, fun: t.chg}
- {id: b, fun: t.ok, require: [{t: a}]}`, "a None t.chg\nb True t.ok", true},
		{"missing parameter", `
- {id: a, fun: t.need}`, "None False Missing parameter thing for state t.need|", false},
		{"unknown state", `
- {id: a, fun: t.nope}`, "None False State 't.nope' was not found in SLS 'main'|Reason: 't.nope' is not available.|", false},
		{"failhard per state", `
- {id: a, fun: t.fail, failhard: true}
- {id: b, fun: t.ok}`, "a False t.fail", false},
		{"retry until success", `
- {id: a, fun: t.flaky, retry: {attempts: 5, interval: 0}}`, "\n\na True Attempt 1: Returned a result of \"False\", with the following comment: \"try 1\"|Attempt 2: Returned a result of \"False\", with the following comment: \"try 2\"|try 3", false},
		{"parallel", `
- {id: a, fun: t.sleep, parallel: true}
- {id: b, fun: t.sleep, parallel: true}
- {id: c, fun: t.ok, require: [{t: a}]}`, "a True slept\nb True slept\nc True t.ok", false},
		{"listen", `
- {id: a, fun: t.chg}
- {id: b, fun: t.ok, listen: [{t: a}]}`, "a True t.chg\nb True t.ok\nlistener_b True watch fired", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summary(run(t, tt.src, tt.test))
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestRunningKeyOrder(t *testing.T) {
	ret := run(t, `
- {id: a, fun: t.fail}
- {id: b, fun: t.ok, require: [{t: a}]}
- {id: c, fun: t.ok, onlyif: []}`, false)
	var orders []string
	ret.Range(func(k, v any) bool {
		var keys []string
		for _, kk := range v.(*value.Map).Keys() {
			keys = append(keys, kk.(string))
		}
		orders = append(orders, strings.Join(keys, ","))
		return true
	})
	want := []string{
		"name,changes,result,comment,__sls__,__run_num__,start_time,duration,__id__",
		"changes,result,duration,start_time,comment,__run_num__,__sls__,__id__,name",
	}
	for i, w := range want {
		if orders[i] != w {
			t.Errorf("entry %d keys = %s, want %s", i, orders[i], w)
		}
	}
	if tag := "t_|-a_|-a_|-fail"; !ret.Has(tag) {
		t.Errorf("missing tag %s", tag)
	}
}

func TestCallerChunksUnchanged(t *testing.T) {
	chunks := lows(t, `
- {id: a, fun: nw.chg}
- {id: b, fun: nw.ok, watch: [{t: a}]}`)
	before := value.Repr(chunks[1])
	if _, err := engine.Run(chunks, engine.RunOptions{Registry: testRegistry()}); err != nil {
		t.Fatal(err)
	}
	if after := value.Repr(chunks[1]); after != before {
		t.Errorf("chunk changed:\n%s\n%s", before, after)
	}
}

func TestRetcode(t *testing.T) {
	ok := run(t, `- {id: a, fun: t.ok}`, false)
	bad := run(t, `- {id: a, fun: t.fail}`, false)
	if rc := engine.StateRetcode(ok, nil); rc != 0 {
		t.Errorf("ok retcode %d", rc)
	}
	if rc := engine.StateRetcode(bad, nil); rc != engine.ExStateFailure {
		t.Errorf("fail retcode %d", rc)
	}
	if rc := engine.StateRetcode(value.NewList("err"), nil); rc != engine.ExStateCompilerError {
		t.Errorf("list retcode %d", rc)
	}
	if engine.ExitCode(2, false) != 1 || engine.ExitCode(2, true) != 2 || engine.ExitCode(0, false) != 0 {
		t.Error("ExitCode")
	}
	if engine.StateRetcode(value.NewMap(0), nil) != engine.ExStateFailure {
		t.Error("empty running dict should fail")
	}
}

func BenchmarkNop1000(b *testing.B) {
	r := statemod.NewRegistry()
	r.Register(&statemod.Function{Name: "test.nop", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Run: func(c *statemod.Call) (*value.Map, error) { return statemod.Ret(c.Get("name"), true, "Success!"), nil }})
	chunks := make([]*value.Map, 1000)
	for i := range chunks {
		id := fmt.Sprintf("nop%d", i)
		chunks[i] = value.MapOf("state", "test", "__id__", id, "name", id, "__sls__", "main", "__env__", "base", "fun", "nop", "order", int64(10000+i))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.Run(chunks, engine.RunOptions{Registry: r}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRequireChain1000(b *testing.B) {
	r := statemod.NewRegistry()
	r.Register(&statemod.Function{Name: "test.nop", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Run: func(c *statemod.Call) (*value.Map, error) { return statemod.Ret(c.Get("name"), true, "Success!"), nil }})
	chunks := make([]*value.Map, 1000)
	for i := range chunks {
		id := fmt.Sprintf("nop%d", i)
		chunks[i] = value.MapOf("state", "test", "__id__", id, "name", id, "__sls__", "main", "__env__", "base", "fun", "nop", "order", int64(10000+i))
		if i > 0 {
			chunks[i].Set("require", value.NewList(value.MapOf("test", fmt.Sprintf("nop%d", i-1))))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.Run(chunks, engine.RunOptions{Registry: r}); err != nil {
			b.Fatal(err)
		}
	}
}
