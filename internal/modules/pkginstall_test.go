package modules

import (
	"context"
	"errors"
	"strings"
	"testing"

	"brine/internal/system"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

// fakePkg is an in-memory package manager.
type fakePkg struct {
	installed, removed pkgmgr.Installed
	held               map[string]bool
	calls              []string
	fail               string
}

func (f *fakePkg) Name() string { return "apt" }
func (f *fakePkg) ListInstalled(context.Context) (pkgmgr.Installed, error) {
	out := pkgmgr.Installed{}
	for k, v := range f.installed {
		out[k] = append([]string(nil), v...)
	}
	return out, nil
}
func (f *fakePkg) ListRemoved(context.Context) (pkgmgr.Installed, error) { return f.removed, nil }
func (f *fakePkg) Candidates(context.Context, []string, string) (map[string]string, error) {
	return nil, nil
}
func (f *fakePkg) Refresh(context.Context) (system.Result, error) {
	f.calls = append(f.calls, "refresh")
	return system.Result{Stdout: "Hit:1 http://deb.debian.org/debian bookworm InRelease\nGet:2 http://deb.debian.org/debian bookworm-updates InRelease [55.4 kB]\nErr:3 http://bad.example bookworm Release\n"}, nil
}
func (f *fakePkg) Install(_ context.Context, req pkgmgr.InstallRequest) (system.Result, error) {
	var names []string
	for _, t := range req.Targets {
		s := t.Name
		if t.Version != "" {
			s += "=" + t.Version
		}
		names = append(names, s)
		if t.Name == f.fail {
			continue
		}
		v := t.Version
		if v == "" {
			v = "1.0"
		}
		f.installed[t.Name] = []string{v}
	}
	tag := "install"
	if req.DowngradeOK {
		tag = "downgrade"
	}
	if req.Reinstall {
		tag = "reinstall"
	}
	f.calls = append(f.calls, tag+" "+strings.Join(names, " "))
	if f.fail != "" {
		return system.Result{}, errors.New("E: Unable to locate package " + f.fail)
	}
	return system.Result{}, nil
}
func (f *fakePkg) Remove(_ context.Context, names []string, purge bool) (system.Result, error) {
	for _, n := range names {
		if v, ok := f.installed[n]; ok && !purge {
			f.removed[n] = v
		}
		delete(f.installed, n)
		if purge {
			delete(f.removed, n)
		}
	}
	f.calls = append(f.calls, "remove "+strings.Join(names, " "))
	return system.Result{}, nil
}
func (f *fakePkg) Hold(_ context.Context, names []string, hold bool) (system.Result, error) {
	f.calls = append(f.calls, "hold="+map[bool]string{true: "on", false: "off"}[hold]+" "+strings.Join(names, " "))
	return system.Result{}, nil
}
func (f *fakePkg) Held(context.Context) (map[string]bool, error)        { return f.held, nil }
func (f *fakePkg) Upgrade(context.Context, bool) (system.Result, error) { return system.Result{}, nil }
func (f *fakePkg) Compare(a, b string) int                              { return pkgmgr.Compare("Debian", a, b) }

func TestPkgInstallRemove(t *testing.T) {
	f := &fakePkg{installed: pkgmgr.Installed{"vim": {"2.0"}, "curl": {"7.0"}}, removed: pkgmgr.Installed{"old": {"0.1"}},
		held: map[string]bool{"curl": true}}
	ctx := testContext()
	ctx.SetService(PkgManagerService, f)
	got := call(t, ctx, "pkg.install", nil, "pkgs", value.NewList("nginx", value.MapOf("vim", "1.0"), value.MapOf("curl", "7.0")), "refresh", true)
	sysEq(t, "install changes", got, value.MapOf(
		"nginx", value.MapOf("old", "", "new", "1.0"),
		"vim", value.MapOf("old", "2.0", "new", "1.0")))
	want := []string{"refresh", "hold=off curl", "install nginx curl=7.0", "downgrade vim=1.0", "hold=on curl"}
	if strings.Join(f.calls, "|") != strings.Join(want, "|") {
		t.Errorf("calls = %q\nwant %q", f.calls, want)
	}
	f.calls = nil
	sysEq(t, "reinstall", call(t, ctx, "pkg.install", []any{"nginx"}, "reinstall", true), value.MapOf("nginx", value.MapOf("old", "1.0", "new", "1.0")))
	sysEq(t, "version kwarg", call(t, ctx, "pkg.install", []any{"jq"}, "version", "1.6"), value.MapOf("jq", value.MapOf("old", "", "new", "1.6")))
	sysEq(t, "remove", call(t, ctx, "pkg.remove", []any{"nginx,absent"}), value.MapOf("nginx", value.MapOf("new", "", "old", "1.0")))
	sysEq(t, "remove nothing", call(t, ctx, "pkg.remove", []any{"absent"}), value.NewMap(0))
	sysEq(t, "purge", call(t, ctx, "pkg.purge", nil, "pkgs", value.NewList("vim", "old")), value.MapOf(
		"removed", value.MapOf("old", value.MapOf("new", "", "old", "0.1")),
		"installed", value.MapOf("vim", value.MapOf("new", "", "old", "1.0"))))
	f.fail = "bogus"
	_, err := ctx.Call("pkg.install", []any{"bogus"}, value.NewMap(0))
	var pe *PkgError
	if !errors.As(err, &pe) || pe.Msg != "Problem encountered installing package(s)" || !strings.Contains(pe.Error(), "Unable to locate package bogus") {
		t.Errorf("install error = %v", err)
	}
	refresh := call(t, ctx, "pkg.refresh_db", nil)
	sysEq(t, "refresh_db", refresh, value.MapOf(
		"http://deb.debian.org/debian bookworm InRelease", nil,
		"http://deb.debian.org/debian bookworm-updates InRelease", true,
		"http://bad.example bookworm Release", false))
}
