package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUnderRoot: salt.config.prepend_root_dir's placements (values
// checked with Salt 3006's function).
func TestUnderRoot(t *testing.T) {
	for _, tt := range []struct{ root, path, want string }{
		{"/", "/var/cache/salt/minion", "/var/cache/salt/minion"},
		{"/", "/tmp/a/../b/", "/tmp/b"},
		{"/", "cache", "/cache"},
		{"/srv/r", "/var/cache/salt/minion", "/srv/r/var/cache/salt/minion"},
		{"/srv/r", "/srv/r/cache", "/srv/r/cache"},
		{"/srv/r", "/srv/r", "/srv/r/srv/r"},
		{"/srv/r", "rel/dir", "/srv/r/rel/dir"},
		{"/srv/r", "", "/srv/r"},
	} {
		if got := underRoot(tt.root, tt.path); got != tt.want {
			t.Errorf("underRoot(%q, %q) = %q, want %q", tt.root, tt.path, got, tt.want)
		}
	}
}

// TestRootDir: root_dir moves Salt's path options under it, the default
// extension_modules included, but not the roots, URL log files or paths
// that are not in Salt's list.
func TestRootDir(t *testing.T) {
	dir := t.TempDir()
	conf := "root_dir: /tmp/rt\nlog_file: udp://loghost:514\nkey_logfile: /var/log/salt/key\nfile_roots: {base: [/srv/salt]}\n"
	if err := os.WriteFile(filepath.Join(dir, "minion"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"cachedir":          "/tmp/rt/var/cache/salt/minion",
		"extension_modules": "/tmp/rt/var/cache/salt/minion/extmods",
		"pki_dir":           "/tmp/rt/etc/salt/pki/minion",
		"sock_dir":          "/tmp/rt/var/run/salt/minion", // 20 bytes, cachedir 22
		"log_file":          "udp://loghost:514",
		"key_logfile":       "/tmp/rt/var/log/salt/key",
	} {
		if got := c.String(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if got := c.Cachedir(); got != "/tmp/rt/var/cache/salt/minion" {
		t.Errorf("Cachedir() = %q", got)
	}

	// Recorded from Salt 3006: a cachedir equal to root_dir is placed
	// under it once more, and the default sock_dir, longer than that
	// cachedir by more than 10 bytes, moves into it first.
	conf = "root_dir: /tmp/rt\ncachedir: /tmp/rt\n"
	if err := os.WriteFile(filepath.Join(dir, "minion"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err = Load(dir, nil); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"cachedir": "/tmp/rt/tmp/rt",
		"sock_dir": "/tmp/rt/.salt-unix",
		"pidfile":  "/tmp/rt/var/run/salt-minion.pid",
	} {
		if got := c.String(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
}
