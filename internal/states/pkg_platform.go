package states

// pkg_platform.go is pkg.group_installed, pkg.patch_installed and
// pkg.patch_downloaded of salt/states/pkg.py. They drive package groups
// and advisory patches, which only the yum/dnf and zypper execution
// modules have (pkg.group_diff, pkg.list_patches). Like Salt, each state
// looks for those functions in the minion's execution modules first: on
// Debian (aptpkg) they are absent and the state fails with Salt's
// "not available" comment; with them, the full logic runs through them.

import (
	"fmt"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pkg.group_installed",
		Params: []statemod.Param{statemod.Req("name"), p("skip", nil), p("include", nil)}, Kwargs: true,
		Doc: "Ensure a package group is installed (platforms with pkg.group_diff).",
		Run: pkgGroupInstalled})
	statemod.Register(&statemod.Function{Name: "pkg.patch_installed",
		Params: []statemod.Param{statemod.Req("name"), p("advisory_ids", nil), p("downloadonly", nil)}, Kwargs: true,
		Doc: "Ensure advisory patches are installed (platforms with pkg.list_patches).",
		Run: func(c *statemod.Call) (*value.Map, error) {
			return patchInstalled(c, c.Get("advisory_ids"), c.Get("downloadonly"), passKwargs(c))
		}})
	statemod.Register(&statemod.Function{Name: "pkg.patch_downloaded",
		Params: []statemod.Param{statemod.Req("name"), p("advisory_ids", nil)}, Kwargs: true,
		Doc: "Ensure advisory patches are downloaded (platforms with pkg.list_patches).",
		Run: pkgPatchDownloaded})
}

// hasExec reports whether the minion has the execution function fun
// (Salt's `fun in __salt__`).
func hasExec(c *statemod.Call, fun string) bool {
	if c.Env == nil || c.Env.Exec == nil {
		return false
	}
	_, ok := c.Env.Exec.Lookup(fun)
	return ok
}

// strItems is a list argument with every item made a string (Salt
// converts skip and include in place); ok is false for a non-list.
func strItems(v any) (out []string, ok bool) {
	if v == nil {
		return nil, true
	}
	l, isList := v.(*value.List)
	if !isList {
		return nil, false
	}
	for _, x := range l.Items {
		out = append(out, value.Str(x))
	}
	return out, true
}

// diffList is group_diff's diff[kind][state] as strings.
func diffList(diff *value.Map, kind, state string) []string {
	m, _ := getv(diff, kind).(*value.Map)
	out, _ := strItems(getv(m, state))
	return out
}

// pkgExecError is the state return for a CommandExecutionError of
// pkg.install: the changes and message it carries, else generic.
func pkgExecError(name any, err error, generic string) *value.Map {
	if msg, ch, ok := pkgErrorInfo(err); ok {
		return value.MapOf("name", name, "result", false, "changes", ch, "comment", msg)
	}
	return value.MapOf("name", name, "result", false, "changes", value.NewMap(0), "comment", generic+err.Error())
}

func pkgGroupInstalled(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	ret := statemod.Ret(name, false, "")
	if !hasExec(c, "pkg.group_diff") {
		ret.Set("comment", "pkg.group_install not available for this platform")
		return ret, nil
	}
	skip, ok := strItems(c.Get("skip"))
	if !ok {
		ret.Set("comment", "skip must be formatted as a list")
		return ret, nil
	}
	include, ok := strItems(c.Get("include"))
	if !ok {
		ret.Set("comment", "include must be formatted as a list")
		return ret, nil
	}
	r, err := c.Salt("pkg.group_diff", []any{name}, nil)
	if err != nil {
		ret.Set("comment", fmt.Sprintf("An error was encountered while installing/updating group '%s': %s.", value.Str(name), err))
		return ret, nil
	}
	diff, _ := r.(*value.Map)
	mandatory := append(diffList(diff, "mandatory", "installed"), diffList(diff, "mandatory", "not installed")...)
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	var invalid []string
	for _, m := range mandatory {
		if skipped[m] {
			invalid = append(invalid, m)
		}
	}
	if len(invalid) > 0 {
		ret.Set("comment", "The following mandatory packages cannot be skipped: "+strings.Join(invalid, ", "))
		return ret, nil
	}
	targets := diffList(diff, "mandatory", "not installed")
	for _, d := range diffList(diff, "default", "not installed") {
		if !skipped[d] {
			targets = append(targets, d)
		}
	}
	targets = append(targets, include...)
	if len(targets) == 0 {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Group '%s' is already installed", value.Str(name)))
		return ret, nil
	}
	partial := len(diffList(diff, "mandatory", "installed")) > 0 || len(diffList(diff, "default", "installed")) > 0 ||
		len(diffList(diff, "optional", "installed")) > 0
	if c.Test {
		ret.Set("result", nil)
		if partial {
			ret.Set("comment", fmt.Sprintf("Group '%s' is partially installed and will be updated", value.Str(name)))
		} else {
			ret.Set("comment", fmt.Sprintf("Group '%s' will be installed", value.Str(name)))
		}
		return ret, nil
	}
	kw := passKwargs(c)
	pkgs := value.NewList()
	for _, t := range targets {
		pkgs.Append(t)
	}
	installKw := value.MapOf("pkgs", pkgs)
	installKw.Update(kw)
	res, err := c.Salt("pkg.install", nil, installKw)
	if err != nil {
		return pkgExecError(name, err, fmt.Sprintf("An error was encountered while installing/updating group '%s': ", value.Str(name))), nil
	}
	if m, ok := res.(*value.Map); ok {
		ret.Set("changes", m)
	} else {
		ret.Set("changes", res)
	}
	now, err := c.Salt("pkg.list_pkgs", nil, kw)
	if err != nil {
		return nil, err
	}
	have, _ := now.(*value.Map)
	var failed []string
	for _, t := range targets {
		if have == nil || !have.Has(t) {
			failed = append(failed, t)
		}
	}
	if len(failed) > 0 {
		ret.Set("comment", "Failed to install the following packages: "+strings.Join(failed, ", "))
		return ret, nil
	}
	verb := "installed"
	if partial {
		verb = "updated"
	}
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("Group '%s' was %s", value.Str(name), verb))
	return ret, nil
}

