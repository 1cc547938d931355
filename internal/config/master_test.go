package config

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

func TestLoadMaster(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "master.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "master"), []byte("ret_port: 4999\nfile_roots:\n  base: [/srv/x]\nnodegroups:\n  webs: 'web*'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "master.d", "a.conf"), []byte("auto_accept: True\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadMaster(dir, value.MapOf("timeout", int64(9)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want any
	}{
		{"ret_port", int64(4999)},
		{"auto_accept", true},
		{"timeout", int64(9)},
		{"pki_dir", "/etc/salt/pki/master"},
		{"cachedir", "/var/cache/salt/master"},
		{"tls", true},
		{"__role", "master"},
		{"job_catchup_window", int64(600)},
	} {
		if got, _ := c.Get(tc.key); !value.Equal(got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.key, value.Repr(got), value.Repr(tc.want))
		}
	}
	if r := c.FileRoots(); len(r) != 1 || r[0].Env != "base" {
		t.Errorf("file_roots = %+v", r)
	}
	if c.Map("nodegroups").Len() != 1 {
		t.Error("nodegroups lost")
	}
	// A missing directory means defaults.
	d, err := LoadMaster(filepath.Join(dir, "nope"), nil)
	if err != nil || d.String("interface") != "0.0.0.0" {
		t.Errorf("defaults: %v %q", err, d.String("interface"))
	}
}
