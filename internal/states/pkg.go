package states

// pkg.go is salt/states/pkg.py: pkg.installed, pkg.latest, pkg.removed,
// pkg.purged, pkg.uptodate, pkg.held, pkg.unheld, mod_init (refresh the
// package database once per run), mod_watch, and Salt's mod_aggregate
// folded into the state functions (see aggregatePkgs).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"brine/internal/match"
	"brine/internal/statemod"
	"brine/internal/system"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

// pkgManagerService is the execmod service name a run (or a test) attaches
// its own pkgmgr.Manager under (the same name internal/modules uses).
const pkgManagerService = "pkgmgr"

// pkgRtagKey is the Shared key standing for Salt's pkg_refresh rtag file:
// set by mod_init, cleared by the first refresh.
const pkgRtagKey = "pkg.rtag"

var pkgInstalledParams = []statemod.Param{
	statemod.Req("name"), statemod.Opt("version", nil), statemod.Opt("refresh", nil),
	statemod.Opt("fromrepo", nil), statemod.Opt("skip_verify", false),
	statemod.Opt("skip_suggestions", false), statemod.Opt("pkgs", nil),
	statemod.Opt("sources", nil), statemod.Opt("allow_updates", false),
	statemod.Opt("pkg_verify", false), statemod.Opt("normalize", true),
	statemod.Opt("ignore_epoch", nil), statemod.Opt("reinstall", false),
	statemod.Opt("update_holds", false),
}

var pkgRemoveParams = []statemod.Param{
	statemod.Req("name"), statemod.Opt("version", nil), statemod.Opt("pkgs", nil),
	statemod.Opt("normalize", true), statemod.Opt("ignore_epoch", nil),
}

func init() {
	statemod.Register(&statemod.Function{Name: "pkg.installed", Params: pkgInstalledParams, Kwargs: true,
		Doc: "Ensure that the package (or the packages of pkgs) is installed, at the version asked.",
		Run: pkgInstalled})
	statemod.Register(&statemod.Function{Name: "pkg.latest",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("refresh", nil), statemod.Opt("fromrepo", nil),
			statemod.Opt("skip_verify", false), statemod.Opt("pkgs", nil), statemod.Opt("watch_flags", true)},
		Kwargs: true, Doc: "Ensure that the named packages are installed at their latest available version.",
		Run: pkgLatest})
	statemod.Register(&statemod.Function{Name: "pkg.removed", Params: pkgRemoveParams, Kwargs: true,
		Doc: "Ensure that the named packages are not installed.",
		Run: func(c *statemod.Call) (*value.Map, error) { return pkgUninstall(c, "remove") }})
	statemod.Register(&statemod.Function{Name: "pkg.purged", Params: pkgRemoveParams, Kwargs: true,
		Doc: "Ensure that the named packages are not installed and their configuration is purged.",
		Run: func(c *statemod.Call) (*value.Map, error) { return pkgUninstall(c, "purge") }})
	statemod.Register(&statemod.Function{Name: "pkg.uptodate",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("refresh", false), statemod.Opt("pkgs", nil)},
		Kwargs: true, Doc: "Ensure that every package of the system is up to date.",
		Run: pkgUptodate})
	statemod.Register(&statemod.Function{Name: "pkg.held",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("version", nil), statemod.Opt("pkgs", nil), statemod.Opt("replace", false)},
		Kwargs: true, Doc: "Ensure that the named packages are held at their installed version.",
		Run: func(c *statemod.Call) (*value.Map, error) { return pkgHeldState(c, true) }})
	statemod.Register(&statemod.Function{Name: "pkg.unheld",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("version", nil), statemod.Opt("pkgs", nil), statemod.Opt("all", false)},
		Kwargs: true, Doc: "Ensure that the named packages are not held.",
		Run: func(c *statemod.Call) (*value.Map, error) { return pkgHeldState(c, false) }})
	statemod.Register(&statemod.Function{Name: "pkg.mod_init", Params: nil, Kwargs: true,
		Doc: "Flag the package database for one refresh during the run.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			fun, _ := c.Low.Get("fun")
			if fun != "installed" && fun != "latest" {
				return statemod.Ret("", false, ""), nil
			}
			if c.Env != nil && c.Env.Shared != nil {
				c.Env.Shared.Do(func(m map[string]any) {
					if _, done := m[pkgRtagKey]; !done {
						m[pkgRtagKey] = true
					}
				})
			}
			return statemod.Ret("", true, ""), nil
		}})
	statemod.Register(&statemod.Function{Name: "pkg.mod_aggregate", Params: nil, Kwargs: true,
		Doc: "Fold the packages of the pkg chunks still to run into this one (state_aggregate).",
		Run: pkgModAggregate})
	statemod.Register(&statemod.Function{Name: "pkg.mod_watch",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("sfun", nil)}, Kwargs: true,
		Doc: "Run the watching pkg function again when a watched state changed.",
		Run: pkgModWatch})
}

func pkgModWatch(c *statemod.Call) (*value.Map, error) {
	sfun := c.Str("sfun")
	var run statemod.Func
	switch sfun {
	case "installed":
		run = pkgInstalled
	case "latest":
		run = pkgLatest
	case "removed":
		run = func(c *statemod.Call) (*value.Map, error) { return pkgUninstall(c, "remove") }
	case "purged":
		run = func(c *statemod.Call) (*value.Map, error) { return pkgUninstall(c, "purge") }
	default:
		return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0),
			"comment", fmt.Sprintf("pkg.%s does not work with the watch requisite", sfun), "result", false), nil
	}
	f, _ := statemod.Default.Lookup("pkg." + sfun)
	args, _ := f.BindArgs(c.Args)
	sub := *c
	sub.Fun, sub.Args = f, args
	return run(&sub)
}

