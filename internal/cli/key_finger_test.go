package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/master"
)

// shaOf runs a shell pipeline printing a sha256 digest as its first
// field.
func shaOf(t *testing.T, pipeline string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", pipeline).Output()
	if err != nil {
		t.Skipf("%s: %v", pipeline, err)
	}
	return strings.Fields(string(out))[0]
}

// TestKeyFingers checks that `brine key -f` prints, in salt-key's form,
// the sha256sum of the key file the minion holds, and that -F lists the
// master's master.pub and CA (the minions' master_finger).
func TestKeyFingers(t *testing.T) {
	dir := t.TempDir()
	pki := filepath.Join(dir, "pki")
	if err := os.WriteFile(filepath.Join(dir, "master"), []byte("pki_dir: "+pki+"\ncachedir: "+filepath.Join(dir, "cache")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mkp, err := keys.LoadOrCreate(filepath.Join(pki, "master.nk"))
	if err != nil || mkp == nil {
		t.Fatal(err)
	}
	ca, err := master.EnsureTLS(pki)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := keys.LoadOrCreate(filepath.Join(dir, "minion", "minion.nk"))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	store, err := keys.OpenStore(pki)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Submit("web1", pub, false); err != nil {
		t.Fatal(err)
	}
	colons := func(hex string) string {
		var b strings.Builder
		for i := 0; i < len(hex); i += 2 {
			if i > 0 {
				b.WriteByte(':')
			}
			b.WriteString(hex[i : i+2])
		}
		return b.String()
	}
	minionPub := filepath.Join(dir, "minion", "minion.pub")
	// The command the README gives to compare.
	readme := shaOf(t, "sha256sum "+minionPub+" | cut -c1-64 | sed 's/../&:/g; s/:$//'")

	var out, errb bytes.Buffer
	if rc := Key([]string{"-c", dir, "-f", "web1"}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	want := "Unaccepted Keys:\nweb1:  " + colons(shaOf(t, "sha256sum "+minionPub)) + "\n"
	if out.String() != want {
		t.Errorf("brine key -f:\n%s\nwant:\n%s", out.String(), want)
	}
	if !strings.Contains(out.String(), readme) {
		t.Errorf("README's command prints %s", readme)
	}

	out.Reset()
	if rc := Key([]string{"-c", dir, "-F"}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	for _, line := range []string{
		"Local Keys:\n",
		"master.pub:  " + colons(shaOf(t, "sha256sum "+filepath.Join(pki, "master.pub"))) + "\n",
		"ca.crt:  " + colons(shaOf(t, "openssl x509 -in "+ca.CA+" -outform DER | sha256sum")) + "\n",
		"web1:  " + colons(shaOf(t, "sha256sum "+minionPub)) + "\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("brine key -F lacks %q:\n%s", line, out.String())
		}
	}
}
