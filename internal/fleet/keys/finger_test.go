package keys

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sha256sum runs the sha256sum command on path.
func sha256sum(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("sha256sum", path).Output()
	if err != nil {
		t.Skipf("sha256sum: %v", err)
	}
	return strings.Fields(string(out))[0]
}

func TestFingerIsSha256sum(t *testing.T) {
	pub := newKey(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data string
	}{
		{"key file", pub + "\n"},
		{"no newline", pub},
		{"empty", ""},
		{"binary", "\x00\xff\r\n\t"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
		if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := FileFinger(path, "")
		if err != nil {
			t.Fatal(err)
		}
		want := sha256sum(t, path)
		if strings.ReplaceAll(got, ":", "") != want {
			t.Errorf("%s: finger %s, sha256sum %s", tc.name, got, want)
		}
		if len(got) != 32*3-1 || strings.Count(got, ":") != 31 || strings.ToLower(got) != got {
			t.Errorf("%s: not salt-key's format: %q", tc.name, got)
		}
	}
}

func TestFingerprintOfWrittenKeyFiles(t *testing.T) {
	dir := t.TempDir()
	kp, err := LoadOrCreate(filepath.Join(dir, "minion.nk"))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	pubFile := filepath.Join(dir, "minion.pub")
	s, err := OpenStore(filepath.Join(dir, "master"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit("web1", pub, false); err != nil {
		t.Fatal(err)
	}
	want := sha256sum(t, pubFile)
	stored, err := s.Finger(Pending, "web1", "sha256")
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"Fingerprint": Fingerprint(pub), "Store.Finger": stored} {
		if strings.ReplaceAll(got, ":", "") != want {
			t.Errorf("%s %s != sha256sum of minion.pub %s", name, got, want)
		}
	}
}

func TestFingerHashTypes(t *testing.T) {
	for _, tc := range []struct {
		hashType string
		hexLen   int
		err      bool
	}{
		{"", 64, false},
		{"sha256", 64, false},
		{"SHA384", 96, false},
		{"sha512", 128, false},
		{"md5", 0, true},
	} {
		got, err := Finger([]byte("x"), tc.hashType)
		if (err != nil) != tc.err {
			t.Errorf("%q: err %v", tc.hashType, err)
			continue
		}
		if n := len(strings.ReplaceAll(got, ":", "")); !tc.err && n != tc.hexLen {
			t.Errorf("%q: %d hex digits", tc.hashType, n)
		}
	}
}

func TestSameFinger(t *testing.T) {
	f, _ := Finger([]byte("ca"), "sha256")
	plain := strings.ReplaceAll(f, ":", "")
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{f, f, true},
		{f, plain, true},
		{f, strings.ToUpper(f), true},
		{f, "sha256 Fingerprint=" + strings.ToUpper(f), true},
		{f, "SHA256 Fingerprint=" + strings.ToUpper(f) + "\n", true},
		{f, plain[:62], false},
		{f, "", false},
		{"", "", false},
		{f, "zz" + plain[2:], false},
	} {
		if got := SameFinger(tc.a, tc.b); got != tc.want {
			t.Errorf("SameFinger(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

func TestSubmitLimit(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	k1, k2, k3 := newKey(t), newKey(t), newKey(t)
	for i, step := range []struct {
		id, key     string
		auto        bool
		want        State
		changed     bool
		wantErr     error
		pendingLeft int
	}{
		{"a", k1, false, Pending, true, nil, 1},
		{"a", k1, false, Pending, false, nil, 1}, // a repeat writes nothing
		{"b", k2, false, Pending, true, nil, 2},
		{"c", k3, false, "", false, ErrTooManyPending, 2}, // the cap (2)
		{"a", k1, false, Pending, false, nil, 2},          // known ids still answer
		{"a", k3, false, Denied, true, nil, 2},            // another key for a
		{"a", k3, false, Denied, false, nil, 2},           // ... repeated
		{"c", k3, true, Accepted, true, nil, 2},           // auto_accept bypasses the cap
	} {
		st, changed, err := s.SubmitLimit(step.id, step.key, step.auto, 2)
		if err != step.wantErr || st != step.want || changed != step.changed {
			t.Errorf("step %d: %q %v %v, want %q %v %v", i, st, changed, err, step.want, step.changed, step.wantErr)
		}
		if ids, _ := s.List(Pending); len(ids) != step.pendingLeft {
			t.Errorf("step %d: pending %v", i, ids)
		}
	}
	// A repeat leaves the file alone.
	path := filepath.Join(s.Dir, string(Pending), "a")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, changed, _ := s.SubmitLimit("a", k1, false, 2); changed {
		t.Error("repeat changed the store")
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("repeat rewrote the pending file")
	}
	ents, _ := os.ReadDir(filepath.Join(s.Dir, string(Pending)))
	if len(ents) != 2 {
		t.Errorf("pending directory holds %d entries", len(ents))
	}
}
