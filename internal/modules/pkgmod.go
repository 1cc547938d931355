package modules

// pkgmod.go is Salt's pkg virtual module (aptpkg.py, yumpkg.py, apkpkg.py
// and pkg_resource.py), the reading half: installed versions, candidates
// and version comparison, through internal/system/pkgmgr.

import (
	"context"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/system"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

// PkgListCacheKey is the ctx.Cache() key caching pkg.list_pkgs for a run
// (Salt's __context__["pkg.list_pkgs"]); code that changes packages
// deletes it.
const PkgListCacheKey = "pkg.list_pkgs"

// PkgManagerService is the ctx service name under which a run (or a test)
// can supply its own pkgmgr.Manager.
const PkgManagerService = "pkgmgr"

func init() {
	execmod.Register("pkg.version", pkgVersion, "Return the installed version of the named packages ('' when not installed); a mapping for several names or globs.")
	execmod.Register("pkg.list_pkgs", pkgListPkgs, "Return the installed packages and their versions (versions_as_list=False).")
	execmod.Register("pkg.latest_version", pkgLatestVersion, "Return the version that would be installed or upgraded to, '' when the installed one is latest (refresh=True fromrepo=None show_installed=False).")
	execmod.Register("pkg.available_version", pkgLatestVersion, "Alias of pkg.latest_version.")
	execmod.Register("pkg.upgrade_available", pkgUpgradeAvailable, "True when an upgrade of name is available.")
	execmod.Register("pkg.version_cmp", pkgVersionCmp, "Compare two versions with the package manager's ordering: -1, 0 or 1 (ignore_epoch=False).")
}

// PkgManager returns the package manager of the run: the one attached as
// the pkgmgr service, else the one of the os_family grain.
func PkgManager(ctx *execmod.Context) (pkgmgr.Manager, error) {
	if m, ok := ctx.Service(PkgManagerService).(pkgmgr.Manager); ok {
		return m, nil
	}
	fam, _ := ctx.Grains.Get("os_family")
	m, err := pkgmgr.For(execmod.String(fam), system.Exec{})
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return m, nil
}

func pkgListInstalled(ctx *execmod.Context) (pkgmgr.Installed, error) {
	if in, ok := ctx.Cache().Get(PkgListCacheKey).(pkgmgr.Installed); ok {
		return in, nil
	}
	m, err := PkgManager(ctx)
	if err != nil {
		return nil, err
	}
	in, err := m.ListInstalled(context.Background())
	if err != nil {
		return nil, execmod.Errorf("listing installed packages: %s", err)
	}
	for _, vs := range in {
		sort.Strings(vs)
	}
	ctx.Cache().Store(PkgListCacheKey, in)
	return in, nil
}

func pkgVersionsValue(vs []string, asList bool) any {
	if asList {
		return sysStrList(vs)
	}
	return strings.Join(vs, ",")
}

func pkgVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	asList := false
	if v, ok := kwargs.Get("versions_as_list"); ok {
		asList = value.Truthy(v)
	}
	out := value.NewMap(len(args))
	if len(args) == 0 {
		return out, nil
	}
	in, err := pkgListInstalled(ctx)
	if err != nil {
		return nil, err
	}
	glob := false
	for _, a := range args {
		name := execmod.String(a)
		if strings.Contains(name, "*") {
			glob = true
			for _, n := range in.Names() {
				if match.Fnmatch(n, name) {
					out.Set(n, pkgVersionsValue(in[n], asList))
				}
			}
			continue
		}
		out.Set(name, pkgVersionsValue(in[name], asList))
	}
	if out.Len() == 1 && !glob {
		_, v := out.At(0)
		return v, nil
	}
	return out, nil
}

