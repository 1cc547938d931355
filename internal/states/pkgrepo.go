package states

// pkgrepo.go is salt/states/pkgrepo.py (pkgrepo.managed, pkgrepo.absent):
// apt sources go through the pkg execution functions (pkgrepo_apt.go),
// yum/dnf .repo files are edited here as yumpkg.mod_repo does.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pkgrepo.managed",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("ppa", nil), statemod.Opt("copr", nil), statemod.Opt("aptkey", true)},
		Kwargs: true, Doc: "Ensure that a package repository is configured.", Run: pkgrepoManaged})
	statemod.Register(&statemod.Function{Name: "pkgrepo.absent", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Ensure that a package repository is not configured.", Run: pkgrepoAbsent})
}

func osFamily(c *statemod.Call) string {
	v, _ := c.Grains().Get("os_family")
	return value.Str(v)
}

func pkgrepoManaged(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), nil, "")
	switch osFamily(c) {
	case "RedHat", "Suse":
	case "Debian":
		return aptRepoManaged(c, ret)
	default:
		ret.Set("result", false)
		ret.Set("comment", "Repo management not implemented on this platform")
		return ret, nil
	}
	fail := func(msg string) (*value.Map, error) {
		ret.Set("result", false)
		ret.Set("comment", msg)
		return ret, nil
	}
	if c.Args.Has("key_url") && (c.Args.Has("keyid") || c.Args.Has("keyserver")) {
		return fail(`You may not use both "keyid"/"keyserver" and "key_url" argument.`)
	}
	if c.Args.Has("key_text") && c.Args.Has("key_url") {
		return fail(`You may not use both "key_url" and "key_text" argument.`)
	}
	if c.Args.Has("repo") {
		return fail("'repo' is not a supported argument for this state. The 'name' argument is probably what was intended.")
	}
	enabled, hasEnabled := c.Args.Get("enabled")
	disabled, hasDisabled := c.Args.Get("disabled")
	if hasEnabled && hasDisabled {
		return fail("Only one of enabled/disabled is allowed")
	}
	isDisabled := (hasDisabled && value.Truthy(disabled)) || (hasEnabled && !value.Truthy(enabled))
	return yumRepoManaged(c, ret, !isDisabled)
}

func pkgrepoAbsent(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), nil, "")
	if fam := osFamily(c); fam == "RedHat" || fam == "Suse" {
		return yumRepoAbsent(c, ret)
	}
	return aptRepoAbsent(c, ret)
}

// yumRepoKeys are the .repo options pkgrepo.managed passes through.
var yumRepoKeys = []string{"name", "baseurl", "mirrorlist", "metalink", "gpgcheck", "gpgkey", "enabled", "skip_if_unavailable", "priority", "exclude", "includepkgs", "repo_gpgcheck", "sslverify", "proxy", "module_hotfixes", "cost", "failovermethod", "metadata_expire", "type"}

func yumRepoValue(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "1"
		}
		return "0"
	case *value.List:
		return strings.Join(listStrings(x), "\n ")
	}
	return value.Str(v)
}

func yumRepoFile(c *statemod.Call, repo string) string {
	if f := value.Str(kwOr(c, "file", "")); f != "" {
		return rootPath(c, f)
	}
	dir := "/etc/yum.repos.d"
	if v := value.Str(kwOr(c, "basedir", "")); v != "" {
		dir = v
	}
	return rootPath(c, filepath.Join(dir, repo+".repo"))
}

// findYumRepo is the .repo file under basedir holding a [repo] section,
// with that section and the whole file as ini.get_ini reads them.
func findYumRepo(c *statemod.Call, repo string) (file string, sect, whole *value.Map) {
	dir := rootPath(c, "/etc/yum.repos.d")
	if v := value.Str(kwOr(c, "basedir", "")); v != "" {
		dir = rootPath(c, v)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.repo"))
	for _, f := range files {
		ini, err := saltMap(c, "ini.get_ini", f)
		if err != nil {
			continue
		}
		if s, ok := mapGetAny(ini, repo).(*value.Map); ok {
			return f, s, ini
		}
	}
	return "", nil, nil
}

func yumRepoManaged(c *statemod.Call, ret *value.Map, enabled bool) (*value.Map, error) {
	repo := c.Name()
	want := value.NewMap(0)
	human := value.Str(kwOr(c, "humanname", repo))
	want.Set("name", human)
	for _, k := range yumRepoKeys[1:] {
		if v, ok := c.Args.Get(k); ok && v != nil {
			want.Set(k, yumRepoValue(v))
		}
	}
	want.Set("enabled", yumRepoValue(enabled))
	file, pre, _ := findYumRepo(c, repo)
	changes := getv(ret, "changes").(*value.Map)
	diff := value.NewMap(0)
	want.Range(func(k, v any) bool {
		var old any
		if pre != nil {
			old = mapGetAny(pre, k)
		}
		if old == nil || value.Str(old) != value.Str(v) {
			diff.Set(k, value.MapOf("new", v, "old", old))
		}
		return true
	})
	if pre != nil && diff.Len() == 0 {
		ret.Set("result", true)
		ret.Set("comment", "Package repo '"+repo+"' already configured")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Package repo '"+repo+"' would be configured. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		if pre != nil {
			changes.Update(diff)
		} else {
			changes.Set("repo", repo)
		}
		return ret, nil
	}
	if file == "" {
		file = yumRepoFile(c, repo)
	}
	os.MkdirAll(filepath.Dir(file), 0o755)
	if _, err := c.Salt("ini.set_option", []any{file, value.MapOf(repo, want)}, nil); err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to configure repo '%s': %s", repo, err))
		return ret, nil
	}
	if pre != nil {
		changes.Update(diff)
	} else {
		ret.Set("changes", value.MapOf("repo", repo))
	}
	ret.Set("result", true)
	ret.Set("comment", "Configured package repo '"+repo+"'")
	return ret, nil
}

func yumRepoAbsent(c *statemod.Call, ret *value.Map) (*value.Map, error) {
	repo := c.Name()
	file, pre, whole := findYumRepo(c, repo)
	if pre == nil {
		ret.Set("result", true)
		ret.Set("comment", "Package repo "+repo+" is absent")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Package repo '"+repo+"' will be removed. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		return ret, nil
	}
	var err error
	if whole.Len() == 1 {
		err = os.Remove(file)
	} else {
		_, err = c.Salt("ini.remove_section", []any{file, repo}, nil)
	}
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to remove repo "+repo)
		return ret, nil
	}
	getv(ret, "changes").(*value.Map).Set("repo", repo)
	ret.Set("comment", "Removed repo "+repo)
	ret.Set("result", true)
	return ret, nil
}
