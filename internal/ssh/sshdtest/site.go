package sshdtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Brine builds cmd/brine once per test process (the binary brine ssh
// sends: the test binary itself cannot act as brine on a target). The
// build is left in the user's cache directory for the next test process
// to remove.
func Brine(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = err
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(out)))
		// One directory per test process, under a parent in the user's
		// cache directory (beside Go's build cache); those of processes
		// that have ended are removed here.
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		parent := filepath.Join(cache, "brine", "ssh-test-bin")
		_ = os.MkdirAll(parent, 0o755)
		if ents, err := os.ReadDir(parent); err == nil {
			for _, e := range ents {
				if pid, err := strconv.Atoi(e.Name()); err == nil && syscall.Kill(pid, 0) != nil {
					_ = os.RemoveAll(filepath.Join(parent, e.Name()))
				}
			}
		}
		dir := filepath.Join(parent, strconv.Itoa(os.Getpid()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "brine")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/brine")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/brine: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Host is one target of a Site: its server, the directory its states
// write to and its thin_dir.
type Host struct {
	ID     string
	Server *Server
	Root   string
	Thin   string
}

// Site is a controller's config directory (master, roster, state and
// pillar trees, key, known_hosts) and one sshd per host.
type Site struct {
	Dir       string // the site's root
	ConfigDir string // holds master and roster
	Key       Key
	Bin       string
	Hosts     map[string]*Host
	// Entries are the roster entries written by WriteRoster, by id.
	Entries map[string]string
}

// Formula is the small state tree every site carries: two files under the
// host's root (one from a salt:// template), a command, per-target pillar.
var Formula = map[string]string{
	"states/top.sls": "base:\n  '*':\n    - hello\n",
	"states/hello.sls": `{% set root = pillar['root'] %}
{{ root }}/hello.txt:
  file.managed:
    - contents: {{ pillar['greeting'] }}
    - makedirs: True

{{ root }}/motd:
  file.managed:
    - source: salt://files/motd.j2
    - template: jinja
    - makedirs: True

{% if pillar.get('slow') %}
slow:
  cmd.run:
    - name: touch {{ root }}/started && sleep 60
{% endif %}
`,
	"states/files/motd.j2": "Welcome to {{ grains['id'] }} ({{ pillar['greeting'] }})\n",
	"pillar/top.sls":       "base:\n  '*':\n    - common\n",
	"pillar/common.sls": `greeting: hello {{ grains['id'] }}
root: @ROOT@/{{ grains['id'] }}
{% if grains['id'] == 'slow' %}
slow: True
{% endif %}
`,
}

// NewSite builds a site with a server per id (all trusted in
// known_hosts, all accepting the site's key as root).
func NewSite(t testing.TB, ids ...string) *Site {
	t.Helper()
	Skip(t)
	dir := t.TempDir()
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(filepath.Dir(dir), 0o755)
	s := &Site{Dir: dir, ConfigDir: filepath.Join(dir, "conf"), Bin: Brine(t), Hosts: map[string]*Host{}, Entries: map[string]string{}}
	for _, d := range []string{s.ConfigDir, filepath.Join(dir, "pki"), filepath.Join(dir, "roots")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Join(dir, "roots"), 0o777)
	s.Key = NewKey(t, dir, "id_ed25519")
	for name, body := range Formula {
		p := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(body, "@ROOT@", filepath.Join(dir, "roots"))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	master := fmt.Sprintf(`file_roots:
  base:
    - %[1]s/states
pillar_roots:
  base:
    - %[1]s/pillar
cachedir: %[1]s/cache
pki_dir: %[1]s/pki
known_hosts_file: %[1]s/known_hosts
ssh_priv: %[2]s
ssh_brine_binaries:
  x86_64: %[3]s
  aarch64: %[3]s-arm64-missing
`, dir, s.Key.Priv, s.Bin)
	if err := os.WriteFile(filepath.Join(s.ConfigDir, "master"), []byte(master), 0o644); err != nil {
		t.Fatal(err)
	}
	var known []string
	for _, id := range ids {
		h := s.AddHost(t, id, Options{Authorized: []string{s.Key.Authorized}})
		known = append(known, h.Server.KnownHostsLine())
	}
	s.WriteKnownHosts(t, known...)
	s.WriteRoster(t)
	return s
}

// AddHost starts a server for id and adds its roster entry (root login
// with the site's key, its own thin_dir).
func (s *Site) AddHost(t testing.TB, id string, o Options) *Host {
	t.Helper()
	srv := Start(t, s.Dir, o)
	h := &Host{ID: id, Server: srv, Root: filepath.Join(s.Dir, "roots", id), Thin: filepath.Join(srv.Dir, "thin")}
	s.Hosts[id] = h
	s.Entries[id] = fmt.Sprintf("  host: 127.0.0.1\n  port: %d\n  user: root\n  thin_dir: %s\n", srv.Port, h.Thin)
	return h
}

// WriteKnownHosts writes the known_hosts file.
func (s *Site) WriteKnownHosts(t testing.TB, lines ...string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.Dir, "known_hosts"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// WriteRoster writes conf/roster from Entries.
func (s *Site) WriteRoster(t testing.TB) {
	t.Helper()
	ids := make([]string, 0, len(s.Entries))
	for id := range s.Entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%s:\n%s", id, s.Entries[id])
	}
	if err := os.WriteFile(filepath.Join(s.ConfigDir, "roster"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
