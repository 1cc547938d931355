package roster_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "brine/internal/renderers" // yaml and jinja for the flat roster

	"brine/internal/ssh/roster"
	"brine/internal/value"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden resolves every target of the rosters in testdata with the
// master's defaults and compares them with the .golden files.
func TestGolden(t *testing.T) {
	o := opts()
	o.Set("roster_defaults", value.MapOf("user", "ops"))
	d := roster.DefaultsFrom(o, "/etc/salt/pki/master/ssh/salt-ssh.rsa")
	flat, err := roster.LoadFlat("testdata/flat.roster", o, nil)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := roster.LoadAnsible("testdata/inventory.ini")
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string]*value.Map{"flat": flat, "inventory": inv.Hosts} {
		var b strings.Builder
		for _, k := range raw.Keys() {
			e, _ := raw.Get(k)
			tg, err := roster.Resolve(value.Str(k), e, o, d)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s: host=%s port=%d user=%s passwd=%q priv=%s sudo=%v sudo_user=%q tty=%v timeout=%g thin_dir=%q ssh_options=%q minion_opts=%s grains=%s\n",
				tg.ID, tg.Host, tg.Port, tg.User, tg.Passwd, tg.Priv, tg.Sudo, tg.SudoUser, tg.TTY, tg.Timeout, tg.ThinDir, tg.SSHOptions,
				value.ToJSON(tg.MinionOpts, value.JSONOptions{Indent: -1}), value.ToJSON(tg.Grains, value.JSONOptions{Indent: -1}))
		}
		golden := filepath.Join("testdata", name+".golden")
		if *update {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", golden, b.String(), want)
		}
	}
}

func writeRoster(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "roster")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func opts() *value.Map {
	return value.MapOf("renderer", "jinja|yaml", "ssh_port", "22", "ssh_user", "root", "ssh_timeout", int64(60), "timeout", int64(5),
		"ssh_list_nodegroups", value.MapOf("webs", value.NewList("web1", "web2")),
		"nodegroups", value.MapOf("dbs", "L@db1"))
}

