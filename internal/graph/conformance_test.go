package graph

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"brine/internal/config"
	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/highstate"
	"brine/internal/pillar"
	"brine/internal/statemod"
	"brine/internal/value"
)

const casesDir = "../../../shared/conformance/cases"

const caseGrains = `{"os": "Debian", "os_family": "Debian", "osfinger": "Debian-12", "osfullname": "Debian GNU/Linux",
"osmajorrelease": 12, "osrelease": "12", "osrelease_info": [12], "oscodename": "bookworm", "osarch": "amd64",
"cpuarch": "x86_64", "kernel": "Linux", "init": "systemd", "virtual": "physical", "num_cpus": 2, "mem_total": 4096,
"host": "minion", "nodename": "minion", "localhost": "minion", "domain": "example.test", "fqdn": "minion.example.test",
"ipv4": ["127.0.0.1", "192.0.2.10"], "roles": []}`

// confCase is a conformance case that runs states: its tree compiled to
// low chunks as the run would, and the recorded return.
type confCase struct {
	chunks   []*value.Map
	expected any
	scratch  string // recorded outputs name it "{scratch}"
}

func getv(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

// loadCase compiles the tree of a state.sls / state.apply / state.highstate
// case; nil when the case is not one or does not compile.
func loadCase(t *testing.T, dir string) *confCase {
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil
	}
	cv, err := value.FromJSON(raw)
	cm, ok := cv.(*value.Map)
	if err != nil || !ok {
		return nil
	}
	var argv []string
	if l, ok := getv(cm, "argv").(*value.List); ok {
		for _, a := range l.Items {
			argv = append(argv, value.Str(a))
		}
	}
	if len(argv) == 0 {
		return nil
	}
	var sls []string
	saltenv := ""
	switch argv[0] {
	case "state.sls", "state.apply", "state.highstate", "state.test":
	default:
		return nil
	}
	for _, a := range argv[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			switch k {
			case "saltenv":
				saltenv = v
			case "test", "exclude", "pillar":
				return nil // changes what runs; not modelled here
			}
			continue
		}
		if argv[0] != "state.highstate" && sls == nil {
			sls = strings.Split(a, ",")
		}
	}
	id := "minion"
	if v, ok := cm.Get("id"); ok {
		id = value.Str(v)
	}
	g, _ := value.FromJSON([]byte(caseGrains))
	grains := g.(*value.Map)
	if gm, ok := getv(cm, "grains").(*value.Map); ok {
		gm.Range(func(k, x any) bool {
			if x == nil {
				grains.Delete(k)
			} else {
				grains.Set(k, x)
			}
			return true
		})
	}
	grains.Set("id", id)
	scratch := t.TempDir()
	grains.Set("scratch", scratch)
	opts := config.MinionDefaults()
	opts.Set("id", id)
	opts.Set("file_client", "local")
	opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "states"))))
	opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "pillar"))))
	opts.Set("cachedir", filepath.Join(scratch, "cache"))
	if cfg, ok := getv(cm, "config").(*value.Map); ok {
		cfg.Range(func(k, v any) bool {
			if s, ok := v.(string); ok {
				v = strings.ReplaceAll(s, "{root}", dir)
			}
			if k == "file_roots" || k == "pillar_roots" {
				v = absRoots(v, dir)
			}
			opts.Set(k, v)
			return true
		})
	}
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = grains
	if m, ok := getv(opts, "file_roots").(*value.Map); ok {
		ctx.Files = &execmod.CachedFiles{Src: fileserver.New(m), Cachedir: filepath.Join(scratch, "cache")}
	}
	svc := pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}
	ctx.SetService("pillar", svc)
	pil, err := svc.Compile(opts, grains, id, "", "", nil, nil)
	if err != nil || pil == nil {
		pil = value.NewMap(0)
	}
	ctx.Pillar = pil
	kw := value.NewMap(0)
	if saltenv != "" {
		kw.Set("saltenv", saltenv)
	}
	r := highstate.NewRun(ctx, kw)
	if len(sls) > 0 && r.Saltenv == "" {
		r.Saltenv = "base"
	}
	chunks, notes, err := Compile(r, sls)
	if err != nil || len(notes) > 0 {
		t.Logf("compile: %v %q", err, notes)
		return nil
	}
	c := &confCase{chunks: chunks, scratch: scratch}
	raw, err = os.ReadFile(filepath.Join(dir, "expected.json"))
	if err == nil {
		if ev, err := value.FromJSON(raw); err == nil {
			if em, ok := ev.(*value.Map); ok {
				c.expected = getv(em, "return")
			}
		}
	}
	return c
}

