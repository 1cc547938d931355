package highstate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/config"
	"brine/internal/execmod"
	_ "brine/internal/pyext"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// Trees whose templates call execution functions with side effects,
// read what earlier templates wrote, fail in various ways and include one
// another. Each renders with one worker and with several, several times:
// the low chunks, the errors (in Salt's order), the run's retcode and the
// order of the side effects (the log file) must be the same. Run with
// -race.
var parallelTrees = []struct {
	name  string
	files map[string]string
	py    bool // needs python3 (#!py)
}{
	{
		name: "side effects in order",
		files: map[string]string{
			"top.sls": "base:\n  '*':\n    - a\n    - b\n    - c\n    - d\n    - e\n",
			"a.sls": `{% do salt['cmd.run']('echo a >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}
{% do salt['cmd.run']('printf "key: from_a\n" > ' ~ grains['scratch'] ~ '/states/gen.yaml', python_shell=True) %}
a_state:
  test.nop:
    - who: a
`,
			// b only reads: it must see what a wrote
			"b.sls": `{% set seen = salt['cmd.run']('cat ' ~ grains['scratch'] ~ '/log', python_shell=True) %}
b_state:
  test.nop:
    - seen: {{ seen | replace('\n', ',') }}
`,
			// c does not call anything: rendered ahead, its import_yaml of
			// the file a writes must still see a's content
			"c.sls": `{% import_yaml 'gen.yaml' as gen %}
c_state:
  test.nop:
    - key: {{ gen.key }}
    - user: {{ salt['pillar.get']('user', 'nobody') }}
    - os: {{ salt['grains.get']('os') }}
`,
			"d.sls": `{% do salt['cmd.run']('echo d >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}
{% do salt['cmd.run']('false', python_shell=True) %}
d_state:
  test.nop:
    - lines: {{ salt['cmd.run']('cat ' ~ grains['scratch'] ~ '/log', python_shell=True) | replace('\n', ',') }}
`,
			"e.sls": `include:
  - f
e_state:
  test.nop:
    - rendered: {{ salt['slsutil.renderer']('salt://tmpl.sls') | json }}
`,
			"f.sls": `{% do salt['cmd.run']('echo f >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}
f_state:
  test.nop: []
`,
			"tmpl.sls": "{% do salt['cmd.run']('echo tmpl >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}\nx: 1\n",
			"gen.yaml": "key: initial\n",
		},
	},
	{
		name: "failing renders keep Salt's order",
		files: map[string]string{
			"top.sls":        "base:\n  '*':\n    - ok1\n    - jinjaerr\n    - yamlerr\n    - missinginc\n    - undefined\n    - ok2\n    - raises\n",
			"ok1.sls":        "ok1:\n  test.nop: []\n",
			"jinjaerr.sls":   "{% if %}\nx:\n  test.nop: []\n",
			"yamlerr.sls":    "x: [\n  test.nop\n",
			"missinginc.sls": "include:\n  - nowhere\nmi:\n  test.nop: []\n",
			"undefined.sls":  "u:\n  test.nop:\n    - v: {{ nothing.here }}\n",
			"ok2.sls":        "{% do salt['cmd.run']('echo ok2 >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}\nok2:\n  test.nop: []\n",
			"raises.sls":     "{{ salt['test.exception']('boom') }}\n",
		},
	},
	{
		name: "include chains between top-level SLS",
		files: map[string]string{
			"top.sls":       "base:\n  '*':\n    - 'app.*'\n    - base\n",
			"base.sls":      "{% do salt['cmd.run']('echo base >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}\nbase:\n  test.nop: []\n",
			"app/one.sls":   "include:\n  - app.two\n  - base\none:\n  test.nop:\n    - require:\n      - test: two\n",
			"app/two.sls":   "include:\n  - app.three\n{% do salt['cmd.run']('echo two >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}\ntwo:\n  test.nop: []\n",
			"app/three.sls": "three:\n  test.nop:\n    - n: {{ salt['cmd.run']('cat ' ~ grains['scratch'] ~ '/log', python_shell=True) | replace('\\n', ',') }}\n",
			"app/four.sls":  "{% for i in range(30) %}\nfour_{{ i }}:\n  test.nop:\n    - extend_me: {{ i }}\n{% endfor %}\n",
			"app/five.sls":  "extend:\n  four_3:\n    test.nop:\n      - x: 1\nfive:\n  test.nop: []\n",
		},
	},
	{
		// templates that change the run's pillar in place (Salt's
		// pillar.get returns the pillar's own dict): later templates,
		// rendered ahead, must see the change
		name: "in-place changes of the pillar",
		files: map[string]string{
			"top.sls":   "base:\n  '*':\n    - a\n    - b\n    - c\n    - d\n    - e\n    - f\n",
			"a.sls":     "{% set cfg = salt['pillar.get']('app') %}{% do cfg.update({'seen_a': True}) %}\na:\n  test.nop: []\n",
			"b.sls":     "b:\n  test.nop:\n    - app: {{ pillar['app'] | json }}\n",
			"c.sls":     "{% from 'map.jinja' import lk with context %}\nc:\n  test.nop:\n    - lk: {{ lk | json }}\n",
			"map.jinja": "{% set lk = pillar['lookup'] %}{% do lk.update({'from_map': 1}) %}\n",
			"d.sls":     "d:\n  test.nop:\n    - lookup: {{ pillar['lookup'] | json }}\n",
			"e.sls":     "{% for i in range(20000) %}{% endfor %}{% set r = salt['grains.filter_by']({'Debian': pillar['fb']}, merge={'merged': 1}) %}\ne:\n  test.nop:\n    - r: {{ r | json }}\n",
			"f.sls":     "f:\n  test.nop:\n    - fb: {{ pillar['fb'] | json }}\n    - app: {{ salt['pillar.get']('app') | json }}\n",
		},
	},
	{
		// grains.setval changes the run's grains (and the grains file
		// beside conf_file, in the scratch directory)
		name: "grains set by a template",
		files: map[string]string{
			"top.sls": "base:\n  '*':\n    - b\n    - a\n    - c\n    - d\n",
			"a.sls":   "{% do salt['grains.setval']('role', 'web') %}\na:\n  test.nop: []\n",
			"b.sls":   "b:\n  test.nop:\n    - role: {{ grains.get('role', 'none') }}\n",
			"c.sls":   "c:\n  test.nop:\n    - role: {{ grains.get('role', 'none') }}\n",
			"d.sls":   "d:\n  test.nop:\n    - role: {{ salt['grains.get']('role', 'none') }}\n    - file: {{ salt['cmd.run']('cat ' ~ grains['scratch'] ~ '/grains', python_shell=True) | json }}\n",
		},
	},
	{
		name: "py renderer",
		py:   true,
		files: map[string]string{
			"top.sls":   "base:\n  '*':\n    - pre\n    - pysls\n    - post\n",
			"pre.sls":   "{% do salt['cmd.run']('echo pre >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}\npre:\n  test.nop: []\n",
			"pysls.sls": "#!py\ndef run():\n    seen = __salt__['cmd.run']('cat ' + __grains__['scratch'] + '/log', python_shell=True)\n    open(__grains__['scratch'] + '/log', 'a').write('py\\n')\n    return {'pystate': {'test.nop': [{'seen': seen}]}}\n",
			"post.sls":  "post:\n  test.nop:\n    - n: {{ salt['cmd.run']('cat ' ~ grains['scratch'] ~ '/log', python_shell=True) | replace('\\n', ',') }}\n",
		},
	},
}

