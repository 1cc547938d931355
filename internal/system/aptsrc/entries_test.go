package aptsrc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEntry(t *testing.T) {
	for _, tc := range []struct {
		line    string
		invalid bool
		typ     string
		uri     string
		comps   string
		archs   string
		signed  string
		out     string // RepoLine without its newline
	}{
		{line: "deb http://deb.example.org/debian bookworm main contrib\n", typ: "deb", uri: "http://deb.example.org/debian", comps: "main contrib",
			out: "deb http://deb.example.org/debian bookworm main contrib"},
		{line: "# deb http://old.example.org/debian bullseye main", typ: "deb", uri: "http://old.example.org/debian", comps: "main",
			out: "# deb http://old.example.org/debian bullseye main"},
		{line: "deb [arch=amd64,i386 signed-by=/k.gpg trusted=yes] https://x.example/r stable main # vendor", typ: "deb", uri: "https://x.example/r",
			comps: "main", archs: "amd64,i386", signed: "/k.gpg", out: "deb [arch=amd64,i386 signed-by=/k.gpg] https://x.example/r stable main # vendor"},
		{line: "deb cdrom:[Debian GNU/Linux 12 _Bookworm_]/ bookworm main", typ: "deb", uri: "cdrom:[Debian GNU/Linux 12 _Bookworm_]/", comps: "main",
			out: "deb cdrom:[Debian GNU/Linux 12 _Bookworm_]/ bookworm main"},
		{line: "deb http://x.example/r ./", typ: "deb", uri: "http://x.example/r", out: "deb http://x.example/r ./ "},
		{line: "# a comment\n", invalid: true, out: "# a comment\n"},
		{line: "\n", invalid: true, out: "\n"},
		{line: "deb [arch=amd64 http://x.example/r stable", invalid: true, out: "deb [arch=amd64 http://x.example/r stable"},
		{line: "deb [arch=amd64] http://x.example/r", invalid: true, out: "deb [arch=amd64] http://x.example/r"},
		{line: "deb-src http://x.example/r", invalid: true, out: "deb-src http://x.example/r"},
	} {
		e := ParseEntry(tc.line, "")
		if e.Invalid != tc.invalid || e.Type != tc.typ || e.URI != tc.uri || strings.Join(e.Comps, " ") != tc.comps ||
			strings.Join(e.Architectures, ",") != tc.archs || e.SignedBy != tc.signed || e.File != DefaultFile {
			t.Errorf("ParseEntry(%q) = %+v", tc.line, e)
		}
		if got := strings.TrimSuffix(e.RepoLine(), "\n"); !tc.invalid && got != tc.out || tc.invalid && e.RepoLine() != tc.out {
			t.Errorf("RepoLine(%q) = %q, want %q", tc.line, e.RepoLine(), tc.out)
		}
	}
}

func TestSourcesListSave(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "etc/apt/sources.list.d/sub")
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(root, "etc/apt/sources.list"), []byte("# keep me\ndeb http://a.example/d s main\n"), 0o644)
	os.WriteFile(filepath.Join(d, "b.list"), []byte("deb http://b.example/d s main\n"), 0o644)
	sl := Load(root)
	if len(sl.Entries) != 3 || sl.Entries[2].File != "/etc/apt/sources.list.d/sub/b.list" {
		t.Fatalf("Load = %+v", sl.Entries)
	}
	sl.Entries[1].Disabled = true
	sl.Remove(2)
	if err := sl.Save(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "etc/apt/sources.list"))
	if string(got) != "# keep me\n# deb http://a.example/d s main\n" {
		t.Errorf("sources.list = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(d, "b.list")); string(got) != "" {
		t.Errorf("b.list = %q, want empty", got)
	}
}
