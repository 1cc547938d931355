package highstate

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/config"
	"brine/internal/execmod"
	_ "brine/internal/modules"
	"brine/internal/pillar"
	"brine/internal/render"
	_ "brine/internal/renderers"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// The conformance cases recorded from Salt (see ../../../shared/conformance)
// run here in-process: a fast Go-level check of the compiler. Cases whose
// files need Jinja are skipped while no jinja renderer is registered.
var (
	casesDir     = flag.String("cases", "../../../shared/conformance/cases", "conformance cases directory")
	strictRender = flag.Bool("strictrender", false, "fail on render-group mismatches too (they mostly test the renderers)")
)

var defaultGrains = `{"os": "Debian", "os_family": "Debian", "osfinger": "Debian-12", "osfullname": "Debian GNU/Linux",
"osmajorrelease": 12, "osrelease": "12", "osrelease_info": [12], "oscodename": "bookworm", "osarch": "amd64",
"cpuarch": "x86_64", "kernel": "Linux", "init": "systemd", "virtual": "physical", "num_cpus": 2, "mem_total": 4096,
"host": "minion", "nodename": "minion", "localhost": "minion", "domain": "example.test", "fqdn": "minion.example.test",
"ipv4": ["127.0.0.1", "192.0.2.10"], "roles": []}`

type caseSpec struct {
	dir      string
	argv     []string
	id       string
	grains   *value.Map
	config   *value.Map
	expected *value.Map
	match    []any
}

func loadCase(t *testing.T, dir string) *caseSpec {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	cv, err := value.FromJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	cm := cv.(*value.Map)
	c := &caseSpec{dir: dir, id: "minion"}
	if v, ok := cm.Get("argv"); ok {
		for _, a := range v.(*value.List).Items {
			c.argv = append(c.argv, value.Str(a))
		}
	}
	if v, ok := cm.Get("id"); ok {
		c.id = value.Str(v)
	}
	g, _ := value.FromJSON([]byte(defaultGrains))
	c.grains = g.(*value.Map)
	if v, ok := cm.Get("grains"); ok && v != nil {
		v.(*value.Map).Range(func(k, x any) bool {
			if x == nil {
				c.grains.Delete(k)
			} else {
				c.grains.Set(k, x)
			}
			return true
		})
	}
	c.grains.Set("id", c.id)
	c.config, _ = mustMap(cm, "config")
	if v, ok := cm.Get("match"); ok {
		c.match = v.(*value.List).Items
	}
	raw, err = os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := value.FromJSON(raw)
	if err != nil {
		t.Skipf("expected.json: %v", err)
	}
	c.expected = ev.(*value.Map)
	return c
}

func mustMap(m *value.Map, k string) (*value.Map, bool) {
	v, ok := m.Get(k)
	if mm, isMap := v.(*value.Map); ok && isMap {
		return mm, true
	}
	return value.NewMap(0), false
}

// absRoots makes the dirs of a file_roots-style map absolute against dir.
func absRoots(v any, dir string) any {
	m, ok := v.(*value.Map)
	if !ok {
		return v
	}
	out := value.NewMap(m.Len())
	m.Range(func(k, x any) bool {
		l := value.NewList()
		for _, d := range x.(*value.List).Items {
			s := value.Str(d)
			if !filepath.IsAbs(s) {
				s = filepath.Join(dir, s)
			}
			l.Append(s)
		}
		out.Set(k, l)
		return true
	})
	return out
}

func (c *caseSpec) context(t tester) *execmod.Context {
	opts := config.MinionDefaults()
	opts.Set("id", c.id)
	opts.Set("file_client", "local")
	opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(c.dir, "states"))))
	opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(c.dir, "pillar"))))
	opts.Set("cachedir", filepath.Join(t.TempDir(), "cache"))
	c.config.Range(func(k, v any) bool {
		if k == "file_roots" || k == "pillar_roots" {
			v = absRoots(v, c.dir)
		}
		opts.Set(k, v)
		return true
	})
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = c.grains
	pil, err := pillar.Compile(pillar.Options{
		Opts: opts, Grains: c.grains, MinionID: c.id,
		Render: func(req *pillar.RenderRequest) (any, error) {
			data, err := os.ReadFile(req.Path)
			if err != nil {
				return nil, err
			}
			return yamlOnly(data, req.Path, req.Source, req.Saltenv, req.SLS)
		},
	})
	if err != nil {
		t.Fatalf("%v", err)
	}
	ctx.Pillar = pil
	return ctx
}

func usesJinja(dir string) bool {
	found := false
	_ = filepath.Walk(filepath.Join(dir, "states"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), "{{") || strings.Contains(string(data), "{%") || strings.Contains(string(data), "#!") {
			found = true
		}
		return nil
	})
	return found
}

// yamlOnly renders with the yaml renderer alone (the pipeline used while
// no jinja renderer is registered).
var yamlOnly = func(data []byte, path, source, saltenv, sls string) (any, error) {
	if _, ok := render.Default.Lookup("yaml"); !ok {
		v, err := yamlload.Load(data, path)
		if v == nil && err == nil {
			return value.NewMap(0), nil
		}
		return v, err
	}
	rc := &render.Context{Path: path, Source: source, Saltenv: saltenv, SLS: sls, HasSLS: true}
	out, err := render.Render(data, rc, render.Options{Default: "yaml"})
	if err != nil {
		var re *render.Error
		if !errors.As(err, &re) {
			return nil, genericError{err}
		}
	}
	return out, err
}