// pkgManager returns the run's package manager.
func pkgManager(c *statemod.Call) (pkgmgr.Manager, error) {
	if c.Env != nil && c.Env.Exec != nil {
		if m, ok := c.Env.Exec.Service(pkgManagerService).(pkgmgr.Manager); ok {
			return m, nil
		}
	}
	fam, _ := c.Grains().Get("os_family")
	return pkgmgr.For(value.Str(fam), system.Exec{})
}

func bg(c *statemod.Call) context.Context {
	if c.Ctx != nil {
		return c.Ctx
	}
	return context.Background()
}

// pkgWant is one desired package and its version spec ("" for any).
type pkgWant struct {
	name, version string
}

// repackPkgs is Salt's _repack_pkgs: a pkgs list of names and one-key
// {name: version} mappings, in order (a later entry replaces an earlier).
func repackPkgs(pkgs any) ([]pkgWant, bool) {
	l, ok := pkgs.(*value.List)
	if !ok {
		return nil, false
	}
	var out []pkgWant
	idx := map[string]int{}
	add := func(w pkgWant) {
		if i, ok := idx[w.name]; ok {
			out[i] = w
			return
		}
		idx[w.name] = len(out)
		out = append(out, w)
	}
	for _, it := range l.Items {
		switch x := it.(type) {
		case *value.Map:
			x.Range(func(k, v any) bool {
				w := pkgWant{name: value.Str(k)}
				if v != nil {
					w.version = value.Str(v)
				}
				add(w)
				return true
			})
		case nil:
		default:
			add(pkgWant{name: value.Str(x)})
		}
	}
	return out, len(out) > 0
}

// curPkgs is pkg.list_pkgs(versions_as_list=True).
func curPkgs(c *statemod.Call) (map[string][]string, error) {
	r, err := c.Salt("pkg.list_pkgs", nil, value.MapOf("versions_as_list", true))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	if m, ok := r.(*value.Map); ok {
		m.Range(func(k, v any) bool {
			var vs []string
			switch x := v.(type) {
			case *value.List:
				for _, it := range x.Items {
					vs = append(vs, value.Str(it))
				}
			case string:
				vs = strings.Split(x, ",")
			}
			out[value.Str(k)] = vs
			return true
		})
	}
	return out, nil
}

// removedPkgs lists packages removed whose configuration remains.
func removedPkgs(c *statemod.Call) map[string][]string {
	m, err := pkgManager(c)
	if err != nil {
		return nil
	}
	rl, ok := m.(pkgmgr.RemovedLister)
	if !ok {
		return nil
	}
	in, err := rl.ListRemoved(bg(c))
	if err != nil {
		return nil
	}
	return in
}

func pkgCompare(c *statemod.Call, a, b string, ignoreEpoch bool) int {
	if ignoreEpoch {
		a, b = stripEpochV(a), stripEpochV(b)
	}
	if c.Env != nil && c.Env.Exec != nil {
		if m, ok := c.Env.Exec.Service(pkgManagerService).(pkgmgr.Manager); ok {
			return m.Compare(a, b)
		}
	}
	fam, _ := c.Grains().Get("os_family")
	return pkgmgr.Compare(value.Str(fam), a, b)
}

func stripEpochV(v string) string {
	if i := strings.IndexByte(v, ':'); i >= 0 {
		return v[i+1:]
	}
	return v
}

var versionCondRE = regexp.MustCompile(`^\s*(<=|>=|<|>|==|!=|=)?\s*([^<>=\s]+)\s*$`)

