package runners

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "brine/internal/builtin"
	"brine/internal/execmod"
	"brine/internal/fleet/client"
	"brine/internal/fleet/keys"
	"brine/internal/statemod"
	"brine/internal/value"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// noMaster is a Dial that fails: these runners must not need a master.
func noMaster(*value.Map) (*client.Client, error) { return nil, errors.New("no master in this test") }

// testContext is a runner context on master options read from YAML.
func testContext(t *testing.T, optsYAML string) (*Context, *bytes.Buffer) {
	t.Helper()
	opts := value.NewMap(0)
	if optsYAML != "" {
		opts = yamlMap(t, optsYAML)
	}
	c := NewContext(context.Background(), opts)
	c.Dial = noMaster
	var out bytes.Buffer
	c.Stdout = &out
	return c, &out
}

func call(t *testing.T, c *Context, fun string, args []any, kw *value.Map) any {
	t.Helper()
	ret, err := c.Call(fun, args, kw)
	if err != nil {
		t.Fatalf("%s: %v", fun, err)
	}
	return ret
}

func TestRegistry(t *testing.T) {
	for _, n := range Default.Names() {
		if e, _ := Default.Lookup(n); e.Doc == "" || strings.Contains(e.Doc, "TODO") {
			t.Errorf("%s has no doc", n)
		}
	}
	for _, want := range []string{"manage.status", "manage.up", "manage.down", "manage.present", "manage.not_present",
		"manage.alived", "manage.list_state", "jobs.list_jobs", "jobs.lookup_jid", "jobs.list_job", "jobs.print_job",
		"jobs.active", "jobs.last_run", "fileserver.file_list", "fileserver.dir_list", "fileserver.envs", "salt.cmd",
		"test.arg", "test.sleep", "state.orchestrate", "state.orch", "state.sls"} {
		if _, ok := Default.Lookup(want); !ok {
			t.Errorf("%s is not registered", want)
		}
	}
	for name, want := range map[string]string{"manage.stauts": "manage.status", "jobs.lookup": "jobs.lookup_jid", "state.orchestra": "state.orchestrate", "zzz.qqq": ""} {
		if got := Default.Suggest(name); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
	c, _ := testContext(t, "")
	_, err := c.Call("manage.stauts", nil, nil)
	if err == nil || err.Error() != "'manage.stauts' is not available. Did you mean 'manage.status'?" {
		t.Errorf("unknown runner: %v", err)
	}
	if got := Default.Docs("fileserver.*").Keys(); len(got) != 3 {
		t.Errorf("Docs(fileserver.*): %v", got)
	}
	for _, bad := range []string{"nodot", ".x", "x.", "a b.c"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", bad)
				}
			}()
			NewRegistry().Register(bad, testArg, "doc")
		}()
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a duplicate Register did not panic")
			}
		}()
		r := NewRegistry()
		r.Register("a.b", testArg, "doc")
		r.Register("a.b", testArg, "doc")
	}()
}

// TestOrchestrationStatesOnly: the salt state module is in the
// orchestration registry and not in the minions'.
func TestOrchestrationStatesOnly(t *testing.T) {
	orch := OrchestrationStates()
	for _, n := range []string{"salt.state", "salt.function", "salt.runner", "salt.wheel", "salt.wait_for_event"} {
		if statemod.Default.Has(n) {
			t.Errorf("minions have %s", n)
		}
		if !orch.Has(n) {
			t.Errorf("orchestration lacks %s", n)
		}
	}
	for _, n := range statemod.Default.Names() {
		if !orch.Has(n) {
			t.Errorf("orchestration lacks the minion state %s", n)
		}
	}
	// Outside orchestration (no runner context) the salt states fail.
	f, _ := orch.Lookup("salt.function")
	args, _ := f.BindArgs(value.MapOf("name", "test.ping", "tgt", "*"))
	if _, err := f.Run(&statemod.Call{Fun: f, Args: args, Env: &statemod.Env{Exec: execmod.NewContext()}}); !errors.Is(err, errNotMaster) {
		t.Errorf("salt.function outside orchestration: %v", err)
	}
}

