package match

import (
	"testing"

	"brine/internal/value"
)

func testCtx() *Context {
	return &Context{
		ID: "web01.example.test",
		Grains: value.MapOf(
			"os", "Debian",
			"roles", value.NewList("web", "cache"),
			"app", value.MapOf("tier", "front", "ports", value.NewList(int64(80), int64(443))),
			"ipv4", value.NewList("127.0.0.1", "192.0.2.10"),
		),
		Pillar: value.MapOf(
			"app", value.MapOf("db", value.MapOf("host", "db1")),
			"role", "web",
		),
		Nodegroups: value.MapOf(
			"webs", "L@web01.example.test,web02.example.test",
			"debs", value.NewList("G@os:Debian", "and", "web*"),
			"nested", "N@webs or db*",
			"dbs", "db*",
			"loop", "N@loop",
			"plain", "web01.example.test other",
		),
	}
}

func TestFnmatch(t *testing.T) {
	for _, tc := range []struct {
		name, pat string
		want      bool
	}{
		{"web01", "web*", true},
		{"web.sub.deep", "web.*", true},
		{"web", "web.*", false},
		{"web2", "web[1-3]", true},
		{"web4", "web[1-3]", false},
		{"web4", "web[!1-3]", true},
		{"a[b", "a[b", true},
		{"a/b", "a*", true},
		{"x", "?", true},
		{"Web", "web", false},
	} {
		if got := Fnmatch(tc.name, tc.pat); got != tc.want {
			t.Errorf("Fnmatch(%q, %q) = %v", tc.name, tc.pat, got)
		}
	}
}

func TestMatchers(t *testing.T) {
	c := testCtx()
	for _, tc := range []struct {
		kind string
		tgt  any
		want bool
	}{
		{"glob", "web*", true},
		{"glob", "db*", false},
		{"pcre", `web\d+`, true},
		{"pcre", `eb`, false},
		{"pcre", `web01\.example\.test\Z`, true}, // Python's \Z is RE2's \z
		{"pcre", `web01\Z`, false},
		{"pcre", `web01\z`, false},           // bad escape in Python
		{"grain_pcre", `os:Debian\Z`, false}, // lower-cased to \z: a bad escape
		{"grain_pcre", `os:\Debian`, false},  // lower-cased to \d: wants a digit
		{"list", "web01.example.test,web02", true},
		{"list", "web02,web01.example.test", true},
		{"list", "web02,web03", false},
		{"grain", "os:Debian", true},
		{"grain", "os:debian", true},
		{"grain", "roles:web", true},
		{"grain", "app:tier:fr*", true},
		{"grain", "app:ports:443", true},
		{"grain", "app:tier", true},
		{"grain", "os", false},
		{"grain_pcre", "os:Deb.*", true},
		{"pillar", "app:db:host", true},
		{"pillar", "app:db:host:db1", true},
		{"pillar", "role:w*", true},
		{"pillar_exact", "role:w*", false},
		{"pillar_exact", "role:web", true},
		{"ipcidr", "192.0.2.0/24", true},
		{"ipcidr", "192.0.2.10", true},
		{"ipcidr", "10.0.0.0/8", false},
		{"ipcidr", "192.0.2.1/24", false},
		{"ipcidr", "192.0.2.0/255.255.255.0", true},     // netmask form
		{"ipcidr", "192.0.2.0/0.0.0.255", true},         // hostmask form
		{"ipcidr", "192.0.2.0/255.0.255.0", false},      // neither: invalid
		{"ipcidr", "10.0.0.0/255.0.0.0", false},         // valid, no member
		{"compound", "S@192.0.2.0/255.255.255.0", true}, // valid in compound too
		{"list", "web02, web01.example.test", false},    // no trimming
		{"compound", "L@web02, web01.example.test", false},
		{"compound", "R@%cluster or web*", false}, // no range support: whole expression fails
		{"nodegroup", "webs", true},
		{"nodegroup", "debs", true},
		{"nodegroup", "dbs", false},
		{"nodegroup", "missing", false},
		{"nodegroup", "plain", true},
		{"compound", "web* and not G@os:RedHat", true},
		{"compound", "( db* or web* ) and G@os:Debian", true},
		{"compound", "not web*", false},
		{"compound", "web* and ( G@os:RedHat or G@roles:web )", true},
		{"compound", "db* or L@web02,web03", false},
		{"compound", "not ( db* or G@os:RedHat )", true},
		{"compound", `E@^w.*1 and not L@web02`, true},
		{"compound", "not not web*", false},
		{"compound", "X@foo", false},
		{"compound", "and web*", false},
		{"compound", "N@nested", true},
		{"compound", "N@loop or web*", false},
		{"compound", "S@192.0.2.0/24", true},
		{"compound", "S@bad or web*", true},
		{"compound", "I@app:db:host", true},
		{"compound", "J@role:^w", true},
		{"compound", "web* web*", false},
		{"compound", "", false},
		{"compound", "G|@app|tier|front", true},
		{"compound", "( web* )", true},
		{"compound", "( and web* )", false},
	} {
		got, err := Match(c, tc.kind, tc.tgt)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s %v = %v, want %v", tc.kind, tc.tgt, got, tc.want)
		}
	}
	if _, err := Match(c, "nope", "x"); err == nil {
		t.Error("unknown matcher: no error")
	}
}

func TestConfirmTop(t *testing.T) {
	c := testCtx()
	ok, err := ConfirmTop(c, "os:Debian", []any{"a", value.MapOf("match", "grain")})
	if err != nil || !ok {
		t.Errorf("ConfirmTop grain = %v, %v", ok, err)
	}
	ok, _ = ConfirmTop(c, "web*", []any{"a"})
	if !ok {
		t.Error("ConfirmTop default compound failed")
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Target
	}{
		{"G@os:Debian", Target{"G", "", "os:Debian"}},
		{"G|@os|Debian", Target{"G", "|", "os|Debian"}},
		{"L@a,b", Target{"L", "", "a,b"}},
		{"L@", Target{"", "", "L@"}},
		{"X@foo", Target{"", "", "X@foo"}},
		{"web*", Target{"", "", "web*"}},
	} {
		if got := ParseTarget(tc.in); got != tc.want {
			t.Errorf("ParseTarget(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func FuzzCompound(f *testing.F) {
	c := testCtx()
	for _, s := range []string{"web* and not G@os:RedHat", "( a or b ) and not ( c", "N@nested", "S@1.2.3.4/8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Compound(c, s)
	})
}

func FuzzFnmatch(f *testing.F) {
	for _, s := range []string{"web*", "[a-]", "[!]", "[]]", "a[b", "[z-a]x", `\[`} {
		f.Add("web01", s)
	}
	f.Fuzz(func(t *testing.T, name, pat string) {
		Fnmatch(name, pat)
	})
}

func TestFileIgnore(t *testing.T) {
	if FileIgnore(nil, nil) != nil {
		t.Error("FileIgnore(nil, nil) should be nil")
	}
	ign := FileIgnore([]string{`/\.git($|/)`, `(`}, []string{"*.bak", "*/tmp/*"})
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"a/.git/config", true},
		{"a/.github/x.sls", false},
		{"x.sls.bak", true},
		{"dir/x.bak", true}, // fnmatch '*' crosses '/'
		{"a/tmp/b.sls", true},
		{"tmp/b.sls", false},
		{"keep.sls", false},
	} {
		if got := ign(tc.path); got != tc.want {
			t.Errorf("ignored(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
