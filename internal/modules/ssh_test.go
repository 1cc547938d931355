package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"brine/internal/value"
)

// genKey makes an ed25519 key pair with ssh-keygen and returns the private
// key path and the public key's base64 part.
func genKey(t *testing.T, dir, name, pass string) (string, string) {
	t.Helper()
	if lookPath("ssh-keygen") == "" {
		t.Skip("no ssh-keygen")
	}
	p := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", pass, "-C", "test", "-f", p).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, err := os.ReadFile(p + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return p, strings.Fields(string(pub))[1]
}

func TestSSHAuthorizedKeys(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("keys are set for root")
	}
	d := t.TempDir()
	_, k1 := genKey(t, d, "k1", "")
	_, k2 := genKey(t, d, "k2", "")
	cfg := filepath.Join(d, "ak")
	ctx := testContext()
	steps := []fileStep{
		{fun: "ssh.auth_keys", args: []any{"root", cfg}, want: "{}"},
		{fun: "ssh.check_key", args: []any{"root", k1, "ed25519", "me", nil}, kw: []any{"config", cfg}, want: "'add'"},
		{fun: "ssh.set_auth_key", args: []any{"root", k1}, kw: []any{"enc", "ed25519", "comment", "me", "config", cfg}, want: "'new'",
			after: func(t *testing.T, _ string) {
				wantFile("ak", "ssh-ed25519 "+k1+" me\n")(t, d)
				wantMode("ak", 0o600)(t, d)
			}},
		{fun: "ssh.set_auth_key", args: []any{"root", k1}, kw: []any{"enc", "ed25519", "comment", "me", "config", cfg}, want: "'no change'"},
		{fun: "ssh.check_key", args: []any{"root", k1, "ssh-ed25519", "other", value.NewList()}, kw: []any{"config", cfg}, want: "'update'"},
		{fun: "ssh.set_auth_key", args: []any{"root", k1}, kw: []any{"enc", "ed25519", "comment", "other", "options", value.NewList("no-pty"), "config", cfg}, want: "'replace'",
			after: wantFile("ak", "no-pty ssh-ed25519 "+k1+" other\n")},
		{fun: "ssh.set_auth_key", args: []any{"root", k2}, kw: []any{"enc", "ssh-ed25519", "config", cfg}, want: "'new'",
			after: wantFile("ak", "no-pty ssh-ed25519 "+k1+" other\nssh-ed25519 "+k2+" \n")},
		{fun: "ssh.set_auth_key", args: []any{"root", "not base64!"}, kw: []any{"config", cfg}, want: "'invalid'"},
		{fun: "ssh.set_auth_key", args: []any{"root", "AAAA*"}, kw: []any{"config", cfg}, want: "'Invalid public key'"},
		{fun: "ssh.set_auth_key", args: []any{"no-such-user-x", k1}, want: "'fail'"},
		{fun: "ssh.set_auth_key", args: []any{"root", k1}, kw: []any{"enc", "bogus"}, err: "Incorrect encryption key type 'bogus'."},
		{fun: "ssh.auth_keys", args: []any{"root", cfg}, kw: []any{"fingerprint_hash_type", "md5"}, want: "*", after: func(t *testing.T, _ string) {
			got := call(t, ctx, "ssh.auth_keys", []any{"root", cfg}).(*value.Map)
			if got.Len() != 2 {
				t.Fatalf("auth_keys: %s", value.Repr(got))
			}
			e, _ := got.Get(k1)
			m := e.(*value.Map)
			if mapValue(m, "enc", "") != "ssh-ed25519" || mapValue(m, "comment", "") != "other" || value.Repr(mapValue(m, "options", nil)) != "['no-pty']" {
				t.Errorf("entry %s", value.Repr(m))
			}
			// The SHA256 fingerprint ssh-keygen -l prints is the same digest, base64.
			if fp, _ := mapValue(m, "fingerprint", "").(string); len(fp) != 95 || strings.Count(fp, ":") != 31 {
				t.Errorf("fingerprint %q", fp)
			}
		}},
		{fun: "ssh.rm_auth_key", args: []any{"root", k1}, kw: []any{"config", cfg}, want: "'Key removed'", after: wantFile("ak", "ssh-ed25519 "+k2+"\n")},
		{fun: "ssh.rm_auth_key", args: []any{"root", k1}, kw: []any{"config", cfg}, want: "'Key not present'"},
	}
	runFileSteps(t, d, steps)
}

