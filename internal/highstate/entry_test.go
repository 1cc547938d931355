package highstate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/config"
	"brine/internal/execmod"
	_ "brine/internal/states"
	"brine/internal/value"
)

// entryTree is a small state tree for the entry point tests.
var entryTree = map[string]string{
	"a.sls": `include:
  - b
one:
  test.succeed_with_changes:
    - require:
      - test: two
two:
  test.succeed_without_changes: []
three:
  test.fail_without_changes:
    - require_in:
      - test: one
quiet:
  test.succeed_without_changes: []
`,
	"b.sls": `bfile:
  test.nop:
    - name: dup
extend:
  two:
    test.succeed_without_changes:
      - name: extended
`,
	"c.sls": `shared:
  test.succeed_with_changes: []
twice:
  test.succeed_without_changes:
    - names: [t1, t2]
    - require:
      - test: shared
`,
}

func entryContext(t *testing.T) *execmod.Context {
	t.Helper()
	dir := t.TempDir()
	states := filepath.Join(dir, "states")
	if err := os.MkdirAll(states, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range entryTree {
		if err := os.WriteFile(filepath.Join(states, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := config.MinionDefaults()
	opts.Set("id", "minion")
	opts.Set("renderer", "yaml")
	opts.Set("file_roots", value.MapOf("base", value.NewList(states)))
	opts.Set("cachedir", filepath.Join(dir, "cache"))
	opts.Set("conf_file", filepath.Join(dir, "minion"))
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = value.MapOf("id", "minion")
	ctx.Pillar = value.NewMap(0)
	return ctx
}

// summary is "tag=result" for each state of a running dict, in order.
func summary(ret any) string {
	m, ok := ret.(*value.Map)
	if !ok {
		return value.Repr(ret)
	}
	var parts []string
	m.Range(func(k, v any) bool {
		if _, ok := v.(*value.Map); !ok {
			parts = append(parts, value.Str(k)+"="+value.Repr(v))
			return true
		}
		parts = append(parts, value.Str(k)+"="+value.Repr(get(v, "result")))
		return true
	})
	return strings.Join(parts, " ")
}

func kw(pairs ...any) *value.Map { return value.MapOf(pairs...) }

// entryGrains are the state_runs_disabled grains of some entry tests.
var entryGrains = map[string]*value.List{
	"sls disabled":                           value.NewList("c"),
	"sls disabled pattern":                   value.NewList("a.*"),
	"sls comma mods not split for the check": value.NewList("c"),
	"highstate disabled":                     value.NewList("highstate"),
	"state function disabled":                value.NewList("test.succeed_with_*"),
}

func TestEntryPoints(t *testing.T) {
	tests := []struct {
		name    string
		fun     string
		args    []any
		kwargs  *value.Map
		want    string // summary of the return
		retcode int
		err     string
	}{
		{"sls_id with requisites", "state.sls_id", []any{"one", "a"}, kw(),
			"test_|-two_|-two_|-succeed_without_changes=True test_|-three_|-three_|-fail_without_changes=False test_|-one_|-one_|-succeed_with_changes=False", 2, ""},
		{"sls_id alone", "state.sls_id", []any{"quiet", "a"}, kw(),
			"test_|-quiet_|-quiet_|-succeed_without_changes=True", 0, ""},
		{"sls_id ignores extend", "state.sls_id", []any{"two", "a,b"}, kw(),
			"test_|-two_|-two_|-succeed_without_changes=True", 0, ""},
		{"sls_id list mods", "state.sls_id", []any{"bfile", value.NewList("b")}, kw(),
			"test_|-bfile_|-dup_|-nop=True", 0, ""},
		{"sls_id test mode", "state.sls_id", []any{"quiet", "a"}, kw("test", true),
			"test_|-quiet_|-quiet_|-succeed_without_changes=True", 0, ""},
		{"sls_id shared requisites", "state.sls_id", []any{"twice", "c"}, kw(),
			"test_|-shared_|-shared_|-succeed_with_changes=True test_|-twice_|-t1_|-succeed_without_changes=True test_|-twice_|-t2_|-succeed_without_changes=False", 2, ""},
		{"sls_id no match", "state.sls_id", []any{"nope", "a,b"}, kw(), "", 2,
			"No matches for ID 'nope' found in SLS 'a,b' within saltenv 'base'"},
		{"sls_id missing sls", "state.sls_id", []any{"x", "zz"}, kw(),
			"[\"No matching sls found for 'zz' in env 'base'\"]", 1, ""},
		// requisite_in runs before exclude: one keeps a require on the
		// excluded three, which is then not found.
		{"sls exclude id list", "state.sls", []any{"a"}, kw("exclude", value.NewList(value.MapOf("id", "three"))),
			"test_|-bfile_|-dup_|-nop=True test_|-one_|-one_|-succeed_with_changes=False test_|-two_|-extended_|-succeed_without_changes=True test_|-quiet_|-quiet_|-succeed_without_changes=True", 2, ""},
		{"sls exclude string", "state.sls", []any{"a,b"}, kw("exclude", "b, zz"),
			"test_|-two_|-two_|-succeed_without_changes=True test_|-three_|-three_|-fail_without_changes=False test_|-one_|-one_|-succeed_with_changes=False test_|-quiet_|-quiet_|-succeed_without_changes=True", 2, ""},
		{"sls terse", "state.sls", []any{"a"}, kw("terse", true),
			"test_|-three_|-three_|-fail_without_changes=False test_|-one_|-one_|-succeed_with_changes=False", 2, ""},
		{"sls TEST keyword", "state.sls", []any{"c"}, kw("TEST", "true"),
			"test_|-shared_|-shared_|-succeed_with_changes=None test_|-twice_|-t1_|-succeed_without_changes=True test_|-twice_|-t2_|-succeed_without_changes=True", 0, ""},
		{"apply list mods", "state.apply", []any{value.NewList("c")}, kw("test", true),
			"test_|-shared_|-shared_|-succeed_with_changes=None test_|-twice_|-t1_|-succeed_without_changes=True test_|-twice_|-t2_|-succeed_without_changes=True", 0, ""},
		{"apply too many args", "state.apply", []any{"c", true}, kw(), "", 0,
			"apply_() takes from 0 to 1 positional arguments but 2 were given"},
		{"highstate without top", "state.highstate", nil, kw(),
			"no_|-states_|-states_|-None=False", 2, ""},
		{"single ignores requisites", "state.single", []any{"test.succeed_without_changes", "x"}, kw("require", value.NewList(value.MapOf("test", "nothere"))),
			"test_|-x_|-x_|-succeed_without_changes=True", 0, ""},
		{"single bad function", "state.single", []any{"nodot", "x"}, kw(), "'Invalid function passed'", 1, ""},
		{"single unknown state", "state.single", []any{"test.nosuch", "x"}, kw(),
			"[\"Specified state 'test.nosuch' was not found\"]", 1, ""},
		{"single missing parameter", "state.single", []any{"test.configurable_test_state", "x"}, kw(),
			"test_|-x_|-x_|-configurable_test_state=True", 0, ""},
		{"single failure", "state.single", []any{"test.fail_without_changes", "x"}, kw(),
			"test_|-x_|-x_|-fail_without_changes=False", 2, ""},
		{"sls disabled", "state.sls", []any{"c"}, kw(), `['The state file "c" is currently disabled, to re-enable, run state.enable c.']`, 1, ""},
		{"sls disabled pattern", "state.sls", []any{value.NewList("a.x", "c")}, kw(),
			`['The state file "a.x" is currently disabled by "a.*", to re-enable, run state.enable a.*.']`, 1, ""},
		{"sls comma mods not split for the check", "state.sls", []any{"c, c"}, kw("test", true),
			"test_|-shared_|-shared_|-succeed_with_changes=None test_|-twice_|-t1_|-succeed_without_changes=True test_|-twice_|-t2_|-succeed_without_changes=True", 0, ""},
		{"highstate disabled", "state.highstate", nil, kw(), "name='Salt highstate run is disabled. To re-enable, run state.enable highstate' result='False' comment='Disabled'", 0, ""},
		// The disabled chunk leaves the chunk list: its requirers do not
		// find it.
		{"state function disabled", "state.sls", []any{"c"}, kw(),
			"test_|-shared_|-shared_|-succeed_with_changes=False test_|-twice_|-t1_|-succeed_without_changes=False test_|-twice_|-t2_|-succeed_without_changes=False", 2, ""},
		{"high", "state.high", []any{value.MapOf("x", value.MapOf("test", value.NewList("fail_without_changes")))}, kw(),
			"test_|-x_|-x_|-fail_without_changes=False", 2, ""},
		{"high short form refused", "state.high", []any{value.MapOf("y", "test.nop")}, kw(),
			`['The type y in test.nop is not formatted as a dictionary']`, 1, ""},
		{"template_str", "state.template_str", []any{"z: test.succeed_without_changes\nw:\n  test.nop:\n    - name: hi\n"}, kw(),
			"test_|-w_|-hi_|-nop=True test_|-z_|-z_|-succeed_without_changes=True", 0, ""},
		{"template_str empty", "state.template_str", []any{""}, kw(), "", 2, ""},
		{"template_str include", "state.template_str", []any{"include: [a]\n"}, kw(),
			`["The 'include' declaration found on '<template-str>' is invalid when rendering single templates"]`, 1, ""},
		{"template_str two of a kind", "state.template_str", []any{"w:\n  test.nop: []\n  test.succeed_with_changes: []\n"}, kw(),
			`["ID 'w' in template '<template-str>' contains multiple state declarations of the same type"]`, 1, ""},
		{"template_str trailing colon", "state.template_str", []any{"w:\n  test.nop:\n"}, kw(),
			`["ID 'w' in template <template-str> contains a short declaration (test.nop) with a trailing colon. When not passing any arguments to a state, the colon must be omitted."]`, 1, ""},
		{"sls_exists", "state.sls_exists", []any{"a"}, kw(), "True", 0, ""},
		{"sls_exists missing", "state.sls_exists", []any{"zz"}, kw(), "False", 1, ""},
		{"id_exists", "state.id_exists", []any{"one,two", "a"}, kw(), "True", 0, ""},
		{"id_exists missing id", "state.id_exists", []any{value.NewList("one", "nope"), "a"}, kw(), "False", 0, ""},
		{"id_exists missing sls", "state.id_exists", []any{"one", "zz"}, kw(), "", 0, "string indices must be integers"},
		{"running", "state.running", nil, kw(), "[]", 0, ""},
		{"list_disabled", "state.list_disabled", nil, kw(), "[]", 0, ""},
		{"single umask", "state.single", []any{"test.nop", "x"}, kw("umask", "9z"),
			"['Invalid umask: 9z']", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := entryContext(t)
			if g, ok := entryGrains[tt.name]; ok {
				ctx.Grains.Set("state_runs_disabled", g)
			}
			ret, err := ctx.Call(tt.fun, tt.args, tt.kwargs)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(ret); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if tt.name == "sls_id shared requisites" {
				// Each matching chunk runs with a fresh running dict but
				// Salt never clears State.active between them: the second
				// sees its requisite as active and reports a cycle.
				c := get(get(ret, "test_|-twice_|-t2_|-succeed_without_changes"), "comment")
				if c != "Recursive requisite found" {
					t.Errorf("t2 comment = %v", c)
				}
			}
			if ctx.Retcode() != tt.retcode {
				t.Errorf("retcode = %d, want %d", ctx.Retcode(), tt.retcode)
			}
		})
	}
}

func TestStateRequest(t *testing.T) {
	ctx := entryContext(t)
	steps := []struct {
		fun  string
		args []any
		want string
	}{
		{"state.check_request", nil, "{}"},
		{"state.request", []any{"c"}, "test_|-shared_|-shared_|-succeed_with_changes=None test_|-twice_|-t1_|-succeed_without_changes=True test_|-twice_|-t2_|-succeed_without_changes=True"},
		{"state.clear_request", []any{"other"}, "False"},
		{"state.run_request", nil, "test_|-shared_|-shared_|-succeed_with_changes=True test_|-twice_|-t1_|-succeed_without_changes=True test_|-twice_|-t2_|-succeed_without_changes=True"},
		{"state.check_request", nil, "{}"},
		{"state.run_request", nil, ""},
		{"state.clear_request", nil, "True"},
	}
	for _, st := range steps {
		ret, err := ctx.Call(st.fun, st.args, kw())
		if err != nil {
			t.Fatalf("%s: %v", st.fun, err)
		}
		got := summary(ret)
		if _, ok := ret.(*value.Map); !ok {
			got = value.Repr(ret)
		} else if ret.(*value.Map).Len() == 0 {
			got = "{}"
			if st.want == "" {
				got = ""
			}
		}
		if got != st.want {
			t.Errorf("%s: got %s, want %s", st.fun, got, st.want)
		}
	}
}

func TestDisableEnable(t *testing.T) {
	ctx := entryContext(t)
	steps := []struct {
		fun  string
		args []any
		want string
	}{
		{"state.disable", []any{"c, a"}, `{'res': True, 'msg': 'Info: c state disabled.\nInfo: a state disabled.'}`},
		{"state.disable", []any{value.NewList("c")}, `{'res': True, 'msg': 'Info: c state already disabled.'}`},
		{"state.list_disabled", nil, `['c', 'a']`},
		{"state.sls", []any{"c"}, `['The state file "c" is currently disabled, to re-enable, run state.enable c.']`},
		{"state.enable", []any{"c,zz"}, `{'res': True, 'msg': 'Info: c state enabled.\nInfo: zz state already enabled.'}`},
		{"state.list_disabled", nil, `['a']`},
	}
	for _, st := range steps {
		ret, err := ctx.Call(st.fun, st.args, kw())
		if err != nil {
			t.Fatalf("%s: %v", st.fun, err)
		}
		if got := value.Repr(ret); got != st.want {
			t.Errorf("%s: got %s, want %s", st.fun, got, st.want)
		}
	}
}

func TestStateLow(t *testing.T) {
	ctx := entryContext(t)
	ret, err := ctx.Call("state.low", []any{value.MapOf("state", "test", "fun", "fail_without_changes", "name", "n", "__id__", "i",
		"require", value.NewList("missing"))}, kw())
	if err != nil {
		t.Fatal(err)
	}
	m := ret.(*value.Map)
	if get(m, "result") != false || get(m, "__id__") != "i" || get(m, "__run_num__") != int64(0) {
		t.Errorf("state.low = %s", value.Repr(m))
	}
	// Salt's inverted check: a bare result never passes check_result.
	if ctx.Retcode() != 0 {
		t.Errorf("retcode = %d, want 0", ctx.Retcode())
	}
}

func TestIsTrue(t *testing.T) {
	tests := []struct {
		in   any
		want bool
	}{
		{true, true}, {false, false}, {nil, false}, {int64(0), false}, {int64(2), true}, {int64(-1), false},
		{"true", true}, {"True", true}, {"yes", false}, {"1", true}, {"0", false}, {" 3 ", true}, {"0.5", true},
		{"-1", false}, {"", false}, {value.NewList(), false}, {value.NewList(int64(1)), true}, {1.5, true},
	}
	for _, tt := range tests {
		if got := isTrue(tt.in); got != tt.want {
			t.Errorf("isTrue(%s) = %v, want %v", value.Repr(tt.in), got, tt.want)
		}
	}
}

func TestLockSaltenv(t *testing.T) {
	for _, fun := range []string{"state.sls", "state.sls_id", "state.show_sls"} {
		ctx := entryContext(t)
		ctx.Opts.Set("lock_saltenv", true)
		args := []any{"c"}
		if fun == "state.sls_id" {
			args = []any{"shared", "c"}
		}
		_, err := ctx.Call(fun, args, kw("saltenv", "dev"))
		if err == nil || err.Error() != "lock_saltenv is enabled, saltenv cannot be changed" {
			t.Errorf("%s: err = %v", fun, err)
		}
	}
}

// fakePillar counts compiles and returns {"n": count}.
type fakePillar struct{ n int64 }

func (f *fakePillar) Compile(opts, grains *value.Map, minionID, saltenv, pillarenv string, override, previous *value.Map) (*value.Map, error) {
	f.n++
	return value.MapOf("n", f.n), nil
}

func TestReloadPillar(t *testing.T) {
	tests := []struct {
		fun    string
		reload bool
		want   any // pillar n seen by the second state
	}{
		{"succeed_with_changes", true, int64(1)},
		{"succeed_without_changes", true, int64(1)}, // Salt reloads it even without changes
		{"succeed_with_changes", false, nil},
	}
	for _, tt := range tests {
		ctx := entryContext(t)
		ctx.SetService("pillar", &fakePillar{})
		first := value.MapOf("test", value.NewList(tt.fun, value.MapOf("order", int64(1))))
		if tt.reload {
			l, _ := first.Get("test")
			l.(*value.List).Append(value.MapOf("reload_pillar", true))
		}
		high := value.MapOf(
			"first", first,
			"second", value.MapOf("test", value.NewList("configurable_test_state", value.MapOf("comment", "__slot__:salt:pillar.get(n)"), value.MapOf("order", int64(2)))),
		)
		ret, err := ctx.Call("state.high", []any{high}, kw())
		if err != nil {
			t.Fatal(err)
		}
		got := get(get(ret, "test_|-second_|-second_|-configurable_test_state"), "comment")
		want := tt.want
		if want == nil {
			want = ""
		}
		if !value.Equal(got, want) {
			t.Errorf("%s reload=%v: second saw %s, want %s", tt.fun, tt.reload, value.Repr(got), value.Repr(want))
		}
	}
}

func TestPauses(t *testing.T) {
	ctx := entryContext(t)
	steps := []struct {
		fun    string
		args   []any
		kwargs *value.Map
		want   string
	}{
		{"state.get_pauses", nil, kw(), "{}"},
		{"state.pause", []any{int64(123)}, kw("duration", "5"), "None"},
		{"state.soft_kill", []any{"125", "web"}, kw(), "None"},
		{"state.resume", []any{"123"}, kw(), "None"},
		{"state.pause", []any{"124"}, kw(), "None"},
		{"state.get_pauses", nil, kw(), "{}"}, // no job runs: files go
	}
	for _, st := range steps {
		ret, err := ctx.Call(st.fun, st.args, st.kwargs)
		if err != nil {
			t.Fatalf("%s: %v", st.fun, err)
		}
		if got := value.Repr(ret); got != st.want {
			t.Errorf("%s: got %s, want %s", st.fun, got, st.want)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(optString(ctx.Opts, "cachedir", ""), "state_pause"))
	if len(entries) != 0 {
		t.Errorf("pause files left: %v", entries)
	}
}

// overridePillar records the command-line pillar a compile got and
// decrypts "cipher-map" and "cipher-text" as a gpg renderer would.
type overridePillar struct{ got *value.Map }

func (f *overridePillar) Compile(opts, grains *value.Map, minionID, saltenv, pillarenv string, override, previous *value.Map) (*value.Map, error) {
	f.got = override
	if override == nil {
		return value.NewMap(0), nil
	}
	return override, nil
}

func (f *overridePillar) Decrypt(opts *value.Map, data any, renderer string, translateNewlines bool) (any, error) {
	if renderer != "gpg" || !translateNewlines {
		return nil, fmt.Errorf("'%s' is not a valid decryption renderer. Valid choices are: gpg", renderer)
	}
	switch data {
	case "cipher-map":
		return value.MapOf("secret", "plain"), nil
	case "cipher-text":
		return "secret: from yaml", nil
	}
	return data, nil
}

// TestPillarEncOverride: state.* with pillar= and pillar_enc= decrypt the
// command-line pillar (a decrypted string is read as YAML) before the
// pillar is compiled with it; an undecryptable one is dropped.
func TestPillarEncOverride(t *testing.T) {
	for _, tc := range []struct {
		pillar, enc string
		want        string
	}{
		{"cipher-map", "gpg", `{'secret': 'plain'}`},
		{"cipher-text", "gpg", `{'secret': 'from yaml'}`},
		{"cipher-map", "yaml", `None`},
	} {
		ctx := entryContext(t)
		svc := &overridePillar{}
		ctx.SetService("pillar", svc)
		if _, err := ctx.Call("state.show_sls", []any{"c"}, kw("pillar", tc.pillar, "pillar_enc", tc.enc)); err != nil {
			t.Fatalf("%s/%s: %v", tc.pillar, tc.enc, err)
		}
		got := "None"
		if svc.got != nil {
			got = value.Repr(svc.got)
		}
		if got != tc.want {
			t.Errorf("%s with pillar_enc=%s: the compile got %s, want %s", tc.pillar, tc.enc, got, tc.want)
		}
	}
}
