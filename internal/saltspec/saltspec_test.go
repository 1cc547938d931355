package saltspec

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		kind   Kind
		full   string
		exists bool
		params string // ParamNames, comma-joined
		kwargs bool
	}{
		{Exec, "test.ping", true, "", false},
		{Exec, "test.pnig", false, "", false},
		{Exec, "file.touch", true, "name,atime,mtime", false},
		{Exec, "test.try", true, "", true}, // __func_alias__ try_ -> try
		{Exec, "test.try_", false, "", false},
		{Exec, "test._get_opts", false, "", false},
		{Exec, "test.__virtual__", false, "", false},
		{State, "file.touch", true, "name,atime,mtime,makedirs", false},
		{State, "file.tuch", false, "", false},
		{Exec, "state.apply", true, "mods", true},
		{State, "module.run", true, "", true},
		{State, "nosuchmodule.present", false, "", false},
		{Exec, "nodot", false, "", false},
	} {
		f, ok := Lookup(tc.kind, tc.full)
		if ok != tc.exists || Exists(tc.kind, tc.full) != tc.exists {
			t.Errorf("Lookup(%v, %q) exists = %v, want %v", tc.kind, tc.full, ok, tc.exists)
			continue
		}
		if !ok {
			continue
		}
		if f.Full() != tc.full {
			t.Errorf("Full() = %q, want %q", f.Full(), tc.full)
		}
		if tc.params != "" {
			if got := strings.Join(f.ParamNames(), ","); !strings.HasPrefix(got, tc.params) {
				t.Errorf("%s params = %q, want prefix %q", tc.full, got, tc.params)
			}
		}
		if f.TakesKwargs() != tc.kwargs {
			t.Errorf("%s TakesKwargs = %v, want %v", tc.full, f.TakesKwargs(), tc.kwargs)
		}
	}
}

func TestModules(t *testing.T) {
	if SaltVersion() != "3006" {
		t.Errorf("SaltVersion = %q", SaltVersion())
	}
	if !strings.Contains(Origin(), "3006") {
		t.Errorf("Origin = %q", Origin())
	}
	// pkg merges the package managers' files.
	m, ok := LookupModule(Exec, "pkg")
	if !ok {
		t.Fatal("no exec module pkg")
	}
	for _, src := range []string{"aptpkg.py", "yumpkg.py", "zypperpkg.py"} {
		if !contains(m.Sources, src) {
			t.Errorf("pkg sources %v lack %s", m.Sources, src)
		}
	}
	inst := m.Functions["install"]
	if len(inst.Specs) < 2 || len(inst.Specs[0].Sources) == 0 {
		t.Errorf("pkg.install specs = %+v, want one per signature with its sources", inst.Specs)
	}
	for _, tc := range []struct {
		kind Kind
		mod  string
		want []string
	}{
		{Exec, "test", []string{"echo", "ping", "try", "version"}},
		{State, "file", []string{"managed", "touch"}},
		{State, "cmd", []string{"run", "script", "wait"}},
	} {
		got := FunctionNames(tc.kind, tc.mod)
		for _, w := range tc.want {
			if !contains(got, w) {
				t.Errorf("FunctionNames(%v, %q) lacks %q", tc.kind, tc.mod, w)
			}
		}
		if !HasModule(tc.kind, tc.mod) || !contains(Modules(tc.kind), tc.mod) {
			t.Errorf("module %v %q not listed", tc.kind, tc.mod)
		}
	}
	if FunctionNames(State, "nosuch") != nil || HasModule(Exec, "nosuch") {
		t.Error("a missing module has functions")
	}
	if got := len(Modules(Exec)); got < 400 {
		t.Errorf("%d execution modules, want 400 or more", got)
	}
}

func TestKeywords(t *testing.T) {
	f, _ := Lookup(Exec, "state.apply")
	kw := f.Keywords()
	for _, w := range []string{"mods", "test", "saltenv", "pillar", "pillarenv", "exclude", "queue", "localconfig"} {
		if !contains(kw, w) {
			t.Errorf("state.apply keywords %v lack %q", kw, w)
		}
	}
	if contains(kw, "tset") {
		t.Error("state.apply takes tset")
	}
}

func TestNotImplemented(t *testing.T) {
	if got, want := NotImplemented(Exec, "file.touch"), "file.touch is a Salt 3006 execution function that brine does not implement yet"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := NotImplemented(State, "archive.extracted"), "archive.extracted is a Salt 3006 state function that brine does not implement yet"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := NotImplemented(Exec, "file.tuch"); got != "" {
		t.Errorf("file.tuch: %q", got)
	}
}