// fulfillsVersion is Salt's _fulfills_version_string: every condition of
// spec ("1.2", ">=1.0,<2.0") holds for one of the installed versions.
func fulfillsVersion(c *statemod.Call, installed []string, spec string, ignoreEpoch bool) (bool, error) {
	type cond struct{ op, v string }
	var conds []cond
	for _, part := range strings.Split(spec, ",") {
		m := versionCondRE.FindStringSubmatch(part)
		if m == nil {
			return false, fmt.Errorf("Invalid version specification '%s'.", part)
		}
		op := m[1]
		if op == "" || op == "=" {
			op = "=="
		}
		conds = append(conds, cond{op, m[2]})
	}
	for _, iv := range installed {
		ok := true
		for _, cd := range conds {
			if cd.op == "==" && match.Fnmatch(iv, cd.v) {
				continue
			}
			cmp := pkgCompare(c, iv, cd.v, ignoreEpoch || !strings.Contains(cd.v, ":"))
			if !pkgmgr.Satisfies(cd.op, cmp) {
				ok = false
				break
			}
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// desiredPkg is Salt's _get_desired_pkg: name=version for a plain version.
func desiredPkg(w pkgWant) string {
	if w.version == "" || strings.HasPrefix(w.version, "<") || strings.HasPrefix(w.version, ">") || strings.HasPrefix(w.version, "=") {
		return w.name + w.version
	}
	return w.name + "=" + w.version
}

// checkRefresh is salt.utils.pkg.check_refresh with the run's rtag.
func checkRefresh(c *statemod.Call, refresh any) bool {
	if value.Truthy(refresh) {
		return true
	}
	if refresh == false || c.Env == nil || c.Env.Shared == nil {
		return false
	}
	var set bool
	c.Env.Shared.Do(func(m map[string]any) { set = m[pkgRtagKey] == true })
	return set
}

func clearRtag(c *statemod.Call) {
	if c.Env != nil && c.Env.Shared != nil {
		c.Env.Shared.Do(func(m map[string]any) { m[pkgRtagKey] = false })
	}
}

// pkgModAggregate is Salt's pkg.mod_aggregate, which the engine calls
// (with state_aggregate or the chunk's aggregate argument) before the
// chunk runs: the packages of the other pkg chunks with the same function
// and fromrepo that have not run yet (nor been folded already, nor hold a
// package) are added to this chunk's pkgs (its sources when it installs
// sources), so one package manager call does them all; those chunks are
// marked __agg__ and still run later, finding their packages in place.
// Unlike Salt 3006.0, which replaced the chunk's own package by the
// others', the chunk's own name (and version) stays first in the list, as
// later Salt releases do.
func pkgModAggregate(c *statemod.Call) (*value.Map, error) {
	low := c.Low
	fun, _ := low.Get("fun")
	switch fun {
	case "installed", "latest", "removed", "purged":
	default:
		return low, nil
	}
	pkgType := "pkgs"
	if low.Has("sources") {
		pkgType = "sources"
	}
	repo, _ := low.Get("fromrepo")
	var more []any
	for _, ch := range c.Chunks {
		if c.Running != nil && c.Running.Has(statemod.Tag(ch)) {
			continue
		}
		st, _ := ch.Get("state")
		f, _ := ch.Get("fun")
		r, _ := ch.Get("fromrepo")
		if st != "pkg" || ch.Has("__agg__") || f != fun || !value.Equal(r, repo) {
			continue
		}
		if ch.Has("sources") {
			if pkgType == "sources" {
				if l, ok := ch.Get("sources"); ok {
					if ll, ok := l.(*value.List); ok {
						more = append(more, ll.Items...)
					}
				}
				ch.Set("__agg__", true)
			}
			continue
		}
		if pkgType != "pkgs" || ch.Has("hold") {
			continue
		}
		if p, ok := ch.Get("pkgs"); ok {
			if pl, ok := p.(*value.List); ok {
				more = append(more, pl.Items...)
			}
			ch.Set("__agg__", true)
		} else if n, ok := ch.Get("name"); ok {
			if v, _ := ch.Delete("version"); v != nil {
				more = append(more, value.MapOf(n, v))
			} else {
				more = append(more, n)
			}
			ch.Set("__agg__", true)
		}
	}
	if len(more) == 0 {
		return low, nil
	}
	list := value.NewList()
	if cur, ok := low.Get(pkgType); ok {
		if l, ok := cur.(*value.List); ok {
			list.Items = append(list.Items, l.Items...)
		}
	} else if n, ok := low.Get("name"); ok && pkgType == "pkgs" {
		if v, _ := low.Get("version"); v != nil {
			list.Append(value.MapOf(n, v))
		} else {
			list.Append(n)
		}
	}
	list.Items = append(list.Items, more...)
	low.Set(pkgType, list)
	return low, nil
}

func pkgWantsList(wants []pkgWant) *value.List {
	l := value.NewList()
	for _, w := range wants {
		if w.version == "" {
			l.Append(w.name)
		} else {
			l.Append(value.MapOf(w.name, w.version))
		}
	}
	return l
}

// passKwargs returns the extra keyword arguments of the call (those that
// are not parameters), for the execution function.
func passKwargs(c *statemod.Call, skip ...string) *value.Map {
	out := value.NewMap(0)
	c.Args.Range(func(k, v any) bool {
		ks, _ := k.(string)
		if c.Fun.Params != nil {
			for _, p := range c.Fun.Params {
				if p.Name == ks {
					return true
				}
			}
		}
		for _, s := range skip {
			if s == ks {
				return true
			}
		}
		if ks == "__agg__" {
			return true // the engine's aggregation mark
		}
		out.Set(k, v)
		return true
	})
	return out
}

func pkgInstalled(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	pkgs := c.Get("pkgs")
	if l, ok := pkgs.(*value.List); ok && l.Len() == 0 {
		return statemod.Ret(name, true, "No packages to install provided"), nil
	}
	if c.Has("sources") && value.Truthy(c.Get("sources")) {
		if value.Truthy(pkgs) {
			return statemod.Ret(name, false, `Only one of "pkgs" and "sources" is permitted.`), nil
		}
		return pkgInstallSources(c)
	}
	var wants []pkgWant
	if value.Truthy(pkgs) {
		var ok bool
		if wants, ok = repackPkgs(pkgs); !ok {
			return statemod.Ret(name, false, "Invalidly formatted 'pkgs' parameter. See minion log."), nil
		}
	} else {
		w := pkgWant{name: c.Name()}
		if c.Has("version") && c.Str("version") != "" {
			w.version = c.Str("version")
		}
		wants = []pkgWant{w}
	}
	refresh := checkRefresh(c, c.Get("refresh"))
	ignoreEpoch := c.Bool("ignore_epoch")
	reinstall := c.Bool("reinstall")
	cur, err := curPkgs(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	// Versions "latest" resolve to the candidate version.
	var latest []any
	for _, w := range wants {
		if w.version == "latest" {
			latest = append(latest, w.name)
		}
	}
	if len(latest) > 0 {
		r, err := c.Salt("pkg.latest_version", latest, value.MapOf("refresh", refresh, "fromrepo", c.Get("fromrepo")))
		if err != nil {
			return statemod.Ret(name, false, err.Error()), nil
		}
		if refresh {
			refresh = false
			clearRtag(c)
		}
		res := map[string]string{}
		if m, ok := r.(*value.Map); ok {
			m.Range(func(k, v any) bool { res[value.Str(k)] = value.Str(v); return true })
		} else {
			res[value.Str(latest[0])] = value.Str(r)
		}
		for i, w := range wants {
			if w.version != "latest" {
				continue
			}
			switch v := res[w.name]; {
			case v != "":
				wants[i].version = v
			case len(cur[w.name]) > 0:
				wants[i].version = cur[w.name][len(cur[w.name])-1]
			default:
				wants[i].version = ""
			}
		}
	}
	var targets, toReinstall []pkgWant
	var problems []string
	versionSpec := false
	for _, w := range wants {
		cver := cur[w.name]
		if len(cver) == 0 {
			targets = append(targets, w)
			continue
		}
		if reinstall {
			toReinstall = append(toReinstall, w)
			continue
		}
		if w.version == "" {
			continue
		}
		ok, err := fulfillsVersion(c, cver, w.version, ignoreEpoch)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		versionSpec = true
		if !ok {
			targets = append(targets, w)
		}
	}
	if len(problems) > 0 {
		return statemod.Ret(name, false, strings.Join(problems, " ")), nil
	}
	holdArg, wantHold := c.Args.Get("hold")
	if len(targets) == 0 && len(toReinstall) == 0 {
		msg := "All specified packages are already installed"
		if versionSpec {
			msg += " and are at the desired version"
		}
		ret := statemod.Ret(name, true, msg)
		if wantHold {
			pkgApplyHold(c, ret, wants, value.Truthy(holdArg), false)
		}
		return ret, nil
	}
	if c.Test {
		changes := value.NewMap(0)
		var comment []string
		if len(targets) > 0 {
			names := make([]string, len(targets))
			for i, t := range targets {
				names[i] = t.name
				changes.Set(t.name, value.MapOf("new", "installed", "old", ""))
			}
			comment = append(comment, "The following packages would be installed/updated: "+strings.Join(names, ", "))
		}
		if len(toReinstall) > 0 {
			names := make([]string, len(toReinstall))
			for i, t := range toReinstall {
				names[i] = desiredPkg(t)
				changes.Set(names[i], value.MapOf("new", "installed", "old", ""))
			}
			comment = append(comment, "The following packages would be reinstalled: "+strings.Join(names, ", "))
		}
		ret := statemod.Ret(name, nil, strings.Join(comment, "\n"))
		ret.Set("changes", changes)
		return ret, nil
	}
	all := append(append([]pkgWant(nil), targets...), toReinstall...)
	kw := passKwargs(c, "hold")
	kw.Set("name", nil)
	kw.Set("refresh", refresh)
	kw.Set("fromrepo", c.Get("fromrepo"))
	kw.Set("skip_verify", c.Get("skip_verify"))
	kw.Set("pkgs", pkgWantsList(all))
	kw.Set("reinstall", len(toReinstall) > 0)
	res, err := c.Salt("pkg.install", nil, kw)
	if refresh {
		clearRtag(c)
	}
	if err != nil {
		if msg, ch, ok := pkgErrorInfo(err); ok {
			ret := statemod.Ret(name, false, msg)
			ret.Set("changes", ch)
			return ret, nil
		}
		ret := statemod.Ret(name, false, "An error was encountered while installing package(s): "+err.Error())
		return ret, nil
	}
	changes := value.NewMap(0)
	if m, ok := res.(*value.Map); ok {
		changes = m
	}
	var comment []string
	result := any(true)
	newPkgs, err := curPkgs(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	isTarget := map[string]bool{}
	for _, t := range targets {
		isTarget[t.name] = true
	}
	isRe := map[string]bool{}
	for _, t := range toReinstall {
		isRe[t.name] = true
	}
	var modified, notModified, failed []string
	for _, w := range wants {
		cver := newPkgs[strings.SplitN(w.name, "=", 2)[0]]
		ok := len(cver) > 0
		if ok && w.version != "" {
			if strings.HasSuffix(w.version, "*") && strings.HasPrefix(cver[0], w.version[:len(w.version)-1]) {
				ok = true
			} else {
				ok, _ = fulfillsVersion(c, cver, w.version, ignoreEpoch)
			}
		}
		switch {
		case ok && isTarget[w.name]:
			modified = append(modified, desiredPkg(w))
		case ok && !isRe[w.name]:
			notModified = append(notModified, desiredPkg(w))
		case !ok && isTarget[w.name]:
			failed = append(failed, desiredPkg(w))
		}
	}
	if len(modified) > 0 {
		summary := strings.Join(modified, ", ")
		if len(summary) < 20 {
			comment = append(comment, "The following packages were installed/updated: "+summary)
		} else {
			comment = append(comment, fmt.Sprintf("%d targeted package%s %s installed/updated.", len(modified), plural(len(modified), "s", ""), plural(len(modified), "were", "was")))
		}
	}
	if len(notModified) > 0 {
		if len(notModified) <= 20 {
			comment = append(comment, "The following packages were already installed: "+strings.Join(notModified, ", "))
		} else {
			comment = append(comment, fmt.Sprintf("%d targeted package%s %s already installed", len(notModified), plural(len(notModified), "s", ""), plural(len(notModified), "were", "was")))
		}
	}
	if len(failed) > 0 {
		comment = append([]string{"The following packages failed to install/update: " + strings.Join(failed, ", ")}, comment...)
		result = false
	}
	for _, t := range toReinstall {
		if changes.Has(t.name) {
			comment = append(comment, "Package '"+desiredPkg(t)+"' was reinstalled.")
		} else {
			comment = append(comment, "Reinstall was not successful for package '"+desiredPkg(t)+"'.")
			result = false
		}
	}
	ret := value.MapOf("name", name, "changes", changes, "result", result, "comment", strings.Join(comment, "\n"))
	if wantHold {
		pkgApplyHold(c, ret, wants, value.Truthy(holdArg), true)
	}
	return ret, nil
}

// debVersion returns the version in a package file's control data.
func debVersion(path string) string {
	out, err := exec.Command("dpkg-deb", "-f", path, "Version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// pkgInstallSources is pkg.installed with sources: a list of {name: url
// or path} package files, fetched (salt://, http(s)://, local) and
// installed in one package manager call.
func pkgInstallSources(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	l, ok := c.Get("sources").(*value.List)
	if !ok {
		return statemod.Ret(name, false, "Invalidly formatted 'sources' parameter. See minion log."), nil
	}
	type src struct{ name, url string }
	var srcs []src
	for _, it := range l.Items {
		m, ok := it.(*value.Map)
		if !ok || m.Len() != 1 {
			return statemod.Ret(name, false, "Invalidly formatted 'sources' parameter. See minion log."), nil
		}
		k, v := m.At(0)
		srcs = append(srcs, src{value.Str(k), value.Str(v)})
	}
	cur, err := curPkgs(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	dir, err := os.MkdirTemp("", "brine-pkg-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// fetch copies one package file into dir; a local path that is not
	// there is reported as Salt's cp.cache_file and bin_pkg_info do.
	fetch := func(s src) (string, string, error) {
		if !isRemote(s.url) && !strings.HasPrefix(s.url, "salt://") {
			if _, err := os.Stat(s.url); err != nil {
				return "", s.url + " does not exist on minion", nil
			}
		}
		var data []byte
		var err error
		if isRemote(s.url) {
			data, err = fetchRemote(s.url)
		} else {
			data, err = readSource(c, s.url)
		}
		if err != nil {
			return "", fmt.Sprintf("Unable to cache %s: %s", s.url, err), nil
		}
		p := filepath.Join(dir, filepath.Base(strings.SplitN(s.url, "?", 2)[0]))
		return p, "", os.WriteFile(p, data, 0o644)
	}
	// As Salt's _find_install_targets: a package not installed is a
	// target as it is; an installed one is fetched to compare versions.
	var targets []src
	var notModified, problems []string
	fetched := map[string]string{}
	for _, s := range srcs {
		if vs := cur[s.name]; len(vs) > 0 {
			p, problem, err := fetch(s)
			if err != nil {
				return nil, err
			}
			if problem != "" {
				problems = append(problems, problem)
				continue
			}
			if v := debVersion(p); v == "" || contains(vs, v) {
				notModified = append(notModified, s.name)
				continue
			}
			fetched[s.url] = p
		}
		targets = append(targets, s)
	}
	if len(problems) > 0 {
		return statemod.Ret(name, false, strings.Join(problems, " ")), nil
	}
	if len(targets) == 0 {
		return statemod.Ret(name, true, "All specified packages are already installed"), nil
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.name
	}
	if c.Test {
		ret := statemod.Ret(name, nil, "The following packages would be installed/updated: "+strings.Join(names, ", "))
		ch := value.NewMap(0)
		for _, n := range names {
			ch.Set(n, value.MapOf("new", "installed", "old", ""))
		}
		ret.Set("changes", ch)
		return ret, nil
	}
	var paths []pkgmgr.Target
	for _, t := range targets {
		p, ok := fetched[t.url]
		if !ok {
			var problem string
			if p, problem, err = fetch(t); err != nil {
				return nil, err
			}
			if problem != "" {
				if strings.HasSuffix(problem, " does not exist on minion") {
					problem = "An error was encountered while installing package(s): " + problem
				}
				return statemod.Ret(name, false, problem), nil
			}
		}
		paths = append(paths, pkgmgr.Target{Name: p})
	}
	m, err := pkgManager(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	_, ierr := m.Install(bg(c), pkgmgr.InstallRequest{Targets: paths})
	if c.Env != nil && c.Env.Exec != nil {
		c.Env.Exec.Cache().Delete("pkg.list_pkgs")
	}
	after, err := curPkgs(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	changes := value.NewMap(0)
	var modified, failed []string
	for _, n := range names {
		o, nw := strings.Join(cur[n], ","), strings.Join(after[n], ",")
		if o != nw {
			changes.Set(n, value.MapOf("new", nw, "old", o))
			modified = append(modified, n)
		} else {
			failed = append(failed, n)
		}
	}
	var comment []string
	result := true
	if len(failed) > 0 {
		msg := "The following packages failed to install/update: " + strings.Join(failed, ", ")
		if ierr != nil {
			msg += ": " + ierr.Error()
		}
		comment = append(comment, msg)
		result = false
	}
	if len(modified) > 0 {
		comment = append(comment, "The following packages were installed/updated: "+strings.Join(modified, ", "))
	}
	if len(notModified) > 0 {
		comment = append(comment, "The following packages were already installed: "+strings.Join(notModified, ", "))
	}
	return value.MapOf("name", name, "changes", changes, "result", result, "comment", strings.Join(comment, "\n")), nil
}

// pkgErrorInfo reads the pkg execution module's error with info (Salt's
// CommandExecutionError(message, info={"errors": ..., "changes": ...}))
// and returns its strerror_without_changes and its changes. The error type
// lives in internal/modules, which a state package may not import, so its
// fields are read by name.
func pkgErrorInfo(err error) (string, *value.Map, bool) {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", nil, false
	}
	e := v.Elem()
	msgF, errsF, chF := e.FieldByName("Msg"), e.FieldByName("Errors"), e.FieldByName("Changes")
	if !msgF.IsValid() || !errsF.IsValid() || !chF.IsValid() || msgF.Kind() != reflect.String {
		return "", nil, false
	}
	errs, _ := errsF.Interface().([]string)
	changes, _ := chF.Interface().(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
	}
	msg := msgF.String()
	if len(errs) == 0 {
		return msg, changes, true
	}
	if msg != "" && !strings.ContainsAny(msg[len(msg)-1:], ".?!") {
		msg += "."
	}
	msg += " Additional info follows:\n\nerrors:"
	for _, e := range errs {
		msg += "\n    - " + strings.TrimSpace(e)
	}
	return msg, changes, true
}

func plural(n int, many, one string) string {
	if n > 1 {
		return many
	}
	return one
}

// holdResult is one entry of Salt's pkg.hold / pkg.unhold return.
type holdResult struct {
	name    string
	changes *value.Map
	result  any
	comment string
}

// pkgHold is aptpkg.hold / unhold over the run's package manager.
func pkgHold(c *statemod.Call, names []string, hold bool) ([]holdResult, error) {
	m, err := pkgManager(c)
	if err != nil {
		return nil, err
	}
	held, err := m.Held(bg(c))
	if err != nil {
		return nil, err
	}
	var cur map[string][]string
	if !hold {
		if cur, err = curPkgs(c); err != nil {
			return nil, err
		}
	}
	var out []holdResult
	var change []string
	for _, n := range names {
		r := holdResult{name: n, changes: value.NewMap(0), result: true}
		switch {
		case hold && held[n]:
			r.comment = "Package " + n + " is already set to be held."
		case hold && c.Test:
			r.result, r.comment = nil, "Package "+n+" is set to be held."
		case hold:
			r.comment = "Package " + n + " is now being held."
			r.changes = value.MapOf("new", "hold", "old", "install")
			change = append(change, n)
		case !held[n] && len(cur[n]) == 0:
			r.result, r.comment = false, "Package "+n+" does not have a state."
		case !held[n]:
			r.comment = "Package " + n + " is already set not to be held."
		case c.Test:
			r.result, r.comment = nil, "Package "+n+" is set not to be held."
		default:
			r.comment = "Package " + n + " is no longer being held."
			r.changes = value.MapOf("new", "install", "old", "hold")
			change = append(change, n)
		}
		out = append(out, r)
	}
	if len(change) > 0 {
		if _, err := m.Hold(bg(c), change, hold); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pkgApplyHold adds the hold/unhold outcome to an installed return as
// Salt does. Salt has two code paths: when nothing was to be installed
// each hold comment follows ".\n" and a package's hold changes are the
// hold's own {new, old}; after an install the comments are lines of the
// summary and the hold changes extend the install's.
func pkgApplyHold(c *statemod.Call, ret *value.Map, wants []pkgWant, hold, afterInstall bool) {
	names := make([]string, len(wants))
	for i, w := range wants {
		names[i] = w.name
	}
	res, err := pkgHold(c, names, hold)
	comment := value.Str(getv(ret, "comment"))
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", comment+"\n"+err.Error())
		return
	}
	changes, _ := getv(ret, "changes").(*value.Map)
	for _, r := range res {
		if !afterInstall {
			continue
		}
		comment += "\n" + r.comment
		if r.changes.Len() > 0 {
			ch, ok := getv(changes, r.name).(*value.Map)
			if !ok {
				ch = value.MapOf("new", "")
				changes.Set(r.name, ch)
			}
			nw := value.Str(getv(ch, "new"))
			if nw != "" {
				nw += "\n"
			}
			ch.Set("new", nw+value.Str(getv(r.changes, "new")))
			if old, ok := ch.Get("old"); ok {
				o := value.Str(old)
				if o != "" {
					o += "\n"
				}
				ch.Set("old", o+value.Str(getv(r.changes, "old")))
			}
		}
		if r.result != true || value.Truthy(getv(ret, "result")) {
			ret.Set("result", r.result)
		}
	}
	if !afterInstall {
		// Salt walks the holds with changes, then those without changes
		// that succeeded, then those whose result is falsy (None counts,
		// so a test-mode hold is walked twice); each sets the result.
		walk := func(r holdResult) {
			comment += ".\n" + r.comment
			ret.Set("result", r.result)
		}
		for _, r := range res {
			if r.changes.Len() > 0 {
				walk(r)
				changes.Set(r.name, r.changes)
			}
		}
		for _, r := range res {
			if r.changes.Len() == 0 && value.Truthy(r.result) {
				walk(r)
			}
		}
		for _, r := range res {
			if !value.Truthy(r.result) {
				walk(r)
			}
		}
	}
	ret.Set("comment", comment)
}

func getv(m *value.Map, k string) any {
	if m == nil {
		return nil
	}
	v, _ := m.Get(k)
	return v
}

func pkgLatest(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	var desired []string
	if p := c.Get("pkgs"); p != nil {
		l, ok := p.(*value.List)
		if !ok {
			return statemod.Ret(name, false, "Invalidly formatted \"pkgs\" parameter. See minion log."), nil
		}
		if l.Len() == 0 {
			return statemod.Ret(name, true, "No packages to install provided"), nil
		}
		ws, _ := repackPkgs(l)
		for _, w := range ws {
			desired = append(desired, w.name)
		}
	} else {
		desired = []string{c.Name()}
	}
	ws := make([]pkgWant, len(desired))
	for i, d := range desired {
		ws[i] = pkgWant{name: d}
	}
	refresh := checkRefresh(c, c.Get("refresh"))
	args := make([]any, len(desired))
	for i, d := range desired {
		args[i] = d
	}
	availR, err := c.Salt("pkg.latest_version", args, value.MapOf("fromrepo", c.Get("fromrepo"), "refresh", refresh))
	if refresh {
		clearRtag(c)
	}
	if err != nil {
		return statemod.Ret(name, false, "An error was encountered while checking the newest available version of package(s): "+err.Error()), nil
	}
	curR, err := c.Salt("pkg.version", args, value.NewMap(0))
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	toMap := func(r any) map[string]string {
		out := map[string]string{}
		if m, ok := r.(*value.Map); ok {
			m.Range(func(k, v any) bool { out[value.Str(k)] = value.Str(v); return true })
		} else {
			out[desired[0]] = value.Str(r)
		}
		return out
	}
	avail, cur := toMap(availR), toMap(curR)
	targets := map[string]string{}
	var problems []string
	for _, p := range desired {
		if avail[p] == "" {
			if cur[p] == "" {
				problems = append(problems, fmt.Sprintf("No information found for '%s'.", p))
			}
		} else {
			targets[p] = avail[p]
		}
	}
	if len(problems) > 0 {
		return statemod.Ret(name, false, strings.Join(problems, " ")), nil
	}
	if len(targets) == 0 {
		var comment string
		switch {
		case len(desired) > 10:
			comment = fmt.Sprintf("All %d packages are up-to-date.", len(desired))
		case len(desired) > 1:
			s := append([]string(nil), desired...)
			sort.Strings(s)
			comment = "All packages are up-to-date (" + strings.Join(s, ", ") + ")."
		default:
			comment = "Package " + desired[0] + " is already up-to-date"
		}
		return statemod.Ret(name, true, comment), nil
	}
	var upToDate []string
	if c.Get("pkgs") != nil {
		for _, p := range desired {
			if _, ok := targets[p]; !ok {
				upToDate = append(upToDate, p)
			}
		}
	}
	sort.Strings(upToDate)
	tnames := make([]string, 0, len(targets))
	for t := range targets {
		tnames = append(tnames, t)
	}
	sort.Strings(tnames)
	if c.Test {
		comments := []string{"The following packages would be installed/upgraded: " + strings.Join(tnames, ", ")}
		if len(upToDate) > 0 {
			if len(upToDate) <= 10 {
				parts := make([]string, len(upToDate))
				for i, u := range upToDate {
					parts[i] = fmt.Sprintf("%s (%s)", u, cur[u])
				}
				comments = append(comments, "The following packages are already up-to-date: "+strings.Join(parts, ", "))
			} else {
				comments = append(comments, fmt.Sprintf("%d packages are already up-to-date", len(upToDate)))
			}
		}
		return statemod.Ret(name, nil, strings.Join(comments, "\n")), nil
	}
	kw := passKwargs(c)
	kw.Set("name", nil)
	kw.Set("refresh", false)
	kw.Set("fromrepo", c.Get("fromrepo"))
	kw.Set("skip_verify", c.Get("skip_verify"))
	pl := value.NewList()
	for _, t := range desired {
		if _, ok := targets[t]; ok {
			pl.Append(t)
		}
	}
	kw.Set("pkgs", pl)
	res, err := c.Salt("pkg.install", nil, kw)
	if err != nil {
		return statemod.Ret(name, false, "An error was encountered while installing package(s): "+err.Error()), nil
	}
	changes, _ := res.(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
	}
	if changes.Len() == 0 {
		var comment string
		switch {
		case len(targets) > 10:
			comment = fmt.Sprintf("%d targeted packages failed to update. See debug log for details.", len(targets))
		case len(targets) > 1:
			comment = "The following targeted packages failed to update. See debug log for details: (" + strings.Join(tnames, ", ") + ")."
		default:
			comment = "Package " + tnames[0] + " failed to update."
		}
		if len(upToDate) > 0 {
			comment += " The following packages were already up-to-date: " + strings.Join(upToDate, ", ")
		}
		ret := statemod.Ret(name, false, comment)
		ret.Set("changes", changes)
		return ret, nil
	}
	var failed, ok []string
	for _, t := range tnames {
		ch, _ := getv(changes, t).(*value.Map)
		if ch == nil || value.Str(getv(ch, "new")) != targets[t] {
			failed = append(failed, t)
		} else {
			ok = append(ok, t)
		}
	}
	var comments []string
	if len(failed) > 0 {
		comments = append(comments, "The following packages failed to update: "+strings.Join(failed, ", "))
	}
	if len(ok) > 0 {
		comments = append(comments, "The following packages were successfully installed/upgraded: "+strings.Join(ok, ", "))
	}
	if len(upToDate) > 0 {
		if len(upToDate) <= 10 {
			comments = append(comments, "The following packages were already up-to-date: "+strings.Join(upToDate, ", "))
		} else {
			comments = append(comments, fmt.Sprintf("%d packages were already up-to-date ", len(upToDate)))
		}
	}
	return value.MapOf("name", name, "changes", changes, "result", len(failed) == 0, "comment", strings.Join(comments, " ")), nil
}

func pkgUninstall(c *statemod.Call, action string) (*value.Map, error) {
	name := c.Get("name")
	var wants []pkgWant
	if value.Truthy(c.Get("pkgs")) {
		var ok bool
		if wants, ok = repackPkgs(c.Get("pkgs")); !ok {
			return statemod.Ret(name, false, "Invalidly formatted pkgs parameter. See minion log."), nil
		}
	} else {
		for _, n := range strings.Split(c.Name(), ",") {
			wants = append(wants, pkgWant{name: n, version: c.Str("version")})
		}
	}
	cur, err := curPkgs(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	var targets []string
	versionSpec := false
	for _, w := range wants {
		cver := cur[w.name]
		if len(cver) == 0 {
			continue
		}
		if w.version == "" {
			targets = append(targets, w.name)
			continue
		}
		versionSpec = true
		ok, err := fulfillsVersion(c, cver, w.version, c.Bool("ignore_epoch"))
		if err != nil {
			return statemod.Ret(name, false, err.Error()), nil
		}
		if ok {
			targets = append(targets, w.name)
		}
	}
	if len(targets) == 0 && action == "remove" {
		msg := "All specified packages are already absent"
		if versionSpec {
			msg = "All specified packages (matching specified versions) are already absent"
		}
		return statemod.Ret(name, true, msg), nil
	}
	if action == "purge" {
		removed := removedPkgs(c)
		for _, w := range wants {
			if len(removed[w.name]) > 0 {
				targets = append(targets, w.name)
			}
		}
	}
	sort.Strings(targets)
	if len(targets) == 0 {
		return statemod.Ret(name, true, "None of the targeted packages are installed or partially installed"), nil
	}
	if c.Test {
		changes := value.NewMap(0)
		for _, t := range targets {
			changes.Set(t, value.MapOf("new", action+"d", "old", ""))
		}
		ret := statemod.Ret(name, nil, fmt.Sprintf("The following packages will be %sd: %s.", action, strings.Join(targets, ", ")))
		ret.Set("changes", changes)
		return ret, nil
	}
	kw := passKwargs(c)
	names := value.NewList()
	for _, w := range wants {
		names.Append(w.name)
	}
	kw.Set("pkgs", names)
	res, err := c.Salt("pkg."+action, []any{nil}, kw)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	changes, _ := res.(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
	}
	newPkgs, err := curPkgs(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	var failed []string
	for _, w := range wants {
		if len(newPkgs[w.name]) > 0 {
			failed = append(failed, w.name)
		}
	}
	if action == "purge" {
		removed := removedPkgs(c)
		for _, w := range wants {
			if len(removed[w.name]) > 0 {
				failed = append(failed, w.name)
			}
		}
	}
	sort.Strings(failed)
	if len(failed) > 0 {
		ret := statemod.Ret(name, false, fmt.Sprintf("The following packages failed to %s: %s.", action, strings.Join(failed, ", ")))
		ret.Set("changes", changes)
		return ret, nil
	}
	isTarget := map[string]bool{}
	for _, t := range targets {
		isTarget[t] = true
	}
	var notInstalled []string
	for _, w := range wants {
		if !isTarget[w.name] {
			notInstalled = append(notInstalled, w.name)
		}
	}
	sort.Strings(notInstalled)
	var comment string
	if len(notInstalled) > 0 {
		comment = fmt.Sprintf("The following packages were not installed: %s The following packages were %sd: %s.",
			strings.Join(notInstalled, ", "), action, strings.Join(targets, ", "))
	} else {
		comment = fmt.Sprintf("All targeted packages were %sd.", action)
	}
	return value.MapOf("name", name, "changes", changes, "result", true, "comment", comment), nil
}

func pkgUptodate(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	refresh := c.Get("refresh")
	if _, ok := refresh.(bool); !ok {
		return statemod.Ret(name, false, "refresh must be either True or False"), nil
	}
	m, err := pkgManager(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	if refresh == true {
		if _, err := m.Refresh(bg(c)); err != nil {
			return statemod.Ret(name, false, err.Error()), nil
		}
		clearRtag(c)
	}
	cur, err := curPkgs(c)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	var only map[string]bool
	if l, ok := c.Get("pkgs").(*value.List); ok && l.Len() > 0 {
		only = map[string]bool{}
		ws, _ := repackPkgs(l)
		for _, w := range ws {
			only[w.name] = true
		}
	}
	var names []string
	for n := range cur {
		if only == nil || only[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	cands, err := m.Candidates(bg(c), names, "")
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	upgrades := value.NewMap(0)
	for _, n := range names {
		cand := cands[n]
		if cand == "" {
			continue
		}
		newer := true
		for _, iv := range cur[n] {
			if m.Compare(iv, cand) >= 0 {
				newer = false
			}
		}
		if newer {
			upgrades.Set(n, cand)
		}
	}
	if upgrades.Len() == 0 {
		return statemod.Ret(name, true, "System is already up-to-date"), nil
	}
	if c.Test {
		ret := statemod.Ret(name, nil, "System update will be performed")
		ret.Set("changes", upgrades)
		return ret, nil
	}
	var res any
	if only != nil {
		pl := value.NewList()
		upgrades.Range(func(k, _ any) bool { pl.Append(k); return true })
		res, err = c.Salt("pkg.install", nil, value.MapOf("pkgs", pl, "refresh", false))
	} else {
		res, err = c.Salt("pkg.upgrade", nil, value.MapOf("refresh", false, "dist_upgrade", kwOr(c, "dist_upgrade", false)))
	}
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	changes, _ := res.(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
	}
	var failed []string
	upgrades.Range(func(k, _ any) bool {
		if !changes.Has(k) {
			failed = append(failed, value.Str(k))
		}
		return true
	})
	ret := value.MapOf("name", name, "changes", changes, "result", len(failed) == 0, "comment", "Upgrade ran successfully")
	if len(failed) > 0 {
		ret.Set("comment", "The following package(s) failed to update: "+strings.Join(failed, ", "))
	}
	return ret, nil
}

func pkgHeldStateGeneric(c *statemod.Call, hold bool) (*value.Map, error) {
	name := c.Get("name")
	var names []string
	if value.Truthy(c.Get("pkgs")) {
		ws, _ := repackPkgs(c.Get("pkgs"))
		for _, w := range ws {
			names = append(names, w.name)
		}
	} else {
		names = []string{c.Name()}
	}
	if !hold && c.Bool("all") {
		m, err := pkgManager(c)
		if err != nil {
			return statemod.Ret(name, false, err.Error()), nil
		}
		held, err := m.Held(bg(c))
		if err != nil {
			return statemod.Ret(name, false, err.Error()), nil
		}
		names = names[:0]
		for n := range held {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	if hold {
		cur, err := curPkgs(c)
		if err != nil {
			return statemod.Ret(name, false, err.Error()), nil
		}
		var missing []string
		for _, n := range names {
			if len(cur[n]) == 0 {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return statemod.Ret(name, false, "The following packages are not installed: "+strings.Join(missing, ", ")), nil
		}
	}
	res, err := pkgHold(c, names, hold)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	ret := statemod.Ret(name, true, "")
	changes := value.NewMap(0)
	var comments []string
	for _, r := range res {
		if r.changes.Len() > 0 {
			changes.Set(r.name, value.MapOf("held", hold))
		}
		comments = append(comments, r.comment)
		if r.result == false {
			ret.Set("result", false)
		} else if r.result == nil && getv(ret, "result") == true {
			ret.Set("result", nil)
		}
	}
	ret.Set("changes", changes)
	ret.Set("comment", strings.Join(comments, "\n"))
	if changes.Len() == 0 && getv(ret, "result") == true {
		ret.Set("comment", "No changes made")
	}
	return ret, nil
}
