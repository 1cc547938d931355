package modules

import (
	"strings"
	"testing"

	"brine/internal/execmod"
	_ "brine/internal/fleet/returners" // their catalogs
	_ "brine/internal/fleet/runners"
	"brine/internal/value"
)

func TestSysRunnersAndReturners(t *testing.T) {
	ctx := testContext()
	call := func(fun string, args ...any) string {
		t.Helper()
		v, err := ctx.Call(fun, args, value.NewMap(0))
		if err != nil {
			t.Fatalf("%s: %v", fun, err)
		}
		return value.ToJSON(v, value.JSONOptions{Indent: -1})
	}
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		// As Salt answers for the runners and returners both have.
		{"sys.list_runners", []any{"j*"}, `["jobs"]`},
		{"sys.list_runners", []any{"jobs", "nope"}, `["jobs"]`},
		{"sys.list_runner_functions", []any{"manage.u*"}, `["manage.up"]`},
		{"sys.list_returners", []any{"sys*"}, `["syslog"]`},
		{"sys.list_returner_functions", []any{"syslog"}, `["syslog.returner"]`},
		{"sys.list_returner_functions", []any{"sysl*"}, `["syslog.returner"]`},
		{"sys.returner_doc", []any{"sys*"}, `{}`},
		{"sys.returner_doc", []any{"syslog"}, `{"syslog.returner": "Send each return as JSON to the local syslog (syslog.level, syslog.facility, syslog.tag, syslog.options)."}`},
		{"sys.runner_doc", []any{"nope"}, `{}`},
	} {
		if got := call(tc.fun, tc.args...); got != tc.want {
			t.Errorf("%s %v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	// Every runner function is listed under its module, documented.
	mods := call("sys.list_runners")
	for _, m := range []string{`"jobs"`, `"manage"`, `"state"`} {
		if !strings.Contains(mods, m) {
			t.Errorf("sys.list_runners %s lacks %s", mods, m)
		}
	}
	fns, _ := ctx.Call("sys.list_runner_functions", []any{"jobs"}, value.NewMap(0))
	docs, _ := ctx.Call("sys.runner_doc", []any{"jobs"}, value.NewMap(0))
	l := fns.(*value.List)
	if l.Len() == 0 || docs.(*value.Map).Len() != l.Len() {
		t.Fatalf("jobs functions %s, docs %s", value.Repr(fns), value.Repr(docs))
	}
	for _, f := range l.Items {
		if d, _ := docs.(*value.Map).Get(f); !strings.HasPrefix(value.Str(f), "jobs.") || value.Str(d) == "" {
			t.Errorf("%s: doc %q", f, d)
		}
	}
	var _ execmod.Func = sysCatalogDoc("runner", true)
}
