package config

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// Load logs the files it reads in Salt's words, at debug.
func TestLoadLogsFilesRead(t *testing.T) {
	old := slog.Default()
	defer slog.SetDefault(old)
	var buf bytes.Buffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "minion.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "minion"), []byte("id: m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "minion.d", "a.conf"), []byte("log_file: /tmp/x.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir, value.MapOf("test", true))
	if err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		`msg="Reading configuration from ` + filepath.Join(dir, "minion") + `"`,
		`msg="Including configuration from '` + filepath.Join(dir, "minion.d", "a.conf") + `'"`,
		`msg="Reading configuration from ` + filepath.Join(dir, "minion.d", "a.conf") + `"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
	for key, want := range map[string]bool{"id": true, "log_file": true, "test": true, "log_level": false} {
		if c.FromFile(key) != want {
			t.Errorf("FromFile(%q) = %v, want %v", key, !want, want)
		}
	}

	buf.Reset()
	if _, err := Load(filepath.Join(dir, "nowhere"), nil); err != nil {
		t.Fatal(err)
	}
	if want := `msg="Missing configuration file: ` + filepath.Join(dir, "nowhere", "minion") + `"`; !strings.Contains(buf.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, buf.String())
	}
}