// parallelOutcome is what a compile produced: the low chunks, the
// errors, the retcode and the side effects.
type parallelOutcome struct {
	chunks, errs, log string
	retcode           int
}

func compileTree(t *testing.T, files map[string]string, workers int64) parallelOutcome {
	t.Helper()
	scratch := t.TempDir()
	for name, body := range files {
		p := filepath.Join(scratch, "states", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := config.MinionDefaults()
	opts.Set("id", "minion")
	opts.Set("file_client", "local")
	opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(scratch, "states"))))
	opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(scratch, "pillar"))))
	opts.Set("cachedir", filepath.Join(scratch, "cache"))
	opts.Set("brine_render_workers", workers)
	opts.Set("conf_file", filepath.Join(scratch, "minion"))
	g, _ := value.FromJSON([]byte(defaultGrains))
	grains := g.(*value.Map)
	grains.Set("id", "minion")
	grains.Set("scratch", scratch)
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = grains
	ctx.Pillar = value.MapOf("user", "www", "app", value.MapOf("port", int64(80)),
		"lookup", value.MapOf("k", "v"), "fb", value.MapOf("own", true))
	ctx.Files = &execmod.CachedFiles{Src: FileRoots(opts), Cachedir: filepath.Join(scratch, "cache")}
	chunks, errs, err := NewRun(ctx, value.NewMap(0)).CompileLowChunks()
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(scratch, "log"))
	out := parallelOutcome{
		chunks:  value.ToJSON(chunkList(chunks), value.JSONOptions{Indent: 1}),
		errs:    strings.Join(errs, "\n"),
		log:     string(log),
		retcode: ctx.Retcode(),
	}
	out.chunks = strings.ReplaceAll(out.chunks, scratch, "{scratch}")
	out.errs = strings.ReplaceAll(out.errs, scratch, "{scratch}")
	return out
}

