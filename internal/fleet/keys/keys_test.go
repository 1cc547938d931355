package keys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nkeys"
)

func TestLoadOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pki", "minion.nk")
	kp, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("seed file mode: %v %v", st.Mode(), err)
	}
	again, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := kp.PublicKey()
	b, _ := again.PublicKey()
	if a != b {
		t.Error("second load created a new key")
	}
	pub, _ := os.ReadFile(PubPath(path))
	if strings.TrimSpace(string(pub)) != a {
		t.Errorf("public key file %q", pub)
	}
	if fp := Fingerprint(a); len(fp) != 32*3-1 || strings.Count(fp, ":") != 31 {
		t.Errorf("fingerprint %q", fp)
	}
}

func newKey(t *testing.T) string {
	kp, _ := nkeys.CreateUser()
	pub, _ := kp.PublicKey()
	return pub
}

func TestStoreFlow(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	k1, k2 := newKey(t), newKey(t)
	for _, step := range []struct {
		id, key string
		auto    bool
		want    State
	}{
		{"web1", k1, false, Pending},
		{"web1", k1, false, Pending},
		{"web1", k2, false, Denied}, // another key for a pending id
	} {
		got, err := s.Submit(step.id, step.key, step.auto)
		if err != nil || got != step.want {
			t.Fatalf("Submit(%s) = %v, %v; want %v", step.id, got, err, step.want)
		}
	}
	if err := s.Move("web1", Pending, Accepted); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Submit("web1", k1, false); st != Accepted {
		t.Errorf("accepted minion resubmitting: %v", st)
	}
	if st, _ := s.Submit("web1", k2, false); st != Denied {
		t.Errorf("impostor: %v", st)
	}
	acc, _ := s.Accepted()
	if acc["web1"] != k1 || len(acc) != 1 {
		t.Errorf("Accepted = %v", acc)
	}
	if st, _ := s.Submit("db1", k2, true); st != Accepted {
		t.Errorf("auto accept: %v", st)
	}
	if err := s.Move("db1", Accepted, Rejected); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Submit("db1", k2, true); st != Rejected {
		t.Errorf("rejected stays rejected: %v", st)
	}
	if err := s.Delete("web1"); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Find("web1"); st != "" {
		t.Errorf("deleted key still in %v", st)
	}
	for _, bad := range []string{"", "..", "a/b", `a\b`, "a\x00"} {
		if _, err := s.Submit(bad, k1, true); err == nil {
			t.Errorf("Submit(%q) accepted", bad)
		}
	}
}

// TestDotIDsRefused: a key request for an id starting with a dot would be
// a file the listings skip, counted against no limit: refused.
func TestDotIDsRefused(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kp, _ := nkeys.CreateUser()
	pub, _ := kp.PublicKey()
	if _, err := s.Submit(".x1", pub, false); err == nil {
		t.Error("a dot id was stored")
	}
}
