package api

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

// The hashes were made by openssl passwd and glibc's crypt(3) (through
// Python's crypt), for the password below.
const pw = "pa:ss wörd"

func TestCryptMatch(t *testing.T) {
	for _, tc := range []struct {
		name, hash string
		ok         bool
	}{
		{"md5-crypt", "$1$saltsalt$u8S/zMcc69bB5O/reTbvT/", true},
		{"apr1", "$apr1$saltsalt$57M75mtJHnRrcuily51CO0", true},
		{"sha256-crypt", "$5$saltsalt$f3/UQ15npnSs4Vv7.Xos27TA1i1CpdMGT34D5fPQuj5", true},
		{"sha512-crypt", "$6$saltsalt$C4RIzsZQIZD5.VEF3opYL3gpxyszQ5ZhzXA6QVzJgu5AFkGPMkRyVj.ao7MicoMK9iVtJ6ezaZhxMP8Sj1Ymr0", true},
		{"bcrypt", "$2b$05$abcdefghijklmnopqrstuuHYAqSTZaD2G3ZsfHYCUGgOo5vA33Sre", true},
		{"bcrypt 2y", "$2y$05$abcdefghijklmnopqrstuuHYAqSTZaD2G3ZsfHYCUGgOo5vA33Sre", true},
		{"wrong sha512", "$6$saltsalt$C4RIzsZQIZD5.VEF3opYL3gpxyszQ5ZhzXA6QVzJgu5AFkGPMkRyVj.ao7MicoMK9iVtJ6ezaZhxMP8Sj1Ymr1", false},
		{"locked", "!$6$saltsalt$C4RIzsZQIZD5.VEF3opYL3gpxyszQ5ZhzXA6QVzJgu5AFkGPMkRyVj.ao7MicoMK9iVtJ6ezaZhxMP8Sj1Ymr0", false},
		{"disabled", "*", false},
		{"empty", "", false},
		{"yescrypt (Debian 12's default)", "$y$j9T$abcdefghijklmnop$/Az7UBeS6i1VjhsBK5rTcI81.ZS8xJ49D2ecer2UYQ0", true},
	} {
		if got := cryptMatch(pw, tc.hash); got != tc.ok {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.ok)
		}
		if tc.ok && cryptMatch(pw+"x", tc.hash) {
			t.Errorf("%s: a wrong password matches", tc.name)
		}
	}
}

func write(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFileBackend(t *testing.T) {
	text := write(t, "users", "alice:s3cret wörd\nbob:other\nalice:second\n")
	sha := write(t, "users.sha", "carol|x|f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7\n")
	ht := write(t, "htpasswd", "sha:{SHA}cRQ3iPZN/cUFUyAxdC91S5hcXvA=\napr:$apr1$saltsalt$57M75mtJHnRrcuily51CO0\nbc:$2y$05$abcdefghijklmnopqrstuuHYAqSTZaD2G3ZsfHYCUGgOo5vA33Sre\n")
	hd := write(t, "htdigest", "alice:realm1:9ed6dc569621426376aeed1f1fbf1458\n")
	for _, tc := range []struct {
		name, conf, user, pass string
		ok                     bool
	}{
		{"text", "{^filename: " + text + "}", "alice", "s3cret wörd", true},
		{"text colon in password", "{^filename: " + write(t, "c", "alice:"+pw+"\n") + "}", "alice", pw, false}, // fields split at every separator, as Salt's
		{"text wrong", "{^filename: " + text + "}", "alice", "second", false},                                  // the first line naming the user decides
		{"text other user", "{^filename: " + text + "}", "bob", "other", true},
		{"text unknown", "{^filename: " + text + "}", "eve", pw, false},
		{"text sha256 fields", "{^filename: " + sha + ", ^hashtype: sha256, ^field_separator: '|', ^password_field: 3}", "carol", "hunter2", true},
		{"text sha256 wrong", "{^filename: " + sha + ", ^hashtype: sha256, ^field_separator: '|', ^password_field: 3}", "carol", "hunter3", false},
		{"htpasswd sha", "{^filename: " + ht + ", ^filetype: htpasswd}", "sha", pw, true},
		{"htpasswd apr1", "{^filename: " + ht + ", ^filetype: htpasswd}", "apr", pw, true},
		{"htpasswd bcrypt", "{^filename: " + ht + ", ^filetype: htpasswd}", "bc", pw, true},
		{"htpasswd wrong", "{^filename: " + ht + ", ^filetype: htpasswd}", "bc", "x", false},
		{"htdigest", "{^filename: " + hd + ", ^filetype: htdigest, ^realm: realm1}", "alice", pw, true},
		{"htdigest no realm", "{^filename: " + hd + ", ^filetype: htdigest}", "alice", pw, false},
		{"no filename", "{alice: [.*]}", "alice", pw, false},
		{"missing file", "{^filename: /nonexistent/users}", "alice", pw, false},
	} {
		conf := mustYAML(t, tc.conf).(*value.Map)
		if got := (fileBackend{}).auth(conf, tc.user, tc.pass); got != tc.ok {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.ok)
		}
	}
}

