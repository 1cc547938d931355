package pillar_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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

const casesDir = "../../../shared/conformance/cases/pillar"

type caseSpec struct {
	Argv   []string       `json:"argv"`
	ID     string         `json:"id"`
	Grains map[string]any `json:"grains"`
	Config json.RawMessage
	Match  []struct {
		Path   []any  `json:"path"`
		Regex  string `json:"regex"`
		Ignore bool   `json:"ignore"`
	} `json:"match"`
}

var defaultGrains = `{"os": "Debian", "os_family": "Debian", "osfinger": "Debian-12",
 "osfullname": "Debian GNU/Linux", "osmajorrelease": 12, "osrelease": "12", "osrelease_info": [12],
 "oscodename": "bookworm", "osarch": "amd64", "cpuarch": "x86_64", "kernel": "Linux", "init": "systemd",
 "virtual": "physical", "num_cpus": 2, "mem_total": 4096, "host": "minion", "nodename": "minion",
 "localhost": "minion", "domain": "example.test", "fqdn": "minion.example.test",
 "ipv4": ["127.0.0.1", "192.0.2.10"], "roles": []}`

// TestConformance runs the pillar.* and saltutil.* cases of the shared
// conformance suite in process: a start-up compile, then the function call
// with the start-up pillar in memory, as salt-call --local does.
func TestConformance(t *testing.T) {
	ents, err := os.ReadDir(casesDir)
	if err != nil {
		t.Skipf("conformance cases not available: %v", err)
	}
	for _, e := range ents {
		name := e.Name()
		t.Run(name, func(t *testing.T) { runCase(t, filepath.Join(casesDir, name)) })
	}
}

