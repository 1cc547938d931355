package states_test

import (
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"brine/internal/engine"
	"brine/internal/execmod"
	_ "brine/internal/modules"
	"brine/internal/statemod"
	"brine/internal/value"
)

// sysRun runs one state function with ctx (services attached by the
// test) and returns its result.
func sysRun(t *testing.T, ctx *execmod.Context, full string, args *value.Map, test bool) *value.Map {
	t.Helper()
	mod, fun, _ := strings.Cut(full, ".")
	name, _ := args.Get("name")
	low := value.MapOf("state", mod, "__id__", name, "name", name, "__sls__", "main", "__env__", "base", "fun", fun, "order", int64(10000))
	args.Range(func(k, v any) bool {
		if k != "name" {
			low.Set(k, v)
		}
		return true
	})
	ctx.Opts.Set("test", test)
	ctx.Test = test
	ret, err := engine.Run([]*value.Map{low}, engine.RunOptions{Test: test, Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}})
	if err != nil {
		t.Fatal(err)
	}
	_, v := ret.At(0)
	return v.(*value.Map)
}

// sysCase runs a state three times: in test mode (expecting result None
// and changes when the state will change something), for real (expecting
// the result and comment prefix given), then again (expecting no changes
// and result True).
type sysCase struct {
	fun        string
	args       *value.Map
	wantChange bool   // the first real run changes something
	comment    string // prefix of the real run's comment
}

func (sc sysCase) check(t *testing.T, ctx *execmod.Context) *value.Map {
	t.Helper()
	tr := sysRun(t, ctx, sc.fun, sc.args, true)
	if sc.wantChange {
		if r, _ := tr.Get("result"); r != nil {
			t.Errorf("%s test mode: result %v, want None: %s", sc.fun, r, value.Repr(tr))
		}
	} else if r, _ := tr.Get("result"); r != true {
		t.Errorf("%s test mode: result %v, want True: %s", sc.fun, r, value.Repr(tr))
	}
	ret := sysRun(t, ctx, sc.fun, sc.args, false)
	if r, _ := ret.Get("result"); r != true {
		t.Errorf("%s: result %v: %s", sc.fun, r, value.Repr(ret))
	}
	ch, _ := ret.Get("changes")
	if got := ch.(*value.Map).Len() > 0; got != sc.wantChange {
		t.Errorf("%s: changes %s, want changes=%v", sc.fun, value.Repr(ch), sc.wantChange)
	}
	if c, _ := ret.Get("comment"); !strings.HasPrefix(value.Str(c), sc.comment) {
		t.Errorf("%s: comment %q, want prefix %q", sc.fun, value.Str(c), sc.comment)
	}
	again := sysRun(t, ctx, sc.fun, sc.args, false)
	ch, _ = again.Get("changes")
	if r, _ := again.Get("result"); r != true || ch.(*value.Map).Len() > 0 {
		t.Errorf("%s second run not idempotent: %s", sc.fun, value.Repr(again))
	}
	return ret
}

func str(m *value.Map, k string) string {
	v, _ := m.Get(k)
	return value.Str(v)
}

func fileOwner(st os.FileInfo) string {
	if st == nil {
		return ""
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	u, err := user.LookupId(strconv.Itoa(int(sys.Uid)))
	if err != nil {
		return strconv.Itoa(int(sys.Uid))
	}
	return u.Username
}