func TestPAMShadow(t *testing.T) {
	shadow := write(t, "shadow", "root:*:19000:0:99999:7:::\n"+
		"alice:$6$saltsalt$C4RIzsZQIZD5.VEF3opYL3gpxyszQ5ZhzXA6QVzJgu5AFkGPMkRyVj.ao7MicoMK9iVtJ6ezaZhxMP8Sj1Ymr0:19000:0:99999:7:::\n"+
		"gone:$6$saltsalt$C4RIzsZQIZD5.VEF3opYL3gpxyszQ5ZhzXA6QVzJgu5AFkGPMkRyVj.ao7MicoMK9iVtJ6ezaZhxMP8Sj1Ymr0:19000:0:99999:7::100:\n"+
		"locked:!$1$saltsalt$u8S/zMcc69bB5O/reTbvT/:19000:0:99999:7:::\n")
	b := pamBackend{shadow: shadow}
	for _, tc := range []struct {
		user, pass string
		ok         bool
	}{
		{"alice", pw, true},
		{"alice", "wrong", false},
		{"alice", "", false},
		{"root", "", false},
		{"gone", pw, false}, // the account expired in 1970
		{"locked", pw, false},
		{"nobody-here", pw, false},
	} {
		if got := b.auth(nil, tc.user, tc.pass); got != tc.ok {
			t.Errorf("%s/%q: %v, want %v", tc.user, tc.pass, got, tc.ok)
		}
	}
	if g := (pamBackend{}).groups(nil, "root"); len(g) == 0 || g[0] != "root" {
		t.Errorf("groups of root: %v", g)
	}
}

func TestTokenStore(t *testing.T) {
	s := tokenStore{dir: filepath.Join(t.TempDir(), "tokens")}
	live := &Token{Start: now(), Expire: now() + 60, Name: "alice", Eauth: "pam"}
	dead := &Token{Start: now() - 120, Expire: now() - 60, Name: "bob", Eauth: "pam"}
	for _, tk := range []*Token{live, dead} {
		if err := s.create(tk); err != nil {
			t.Fatal(err)
		}
	}
	if len(live.Token) != 64 || !validToken(live.Token) {
		t.Errorf("token %q", live.Token)
	}
	if got, err := s.get(live.Token); err != nil || got.Name != "alice" {
		t.Errorf("get live: %v %v", got, err)
	}
	if _, err := s.get(dead.Token); err == nil {
		t.Error("an expired token is returned")
	}
	if _, err := os.Stat(filepath.Join(s.dir, dead.Token)); !os.IsNotExist(err) {
		t.Error("an expired token is kept")
	}
	for _, bad := range []string{"../../etc/passwd", "zz", live.Token + "/x"} {
		if _, err := s.get(bad); err == nil {
			t.Errorf("get(%q) succeeded", bad)
		}
	}
	s.remove(live.Token)
	if _, err := s.get(live.Token); err == nil {
		t.Error("a removed token is returned")
	}
}