func TestSSHKnownHosts(t *testing.T) {
	d := t.TempDir()
	priv, k1 := genKey(t, d, "host", "")
	encPriv, _ := genKey(t, d, "enc", "secret")
	kh := filepath.Join(d, "kh")
	runFileSteps(t, d, []fileStep{
		{fun: "ssh.get_known_host_entries", args: []any{nil, "example.org"}, kw: []any{"config", kh}, want: "None"},
		{fun: "ssh.check_known_host", args: []any{nil, "example.org"}, kw: []any{"config", kh}, want: "'add'"},
		{fun: "ssh.check_known_host", args: []any{nil, nil}, want: "{'status': 'error', 'error': 'hostname argument required'}"},
		{fun: "ssh.set_known_host", kw: []any{"hostname", "example.org", "key", k1, "enc", "ssh-ed25519", "config", kh, "hash_known_hosts", false},
			want: "{'status': 'updated', 'old': None, 'new': [{'hostname': 'example.org', 'enc': 'ssh-ed25519', 'key': '" + k1 + "'}]}",
			after: func(t *testing.T, d string) {
				wantFile("kh", "example.org ssh-ed25519 "+k1+"\n")(t, d)
				wantMode("kh", 0o600)(t, d)
			}},
		{fun: "ssh.check_known_host", args: []any{nil, "example.org"}, kw: []any{"config", kh, "key", k1}, want: "'exists'"},
		{fun: "ssh.check_known_host", args: []any{nil, "example.org"}, kw: []any{"config", kh, "key", "AAAA"}, want: "'update'"},
		{fun: "ssh.set_known_host", kw: []any{"hostname", "example.org", "key", k1, "enc", "ssh-ed25519", "config", kh},
			want: "{'status': 'exists', 'keys': ['" + k1 + "']}"},
		{fun: "ssh.set_known_host", kw: []any{"hostname", "example.org", "port", int64(2222), "config", kh},
			want: "{'status': 'error', 'error': 'argument port can not be used in conjunction with argument hash_known_hosts'}"},
		{fun: "ssh.set_known_host", kw: []any{"hostname", "example.org", "port", int64(2222), "key", k1, "enc", "ssh-ed25519", "config", kh, "hash_known_hosts", false},
			want: "*", after: func(t *testing.T, d string) {
				wantFile("kh", "example.org ssh-ed25519 "+k1+"\n[example.org]:2222 ssh-ed25519 "+k1+"\n")(t, d)
			}},
		{fun: "ssh.get_known_host_entries", args: []any{nil, "example.org"}, kw: []any{"config", kh, "port", int64(2222)}, want: "*"},
		{fun: "ssh.hash_known_hosts", kw: []any{"config", kh}, want: "*", after: func(t *testing.T, d string) {
			data, _ := os.ReadFile(filepath.Join(d, "kh"))
			if strings.Contains(string(data), "example.org") || !strings.HasPrefix(string(data), "|1|") {
				t.Errorf("not hashed: %q", data)
			}
		}},
		{fun: "ssh.check_known_host", args: []any{nil, "example.org"}, kw: []any{"config", kh, "key", k1}, want: "'exists'"},
		{fun: "ssh.rm_known_host", kw: []any{"hostname", "example.org", "config", kh}, want: "*"},
		{fun: "ssh.get_known_host_entries", args: []any{nil, "example.org"}, kw: []any{"config", kh}, want: "None"},
		{fun: "ssh.rm_known_host", kw: []any{"hostname", "example.org", "config", "{d}/none"}, want: "{'status': 'error', 'error': 'Known hosts file {d}/none does not exist'}"},
		{fun: "ssh.rm_known_host", kw: []any{"hostname", "example.org", "config", "rel"}, want: "{'status': 'error', 'error': 'Cannot determine absolute path to file.'}"},
		{fun: "ssh.hash_known_hosts", kw: []any{"user", "no-such-user-x"}, want: "{'status': 'error', 'error': 'User no-such-user-x does not exist'}"},
		{fun: "ssh.key_is_encrypted", args: []any{priv}, want: "False"},
		{fun: "ssh.key_is_encrypted", args: []any{priv + ".pub"}, err: priv + ".pub is not a private key"},
		{fun: "ssh.recv_known_host_entries", args: []any{"127.0.0.1"}, kw: []any{"port", int64(1), "timeout", int64(1)}, want: "None"},
	})
	// OpenSSH keys carry no "ENCRYPTED" marker; PEM ones do.
	got := call(t, testContext(), "ssh.key_is_encrypted", []any{encPriv})
	data, _ := os.ReadFile(encPriv)
	if want := strings.Contains(string(data), "ENCRYPTED"); got != want {
		t.Errorf("key_is_encrypted(%s) = %v, want %v", encPriv, got, want)
	}
}

