package sshkeys

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRefineEnc(t *testing.T) {
	for in, want := range map[string]string{
		"r": "ssh-rsa", "rsa": "ssh-rsa", "dss": "ssh-dss", "e": "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384": "ecdsa-sha2-nistp384",
		"ed25519": "ssh-ed25519", "sk-ssh-ed25519@openssh.com": "sk-ssh-ed25519@openssh.com",
	} {
		if got, err := RefineEnc(in); err != nil || got != want {
			t.Errorf("RefineEnc(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := RefineEnc("ssh-foo"); err == nil || err.Error() != "Incorrect encryption key type 'ssh-foo'." {
		t.Errorf("RefineEnc(ssh-foo): %v", err)
	}
}

func TestParseLine(t *testing.T) {
	for _, tt := range []struct {
		line string
		ok   bool
		want string
	}{
		{`no-pty,command="x y" ssh-ed25519 AAAA me@host extra`, true, `no-pty,command="x y" ssh-ed25519 AAAA me@host extra` + "\n"},
		{"ssh-rsa-cert-v01@openssh.com AAAA", true, "ssh-rsa-cert-v01@openssh.com AAAA \n"},
		{"  # comment", false, ""},
		{"", false, ""},
		{"garbage", false, ""},
	} {
		k, ok := ParseLine(tt.line)
		if ok != tt.ok || ok && k.Line() != tt.want {
			t.Errorf("ParseLine(%q) = %+v %v", tt.line, k, ok)
		}
	}
}

func TestFingerprint(t *testing.T) {
	// base64 of "abc": sha256 and md5 of the decoded bytes.
	if fp, ok, err := Fingerprint("YWJj", ""); err != nil || !ok || fp != "ba:78:16:bf:8f:01:cf:ea:41:41:40:de:5d:ae:22:23:b0:03:61:a3:96:17:7a:9c:b4:10:ff:61:f2:00:15:ad" {
		t.Errorf("sha256: %s %v %v", fp, ok, err)
	}
	if fp, _, _ := Fingerprint("YWJj", "MD5"); fp != "90:01:50:98:3c:d2:4f:b0:d6:96:3f:7d:28:e1:7f:72" {
		t.Errorf("md5: %s", fp)
	}
	if _, ok, _ := Fingerprint("not base64!", ""); ok {
		t.Errorf("invalid base64 accepted")
	}
	if _, _, err := Fingerprint("YWJj", "crc"); err == nil || err.Error() != "The fingerprint_hash_type crc is not supported." {
		t.Errorf("unknown hash: %v", err)
	}
}

func TestExpandPath(t *testing.T) {
	if got, err := ExpandPath("%h/.ssh/%u_keys%%", "bob", "/home/bob"); err != nil || got != "/home/bob/.ssh/bob_keys%" {
		t.Errorf("ExpandPath: %q %v", got, err)
	}
	if _, err := ExpandPath("%x", "u", "/h"); err == nil || err.Error() != `AuthorizedKeysFile path: unknown token character "%x"` {
		t.Errorf("bad token: %v", err)
	}
	if _, err := ExpandPath("a%", "u", "/h"); err == nil || err.Error() != "AuthorizedKeysFile path: Last character can't be escape character" {
		t.Errorf("trailing escape: %v", err)
	}
}

func TestReadKeysAndHosts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ak")
	if err := os.WriteFile(p, []byte("# c\nssh-rsa YWJj one\n\nopt ssh-rsa YWJj two\nssh-rsa !!! bad\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	es, err := ReadKeys(p, "")
	if err != nil || len(es) != 1 || es[0].Comment != "two" || len(es[0].Options) != 1 {
		t.Errorf("ReadKeys: %+v %v", es, err)
	}
	hs, err := ParseHostLines([]string{"# Host h found: line 1", "h ssh-rsa YWJj", "h ssh-rsa", ""}, "")
	if err != nil || len(hs) != 1 || hs[0].Hostname != "h" {
		t.Errorf("ParseHostLines: %+v %v", hs, err)
	}
	if SSHHostname("h", int64(22)) != "h" || SSHHostname("h", int64(2222)) != "[h]:2222" || SSHHostname("h", nil) != "h" {
		t.Errorf("SSHHostname")
	}
}
