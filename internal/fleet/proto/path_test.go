package proto

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"top.sls", true},
		{"files/x.txt", true},
		{"a/b/c.conf", true},
		{"dots..in.name", true},
		{".hidden", true},
		{"", false},
		{"..", false},
		{"../etc/passwd", false},
		{"a/../../etc/passwd", false},
		{"a/..", false},
		{"./a", false},
		{"a/./b", false},
		{"a//b", false},
		{"a/", false},
		{"/etc/passwd", false},
		{"~/x", false},
		{"~root/x", false},
		{`..\etc\passwd`, false},
		{`a\b`, false},
		{"a|b", false},
		{"|cat /etc/passwd", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"%2e%2e/etc/passwd", false},
		{"%2e%2e%2fetc%2fpasswd", false},
		{"..%2fetc", false},
		{"a%00", false},
		{strings.Repeat("a/", 3000), false},
	} {
		err := CheckPath(tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPath(%q) = %v, want ok=%v", tc.path, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("CheckPath(%q) error %v does not wrap ErrRefused", tc.path, err)
		}
	}
}

// FuzzCheckPath checks that no accepted path can leave its root: every
// accepted path is clean, relative, without '..' elements or characters
// another layer might reinterpret.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "/x", `a\b`, "a|b", "a\x00", "%2e%2e/x", "a/./b", "....//x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if CheckPath(p) != nil {
			return
		}
		if strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\|%\x00") {
			t.Fatalf("accepted %q", p)
		}
		for _, el := range strings.Split(p, "/") {
			if el == ".." || el == "." || el == "" {
				t.Fatalf("accepted %q with element %q", p, el)
			}
		}
	})
}