func TestSSHKeyFiles(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("keys are set for root")
	}
	d := t.TempDir()
	_, k1 := genKey(t, d, "k1", "")
	_, k2 := genKey(t, d, "k2", "")
	src := filepath.Join(d, "keys")
	if err := os.WriteFile(src, []byte("ssh-ed25519 "+k1+" one\nno-pty ssh-ed25519 "+k2+" two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "empty"), []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hk := filepath.Join(d, "hostkeys")
	if err := os.MkdirAll(hk, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"ssh_host_ed25519_key": "PRIVATE\n", "ssh_host_ed25519_key.pub": "ssh-ed25519 AAAA host\n", "ssh_host_rsa_key-cert.pub": "cert\n", "other": "x"} {
		if err := os.WriteFile(filepath.Join(hk, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(d, "ak")
	runFileSteps(t, d, []fileStep{
		{fun: "ssh.check_key_file", args: []any{"root", src}, kw: []any{"config", cfg}, want: "{'" + k1 + "': 'add', '" + k2 + "': 'add'}"},
		{fun: "ssh.set_auth_key_from_file", args: []any{"root", src}, kw: []any{"config", cfg}, want: "'new'",
			after: func(t *testing.T, _ string) {
				wantFile("ak", "ssh-ed25519 "+k1+" one\nno-pty ssh-ed25519 "+k2+" two\n")(t, d)
			}},
		{fun: "ssh.set_auth_key_from_file", args: []any{"root", src}, kw: []any{"config", cfg}, want: "'no change'"},
		{fun: "ssh.set_auth_key_from_file", args: []any{"root", "{d}/nope"}, kw: []any{"config", cfg}, err: "Failed to pull key file from salt file server"},
		{fun: "ssh.set_auth_key_from_file", args: []any{"root", "{d}/empty"}, kw: []any{"config", cfg}, want: "'fail'"},
		{fun: "ssh.check_key_file", args: []any{"root", "{d}/nope"}, want: "{}"},
		{fun: "ssh.rm_auth_key_from_file", args: []any{"root", src}, kw: []any{"config", cfg}, want: "'Key removed'", after: wantFile("ak", "")},
		{fun: "ssh.rm_auth_key_from_file", args: []any{"root", src}, kw: []any{"config", cfg}, want: "'Key not present'"},
		{fun: "ssh.host_keys", kw: []any{"keydir", hk, "certs", false}, want: "*", after: func(t *testing.T, _ string) {
			got := call(t, testContext(), "ssh.host_keys", []any{hk}, "private", false).(*value.Map)
			if value.Repr(value.NewList(sortedKeys(got)...)) != "['ed25519.pub', 'rsa-cert.pub']" {
				t.Errorf("host_keys private=False: %s", value.Repr(got))
			}
			got = call(t, testContext(), "ssh.host_keys", []any{hk}, "certs", false).(*value.Map)
			if v, _ := got.Get("ed25519"); v != "PRIVATE" || got.Has("rsa-cert.pub") {
				t.Errorf("host_keys certs=False: %s", value.Repr(got))
			}
		}},
		{fun: "ssh.user_keys", args: []any{"root"}, kw: []any{"pubfile", filepath.Join(d, "k1.pub"), "prvfile", false}, want: "{'root': {'k1.pub': '" + "ssh-ed25519 " + k1 + " test" + "'}}"},
		{fun: "ssh.user_keys", args: []any{"no-such-user-x"}, want: "{}"},
	})
}

func sortedKeys(m *value.Map) []any {
	var ks []string
	for _, k := range m.Keys() {
		ks = append(ks, value.Str(k))
	}
	sort.Strings(ks)
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = k
	}
	return out
}