func runCase(t *testing.T, src string) {
	raw, err := os.ReadFile(filepath.Join(src, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs caseSpec
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatal(err)
	}
	fun := cs.Argv[0]
	if !strings.HasPrefix(fun, "pillar.") && !strings.HasPrefix(fun, "saltutil.") {
		t.Skipf("%s needs the state layer", fun)
	}
	if _, ok := render.Default.Lookup("jinja"); !ok && treeUsesJinja(src) {
		t.Skip("no jinja renderer registered yet")
	}
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	root, _ = filepath.EvalSymlinks(root)
	if _, err := os.Stat(filepath.Join(root, "gpgkeys")); err == nil {
		if _, err := exec.LookPath("gpg"); err != nil {
			t.Skip("gpg not installed")
		}
		os.Chmod(filepath.Join(root, "gpgkeys"), 0o700)
		t.Cleanup(func() {
			exec.Command("gpgconf", "--homedir", filepath.Join(root, "gpgkeys"), "--kill", "gpg-agent").Run()
		})
	}
	id := cs.ID
	if id == "" {
		id = "minion"
	}
	opts := config.MinionDefaults()
	opts.Set("id", id)
	opts.Set("file_client", "local")
	opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(root, "states"))))
	opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(root, "pillar"))))
	opts.Set("cachedir", filepath.Join(root, "var", "cache"))
	if len(cs.Config) > 0 {
		cfgText := strings.ReplaceAll(string(cs.Config), "{root}", root)
		cv, err := value.FromJSON([]byte(cfgText))
		if err != nil {
			t.Fatal(err)
		}
		cfg := cv.(*value.Map)
		for _, key := range []string{"file_roots", "pillar_roots"} {
			if v, ok := cfg.Get(key); ok {
				cfg.Set(key, absRoots(v, root))
			}
		}
		opts.Update(cfg)
	}
	gv, _ := value.FromJSON([]byte(defaultGrains))
	grains := gv.(*value.Map)
	for k, v := range cs.Grains {
		b, _ := json.Marshal(v)
		x, _ := value.FromJSON(b)
		if x == nil {
			grains.Delete(k)
		} else {
			grains.Set(k, x)
		}
	}
	grains.Set("id", id)
	opts.Set("grains", grains)

	rs := pillar.Renderers{Registry: testRegistry()}
	ctx := execmod.NewContext()
	rs.Salt = func(name string) (value.Callable, bool) { return ctx.Callable(name) }
	svc := pillar.Service{Renderers: rs}
	startup, err := svc.Compile(opts, grains, id, optStr(opts, "saltenv"), optStr(opts, "pillarenv"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx.Opts = opts
	ctx.Grains = grains
	ctx.Pillar = startup
	opts.Set("pillar", startup)
	ctx.SetService("pillar", svc)

	args, kwargs := parseArgs(cs.Argv[1:])
	got, err := ctx.Call(fun, args, kwargs)
	if err != nil {
		t.Fatalf("%s: %v", fun, err)
	}
	gotJSON := strings.ReplaceAll(value.ToJSON(got, value.JSONOptions{}), root, "{root}")

	expRaw, err := os.ReadFile(filepath.Join(src, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Return any `json:"return"`
	}
	if err := json.Unmarshal(expRaw, &exp); err != nil {
		t.Fatal(err)
	}
	var gotAny any
	if err := json.Unmarshal([]byte(gotJSON), &gotAny); err != nil {
		t.Fatalf("bad JSON from brine: %v\n%s", err, gotJSON)
	}
	for _, m := range cs.Match {
		path := m.Path[1:] // drop "return"
		g, e := at(gotAny, path), at(exp.Return, path)
		if m.Ignore {
			set(gotAny, path, e)
			continue
		}
		if s, ok := g.(string); ok && regexp.MustCompile(`(?s)\A(?:`+m.Regex+`)\z`).MatchString(s) {
			set(gotAny, path, e)
		}
	}
	if len(cs.Match) == 0 && reflect.DeepEqual(gotAny, exp.Return) {
		// Key order too, as run --strict-order checks it.
		ev, err := value.FromJSON(expRaw)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ev.(*value.Map).Get("return")
		w := value.ToJSON(want, value.JSONOptions{})
		if w != gotJSON {
			t.Errorf("key order differs\n--- want\n%s\n--- got\n%s", w, gotJSON)
		}
	}
	if !reflect.DeepEqual(gotAny, exp.Return) {
		want, _ := json.MarshalIndent(exp.Return, "", "  ")
		have, _ := json.MarshalIndent(gotAny, "", "  ")
		t.Errorf("mismatch\n--- want\n%s\n--- got\n%s", want, have)
	}
}

func treeUsesJinja(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sls") {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "{{") || strings.Contains(string(b), "{%") || strings.Contains(string(b), "{#") {
			found = true
		}
		return nil
	})
	return found
}

func absRoots(v any, root string) any {
	m, ok := v.(*value.Map)
	if !ok {
		return v
	}
	out := value.NewMap(m.Len())
	m.Range(func(k, dirs any) bool {
		l := value.NewList()
		var items []any
		switch d := dirs.(type) {
		case string:
			items = []any{d}
		case *value.List:
			items = d.Items
		}
		for _, x := range items {
			p := value.Str(x)
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			l.Append(p)
		}
		out.Set(k, l)
		return true
	})
	return out
}

var kwRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// parseArgs is a small stand-in for salt-call's argument parsing.
func parseArgs(argv []string) ([]any, *value.Map) {
	var args []any
	kwargs := value.NewMap(0)
	for _, a := range argv {
		if m := kwRe.FindStringSubmatch(a); m != nil {
			kwargs.Set(m[1], yamlify(m[2]))
			continue
		}
		args = append(args, yamlify(a))
	}
	return args, kwargs
}

func yamlify(s string) any {
	v, err := yamlload.Load([]byte(s), "")
	if err != nil {
		return s
	}
	switch v.(type) {
	case string, nil:
		if v == nil && s != "" && s != "~" && !strings.EqualFold(s, "null") {
			return s
		}
		if v == nil {
			return nil
		}
		return s
	}
	return v
}

func optStr(m *value.Map, k string) string {
	v, _ := m.GetString(k)
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func at(v any, path []any) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p.(string)]
		case []any:
			v = x[int(p.(float64))]
		default:
			return nil
		}
	}
	return v
}

func set(v any, path []any, nv any) {
	parent := at(v, path[:len(path)-1])
	last := path[len(path)-1]
	switch x := parent.(type) {
	case map[string]any:
		x[last.(string)] = nv
	case []any:
		x[int(last.(float64))] = nv
	}
}

// testRegistry is render.Default plus, until the real one exists, a jinja
// renderer that passes text through (the cases using Jinja are skipped).
func testRegistry() *render.Registry {
	reg := render.NewRegistry()
	for _, n := range render.Default.Names() {
		e, _ := render.Default.Lookup(n)
		reg.Register(e)
	}
	if _, ok := reg.Lookup("jinja"); !ok {
		reg.Register(&render.Entry{Name: "jinja", Text: func(src string, _ *render.Context, _ string) (string, error) { return src, nil }})
	}
	return reg
}
