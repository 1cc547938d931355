package states_test

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

func TestIniStates(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "app.ini")
	os.WriteFile(p, []byte("top = 1\n# a comment\n[main]\nkey = old\n#port = 80\n\n[extra]\nx = 1\n"), 0o644)
	ctx := execmod.NewContext()
	read := func() string { b, _ := os.ReadFile(p); return string(b) }

	ret := sysCase{"ini.options_present", value.MapOf("name", p, "sections", value.MapOf(
		"top", "2", "main", value.MapOf("key", "new", "port", int64(8080)), "added", value.MapOf("a", "b"))), true, "Changes take effect"}.check(t, ctx)
	want := "{'top': {'before': '1', 'after': '2'}, 'main': {'key': {'before': 'old', 'after': 'new'}, 'port': {'before': None, 'after': '8080'}}, 'added': {'before': None, 'after': {'a': 'b'}}}"
	if got := value.Repr(getMap(ret, "changes")); got != want {
		t.Errorf("changes\n got %s\nwant %s", got, want)
	}
	if got, want := read(), "top = 2\n# a comment\n\n[main]\nkey = new\nport = 8080\n\n[extra]\nx = 1\n\n[added]\na = b\n"; got != want {
		t.Errorf("file\n got %q\nwant %q", got, want)
	}
	tr := sysRun(t, ctx, "ini.options_present", value.MapOf("name", p, "sections", value.MapOf("main", value.MapOf("key", "new"))), true)
	if str(tr, "comment") != "Unchanged key key in section main.\n" || str(tr, "result") != "True" {
		t.Errorf("test mode unchanged: %s", value.Repr(tr))
	}
	sysCase{"ini.options_absent", value.MapOf("name", p, "sections", value.MapOf("main", value.NewList("port"))), true, "Changes take effect"}.check(t, ctx)
	sysCase{"ini.sections_absent", value.MapOf("name", p, "sections", value.NewList("extra")), true, "Changes take effect"}.check(t, ctx)
	sysCase{"ini.sections_present", value.MapOf("name", p, "sections", value.MapOf("new", value.MapOf("k", "v"))), true, "Changes take effect"}.check(t, ctx)
	if got, want := read(), "top = 2\n# a comment\n\n[main]\nkey = new\n\n[added]\na = b\n\n[new]\nk = v\n"; got != want {
		t.Errorf("file at the end\n got %q\nwant %q", got, want)
	}
}