func absRoots(v any, dir string) any {
	m, ok := v.(*value.Map)
	if !ok {
		return v
	}
	out := value.NewMap(m.Len())
	m.Range(func(k, x any) bool {
		l := value.NewList()
		if xl, ok := x.(*value.List); ok {
			for _, d := range xl.Items {
				s := value.Str(d)
				if !filepath.IsAbs(s) {
					s = filepath.Join(dir, s)
				}
				l.Append(s)
			}
		}
		out.Set(k, l)
		return true
	})
	return out
}

func quiet(t *testing.T) {
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
}

// TestRunOrder compares the predicted run with the recorded __run_num__
// of every runtime case where all states succeeded: the states Salt ran
// must be predicted, in the same order. Listeners Salt did not fire (the
// state listened to had no changes) may be predicted extra.
func TestRunOrder(t *testing.T) {
	quiet(t)
	dirs, _ := filepath.Glob(filepath.Join(casesDir, "runtime", "*", "case.json"))
	if len(dirs) == 0 {
		t.Skip("no conformance cases")
	}
	compared, exact := 0, 0
	for _, cj := range dirs {
		dir := filepath.Dir(cj)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c := loadCase(t, dir)
			if c == nil {
				t.Skip("not a state run that compiles")
			}
			ret, ok := c.expected.(*value.Map)
			if !ok || ret.Len() == 0 {
				t.Skip("no running dictionary")
			}
			type rec struct {
				tag string
				num int64
			}
			var want []rec
			allOK := true
			ret.Range(func(k, v any) bool {
				m, ok := v.(*value.Map)
				if !ok || getv(m, "result") != true {
					allOK = false
					return false
				}
				n, _ := getv(m, "__run_num__").(int64)
				want = append(want, rec{value.Str(k), n})
				return true
			})
			if !allOK {
				t.Skip("a state failed")
			}
			slices.SortFunc(want, func(a, b rec) int { return int(a.num - b.num) })
			g := Build(c.chunks, Options{})
			pos := map[string]int{}
			got := map[string]int64{}
			for i, st := range g.Order {
				tag := strings.ReplaceAll(st.Tag, c.scratch, "{scratch}")
				pos[tag] = i
				got[tag] = st.RunNum
			}
			compared++
			last, same := -1, true
			for _, w := range want {
				p, ok := pos[w.tag]
				if !ok {
					t.Errorf("%s ran (__run_num__ %d) but is not predicted", w.tag, w.num)
					continue
				}
				if p < last {
					t.Errorf("%s: predicted out of order (recorded __run_num__ %d)\npredicted: %v", w.tag, w.num, tags(g.Order))
				}
				last = p
				if got[w.tag] != w.num {
					same = false
				}
			}
			if same {
				exact++
			} else {
				t.Logf("same order, other numbers (a state without changes consumed a mod_watch number, or a listener did not fire): %v", tags(g.Order))
			}
		})
	}
	t.Logf("%d runs compared, %d with every __run_num__ exact", compared, exact)
}

func tags(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.Tag
	}
	return out
}

