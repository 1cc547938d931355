package modules

// pkginstall.go is the changing half of Salt's pkg virtual module
// (aptpkg.install, remove, purge, refresh_db, upgrade): one package
// manager call per kind of change, and the changes reported as Salt's
// {name: {old, new}} computed from the installed lists before and after.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("pkg.install", pkgInstall, "Install name (or pkgs, a list of names or {name: version}, or sources, a list of {name: package file or URL}) in one package manager call; returns {name: {old, new}} (refresh=False fromrepo=None version=None reinstall=False debconf=ANSWERS_FILE).")
	execmod.Register("pkg.remove", pkgRemove, "Remove name or pkgs; returns {name: {old, new}}.")
	execmod.Register("pkg.purge", pkgPurge, "Remove name or pkgs with their configuration; returns {removed: ..., installed: ...} on apt.")
	execmod.Register("pkg.refresh_db", pkgRefreshDB, "Update the package metadata (apt-get update); on apt a mapping of each repository to True (new data), None (unchanged) or False (failed).")
	execmod.Register("pkg.upgrade", pkgUpgrade, "Upgrade all packages (refresh=True dist_upgrade=False); returns {name: {old, new}}.")
}

// PkgError is Salt's CommandExecutionError with info: the message, the
// package manager's errors and the changes made anyway.
type PkgError struct {
	Msg     string
	Errors  []string
	Changes *value.Map
}

// Error returns the error's message.
func (e *PkgError) Error() string {
	if len(e.Errors) == 0 {
		return e.Msg
	}
	return e.Msg + ": " + strings.TrimSpace(strings.Join(e.Errors, "\n"))
}

// SaltExceptionClass names the Salt exception this error stands for.
func (e *PkgError) SaltExceptionClass() string {
	return "salt.exceptions.CommandExecutionError"
}

// PkgTarget is one requested package: a name and an optional version.
type PkgTarget struct {
	Name    string
	Version string // "" for any
}

// ParsePkgTargets is Salt's pkg_resource.parse_targets for repository
// packages: pkgs (a list of names or one-key {name: version} mappings)
// when given, else name split on commas; version applies to a single name.
func ParsePkgTargets(name, pkgs, version any) ([]PkgTarget, error) {
	var out []PkgTarget
	if l, ok := pkgs.(*value.List); ok && l.Len() > 0 {
		for _, it := range l.Items {
			switch x := it.(type) {
			case *value.Map:
				if x.Len() != 1 {
					return nil, &execmod.InvocationError{Msg: "Invalidly formatted 'pkgs' parameter. See minion log."}
				}
				k, v := x.At(0)
				t := PkgTarget{Name: execmod.String(k)}
				if v != nil {
					t.Version = strings.TrimLeft(execmod.String(v), "=")
				}
				out = append(out, t)
			default:
				out = append(out, PkgTarget{Name: execmod.String(x)})
			}
		}
		return out, nil
	}
	if pkgs != nil && !value.Truthy(pkgs) {
		return nil, nil
	}
	if name == nil || execmod.String(name) == "" {
		return nil, nil
	}
	for _, n := range strings.Split(execmod.String(name), ",") {
		out = append(out, PkgTarget{Name: n})
	}
	if len(out) == 1 && version != nil && execmod.String(version) != "" {
		out[0].Version = strings.TrimLeft(execmod.String(version), "=")
	}
	return out, nil
}

// pkgInstalledStrings returns the installed list as name -> "v1,v2".
func pkgInstalledStrings(in pkgmgr.Installed) map[string]string {
	out := make(map[string]string, len(in))
	for n, vs := range in {
		vs = append([]string(nil), vs...)
		sort.Strings(vs)
		out[n] = strings.Join(vs, ",")
	}
	return out
}

