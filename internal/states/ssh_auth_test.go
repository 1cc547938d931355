package states_test

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

func TestSSHAuth(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ssh", "authorized_keys")
	ctx := execmod.NewContext()
	key := "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7"
	args := func(extra ...any) *value.Map {
		m := value.MapOf("name", key, "user", me.Username, "config", cfg)
		for i := 0; i+1 < len(extra); i += 2 {
			m.Set(extra[i], extra[i+1])
		}
		return m
	}
	sysCase{"ssh_auth.present", args("comment", "me@host"), true, "The authorized host key " + key + " for user " + me.Username + " was added"}.check(t, ctx)
	sysCase{"ssh_auth.present", args("comment", "me@laptop", "options", value.NewList("no-pty")), true, "The authorized host key " + key + " for user " + me.Username + " was updated"}.check(t, ctx)
	// A whole line as the name.
	line := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMq other@host"
	sysCase{"ssh_auth.present", value.MapOf("name", line, "user", me.Username, "config", cfg), true, "The authorized host key AAAAC3NzaC1lZDI1NTE5AAAAIOMq for user " + me.Username + " was added"}.check(t, ctx)
	data, _ := os.ReadFile(cfg)
	if want := "no-pty ssh-rsa " + key + " me@laptop\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMq other@host\n"; string(data) != want {
		t.Errorf("file\n got %q\nwant %q", data, want)
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	ret := sysRun(t, ctx, "ssh_auth.present", args("name", "bad key with spaces"), false)
	if str(ret, "result") != "False" {
		t.Errorf("bad key: %s", value.Repr(ret))
	}
	sysCase{"ssh_auth.absent", args(), true, "Key removed"}.check(t, ctx)
	again := sysRun(t, ctx, "ssh_auth.absent", args(), true)
	if str(again, "comment") != "Key is already absent" {
		t.Errorf("absent test: %s", value.Repr(again))
	}
}