func pkgListPkgs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_pkgs", args, kwargs, execmod.Opt("versions_as_list", false),
		execmod.Opt("removed", false), execmod.Opt("purge_desired", false))
	if err != nil {
		return nil, err
	}
	var in pkgmgr.Installed
	switch {
	case pkgIsTrue(v[1]) || pkgIsTrue(v[2]):
		in, err = pkgListOther(ctx, pkgIsTrue(v[1]))
	default:
		in, err = pkgListInstalled(ctx)
	}
	if err != nil {
		return nil, err
	}
	out := value.NewMap(len(in))
	for _, n := range in.Names() {
		out.Set(n, pkgVersionsValue(in[n], value.Truthy(v[0])))
	}
	return out, nil
}

// pkgListOther lists the packages removed but not purged (removed), or
// those wanted purged but still installed: {} where the manager cannot
// tell.
func pkgListOther(ctx *execmod.Context, removed bool) (pkgmgr.Installed, error) {
	m, err := PkgManager(ctx)
	if err != nil {
		return nil, err
	}
	in := pkgmgr.Installed{}
	if l, ok := m.(pkgmgr.RemovedLister); ok && removed {
		in, err = l.ListRemoved(context.Background())
	} else if l, ok := m.(pkgmgr.PurgeDesiredLister); ok && !removed {
		in, err = l.ListPurgeDesired(context.Background())
	}
	if err != nil {
		return nil, execmod.Errorf("listing packages: %s", err)
	}
	for _, vs := range in {
		sort.Strings(vs)
	}
	return in, nil
}

func pkgLatestVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	refresh, showInstalled := true, false
	fromRepo := ""
	if v, ok := kwargs.Get("refresh"); ok {
		refresh = value.Truthy(v)
	}
	if v, ok := kwargs.Get("show_installed"); ok {
		showInstalled = value.Truthy(v)
	}
	if _, ok := kwargs.Get("repo"); ok {
		return nil, &execmod.InvocationError{Msg: "The 'repo' argument is invalid, use 'fromrepo' instead"}
	}
	if v, ok := kwargs.Get("fromrepo"); ok && v != nil {
		fromRepo = execmod.String(v)
	}
	if len(args) == 0 {
		return "", nil
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = execmod.String(a)
	}
	m, err := PkgManager(ctx)
	if err != nil {
		return nil, err
	}
	in, err := pkgListInstalled(ctx)
	if err != nil {
		return nil, err
	}
	bg := context.Background()
	if refresh {
		if _, err := m.Refresh(bg); err != nil {
			return nil, execmod.Errorf("%s", pkgErrText(err))
		}
	}
	cands, err := m.Candidates(bg, names, fromRepo)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	out := value.NewMap(len(names))
	for _, n := range names {
		cand := cands[n]
		installed := in[n]
		switch {
		case len(installed) == 0 || showInstalled:
			out.Set(n, cand)
		case cand != "":
			newer := true
			for _, iv := range installed {
				if m.Compare(iv, cand) >= 0 {
					newer = false
				}
			}
			if newer {
				out.Set(n, cand)
			} else {
				out.Set(n, "")
			}
		default:
			out.Set(n, "")
		}
	}
	if len(names) == 1 {
		_, v := out.At(0)
		return v, nil
	}
	return out, nil
}

func pkgUpgradeAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("upgrade_available", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	r, err := pkgLatestVersion(ctx, []any{v[0]}, rest)
	if err != nil {
		return nil, err
	}
	return r != "", nil
}

func pkgVersionCmp(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("version_cmp", args, kwargs, execmod.Req("pkg1"), execmod.Req("pkg2"), execmod.Opt("ignore_epoch", false))
	if err != nil {
		return nil, err
	}
	a, b := execmod.String(v[0]), execmod.String(v[1])
	if value.Truthy(v[2]) {
		a, b = pkgStripEpoch(a), pkgStripEpoch(b)
	}
	fam, _ := ctx.Grains.Get("os_family")
	if m, ok := ctx.Service(PkgManagerService).(pkgmgr.Manager); ok {
		return int64(m.Compare(a, b)), nil
	}
	return int64(pkgmgr.Compare(execmod.String(fam), a, b)), nil
}

func pkgStripEpoch(v string) string {
	if i := strings.IndexByte(v, ':'); i >= 0 {
		return v[i+1:]
	}
	return v
}