func TestTestRunners(t *testing.T) {
	c, out := testContext(t, "")
	kw := value.MapOf("a", "b", "__pub_user", "root")
	if got := value.ToJSON(call(t, c, "test.arg", []any{int64(1), "x"}, kw), value.JSONOptions{Indent: -1}); got != `{"args": [1, "x"], "kwargs": {"a": "b"}}` {
		t.Errorf("test.arg: %s", got)
	}
	if got := value.ToJSON(call(t, c, "test.raw_arg", nil, kw), value.JSONOptions{Indent: -1}); got != `{"args": [], "kwargs": {"a": "b", "__pub_user": "root"}}` {
		t.Errorf("test.raw_arg: %s", got)
	}
	if got := call(t, c, "test.metasyntactic", []any{"uk"}, nil); value.Str(got) != "['wibble', 'wobble', 'wubble', 'flob']" {
		t.Errorf("test.metasyntactic uk: %s", value.Str(got))
	}
	if got := call(t, c, "test.sleep", []any{int64(0)}, nil); got != true || out.String() != "0\n" {
		t.Errorf("test.sleep 0: %v, printed %q", got, out.String())
	}
	if _, err := c.Call("test.sleep", []any{"soon"}, nil); err == nil {
		t.Error("test.sleep soon: no error")
	}
	out.Reset()
	if got := call(t, c, "test.stdout_print", nil, nil); got != "bar" || out.String() != "foo\n" {
		t.Errorf("test.stdout_print: %v %q", got, out.String())
	}
}

func TestSaltCmd(t *testing.T) {
	dir := t.TempDir()
	c, _ := testContext(t, "id: mm\ncachedir: "+dir+"\nfile_roots: {base: ["+dir+"]}\n")
	if got := call(t, c, "salt.cmd", []any{"test.echo", "hi"}, nil); got != "hi" {
		t.Errorf("salt.cmd test.echo: %v", got)
	}
	// The master's own minion: its id, the master's options.
	if got := call(t, c, "salt.cmd", []any{"config.get", "id"}, nil); got != "mm" {
		t.Errorf("salt.cmd config.get id: %v", got)
	}
	if got := call(t, c, "salt.cmd", nil, value.MapOf("fun", "test.arg", "x", int64(1), "__pub_jid", "1")); value.Str(got) != "{'args': (), 'kwargs': {'x': 1}}" {
		t.Errorf("salt.cmd fun=test.arg: %s", value.Str(got))
	}
	if got := call(t, c, "salt.cmd", []any{"nope.nothing"}, nil); got != "'nope.nothing' is not available." {
		t.Errorf("salt.cmd unknown: %v", got)
	}
	if _, err := c.Call("salt.cmd", nil, nil); err == nil {
		t.Error("salt.cmd without fun: no error")
	}
}

func TestMinionID(t *testing.T) {
	host, _ := os.Hostname()
	for opts, want := range map[string]string{"id: boss": "boss", "": host + "_master"} {
		c, _ := testContext(t, opts)
		if got := c.MinionID(); got != want {
			t.Errorf("%q: MinionID %q, want %q", opts, got, want)
		}
	}
}

