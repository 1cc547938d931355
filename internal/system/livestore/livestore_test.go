package livestore

import (
	"os"
	"os/exec"
	"testing"

	"brine/internal/value"
)

func TestMapRoundTrip(t *testing.T) {
	d := Dir(t.TempDir() + "/store")
	m, found, err := d.ReadMap("current.json")
	if err != nil || found || m.Len() != 0 {
		t.Fatalf("missing file: %v %v %v", m, found, err)
	}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	want := value.MapOf("job1", value.MapOf("function", "test.ping", "seconds", int64(60)), "b", nil)
	if err := d.WriteMap("current.json", want); err != nil {
		t.Fatal(err)
	}
	unlock()
	got, found, err := d.ReadMap("current.json")
	if err != nil || !found || value.Repr(got) != value.Repr(want) {
		t.Fatalf("read back %s, %v, %v; want %s", value.Repr(got), found, err, value.Repr(want))
	}
	if st, err := os.Stat(d.Path("current.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", st, err)
	}
	if err := os.WriteFile(d.Path("bad.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.ReadMap("bad.json"); err == nil {
		t.Error("a corrupt file reads without error")
	}
}

func TestAlive(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Error("an exited process counts as alive")
	}
	if !Alive(os.Getpid()) || Alive(0) || Alive(-1) {
		t.Error("Alive(self/0/-1)")
	}
}

func TestIncludeDir(t *testing.T) {
	if got := IncludeDir("/etc/salt", value.NewMap(0)); got != "/etc/salt/minion.d" {
		t.Errorf("default: %s", got)
	}
	if got := IncludeDir("/c", value.MapOf("default_include", "inc/*.conf")); got != "/c/inc" {
		t.Errorf("set: %s", got)
	}
}