func TestFlatSelect(t *testing.T) {
	raw, err := roster.LoadFlat("testdata/flat.roster", opts(), nil)
	if err != nil {
		t.Fatal(err)
	}
	grains := map[string]*value.Map{"web3": value.MapOf("os", "Debian"), "db1": value.MapOf("os", "Fedora")}
	cached := func(id string) *value.Map { return grains[id] }
	tests := []struct {
		tgt, kind string
		want      []string
	}{
		{"*", "glob", []string{"db1", "web1", "web2", "web3", "web4"}},
		{"web[12]", "glob", []string{"web1", "web2"}},
		{"web[0-9]$", "pcre", []string{"web1", "web2", "web3", "web4"}},
		{"db1,web4,nope", "list", []string{"db1", "web4"}},
		{"webs", "nodegroup", []string{"web1", "web2"}},
		{"dbs", "nodegroup", []string{"db1"}},
		{"os:Debian", "grain", []string{"web3"}},
		{"os:F.*", "grain_pcre", []string{"db1"}},
		{"none", "nodegroup", nil},
	}
	for _, tc := range tests {
		got, err := roster.Select(raw, tc.tgt, tc.kind, opts(), cached)
		if err != nil {
			t.Errorf("%s %s: %v", tc.kind, tc.tgt, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s = %v, want %v", tc.kind, tc.tgt, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	o := opts()
	o.Set("roster_defaults", value.MapOf("user", "ops", "port", int64(2200)))
	raw, err := roster.LoadFlat("testdata/flat.roster", o, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := roster.DefaultsFrom(o, "/pki/ssh/salt-ssh.rsa")
	get := func(id string) *roster.Target {
		e, _ := raw.Get(id)
		tg, err := roster.Resolve(id, e, o, d)
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	w1 := get("web1")
	if w1.Host != "10.0.0.1" || w1.Port != 2222 || w1.User != "deploy" || !w1.Sudo || w1.SudoUser != "app" || !w1.TTY ||
		w1.Timeout != 5 || w1.Priv != "/keys/web" || w1.ThinDir != "/opt/thin" || len(w1.SSHOptions) != 1 {
		t.Errorf("web1: %+v", w1)
	}
	if v, _ := w1.MinionOpts.Get("log_level"); v != "debug" {
		t.Errorf("web1 minion_opts: %v", w1.MinionOpts)
	}
	if v, _ := w1.Grains.Get("role"); v != "web" {
		t.Errorf("web1 grains: %v", w1.Grains)
	}
	// A bare host, with roster_defaults and the master's defaults.
	w2 := get("web2")
	if w2.Host != "10.0.0.2" || w2.Port != 2200 || w2.User != "ops" || w2.Timeout != 65 || w2.Priv != "/pki/ssh/salt-ssh.rsa" || w2.Sudo {
		t.Errorf("web2: %+v", w2)
	}
	if db := get("db1"); db.Passwd != "secret" || db.Host != "db.example" {
		t.Errorf("db1: %+v", db)
	}
	if v, ok := roster.Option([]string{"UserKnownHostsFile=/dev/null", "stricthostkeychecking no"}, "StrictHostKeyChecking"); !ok || v != "no" {
		t.Errorf("Option = %q %v", v, ok)
	}
}

func TestFlatErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"yaml", "web1:\n  host: a\n port: 1\n", ":3:2: roster: "},
		{"jinja", "{% for %}\n", "roster: "},
		{"list", "- a\n", "roster: the roster must be a mapping of target ids, not list"},
	}
	for _, tc := range tests {
		p := writeRoster(t, tc.body)
		_, err := roster.LoadFlat(p, opts(), nil)
		if err == nil || !strings.HasPrefix(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s...%s", tc.name, err, p, tc.want)
		}
	}
	if _, err := roster.File(value.MapOf("roster_file", "/no/such/roster"), "/etc/salt"); err == nil || err.Error() != `Roster file "/no/such/roster" not found` {
		t.Errorf("File: %v", err)
	}
	if p, err := roster.File(value.NewMap(0), filepath.Dir(writeRoster(t, ""))); err != nil || filepath.Base(p) != "roster" {
		t.Errorf("File default: %q %v", p, err)
	}
}

func TestAnsible(t *testing.T) {
	inv, err := roster.LoadAnsible("testdata/inventory.ini")
	if err != nil {
		t.Fatal(err)
	}
	if got := value.ToJSON(inv.Hosts, value.JSONOptions{Indent: -1, SortKeys: true}); got != `{"d1": {"host": "d1", "minion_opts": {}, "passwd": "s3cret", "priv": "/keys/db"}, "w1": {"host": "10.0.0.1", "minion_opts": {"color": "blue", "tier": "front"}, "port": "2222", "user": "deploy"}, "w2": {"host": "w2", "minion_opts": {"color": "red", "tier": "front"}}}` {
		t.Errorf("hosts: %s", got)
	}
	if got := inv.Groups["prod"]; !reflect.DeepEqual(got, []string{"w1", "w2", "d1"}) {
		t.Errorf("prod: %v", got)
	}
	if _, err := roster.LoadAnsible(writeRoster(t, "[web\nw1\n")); err == nil || !strings.Contains(err.Error(), ":1:1: roster: unterminated section header") {
		t.Errorf("bad section: %v", err)
	}
}

func TestScan(t *testing.T) {
	raw, err := roster.Scan("127.0.0.1,192.0.2.0/30", value.MapOf("ssh_scan_ports", "1", "ssh_scan_timeout", 0.01))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range raw.Keys() {
		ids = append(ids, value.Str(k))
	}
	if !reflect.DeepEqual(ids, []string{"127.0.0.1", "192.0.2.1", "192.0.2.2"}) {
		t.Errorf("scan targets: %v", ids)
	}
}