// writeTree writes files (path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFileserver(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"base/top.sls": "", "base/web/init.sls": "", "base/web/files/nginx.conf": "",
		"base/skip/keep/x": "", "extra/more.sls": "", "dev/dev.sls": "",
	})
	if err := os.MkdirAll(filepath.Join(dir, "base/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "dev"), filepath.Join(dir, "base/linked")); err != nil {
		t.Fatal(err)
	}
	opts := "file_roots:\n  base: [" + dir + "/base, " + dir + "/extra]\n  dev: [" + dir + "/dev]\nfile_ignore_glob: ['skip']\n"
	c, _ := testContext(t, opts)
	cases := []struct {
		fun  string
		args []any
		kw   *value.Map
		want string
	}{
		{"fileserver.envs", nil, nil, "['base', 'dev']"},
		{"fileserver.file_list", nil, nil, "['linked/dev.sls', 'more.sls', 'skip/keep/x', 'top.sls', 'web/files/nginx.conf', 'web/init.sls']"},
		{"fileserver.file_list", []any{"dev"}, nil, "['dev.sls']"},
		{"fileserver.file_list", nil, value.MapOf("saltenv", "nosuch"), "[]"},
		// An ignored directory is left out, not what is below it.
		{"fileserver.dir_list", nil, nil, "['empty', 'linked', 'skip/keep', 'web', 'web/files']"},
		{"fileserver.dir_list", nil, value.MapOf("saltenv", "dev", "backend", "roots"), "[]"},
	}
	for _, tc := range cases {
		kw := tc.kw
		if kw == nil {
			kw = value.NewMap(0)
		}
		if got := value.Str(call(t, c, tc.fun, tc.args, kw)); got != tc.want {
			t.Errorf("%s %v %v = %s, want %s", tc.fun, tc.args, value.Str(kw), got, tc.want)
		}
	}
	if _, err := c.Call("fileserver.file_list", nil, value.MapOf("backend", "gitfs")); err == nil {
		t.Error("backend=gitfs: no error")
	}
	// Without following symlinks the link is listed, not descended.
	c2, _ := testContext(t, opts+"fileserver_followsymlinks: False\n")
	if got := value.Str(call(t, c2, "fileserver.dir_list", nil, nil)); got != "['empty', 'linked', 'skip/keep', 'web', 'web/files']" {
		t.Errorf("dir_list without following links: %s", got)
	}
}

func TestWheelKeys(t *testing.T) {
	pki := t.TempDir()
	store, err := keys.OpenStore(pki)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"web1", "web2", "db1", "Bad"} {
		kp, _ := keys.LoadOrCreate(filepath.Join(t.TempDir(), id+".nk"))
		pub, _ := kp.PublicKey()
		if _, err := store.Submit(id, pub, id == "db1"); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Move("Bad", keys.Pending, keys.Rejected); err != nil {
		t.Fatal(err)
	}
	writeTree(t, pki, map[string]string{"master.pub": "x", "master.nk": "y"})
	c, _ := testContext(t, "pki_dir: "+pki)
	steps := []struct {
		fun  string
		kw   *value.Map
		want string
	}{
		{"key.list_all", nil, "{'minions': ['db1'], 'minions_pre': ['web1', 'web2'], 'minions_rejected': ['Bad'], 'minions_denied': [], 'local': ['master.pub']}"},
		{"key.name_match", value.MapOf("match", "web*,db1"), "{'minions': ['db1'], 'minions_pre': ['web1', 'web2']}"},
		{"key.list", value.MapOf("match", "unaccepted"), "{'minions_pre': ['web1', 'web2']}"},
		{"key.accept", value.MapOf("match", "web1"), "{'minions': ['web1']}"},
		// A rejected key is accepted only with include_rejected.
		{"key.accept", value.MapOf("match", "Bad"), "{'minions_rejected': ['Bad']}"},
		{"key.accept", value.MapOf("match", "Bad", "include_rejected", true), "{'minions': ['Bad']}"},
		{"key.reject", value.MapOf("match", "web*"), "{'minions': ['web1'], 'minions_rejected': ['web2']}"},
		{"key.reject", value.MapOf("match", "web1", "include_accepted", true), "{'minions_rejected': ['web1']}"},
		{"key.delete", value.MapOf("match", "web*"), "{}"},
		{"key.list_all", nil, "{'minions': ['Bad', 'db1'], 'minions_pre': [], 'minions_rejected': [], 'minions_denied': [], 'local': ['master.pub']}"},
	}
	for _, s := range steps {
		kw := s.kw
		if kw == nil {
			kw = value.NewMap(0)
		}
		got, err := c.Wheel(s.fun, nil, kw)
		if err != nil {
			t.Fatalf("%s: %v", s.fun, err)
		}
		if value.Str(got) != s.want {
			t.Errorf("%s %s = %s, want %s", s.fun, value.Str(kw), value.Str(got), s.want)
		}
	}
	if _, err := c.Wheel("key.nosuch", nil, nil); err == nil || err.Error() != "'key.nosuch' is not available." {
		t.Errorf("unknown wheel function: %v", err)
	}
}