func TestParallelRenderSameAsSerial(t *testing.T) {
	_, err := exec.LookPath("python3")
	hasPython := err == nil
	for _, tree := range parallelTrees {
		t.Run(tree.name, func(t *testing.T) {
			if tree.py && !hasPython {
				t.Skip("python3 not found")
			}
			want := compileTree(t, tree.files, 1)
			if want.chunks == "[]" && want.errs == "" {
				t.Fatal("the serial compile gave nothing")
			}
			for _, workers := range []int64{2, 4, 8, 8, 8} {
				got := compileTree(t, tree.files, workers)
				if got.chunks != want.chunks {
					t.Errorf("%d workers: low chunks differ\ngot:  %s\nwant: %s", workers, got.chunks, want.chunks)
				}
				if got.errs != want.errs {
					t.Errorf("%d workers: errors differ\ngot:  %s\nwant: %s", workers, got.errs, want.errs)
				}
				if got.log != want.log {
					t.Errorf("%d workers: side effects differ\ngot:  %q\nwant: %q", workers, got.log, want.log)
				}
				if got.retcode != want.retcode {
					t.Errorf("%d workers: retcode %d, want %d", workers, got.retcode, want.retcode)
				}
			}
		})
	}
}

// TestParallelRenderSerialFacts pins what the serial compile of the first
// trees gives, so that the comparison above compares something real.
func TestParallelRenderSerialFacts(t *testing.T) {
	out := compileTree(t, parallelTrees[0].files, 4)
	if out.log != "a\nd\ntmpl\nf\n" {
		t.Errorf("side effects %q, want a, d, tmpl, f (Salt's order: e renders before its include f)", out.log)
	}
	for _, want := range []string{`"x": 1`, `"seen": "a"`, `"key": "from_a"`, `"user": "www"`, `"lines": "a,d"`} {
		if !strings.Contains(out.chunks, want) {
			t.Errorf("low chunks lack %s:\n%s", want, out.chunks)
		}
	}
	if out.retcode != 0 {
		t.Errorf("retcode %d: a template's failing command must not set it", out.retcode)
	}
	inplace := compileTree(t, parallelTrees[3].files, 4).chunks
	for _, want := range []string{`"seen_a": true`, `"from_map": 1`, `"merged": 1`} {
		if n := strings.Count(inplace, want); n < 2 {
			t.Errorf("%s appears %d times (want it in the later SLS too):\n%s", want, n, inplace)
		}
	}
	roles := compileTree(t, parallelTrees[4].files, 4).chunks
	if n := strings.Count(roles, `"role": "web"`); n != 2 || !strings.Contains(roles, `"role": "none"`) {
		t.Errorf("grains.setval in a: b must see no role, c and d the new one:\n%s", roles)
	}
	errs := compileTree(t, parallelTrees[1].files, 4).errs
	order := []string{"jinjaerr", "yamlerr", "nowhere", "undefined", "boom"}
	last := -1
	for _, w := range order {
		i := strings.Index(errs, w)
		if i < 0 || i < last {
			t.Errorf("errors lack %q or have it out of order:\n%s", w, errs)
		}
		last = i
	}
}

