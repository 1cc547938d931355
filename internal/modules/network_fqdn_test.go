package modules

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPyGetFQDN(t *testing.T) {
	for _, tc := range []struct {
		hosts, name, want string
	}{
		// this machine's hosts file, where Salt 3006 answered "localhost"
		{"127.0.0.1 localhost\n127.0.0.1 runsc\n127.0.0.1 vm\n", "127.0.0.1", "localhost"},
		{"# c\n127.0.0.1 myhost.example.org myhost\n", "127.0.0.1", "myhost.example.org"},
		{"127.0.0.1 short alias.with.dot # c\n", "127.0.0.1", "alias.with.dot"},
		{"127.0.0.1 short\n", "127.0.0.1", "short"},
		{"10.9.9.9 other\n127.0.0.1   spaced\tname.x\n", "127.0.0.1", "name.x"},
		{"", "nosuch.invalid", "nosuch.invalid"}, // no address: the name itself
	} {
		f := filepath.Join(t.TempDir(), "hosts")
		if err := os.WriteFile(f, []byte(tc.hosts), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := pyGetFQDN(tc.name, f); got != tc.want {
			t.Errorf("hosts %q, %s: %q, want %q", tc.hosts, tc.name, got, tc.want)
		}
	}
}
