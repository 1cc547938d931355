package modules

import (
	"os/exec"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestPkgResourceGolden replays calls recorded from Salt 3006's
// pkg_resource through salt-call on Debian 12 (arguments typed as
// salt-call types them): the return, or the message of the error Salt
// reports as invalid arguments.
func TestPkgResourceGolden(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("needs dpkg")
	}
	cases := aptLoadJSON(t, "testdata/pkg_resource/cases.salt.json").(*value.List)
	for _, c := range cases.Items {
		cm := c.(*value.Map)
		fun := value.Str(mapGet(cm, "fun"))
		args := mapGet(cm, "args").(*value.List).Items
		kw := mapGet(cm, "kwargs").(*value.Map)
		ctx := testContext()
		ctx.Grains.Set("osarch", "amd64")
		got, err := ctx.Call(fun, args, value.DeepCopy(kw).(*value.Map))
		if want, ok := cm.GetString("error"); ok {
			msg := strings.TrimSuffix(strings.TrimPrefix(value.Str(want), "Passed invalid arguments: "), ".")
			if err == nil || err.Error() != msg {
				t.Errorf("%s%s%s: error %v, want %q", fun, value.Repr(args), value.Repr(kw), err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s%s%s: %v", fun, value.Repr(args), value.Repr(kw), err)
			continue
		}
		// Salt orders the attributes of format_pkg_list by a set:
		// compare as mappings.
		if want := mapGet(cm, "return"); !value.Equal(got, want) {
			t.Errorf("%s%s%s = %s, want %s", fun, value.Repr(args), value.Repr(kw), value.Repr(got), value.Repr(want))
		}
	}
}

// TestPkgResourceInPlace checks that the in-place helpers change the
// mapping they are given, as templates calling them rely on.
func TestPkgResourceInPlace(t *testing.T) {
	ctx := testContext()
	pkgs := value.MapOf("b", value.NewList("2", "1", "2"))
	call(t, ctx, "pkg_resource.add_pkg", []any{pkgs, "a", "9"})
	call(t, ctx, "pkg_resource.add_pkg", []any{pkgs, "a", "10"})
	call(t, ctx, "pkg_resource.sort_pkglist", []any{pkgs})
	if got, want := value.Repr(pkgs), "{'b': ['1', '2'], 'a': ['10', '9']}"; got != want {
		t.Errorf("after add_pkg and sort_pkglist: %s, want %s", got, want)
	}
	call(t, ctx, "pkg_resource.stringify", []any{pkgs})
	if got, want := value.Repr(pkgs), "{'b': '1,2', 'a': '10,9'}"; got != want {
		t.Errorf("after stringify: %s, want %s", got, want)
	}
}

func TestLooseVersion(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0", 0},
		{"1.0", "1.0.0", -1},
		{"2.10", "2.9", 1},
		{"1.0a", "1.0", 1},
		{"1.0-RC1", "1.0.1", -1},
		{"abc", "abd", -1},
		{"1.0", "1.0~rc1", -1},
	} {
		if got := looseCmp(tc.a, tc.b, false); got != tc.want {
			t.Errorf("looseCmp(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestPkgResourceVersionReal compares pkg_resource.version with
// pkg.version on the installed bash.
func TestPkgResourceVersionReal(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("needs dpkg")
	}
	ctx := testContext()
	want := call(t, ctx, "pkg.version", []any{"bash"})
	if got := call(t, ctx, "pkg_resource.version", []any{"bash"}); !value.Equal(got, want) || want == "" {
		t.Errorf("pkg_resource.version bash = %s, pkg.version = %s", value.Repr(got), value.Repr(want))
	}
	l := call(t, ctx, "pkg_resource.version", []any{"bash"}, "versions_as_list", true)
	if got := value.Repr(l); got != "['"+value.Str(want)+"']" {
		t.Errorf("versions_as_list: %s", got)
	}
}