// CompareDicts is Salt's salt.utils.data.compare_dicts over two installed
// lists: every name whose version changed, as {old, new} ("" for none),
// sorted by name.
func CompareDicts(old, new map[string]string) *value.Map {
	names := map[string]bool{}
	for n := range old {
		names[n] = true
	}
	for n := range new {
		names[n] = true
	}
	keys := make([]string, 0, len(names))
	for n := range names {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	out := value.NewMap(0)
	for _, n := range keys {
		o, inOld := old[n]
		nv, inNew := new[n]
		switch {
		case !inOld:
			out.Set(n, value.MapOf("old", "", "new", nv))
		case !inNew:
			out.Set(n, value.MapOf("new", "", "old", o))
		case o != nv:
			out.Set(n, value.MapOf("old", o, "new", nv))
		}
	}
	return out
}

// pkgFreshInstalled drops the run's cached list and reads it again.
func pkgFreshInstalled(ctx *execmod.Context) (pkgmgr.Installed, error) {
	ctx.Cache().Delete(PkgListCacheKey)
	return pkgListInstalled(ctx)
}

func pkgInstall(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("install", args, kwargs, execmod.Opt("name", nil), execmod.Opt("refresh", false),
		execmod.Opt("fromrepo", nil), execmod.Opt("skip_verify", false), execmod.Opt("debconf", nil),
		execmod.Opt("pkgs", nil), execmod.Opt("sources", nil), execmod.Opt("reinstall", false),
		execmod.Opt("downloadonly", false), execmod.Opt("ignore_epoch", false))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[4]) {
		// Salt's aptpkg loads the debconf answers first, whatever follows
		if _, err := ctx.Call("debconf.set_file", []any{v[4]}, nil); err != nil {
			return nil, err
		}
	}
	var files []string
	if value.Truthy(v[6]) {
		files, err = pkgSourceFiles(ctx, v[0], v[5], v[6])
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return value.NewMap(0), nil
		}
	}
	version, _ := rest.Get("version")
	var targets []PkgTarget
	if files == nil {
		targets, err = ParsePkgTargets(v[0], v[5], version)
		if err != nil {
			return nil, err
		}
		if len(targets) == 0 {
			return value.NewMap(0), nil
		}
	}
	m, err := PkgManager(ctx)
	if err != nil {
		return nil, err
	}
	bg := context.Background()
	oldList, err := pkgFreshInstalled(ctx)
	if err != nil {
		return nil, err
	}
	old := pkgInstalledStrings(oldList)
	targets, errs, err := pkgResolveComparisons(ctx, m, targets)
	if err != nil {
		return nil, err
	}
	reinstall := value.Truthy(v[7])
	fromRepo := ""
	if v[2] != nil {
		fromRepo = execmod.String(v[2])
	} else if r, ok := rest.Get("repo"); ok && r != nil {
		fromRepo = execmod.String(r)
	}
	base := pkgmgr.InstallRequest{FromRepo: fromRepo}
	if r, ok := rest.Get("install_recommends"); ok {
		if value.Truthy(r) {
			base.ExtraArgs = append(base.ExtraArgs, "--install-recommends")
		} else {
			base.NoRecommends = true
		}
	}
	if value.Truthy(v[3]) && m.Name() == "apt" {
		base.ExtraArgs = append(base.ExtraArgs, "--allow-unauthenticated")
	}
	if o, ok := rest.Get("only_upgrade"); ok && value.Truthy(o) && m.Name() == "apt" {
		base.ExtraArgs = append(base.ExtraArgs, "--only-upgrade")
	}
	if value.Truthy(v[8]) && m.Name() == "apt" {
		base.ExtraArgs = append(base.ExtraArgs, "--download-only")
	}
	var inst, down, re []pkgmgr.Target
	fileNames := map[string]string{} // a package file's package, for reinstall's changes
	for _, f := range files {
		// as Salt: the file's name and version from its control data;
		// without them it is installed as it is
		name, ver, err := pkgFileInfo(ctx, f)
		if err != nil {
			return nil, err
		}
		fileNames[f] = name
		cur := old[name]
		switch {
		case name == "" || cur == "":
			inst = append(inst, pkgmgr.Target{Name: f})
		case reinstall && m.Compare(ver, cur) == 0:
			re = append(re, pkgmgr.Target{Name: f})
		case m.Compare(ver, cur) >= 0:
			inst = append(inst, pkgmgr.Target{Name: f})
		default:
			down = append(down, pkgmgr.Target{Name: f})
		}
	}
	for _, t := range targets {
		cur := old[t.Name]
		switch {
		case t.Version == "" && reinstall && cur != "":
			re = append(re, pkgmgr.Target{Name: t.Name})
		case t.Version == "":
			inst = append(inst, pkgmgr.Target{Name: t.Name})
		case reinstall && cur != "" && m.Compare(t.Version, cur) == 0:
			re = append(re, pkgmgr.Target{Name: t.Name, Version: t.Version})
		case cur == "" || m.Compare(t.Version, cur) >= 0:
			inst = append(inst, pkgmgr.Target{Name: t.Name, Version: t.Version})
		default:
			down = append(down, pkgmgr.Target{Name: t.Name, Version: t.Version})
		}
	}
	if value.Truthy(v[1]) {
		if _, err := m.Refresh(bg); err != nil {
			return nil, execmod.Errorf("%s", pkgErrText(err))
		}
	}
	// Held packages are released for the install and held again after.
	var toUnhold []string
	if held, err := m.Held(bg); err == nil && len(held) > 0 {
		for _, t := range targets {
			if held[t.Name] {
				toUnhold = append(toUnhold, t.Name)
			}
		}
	}
	if len(toUnhold) > 0 {
		if _, err := m.Hold(bg, toUnhold, false); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	for _, batch := range []struct {
		targets []pkgmgr.Target
		down    bool
		re      bool
	}{{inst, false, false}, {down, true, false}, {re, false, true}} {
		if len(batch.targets) == 0 {
			continue
		}
		req := base
		req.Targets, req.DowngradeOK, req.Reinstall = batch.targets, batch.down, batch.re
		if _, err := m.Install(bg, req); err != nil {
			errs = append(errs, pkgErrText(err))
		}
	}
	newList, err := pkgFreshInstalled(ctx)
	if err != nil {
		return nil, err
	}
	nw := pkgInstalledStrings(newList)
	changes := CompareDicts(old, nw)
	for _, t := range re {
		name := t.Name
		if n, isFile := fileNames[name]; isFile {
			name = n
		}
		if !changes.Has(name) {
			changes.Set(name, value.MapOf("old", old[name], "new", nw[name]))
		}
	}
	if len(toUnhold) > 0 {
		if _, err := m.Hold(bg, toUnhold, true); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return nil, &PkgError{Msg: "Problem encountered installing package(s)", Errors: errs, Changes: changes}
	}
	return changes, nil
}

