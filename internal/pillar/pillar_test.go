package pillar_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/config"
	"brine/internal/pillar"
	"brine/internal/value"
)

// tree writes files (slash paths relative to a temp dir) and returns the dir.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testOpts returns minion defaults with the yaml renderer, pillar_roots base
// at dir/pillar, and cfg (JSON, "{dir}" expanded) applied over them.
func testOpts(t testing.TB, dir, cfg string) *value.Map {
	t.Helper()
	opts := config.MinionDefaults()
	opts.Set("id", "minion")
	opts.Set("renderer", "yaml")
	opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "pillar"))))
	if cfg != "" {
		v, err := value.FromJSON([]byte(strings.ReplaceAll(cfg, "{dir}", dir)))
		if err != nil {
			t.Fatal(err)
		}
		opts.Update(v.(*value.Map))
	}
	return opts
}

func compileWith(t testing.TB, o pillar.Options) string {
	t.Helper()
	if o.Render == nil {
		o.Render = pillar.Renderers{}.Render()
	}
	if o.Decrypt == nil {
		o.Decrypt = pillar.Renderers{}.Decrypt(o.Opts)
	}
	if o.MinionID == "" {
		o.MinionID = "minion"
	}
	if o.Grains == nil {
		o.Grains = value.MapOf("id", o.MinionID, "os", "Debian")
	}
	p, err := pillar.Compile(o)
	if err != nil {
		t.Fatal(err)
	}
	return value.ToJSON(p, value.JSONOptions{})
}

