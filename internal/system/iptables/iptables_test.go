package iptables

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestParseGolden parses real iptables-save output (and hand-written
// edge cases) and compares with what Salt 3006's iptables.get_saved_rules
// returned for the same files (testdata/*.json), key order included.
func TestParseGolden(t *testing.T) {
	for _, name := range []string{"rules.v4", "rules.v6", "edge.rules"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(string(data))
			if err != nil {
				t.Fatal(err)
			}
			wv, err := value.FromJSON(want)
			if err != nil {
				t.Fatal(err)
			}
			o := value.JSONOptions{Indent: 1}
			if g, w := value.ToJSON(got, o), value.ToJSON(wv, o); g != w {
				t.Errorf("Parse(%s):\n%s\nwant:\n%s", name, g, w)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dpo 22 -j ACCEPT\n", "ambiguous option: --dpo could match"},
		{"*filter\n:INPUT ACCEPT [0:0]\n-A OUTPUT -j ACCEPT\n", "KeyError: 'OUTPUT'"},
		{"*filter\n:INPUT ACCEPT\n", "malformed chain line"},
		{"*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment \"open\n", "No closing quotation"},
	} {
		_, err := Parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`/usr/sbin/iptables --wait -t filter -A INPUT  -m comment --comment "two words" -j ACCEPT`,
			[]string{"/usr/sbin/iptables", "--wait", "-t", "filter", "-A", "INPUT", "-m", "comment", "--comment", "two words", "-j", "ACCEPT"}},
		{`a "x\"y\\z\$" 'q"r' b\ c #d ""`, []string{"a", `x"y\z\$`, `q"r`, "b c", "#d", ""}},
	} {
		got, err := Split(tc.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Split(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := Split(`a\`); err == nil {
		t.Error("Split of a trailing backslash: no error")
	}
}

func TestConfPath(t *testing.T) {
	for _, tc := range []struct{ fam, os, family, want string }{
		{"Debian", "Debian", "ipv4", "/etc/iptables/rules.v4"},
		{"Debian", "Ubuntu", "ipv6", "/etc/iptables/rules.v6"},
		{"RedHat", "CentOS", "ipv6", "/etc/sysconfig/ip6tables"},
		{"Gentoo", "Gentoo", "ipv4", "/var/lib/iptables/rules-save"},
		{"Void", "Void", "ipv6", "/etc/iptables/ip6tables.rules"},
	} {
		if got, err := ConfPath(tc.fam, tc.os, tc.family); err != nil || got != tc.want {
			t.Errorf("ConfPath(%s, %s, %s) = %q, %v; want %q", tc.fam, tc.os, tc.family, got, err, tc.want)
		}
	}
	if _, err := ConfPath("Windows", "Windows", "ipv4"); err == nil || err.Error() != "Saving iptables to file is not supported on Windows. Please file an issue with SaltStack" {
		t.Errorf("ConfPath(Windows) error = %v", err)
	}
}
