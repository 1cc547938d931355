package master

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

func TestWarnGrainPillar(t *testing.T) {
	for _, tc := range []struct {
		top  string
		warn bool
	}{
		{"base:\n  'web*': [web]\n", false},
		{"base:\n  'G@roles:db': [db]\n", true},
		{"base:\n  'roles:db':\n    - match: grain\n    - db\n", true},
		{"base:\n  'web* and P@os:Deb.*': [x]\n", true},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "top.sls"), []byte(tc.top), 0o644); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		m := &Master{Opts: value.MapOf("pillar_roots", value.MapOf("base", value.NewList(dir))), Log: slog.New(slog.NewTextHandler(&buf, nil))}
		m.warnGrainPillar()
		if got := strings.Contains(buf.String(), "targets by grain"); got != tc.warn {
			t.Errorf("%q: warned %v, want %v", tc.top, got, tc.warn)
		}
	}
}
