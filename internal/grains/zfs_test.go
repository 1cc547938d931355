package grains

import (
	"testing"

	"brine/internal/value"
)

func TestPsGrain(t *testing.T) {
	for _, tc := range []struct {
		os, family, virtual, want string
	}{
		{"Debian", "Debian", "physical", "ps -efHww"}, // Salt 3006 on Debian 12
		{"FreeBSD", "FreeBSD", "physical", "ps auxwww"},
		{"Solaris", "Solaris", "physical", "/usr/ucb/ps auxwww"},
		{"AIX", "AIX", "physical", "/usr/bin/ps auxww"},
		{"NILinuxRT", "NILinuxRT", "physical", "ps -o user,pid,ppid,tty,time,comm"},
	} {
		g := value.MapOf("os", tc.os, "os_family", tc.family, "virtual", tc.virtual)
		psGrain(g)
		if v, _ := g.Get("ps"); v != tc.want {
			t.Errorf("%s: ps = %v, want %q", tc.os, v, tc.want)
		}
	}
}

func TestZfsGrainsTypes(t *testing.T) {
	g := value.NewMap(2)
	zfsGrains(g)
	for _, k := range []string{"zfs_support", "zfs_feature_flags"} {
		if v, ok := g.Get(k); !ok {
			t.Errorf("%s missing", k)
		} else if _, isBool := v.(bool); !isBool {
			t.Errorf("%s = %#v, want a bool", k, v)
		}
	}
}

func TestDefaultLocale(t *testing.T) {
	for _, tc := range []struct {
		lang     string
		wantLang any
		wantEnc  any
	}{
		{"C.UTF-8", "en_US", "UTF-8"}, // Python's alias table, as Salt reports it
		{"C.utf8", "en_US", "UTF-8"},
		{"POSIX.UTF-8", "C", "UTF-8"},
		{"C", nil, nil},
		{"en_US.UTF-8", "en_US", "UTF-8"},
		{"de_DE.utf8", "de_DE", "UTF-8"},
		{"en_GB", "en_GB", "ISO8859-1"},
	} {
		t.Setenv("LC_ALL", "")
		t.Setenv("LC_CTYPE", "")
		t.Setenv("LANGUAGE", "")
		t.Setenv("LANG", tc.lang)
		l, e := defaultLocale()
		if l != tc.wantLang || e != tc.wantEnc {
			t.Errorf("LANG=%s: (%v, %v), want (%v, %v)", tc.lang, l, e, tc.wantLang, tc.wantEnc)
		}
	}
}