// TestFixture decodes the generator's fixture output with a private table.
func TestFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/gen.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := &db{text: string(b)}
	for _, tc := range []struct {
		kind Kind
		full string
		want []Spec
	}{
		{Exec, "pkg.list", []Spec{{Varargs: "args", Sources: []string{"aptpkg.py"}}}},
		{Exec, "pkg.same", []Spec{{Args: []Param{{Name: "name"}}, Sources: []string{"aptpkg.py", "yumpkg.py"}}}},
		{Exec, "pkg.install", []Spec{
			{Args: []Param{{"name", "None", true}, {"refresh", "False", true}}, KwOnly: []Param{{"fromrepo", "None", true}},
				Kwargs: "kwargs", Reads: []string{"cache_valid_time"}, Sources: []string{"aptpkg.py"}},
			{Args: []Param{{"name", "None", true}, {"refresh", "False", true}, {"skip_verify", "False", true}},
				Kwargs: "kwargs", Sources: []string{"yumpkg.py"}},
		}},
		{Exec, "limited.shown", []Spec{{Args: []Param{{Name: "a"}, {"b", "1", true}}}}},
		{Exec, "shell.same", []Spec{{Args: []Param{{Name: "name"}}}}},
		{State, "file.touch", []Spec{{Args: []Param{{Name: "name"}, {"atime", "None", true}, {"mtime", "None", true}, {"makedirs", "False", true}}}}},
		{State, "file.__call__", []Spec{{Args: []Param{{Name: "name"}}}}},
	} {
		f := d.lookup(tc.kind, tc.full)
		if f == nil {
			t.Errorf("%v %s missing", tc.kind, tc.full)
			continue
		}
		if !reflect.DeepEqual(f.Specs, tc.want) {
			t.Errorf("%v %s = %+v\nwant %+v", tc.kind, tc.full, f.Specs, tc.want)
		}
	}
	run := d.lookup(Exec, "cmd.run_all")
	if run == nil || !reflect.DeepEqual(run.Specs[0].Reads, []string{"localconfig", "saltenv", "shell", "timeout", "umask"}) {
		t.Errorf("cmd.run_all = %+v", run)
	}
	for _, missing := range []string{"pkg.list_", "pkg._private", "pkg.__virtual__", "limited.hidden", "cmdmod.run", "cmd.method"} {
		if d.lookup(Exec, missing) != nil {
			t.Errorf("%s should not be listed", missing)
		}
	}
}

// TestGenerator runs tools/saltspec/gen.py on the fixture tree and compares
// its output with testdata/gen.golden.jsonl.
func TestGenerator(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	out, err := exec.Command(py, filepath.Join("..", "..", "tools", "saltspec", "gen.py"), "--src", "testdata/src", "--origin", "fixture").Output()
	if err != nil {
		t.Fatalf("gen.py: %v", err)
	}
	golden := "testdata/gen.golden.jsonl"
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Errorf("gen.py output differs from %s (rerun with -update):\n%s", golden, out)
	}
}

// TestTableWellFormed decodes every module of the shipped table.
func TestTableWellFormed(t *testing.T) {
	n := 0
	for _, k := range []Kind{Exec, State} {
		for _, mod := range Modules(k) {
			m, ok := LookupModule(k, mod)
			if !ok || len(m.Sources) == 0 {
				t.Errorf("%v module %q: no sources", k, mod)
			}
			n += len(m.Functions)
		}
	}
	if n < 7000 {
		t.Errorf("%d functions, want 7000 or more", n)
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// BenchmarkFirstLookup is the cost a brine run pays the first time it asks:
// indexing the table and decoding one module.
func BenchmarkFirstLookup(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		d := &db{text: data}
		if d.lookup(State, "file.managed") == nil {
			b.Fatal("no file.managed")
		}
	}
}

// BenchmarkIndex is the cost of indexing the table alone.
func BenchmarkIndex(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		d := &db{text: data}
		d.index()
	}
}

// BenchmarkLookup is a lookup once the module is decoded.
func BenchmarkLookup(b *testing.B) {
	b.ReportAllocs()
	std.lookup(State, "file.managed")
	for b.Loop() {
		if std.lookup(State, "file.managed") == nil {
			b.Fatal("no file.managed")
		}
	}
}

// BenchmarkDecodeAll decodes every module: what parsing the whole table up
// front would cost each run.
func BenchmarkDecodeAll(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		d := &db{text: data}
		d.index()
		for k := range d.names {
			for _, m := range d.names[k] {
				d.module(Kind(k), m)
			}
		}
	}
}

func TestInvalidKwargs(t *testing.T) {
	for _, tt := range []struct {
		fun  string
		keys []string
		want string
	}{
		{"test.ping", []string{"foo"}, "foo"},
		{"test.ping", []string{"__pub_jid"}, ""},
		{"cmd.run", []string{"cmd", "cwd", "nope"}, ""}, // cmd.run takes **kwargs
		{"test.echo", []string{"text", "x", "y"}, "x,y"},
		{"nosuch.fun", []string{"x"}, ""},
	} {
		if got := strings.Join(InvalidKwargs(tt.fun, tt.keys), ","); got != tt.want {
			t.Errorf("InvalidKwargs(%s, %v) = %q, want %q", tt.fun, tt.keys, got, tt.want)
		}
	}
}