func pkgUninstall(ctx *execmod.Context, fun string, purge bool, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Opt("name", nil), execmod.Opt("pkgs", nil))
	if err != nil {
		return nil, err
	}
	targets, err := ParsePkgTargets(v[0], v[1], nil)
	if err != nil {
		return nil, err
	}
	m, err := PkgManager(ctx)
	if err != nil {
		return nil, err
	}
	bg := context.Background()
	oldList, err := pkgFreshInstalled(ctx)
	if err != nil {
		return nil, err
	}
	old := pkgInstalledStrings(oldList)
	rl, hasRemoved := m.(pkgmgr.RemovedLister)
	var oldRemoved map[string]string
	if hasRemoved {
		r, err := rl.ListRemoved(bg)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		oldRemoved = pkgInstalledStrings(r)
	}
	var names []string
	for _, t := range targets {
		if _, ok := old[t.Name]; ok {
			names = append(names, t.Name)
		}
	}
	if purge {
		for _, t := range targets {
			if _, ok := oldRemoved[t.Name]; ok {
				names = append(names, t.Name)
			}
		}
	}
	if len(names) == 0 {
		return value.NewMap(0), nil
	}
	var errs []string
	if _, err := m.Remove(bg, names, purge); err != nil {
		errs = append(errs, err.Error())
	}
	newList, err := pkgFreshInstalled(ctx)
	if err != nil {
		return nil, err
	}
	changes := CompareDicts(old, pkgInstalledStrings(newList))
	var ret any = changes
	if purge && hasRemoved {
		r, err := rl.ListRemoved(bg)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		ret = value.MapOf("removed", CompareDicts(oldRemoved, pkgInstalledStrings(r)), "installed", changes)
	}
	if len(errs) > 0 {
		m, _ := ret.(*value.Map)
		return nil, &PkgError{Msg: "Problem encountered removing package(s)", Errors: errs, Changes: m}
	}
	return ret, nil
}

func pkgRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return pkgUninstall(ctx, "remove", false, args, kwargs)
}

func pkgPurge(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return pkgUninstall(ctx, "purge", true, args, kwargs)
}

var pkgAptSizeRE = regexp.MustCompile(` \[.+B\]$`)

