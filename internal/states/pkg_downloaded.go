package states

// pkg_downloaded.go is pkg.downloaded of salt/states/pkg.py: packages
// fetched into the package manager's cache (pkg.install downloadonly=True)
// without being installed, checked with pkg.list_downloaded.

import (
	"fmt"
	"sort"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pkg.downloaded",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("version", nil), statemod.Opt("pkgs", nil),
			statemod.Opt("fromrepo", nil), statemod.Opt("ignore_epoch", nil)},
		Kwargs: true, Doc: "Ensure that the package (or the packages of pkgs) is downloaded into the package cache, at the version asked.",
		Run: pkgDownloaded})
}

// downloadedVersions is pkg.list_downloaded as {name: [versions]}.
func downloadedVersions(c *statemod.Call, kw *value.Map) (map[string][]string, error) {
	r, err := c.Salt("pkg.list_downloaded", nil, kw)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	if m, ok := r.(*value.Map); ok {
		m.Range(func(k, v any) bool {
			if vm, ok := v.(*value.Map); ok {
				for _, ver := range vm.Keys() {
					out[value.Str(k)] = append(out[value.Str(k)], value.Str(ver))
				}
			}
			return true
		})
	}
	return out, nil
}

func pkgDownloaded(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", nil, "comment", "")
	if fam := osFamily(c); fam != "" && fam != "Debian" {
		ret.Set("result", false)
		ret.Set("comment", "The pkg.downloaded state is not available on this platform")
		return ret, nil
	}
	pkgs, version := c.Get("pkgs"), c.Get("version")
	if l, ok := pkgs.(*value.List); ok && l.Len() == 0 {
		ret.Set("result", true)
		ret.Set("comment", "No packages to download provided")
		return ret, nil
	}
	if name != "" && !value.Truthy(pkgs) {
		if value.Truthy(version) {
			pkgs = value.NewList(value.MapOf(name, version))
			version = nil
		} else {
			pkgs = value.NewList(name)
		}
	}
	kw := passKwargs(c, "downloadonly")
	ignoreEpoch := value.Truthy(c.Get("ignore_epoch"))
	listKw := value.NewMap(0)
	if r, ok := kw.GetString("root"); ok {
		listKw.Set("root", r)
	}
	cur, err := downloadedVersions(c, listKw)
	if err != nil {
		return nil, err
	}
	wants, ok := repackPkgs(pkgs)
	if !ok {
		ret.Set("result", false)
		ret.Set("comment", "Invalidly formatted pkgs parameter. See minion log.")
		return ret, nil
	}
	if norm, ok := kw.GetString("normalize"); !ok || value.Truthy(norm) {
		for i, w := range wants {
			if n, err := c.Salt("pkg.normalize_name", []any{w.name}, nil); err == nil {
				wants[i].name = value.Str(n)
			}
		}
	}
	var targets []pkgWant
	var problems []string
	versionSpec := false
	for _, w := range wants {
		have := cur[w.name]
		switch {
		case len(have) == 0:
			targets = append(targets, w)
			continue
		case w.version == "":
			continue
		}
		versionSpec = true
		ok, err := fulfillsVersion(c, have, w.version, ignoreEpoch)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if !ok {
			targets = append(targets, w)
		}
	}
	if len(problems) > 0 {
		ret.Set("result", false)
		ret.Set("comment", strings.Join(problems, " "))
		return ret, nil
	}
	if len(targets) == 0 {
		msg := "All specified packages are already downloaded"
		if versionSpec {
			msg = "All specified packages (matching specified versions) are already downloaded"
		}
		ret.Set("result", true)
		ret.Set("comment", msg)
		return ret, nil
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.name
	}
	if c.Test {
		ret.Set("comment", "The following packages would be downloaded: "+strings.Join(names, ", "))
		return ret, nil
	}
	ikw := value.DeepCopy(kw).(*value.Map)
	ikw.Set("name", name)
	ikw.Set("pkgs", pkgs)
	ikw.Set("version", version)
	ikw.Set("downloadonly", true)
	ikw.Set("fromrepo", c.Get("fromrepo"))
	ikw.Set("ignore_epoch", c.Get("ignore_epoch"))
	changes, err := c.Salt("pkg.install", nil, ikw)
	if err != nil {
		if msg, ch, ok := pkgErrorInfo(err); ok {
			return value.MapOf("name", name, "result", false, "changes", ch, "comment", msg), nil
		}
		return value.MapOf("name", name, "result", false, "changes", value.NewMap(0),
			"comment", fmt.Sprintf("An error was encountered while downloading package(s): %s", err)), nil
	}
	ret.Set("result", true)
	if cm, ok := changes.(*value.Map); ok {
		ret.Set("changes", cm)
	}
	now, err := downloadedVersions(c, listKw)
	if err != nil {
		return nil, err
	}
	var failed []string
	for _, t := range targets {
		name, _, _ := strings.Cut(t.name, "=")
		have := now[name]
		sort.Strings(have)
		switch {
		case len(have) == 0:
			failed = append(failed, desiredPkg(t))
			continue
		case t.version == "" || t.version == "latest":
			continue
		case strings.HasSuffix(t.version, "*") && strings.HasPrefix(have[0], strings.TrimSuffix(t.version, "*")):
			continue
		}
		if ok, _ := fulfillsVersion(c, have, t.version, ignoreEpoch); !ok {
			failed = append(failed, desiredPkg(t))
		}
	}
	if len(failed) > 0 {
		ret.Set("result", false)
		ret.Set("comment", "The following packages failed to download: "+strings.Join(failed, ", "))
	}
	if cm, _ := ret.GetString("changes"); !value.Truthy(cm) && value.Str(getv(ret, "comment")) == "" {
		ret.Set("result", true)
		ret.Set("comment", "Packages downloaded: "+strings.Join(names, ", "))
	}
	return ret, nil
}