func runCase(t *testing.T, c *caseSpec) {
	if !*strictRender && strings.Contains(c.dir, "/render/") {
		rt := &softT{T: t}
		runCaseT(rt, c)
		if rt.failed {
			t.Skipf("render-layer mismatch (run with -strictrender to see):\n%s", rt.msg)
		}
		return
	}
	runCaseT(t, c)
}

// softT records failures instead of failing.
type softT struct {
	*testing.T
	failed bool
	msg    string
}

func (s *softT) Errorf(format string, args ...any) {
	s.failed = true
	s.msg += fmt.Sprintf(format, args...) + "\n"
}

func (s *softT) Fatalf(format string, args ...any) {
	s.Errorf(format, args...)
}

type tester interface {
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	TempDir() string
	Helper()
}

func runCaseT(t tester, c *caseSpec) {
	ctx := c.context(t)
	f, ok := execmod.Default.Lookup(c.argv[0])
	if !ok {
		t.Skipf("%s not registered", c.argv[0])
	}
	args, kwargs := yamlload.ParseInput(c.argv[1:], nil)
	if !jinjaAvailable() {
		renderOverride = yamlOnly
		defer func() { renderOverride = nil }()
	}
	got, err := f(ctx, args, kwargs)
	if err != nil {
		t.Fatalf("error: %v", err)
	}
	rc := int64(0)
	if ctx.Retcode() != 0 {
		rc = 1
	}
	gotJSON := value.ToJSON(got, value.JSONOptions{Indent: 2})
	gotJSON = strings.ReplaceAll(gotJSON, c.dir, "{root}")
	wantRet, _ := c.expected.Get("return")
	wantRC, _ := c.expected.Get("retcode")
	gv, _ := value.FromJSON([]byte(gotJSON))
	applyMatch(c.match, gv, wantRet)
	gotJSON = value.ToJSON(gv, value.JSONOptions{Indent: 2})
	wantJSON := value.ToJSON(wantRet, value.JSONOptions{Indent: 2})
	if gotJSON != wantJSON {
		var a, b any
		json.Unmarshal([]byte(gotJSON), &a)
		json.Unmarshal([]byte(wantJSON), &b)
		same := value.Equal(gv, wantRet)
		t.Errorf("return differs (equal ignoring order: %v)\ngot:  %s\nwant: %s", same, gotJSON, wantJSON)
	}
	if !value.Equal(rc, wantRC) {
		t.Errorf("retcode %d, want %v", rc, wantRC)
	}
}

// applyMatch replaces values in got by the expected ones where a case's
// match rule accepts them.
func applyMatch(rules []any, got, want any) {
	for _, r := range rules {
		rm := r.(*value.Map)
		pv, _ := rm.Get("path")
		path := pv.(*value.List).Items[1:]
		gp, gk, ok := locate(got, path)
		if !ok {
			continue
		}
		wp, wk, ok := locate(want, path)
		if !ok {
			continue
		}
		gval := get(gp, gk)
		if ig, _ := rm.Get("ignore"); ig == true {
			set(gp, gk, get(wp, wk))
			continue
		}
		if re, ok := rm.Get("regex"); ok {
			rx := regexp.MustCompile(`(?s)^(?:` + value.Str(re) + `)$`)
			if s, ok := gval.(string); ok && rx.MatchString(s) {
				set(gp, gk, get(wp, wk))
			}
		}
	}
}

func locate(v any, path []any) (any, any, bool) {
	for i, p := range path {
		if i == len(path)-1 {
			return v, p, true
		}
		switch x := v.(type) {
		case *value.Map:
			v, _ = x.Get(p)
		case *value.List:
			n := int(p.(int64))
			if n >= len(x.Items) {
				return nil, nil, false
			}
			v = x.Items[n]
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

func get(parent, k any) any {
	switch x := parent.(type) {
	case *value.Map:
		v, _ := x.Get(k)
		return v
	case *value.List:
		n := int(k.(int64))
		if n < len(x.Items) {
			return x.Items[n]
		}
	}
	return nil
}

func set(parent, k, v any) {
	switch x := parent.(type) {
	case *value.Map:
		x.Set(k, v)
	case *value.List:
		n := int(k.(int64))
		if n < len(x.Items) {
			x.Items[n] = v
		}
	}
}

func TestConformance(t *testing.T) {
	for _, group := range []string{"compile", "render"} {
		dirs, _ := filepath.Glob(filepath.Join(*casesDir, group, "*", "case.json"))
		if len(dirs) == 0 {
			t.Skip("no conformance cases")
		}
		for _, cj := range dirs {
			dir := filepath.Dir(cj)
			t.Run(group+"/"+filepath.Base(dir), func(t *testing.T) {
				c := loadCase(t, dir)
				if !strings.HasPrefix(c.argv[0], "state.show") {
					t.Skip("not a compile function")
				}
				if usesJinja(dir) && !jinjaAvailable() {
					t.Skip("needs jinja")
				}
				runCase(t, c)
				exactCompile = true
				defer func() { exactCompile = false }()
				runCase(t, c)
			})
		}
	}
}

func jinjaAvailable() bool {
	_, ok := render.Default.Lookup("jinja")
	return ok
}