// TestLookupAgrees checks, for every requisite in every conformance case
// tree, that this package's lookup names the same states as the runtime:
// a probe state placed first requires the reference, the engine runs the
// tree with stand-in functions, and the states run before the probe are
// exactly the ones the runtime found.
func TestLookupAgrees(t *testing.T) {
	quiet(t)
	dirs, _ := filepath.Glob(filepath.Join(casesDir, "*", "*", "case.json"))
	if len(dirs) == 0 {
		t.Skip("no conformance cases")
	}
	checked := 0
	for _, cj := range dirs {
		dir := filepath.Dir(cj)
		if strings.Contains(dir, "/scale/") {
			continue // large trees: slow with one engine run per reference
		}
		t.Run(strings.TrimPrefix(dir, casesDir+"/"), func(t *testing.T) {
			c := loadCase(t, dir)
			if c == nil {
				t.Skip("not a state run that compiles")
			}
			for _, ch := range c.chunks {
				for _, kind := range Kinds {
					if kind == "listen" || kind == "use" {
						continue
					}
					v, ok := ch.Get(kind)
					if !ok || v == nil {
						continue
					}
					for _, item := range asList(v) {
						if probeAgrees(t, c.chunks, item) {
							checked++
						}
					}
				}
			}
		})
	}
	t.Logf("%d requisite references checked against the engine", checked)
	if checked == 0 {
		t.Error("no reference checked")
	}
}

const probeName = "\x00graph-probe"

// probeAgrees compares find with the engine for one reference; false when
// the reference cannot be probed (it would name the probe itself).
func probeAgrees(t *testing.T, chunks []*value.Map, item any) bool {
	t.Helper()
	probe := value.MapOf("state", "graphprobe", "__id__", probeName, "name", probeName, "fun", "probe",
		"__sls__", probeName, "__env__", "base", "order", int64(0), "require", value.NewList(value.DeepCopy(item)))
	all := []*value.Map{probe}
	reg := statemod.NewRegistry()
	stub := func(c *statemod.Call) (*value.Map, error) {
		return value.MapOf("name", c.Name(), "changes", value.NewMap(0), "result", true, "comment", ""), nil
	}
	for _, ch := range chunks {
		s := value.NewMap(6)
		for _, k := range []string{"state", "__id__", "name", "fun", "__sls__", "__env__"} {
			if v, ok := ch.Get(k); ok {
				s.Set(k, v)
			}
		}
		all = append(all, s)
	}
	for _, ch := range all {
		full := str(ch, "state") + "." + str(ch, "fun")
		mod, fun, ok := strings.Cut(full, ".")
		if ok && mod != "" && fun != "" && !strings.Contains(fun, ".") && !reg.Has(full) {
			reg.Register(&statemod.Function{Name: full, Kwargs: true, Run: stub})
		}
	}
	cs := Build(all, Options{Kinds: []string{}}).Chunks
	rq, ok := parseReq(item)
	var want []string
	if ok {
		hits, valid := newIndex(cs).find(rq)
		if slices.Contains(hits, 0) {
			return false
		}
		if !valid {
			want = nil
		}
		for _, h := range hits {
			if tag := cs[h].Tag; !slices.Contains(want, tag) {
				want = append(want, tag)
			}
		}
	}
	ex := execmod.NewContext()
	ex.Registry = execmod.NewRegistry()
	running, _ := engine.Run(all, engine.RunOptions{Registry: reg, Env: &statemod.Env{Exec: ex}})
	probeTag := cs[0].Tag
	pv, _ := running.Get(probeTag)
	var probeNum int64 = -1
	if pm, ok := pv.(*value.Map); ok {
		probeNum, _ = getv(pm, "__run_num__").(int64)
	}
	type entry struct {
		tag string
		num int64
	}
	var before []entry
	running.Range(func(k, v any) bool {
		if m, ok := v.(*value.Map); ok && k != probeTag {
			if n, _ := getv(m, "__run_num__").(int64); probeNum < 0 || n < probeNum {
				before = append(before, entry{value.Str(k), n})
			}
		}
		return true
	})
	slices.SortFunc(before, func(a, b entry) int { return int(a.num - b.num) })
	var got []string
	for _, e := range before {
		got = append(got, e.tag)
	}
	if probeNum < 0 {
		got = nil // the engine stopped (a malformed reference)
	}
	if !slices.Equal(got, want) {
		t.Errorf("reference %s: graph finds %q, the engine ran %q", value.Repr(item), want, got)
	}
	return true
}