func TestCompile(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		cfg       string
		saltenv   string
		pillarenv string
		override  string
		previous  string
		failOn    string // base name of a file whose rendering fails with "boom"
		want      string
	}{
		{
			name:  "top order and merge",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [a, b]\n  minion: [c]\n", "pillar/a.sls": "x: {p: 1, q: 1}\nl: [1]\n", "pillar/b.sls": "x: {q: 2}\nl: [2]\n", "pillar/c.sls": "z: 3\n"},
			want:  `{"x": {"p": 1, "q": 2}, "l": [2], "z": 3}`,
		},
		{
			name:  "no top file",
			files: map[string]string{"pillar/a.sls": "x: 1\n"},
			want:  `{}`,
		},
		{
			name:  "missing and non-dict sls",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [gone, listy, ok]\n", "pillar/listy.sls": "- a\n", "pillar/ok.sls": "ok: 1\n"},
			want:  `{"ok": 1, "_errors": ["Specified SLS 'gone' in environment 'base' is not available on the salt master", "SLS 'listy' does not render to a dictionary"]}`,
		},
		{
			name:  "render error safe",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [bad]\n", "pillar/bad.sls": "a: [1\n"},
			want:  `{"_errors": ["Rendering SLS 'bad' failed. Please see master log for details."]}`,
		},
		{
			name:   "render error unsafe",
			files:  map[string]string{"pillar/top.sls": "base:\n  '*': [bad]\n", "pillar/bad.sls": "a: 1\n"},
			cfg:    `{"pillar_safe_render_error": false}`,
			failOn: "bad.sls",
			want:   `{"_errors": ["Rendering SLS 'bad' failed, render error:\nboom"]}`,
		},
		{
			name:   "top render error",
			files:  map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n"},
			failOn: "top.sls",
			want:   `{"_errors": ["Rendering Primary Top file failed, render error:\nboom"]}`,
		},
		{
			name:  "malformed top",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': 5\n", "pillar/a.sls": "a: 1\n"},
			want:  `{"_errors": ["Error encountered while rendering pillar top file."]}`,
		},
		{
			name:  "top include",
			files: map[string]string{"pillar/top.sls": "include: [more]\nbase:\n  '*': [a]\n", "pillar/more.sls": "base:\n  minion: [b]\n", "pillar/a.sls": "a: 1\n", "pillar/b.sls": "b: 1\n"},
			want:  `{"a": 1, "b": 1}`,
		},
		{
			name:  "ignore_missing and order",
			files: map[string]string{"pillar/top.sls": "base:\n  minion:\n    - order: 2\n    - late\n  '*':\n    - order: 1\n    - early\n    - nope\n    - ignore_missing: true\n", "pillar/late.sls": "v: late\n", "pillar/early.sls": "v: early\n"},
			want:  `{"v": "late"}`,
		},
		{
			name:  "include key, relative, non-list include",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [app, odd]\n", "pillar/app/init.sls": "include:\n  - .db\n  - lib:\n      key: 'a:b'\nmine: 1\n", "pillar/app/db.sls": "db: 1\n", "pillar/lib.sls": "l: 1\n", "pillar/odd.sls": "include: x\nodd: 1\n"},
			want:  `{"db": 1, "a": {"b": {"l": 1}}, "mine": 1, "include": "x", "odd": 1, "_errors": ["Include Declaration in SLS 'odd' is not formed as a list"]}`,
		},
		{
			name:  "include overrides sls",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [main]\n", "pillar/main.sls": "include: [inc]\nv: main\n", "pillar/inc.sls": "v: inc\n"},
			cfg:   `{"pillar_includes_override_sls": true}`,
			want:  `{"v": "inc"}`,
		},
		{
			name:  "slash name keeps dotted directories",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [v1.2/app, v1.app]\n", "pillar/v1.2/app.sls": "a: 1\n", "pillar/v1/app.sls": "b: 1\n"},
			want:  `{"a": 1, "b": 1}`,
		},
		{
			name:  "relative include matching top-level and sibling",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [a.b]\n", "pillar/a/b.sls": "include: [.c]\nab: 1\n", "pillar/c.sls": "c: top\n", "pillar/a/c.sls": "c: sibling\n"},
			want:  `{"c": "sibling", "ab": 1}`,
		},
		{
			name:  "include defaults naming compile_template arguments",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [main]\n", "pillar/main.sls": "include:\n  - a:\n      defaults: {env: prod, x: 1}\n  - b:\n      defaults: {sls: s}\nm: 1\n", "pillar/a.sls": "#!jinja|yaml\na: {{ env is defined }}-{{ x }}\n", "pillar/b.sls": "b: 1\n"},
			cfg:   `{"pillar_safe_render_error": false}`,
			// A plain include matches its name twice in Salt (both
			// fnmatch passes), so the failure is reported twice.
			want: `{"a": "False-1", "m": 1, "_errors": ["Rendering SLS 'b' failed, render error:\ncompile_template() got multiple values for argument 'sls'", "Rendering SLS 'b' failed, render error:\ncompile_template() got multiple values for argument 'sls'"]}`,
		},
		{
			name:  "non-utf8 sls",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [latin]\n", "pillar/latin.sls": "a: caf\xe9\n"},
			cfg:   `{"pillar_safe_render_error": false}`,
			want:  `{"_errors": ["Rendering SLS 'latin' failed, render error:\n'utf-8' codec can't decode byte 0xe9 in position 6: invalid continuation byte"]}`,
		},
		{
			name:  "data renderer before another",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [a, b]\n", "pillar/a.sls": "#!yaml|json\na: 1\n", "pillar/b.sls": "#!json|jinja\n[]\n"},
			cfg:   `{"pillar_safe_render_error": false}`,
			want:  `{"_errors": ["Rendering SLS 'a' failed, render error:\n'OrderedDict' object has no attribute 'read'", "Rendering SLS 'b' failed, render error:\n'list' object has no attribute 'read'"]}`,
		},
		{
			name:  "json errors are Python's",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [j1, j2]\n", "pillar/j1.sls": "#!json", "pillar/j2.sls": "#!json\n{\"a\": 1,}\n"},
			cfg:   `{"pillar_safe_render_error": false}`,
			want:  `{"_errors": ["Rendering SLS 'j1' failed, render error:\nExpecting value: line 1 column 1 (char 0)", "Rendering SLS 'j2' failed, render error:\nExpecting property name enclosed in double quotes: line 1 column 9 (char 8)"]}`,
		},
		{
			name:  "dunder env",
			files: map[string]string{"roots/feat/top.sls": "feat:\n  '*': [a]\n", "roots/feat/a.sls": "a: feat\n"},
			cfg:   `{"pillar_roots": {"__env__": ["{dir}/roots/__env__"]}, "pillarenv": "feat"}`,
			want:  `{"a": "feat"}`,
		},
		{
			name:      "pillarenv argument",
			files:     map[string]string{"b/top.sls": "base:\n  '*': [a]\n", "b/a.sls": "b: 1\n", "d/top.sls": "dev:\n  '*': [a]\n", "d/a.sls": "d: 1\n"},
			cfg:       `{"pillar_roots": {"base": ["{dir}/b"], "dev": ["{dir}/d"]}}`,
			pillarenv: "dev",
			want:      `{"d": 1}`,
		},
		{
			name:    "pillarenv from saltenv",
			files:   map[string]string{"b/top.sls": "base:\n  '*': [a]\n", "b/a.sls": "b: 1\n", "d/top.sls": "dev:\n  '*': [a]\n", "d/a.sls": "d: 1\n"},
			cfg:     `{"pillar_roots": {"base": ["{dir}/b"], "dev": ["{dir}/d"]}, "pillarenv_from_saltenv": true}`,
			saltenv: "dev",
			want:    `{"d": 1}`,
		},
		{
			name:  "all environments",
			files: map[string]string{"b/top.sls": "base:\n  '*': [a]\nprod:\n  '*': [x]\n", "b/a.sls": "b: 1\n", "d/top.sls": "dev:\n  '*': [a]\n", "d/a.sls": "d: 1\n"},
			cfg:   `{"pillar_roots": {"base": ["{dir}/b"], "dev": ["{dir}/d"]}}`,
			want:  `{"b": 1, "d": 1, "_errors": ["No matching pillar environment for environment 'prod' found"]}`,
		},
		{
			name:  "strategy none reads only the base top",
			files: map[string]string{"b/top.sls": "base:\n  '*': [a]\n", "b/a.sls": "b: 1\n", "d/top.sls": "dev:\n  '*': [a]\n", "d/a.sls": "d: 1\n"},
			cfg:   `{"pillar_roots": {"base": ["{dir}/b"], "dev": ["{dir}/d"]}, "pillar_source_merging_strategy": "none"}`,
			want:  `{"b": 1}`,
		},
		{
			name:     "command-line pillar",
			files:    map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n", "pillar/a.sls": "app: {port: 80, name: d}\nc: x\n"},
			override: `{"c": "y", "app": {"port": 1}, "n": 1}`,
			want:     `{"c": "y", "app": {"port": 1, "name": "d"}, "n": 1}`,
		},
		{
			name:     "previous pillar underneath",
			files:    map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n", "pillar/a.sls": "a: {x: 1}\n"},
			previous: `{"old": 1, "a": {"y": 2}, "_errors": ["e"]}`,
			want:     `{"old": 1, "a": {"y": 2, "x": 1}, "_errors": ["e"]}`,
		},
		{
			name:     "previous pillar ignored without ssh_merge_pillar",
			files:    map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n", "pillar/a.sls": "a: 1\n"},
			cfg:      `{"ssh_merge_pillar": false}`,
			previous: `{"old": 1}`,
			want:     `{"a": 1}`,
		},
		{
			name:  "decrypt_pillar malformed and unavailable renderer",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n", "pillar/a.sls": "s: 1\n"},
			cfg:   `{"decrypt_pillar": [{"s": "nope", "t": 1}], "decrypt_pillar_renderers": ["nope"]}`,
			want:  `{"s": 1, "_errors": ["decrypt_pillar config option is malformed"]}`,
		},
		{
			name:  "decrypt_pillar renderer not available",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n", "pillar/a.sls": "s: 1\n"},
			cfg:   `{"decrypt_pillar": [{"s": "nope"}], "decrypt_pillar_renderers": ["nope"]}`,
			want:  `{"s": 1, "_errors": ["Failed to decrypt pillar key 's': Decryption renderer 'nope' is not available"]}`,
		},
		{
			name:     "ext_pillar_first: templates see the command-line pillar",
			files:    map[string]string{"pillar/top.sls": "base:\n  'I@c:y': [a]\n", "pillar/a.sls": "a: 1\n"},
			cfg:      `{"ext_pillar_first": true}`,
			override: `{"c": "y"}`,
			previous: `{"old": 1}`,
			want:     `{"c": "y", "a": 1}`,
		},
		{
			name:  "ext_pillar malformed",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n", "pillar/a.sls": "a: 1\n"},
			cfg:   `{"ext_pillar": "x"}`,
			want:  `{"a": 1, "_errors": ["The \"ext_pillar\" option is malformed"]}`,
		},
		{
			name:  "glob sls in top",
			files: map[string]string{"pillar/top.sls": "base:\n  '*': ['u.*']\n", "pillar/u/b.sls": "u: {b: 1}\n", "pillar/u/a.sls": "u: {a: 1}\n"},
			want:  `{"u": {"a": 1, "b": 1}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, tt.files)
			o := pillar.Options{Opts: testOpts(t, dir, tt.cfg), Saltenv: tt.saltenv, Pillarenv: tt.pillarenv}
			if tt.override != "" {
				v, _ := value.FromJSON([]byte(tt.override))
				o.Override = v.(*value.Map)
			}
			if tt.failOn != "" {
				real := pillar.Renderers{}.Render()
				o.Render = func(req *pillar.RenderRequest) (any, error) {
					if filepath.Base(req.Path) == tt.failOn {
						return nil, errors.New("boom")
					}
					return real(req)
				}
			}
			if tt.previous != "" {
				v, _ := value.FromJSON([]byte(tt.previous))
				o.Previous = v.(*value.Map)
			}
			got := compileWith(t, o)
			want, _ := value.FromJSON([]byte(tt.want))
			if w := value.ToJSON(want, value.JSONOptions{}); got != w {
				t.Errorf("got  %s\nwant %s", got, w)
			}
		})
	}
}

func TestPillarOpts(t *testing.T) {
	dir := tree(t, map[string]string{"pillar/top.sls": "base:\n  '*': [a]\n", "pillar/a.sls": "a: 1\n"})
	opts := testOpts(t, dir, `{"pillar_opts": true}`)
	p, err := pillar.Compile(pillar.Options{Opts: opts, MinionID: "m1", Grains: value.MapOf("id", "m1"), Render: pillar.Renderers{}.Render()})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{"master:id": "m1", "master:saltversion": pillar.SaltVersion, "master:file_client": "local", "a": int64(1)} {
		if got, _ := value.Traverse(p, path, ":"); !value.Equal(got, want) {
			t.Errorf("%s = %s, want %s", path, value.Repr(got), value.Repr(want))
		}
	}
	if _, ok := value.Traverse(p, "master:grains", ":"); ok {
		t.Error("master:grains present")
	}
	if opts.Has("minion_id") {
		t.Error("Compile modified the caller's options")
	}
}

func TestNoRenderer(t *testing.T) {
	if _, err := pillar.Compile(pillar.Options{}); err != pillar.ErrNoRenderer {
		t.Fatalf("err = %v", err)
	}
}

func TestParseOverride(t *testing.T) {
	if _, err := pillar.ParseOverride(value.NewList(int64(1)), ""); err == nil || err.Error() != "Pillar data must be formatted as a dictionary, unless pillar_enc is specified." {
		t.Fatalf("err = %v", err)
	}
	if v, err := pillar.ParseOverride("cipher", "gpg"); err != nil || v != "cipher" {
		t.Fatalf("with pillar_enc: %v %v", v, err)
	}
	if v, err := pillar.ParseOverride(nil, ""); err != nil || v != nil {
		t.Fatalf("nil: %v %v", v, err)
	}
}

// TestOddInputsDoNotPanic feeds malformed top files and SLS to Compile.
func TestOddInputsDoNotPanic(t *testing.T) {
	tops := []string{
		"- a\n", "base: [a]\n", "base: a\n", "base:\n  1: [a]\n", "base:\n  '*': {a: 1}\n",
		"base:\n  '*': a\n", "base:\n  '*': [1, {match: 5}, {order: x}, ~]\n", "include: 5\nbase:\n  '*': [a]\n",
		"include: [top]\n", "base:\n  '*': [{}]\n", "42\n", "base: ~\n", "base:\n  '*': [a]\nother: [1]\n",
	}
	slss := []string{
		"include: [{}]\n", "include: [{a: ~}]\n", "include: [{a: {key: ~, defaults: 3}}]\n", "include: [5]\n",
		"include: ['..x']\n", "include: [a]\n", "include: ['*']\n", "include: [{a: {key: ''}}]\n", "include: [.]\n",
	}
	for i, top := range tops {
		for j, sls := range slss {
			dir := tree(t, map[string]string{"pillar/top.sls": top, "pillar/a.sls": sls})
			opts := testOpts(t, dir, "")
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("top %d sls %d: panic %v", i, j, r)
					}
				}()
				compileWith(t, pillar.Options{Opts: opts})
			}()
		}
	}
}