// ParseAptUpdate turns apt-get update output into Salt's refresh_db
// mapping and the repositories that failed.
func ParseAptUpdate(out string) (*value.Map, []string) {
	ret := value.NewMap(0)
	var failed []string
	for _, line := range strings.Split(out, "\n") {
		cols := strings.Fields(line)
		if len(cols) == 0 {
			continue
		}
		ident := strings.Join(cols[1:], " ")
		switch {
		case strings.Contains(cols[0], "Get"):
			ret.Set(pkgAptSizeRE.ReplaceAllString(ident, ""), true)
		case strings.Contains(cols[0], "Ign"):
			ret.Set(ident, false)
		case strings.Contains(cols[0], "Hit"):
			ret.Set(ident, nil)
		case strings.Contains(cols[0], "Err"):
			ret.Set(ident, false)
			failed = append(failed, ident)
		}
	}
	return ret, failed
}

func pkgRefreshDB(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("refresh_db", args, kwargs, execmod.Opt("cache_valid_time", int64(0)), execmod.Opt("failhard", false))
	if err != nil {
		return nil, err
	}
	m, err := PkgManager(ctx)
	if err != nil {
		return nil, err
	}
	res, err := m.Refresh(context.Background())
	if err != nil {
		return nil, execmod.Errorf("%s", pkgErrText(err))
	}
	if m.Name() != "apt" {
		return true, nil
	}
	ret, failed := ParseAptUpdate(res.Stdout)
	if value.Truthy(v[1]) && len(failed) > 0 {
		return nil, execmod.Errorf("Error getting repos: %s", strings.Join(failed, ", "))
	}
	return ret, nil
}

func pkgUpgrade(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("upgrade", args, kwargs, execmod.Opt("refresh", true), execmod.Opt("dist_upgrade", false))
	if err != nil {
		return nil, err
	}
	m, err := PkgManager(ctx)
	if err != nil {
		return nil, err
	}
	bg := context.Background()
	if value.Truthy(v[0]) {
		if _, err := m.Refresh(bg); err != nil {
			return nil, execmod.Errorf("%s", pkgErrText(err))
		}
	}
	oldList, err := pkgFreshInstalled(ctx)
	if err != nil {
		return nil, err
	}
	_, uerr := m.Upgrade(bg, value.Truthy(v[1]))
	newList, err := pkgFreshInstalled(ctx)
	if err != nil {
		return nil, err
	}
	changes := CompareDicts(pkgInstalledStrings(oldList), pkgInstalledStrings(newList))
	if uerr != nil {
		return nil, &PkgError{Msg: "Problem encountered upgrading packages", Errors: []string{uerr.Error()}, Changes: changes}
	}
	return changes, nil
}

// pkgErrText is what Salt lists under errors for a failed install: the
// package manager's stderr (rstripped, as cmd.run_all returns it) when it
// printed one, else the whole error.
func pkgErrText(err error) string {
	var ce *system.CommandError
	if errors.As(err, &ce) {
		if msg := strings.TrimRight(ce.Result.Stderr, " \t\r\n"); strings.TrimSpace(msg) != "" {
			return msg
		}
	}
	return err.Error()
}

// pkgSourceFiles is pkg_resource.parse_targets with sources: the local
// paths of the package files (salt:// and remote ones cached first).
func pkgSourceFiles(ctx *execmod.Context, name, pkgs, sources any) ([]string, error) {
	res, err := ctx.Call("pkg_resource.parse_targets", []any{name, pkgs, sources}, nil)
	if err != nil {
		return nil, err
	}
	pair, _ := res.(*value.List)
	if pair == nil || len(pair.Items) == 0 {
		return []string{}, nil
	}
	paths, _ := pair.Items[0].(*value.List)
	if paths == nil {
		return []string{}, nil
	}
	out := make([]string, 0, len(paths.Items))
	for _, p := range paths.Items {
		out = append(out, execmod.String(p))
	}
	return out, nil
}

// pkgFileInfo is lowpkg.bin_pkg_info's name and version of a package
// file: its error as it is (a missing file), "" when it returns nothing
// (Salt logs that and installs the file as it is).
func pkgFileInfo(ctx *execmod.Context, path string) (name, version string, err error) {
	info, err := ctx.Call("lowpkg.bin_pkg_info", []any{path}, nil)
	if err != nil {
		return "", "", err
	}
	m, _ := info.(*value.Map)
	if m == nil {
		slog.Error(fmt.Sprintf("pkg.install: Unable to get deb information for %s. Version comparisons will be unavailable.", path))
		return "", "", nil
	}
	n, _ := m.Get("name")
	v, _ := m.Get("version")
	return execmod.String(n), execmod.String(v), nil
}