// TestParallelRenderCancelled starts speculative renders that nobody asks
// for: the ones that would call a function with side effects stop
// without calling it, and finish returns.
func TestParallelRenderCancelled(t *testing.T) {
	files := map[string]string{
		"a.sls": "{% do salt['cmd.run']('echo a >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}\na:\n  test.nop: []\n",
		"b.sls": "b:\n  test.nop:\n    - p: {{ salt['pillar.get']('user') }}\n",
		"c.sls": "{% do salt['cmd.run']('echo c >> ' ~ grains['scratch'] ~ '/log', python_shell=True) %}\nc:\n  test.nop: []\n",
	}
	scratch := t.TempDir()
	for name, body := range files {
		if err := os.MkdirAll(filepath.Join(scratch, "states"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(scratch, "states", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := config.MinionDefaults()
	opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(scratch, "states"))))
	opts.Set("cachedir", filepath.Join(scratch, "cache"))
	opts.Set("brine_render_workers", int64(3))
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = value.MapOf("scratch", scratch)
	ctx.Pillar = value.MapOf("user", "www")
	r := NewRun(ctx, value.NewMap(0))
	s := r.startRenders(value.MapOf("base", value.NewList("a", "b", "c")))
	if s == nil {
		t.Fatal("no speculative renders started")
	}
	s.finish()
	if log, err := os.ReadFile(filepath.Join(scratch, "log")); err == nil {
		t.Errorf("cancelled renders ran commands: %q", log)
	}
}

// TestRenderWorkersDefault checks that parallel rendering is on unless
// brine_render_workers says otherwise, and off with a custom renderer.
func TestRenderWorkersDefault(t *testing.T) {
	if defaultRenderWorkers() < 1 || defaultRenderWorkers() > maxDefaultWorkers {
		t.Errorf("defaultRenderWorkers() = %d", defaultRenderWorkers())
	}
	dir := t.TempDir()
	for _, n := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, n+".sls"), []byte(n+":\n  test.nop: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		workers any // nil: unset
		custom  bool
		want    bool
	}{
		{nil, false, defaultRenderWorkers() > 1},
		{int64(1), false, false},
		{int64(0), false, false},
		{int64(3), false, true},
		{int64(3), true, false},
	} {
		opts := config.MinionDefaults()
		opts.Set("file_roots", value.MapOf("base", value.NewList(dir)))
		if tc.workers != nil {
			opts.Set("brine_render_workers", tc.workers)
		}
		ctx := execmod.NewContext()
		ctx.Opts = opts
		r := NewRun(ctx, value.NewMap(0))
		if tc.custom {
			r.Render = yamlOnly
		}
		s := r.startRenders(value.MapOf("base", value.NewList("a", "b")))
		if (s != nil) != tc.want {
			t.Errorf("workers %v custom %v: parallel %v, want %v", tc.workers, tc.custom, s != nil, tc.want)
		}
		if s != nil {
			s.finish()
		}
	}
}

// TestParallelConformanceCases compiles the recorded conformance cases
// that only compile (state.show_*) with one render worker and with
// several: the returns and retcodes must be the same.
func TestParallelConformanceCases(t *testing.T) {
	if !jinjaAvailable() {
		t.Skip("no jinja renderer")
	}
	var dirs []string
	for _, group := range []string{"compile", "render", "jinja", "pillar"} {
		found, _ := filepath.Glob(filepath.Join(*casesDir, group, "*", "case.json"))
		dirs = append(dirs, found...)
	}
	if len(dirs) == 0 {
		t.Skip("no conformance cases")
	}
	ran := 0
	for _, cj := range dirs {
		dir := filepath.Dir(cj)
		raw, _ := os.ReadFile(cj)
		if !strings.Contains(string(raw), `"state.show`) {
			continue
		}
		ran++
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			c := loadCase(t, dir)
			if !strings.HasPrefix(c.argv[0], "state.show") {
				t.Skip("not a compile function")
			}
			var outs []string
			for _, workers := range []int64{1, 4} {
				ctx := c.context(t)
				ctx.Opts.Set("brine_render_workers", workers)
				f, ok := execmod.Default.Lookup(c.argv[0])
				if !ok {
					t.Skipf("%s not registered", c.argv[0])
				}
				args, kwargs := yamlload.ParseInput(c.argv[1:], nil)
				got, err := f(ctx, args, kwargs)
				out := value.ToJSON(got, value.JSONOptions{Indent: 1})
				if err != nil {
					out = "error: " + err.Error()
				}
				cache, _ := ctx.Opts.Get("cachedir")
				out = strings.ReplaceAll(out, value.Str(cache), "{cachedir}")
				outs = append(outs, fmt.Sprintf("%s\nretcode %d", out, ctx.Retcode()))
			}
			if outs[0] != outs[1] {
				t.Errorf("4 workers differ from 1:\n%s\n--- 1 worker:\n%s", outs[1], outs[0])
			}
		})
	}
	if ran == 0 {
		t.Error("no state.show_* case found")
	}
}