// advisoryTargets is Salt's _find_advisory_targets: the advisories not yet
// installed, or the final state return when there is nothing to do.
func advisoryTargets(c *statemod.Call, name, ids any, kw *value.Map) ([]string, *value.Map, error) {
	r, err := c.Salt("pkg.list_installed_patches", nil, kw)
	if err != nil {
		return nil, nil, err
	}
	cur, _ := r.(*value.Map)
	installed := func(id string) bool { return value.Truthy(getv(cur, id)) }
	var want []string
	if s, isStr := ids.(string); isStr && s != "" {
		for _, r := range s { // Python iterates a string's characters
			want = append(want, string(r))
		}
	} else if value.Truthy(ids) {
		want = strList(ids)
	} else {
		want = []string{value.Str(name)}
		if installed(value.Str(name)) {
			ret := statemod.Ret(name, true, fmt.Sprintf("Advisory patch %s is already installed", value.Str(name)))
			return nil, ret, nil
		}
	}
	var targets []string
	for _, id := range want {
		if !installed(id) {
			targets = append(targets, id)
		}
	}
	if len(targets) == 0 {
		return nil, statemod.Ret(name, true, "All specified advisory patches are already installed"), nil
	}
	return targets, nil, nil
}

func patchInstalled(c *statemod.Call, ids, downloadonly any, kw *value.Map) (*value.Map, error) {
	name := c.Get("name")
	ret := statemod.Ret(name, nil, "")
	if !hasExec(c, "pkg.list_patches") {
		ret.Set("result", false)
		ret.Set("comment", "The pkg.patch_installed state is not available on this platform")
		return ret, nil
	}
	if l, ok := ids.(*value.List); ok && l.Len() == 0 {
		ret.Set("result", true)
		ret.Set("comment", "No advisory ids provided")
		return ret, nil
	}
	targets, done, err := advisoryTargets(c, name, ids, kw)
	if err != nil {
		return nil, err
	}
	if done != nil {
		return done, nil
	}
	if c.Test {
		ret.Set("comment", "The following advisory patches would be downloaded: "+strings.Join(targets, ", "))
		return ret, nil
	}
	installKw := value.MapOf("name", name, "advisory_ids", ids, "downloadonly", downloadonly)
	installKw.Update(kw)
	res, err := c.Salt("pkg.install", nil, installKw)
	if err != nil {
		return pkgExecError(name, err, "An error was encountered while downloading package(s): "), nil
	}
	ret.Set("result", true)
	changes := value.NewMap(0)
	if m, ok := res.(*value.Map); ok {
		changes.Update(m)
	}
	ret.Set("changes", changes)
	if changes.Len() == 0 {
		status := "installed"
		if value.Truthy(downloadonly) {
			status = "downloaded"
		}
		ret.Set("comment", "Advisory patch is not needed or related packages are already "+status)
	}
	return ret, nil
}

func pkgPatchDownloaded(c *statemod.Call) (*value.Map, error) {
	if !hasExec(c, "pkg.list_patches") {
		return value.MapOf("name", c.Get("name"), "result", false, "changes", value.NewMap(0),
			"comment", "The pkg.patch_downloaded state is not available on this platform"), nil
	}
	kw := passKwargs(c)
	kw.Delete("downloadonly")
	return patchInstalled(c, c.Get("advisory_ids"), true, kw)
}
