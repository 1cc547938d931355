package states

// virtualenv.go is salt/states/virtualenv_mod.py: virtualenv.managed (and
// its alias virtualenv.manage) creates or clears the environment through
// virtualenv.create, checks the pip version against use_wheel,
// no_use_wheel and no_binary, and installs requirements or pip_pkgs with
// pip.install, reporting the packages pip.freeze gained and lost.

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	params := []statemod.Param{statemod.Req("name"), statemod.Opt("venv_bin", nil), statemod.Opt("requirements", nil),
		statemod.Opt("system_site_packages", false), statemod.Opt("distribute", false), statemod.Opt("use_wheel", false),
		statemod.Opt("clear", false), statemod.Opt("python", nil), statemod.Opt("extra_search_dir", nil),
		statemod.Opt("never_download", nil), statemod.Opt("prompt", nil), statemod.Opt("user", nil),
		statemod.Opt("cwd", nil), statemod.Opt("index_url", nil), statemod.Opt("extra_index_url", nil),
		statemod.Opt("pre_releases", false), statemod.Opt("no_deps", false), statemod.Opt("pip_download", nil),
		statemod.Opt("pip_download_cache", nil), statemod.Opt("pip_exists_action", nil), statemod.Opt("pip_ignore_installed", false),
		statemod.Opt("proxy", nil), statemod.Opt("use_vt", false), statemod.Opt("env_vars", nil), statemod.Opt("no_use_wheel", false),
		statemod.Opt("pip_upgrade", false), statemod.Opt("pip_pkgs", nil), statemod.Opt("pip_no_cache_dir", false),
		statemod.Opt("pip_cache_dir", nil), statemod.Opt("process_dependency_links", false), statemod.Opt("no_binary", nil)}
	for _, name := range []string{"virtualenv.managed", "virtualenv.manage"} {
		statemod.Register(&statemod.Function{Name: name, Params: params, Kwargs: true,
			Doc: "Ensure that a virtualenv exists (and holds the given requirements or pip_pkgs).", Run: virtualenvManaged})
	}
}

// venvPyVersion is `python -V` as Salt reads it (cmd.run_stderr, since
// old interpreters print the version there; newer ones print nothing).
func venvPyVersion(c *statemod.Call, py string) (any, error) {
	out, err := c.Salt("cmd.run_stderr", []any{py + " -V"}, nil)
	if err != nil {
		return nil, err
	}
	return strings.Trim(value.Str(out), "\n"), nil
}

func virtualenvManaged(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "result", true, "comment", "", "changes", value.NewMap(0))
	changes := getv(ret, "changes").(*value.Map)
	venvPy := filepath.Join(name, "bin", "python")
	venvExists := exists(venvPy)
	clear := c.Bool("clear")
	requirements := c.Get("requirements")
	if r, ok := requirements.(string); ok && strings.HasPrefix(r, "salt://") {
		cached, err := c.Salt("cp.is_cached", []any{r, c.Saltenv}, nil)
		if err != nil {
			return nil, err
		}
		if !value.Truthy(cached) {
			if cached, err = c.Salt("cp.cache_file", []any{r, c.Saltenv}, nil); err != nil {
				return nil, err
			}
		}
		if value.Truthy(cached) {
			h1, err1 := c.Salt("cp.hash_file", []any{r, c.Saltenv}, nil)
			h2, err2 := c.Salt("cp.hash_file", []any{cached, c.Saltenv}, nil)
			if err := errors.Join(err1, err2); err != nil {
				return nil, err
			}
			if !value.Equal(h1, h2) {
				if cached, err = c.Salt("cp.cache_file", []any{r, c.Saltenv}, nil); err != nil {
					return nil, err
				}
			}
		}
		if !value.Truthy(cached) {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("pip requirements file '%s' not found", r))
			return ret, nil
		}
		requirements = cached
	}
	if venvExists && clear {
		frozen, err := c.Salt("pip.freeze", nil, value.MapOf("bin_env", name))
		if err != nil {
			return nil, err
		}
		changes.Set("cleared_packages", frozen)
		old, err := venvPyVersion(c, venvPy)
		if err != nil {
			return nil, err
		}
		changes.Set("old", old)
	}
	if c.Test {
		switch {
		case venvExists && clear:
			ret.Set("result", nil)
			ret.Set("comment", "Virtualenv "+name+" is set to be cleared")
		case venvExists:
			ret.Set("comment", "Virtualenv "+name+" is already created")
		default:
			ret.Set("result", nil)
			ret.Set("comment", "Virtualenv "+name+" is set to be created")
		}
		return ret, nil
	}
	kwargs := c.ExtraKwargs()
	if !venvExists || clear {
		kw := value.MapOf("venv_bin", c.Get("venv_bin"), "system_site_packages", c.Get("system_site_packages"),
			"distribute", c.Get("distribute"), "clear", c.Get("clear"), "python", c.Get("python"),
			"extra_search_dir", c.Get("extra_search_dir"), "never_download", c.Get("never_download"),
			"prompt", c.Get("prompt"), "user", c.Get("user"), "use_vt", c.Get("use_vt"))
		kwargs.Range(func(k, v any) bool {
			kw.Set(k, v)
			return true
		})
		res, err := c.Salt("virtualenv.create", []any{name}, kw)
		if err != nil {
			return nil, err
		}
		vr, _ := res.(*value.Map)
		if rc, _ := getMapKey(vr, "retcode"); !value.Equal(rc, int64(0)) {
			out, _ := getMapKey(vr, "stdout")
			errOut, _ := getMapKey(vr, "stderr")
			ret.Set("result", false)
			ret.Set("comment", value.Str(out)+value.Str(errOut))
			return ret, nil
		}
		newV, err := venvPyVersion(c, venvPy)
		if err != nil {
			return nil, err
		}
		changes.Set("new", newV)
		if clear {
			ret.Set("comment", "Cleared existing virtualenv")
		} else {
			ret.Set("comment", "Created new virtualenv")
		}
	} else {
		ret.Set("comment", "virtualenv exists")
	}
	for _, chk := range []struct {
		opt, min, max string
	}{{"use_wheel", "1.4", "9.0.3"}, {"no_use_wheel", "1.4", "9.0.3"}, {"no_binary", "7.0.0", ""}} {
		if !c.Bool(chk.opt) {
			continue
		}
		cur, err := c.Salt("pip.version", nil, value.MapOf("bin_env", name))
		if err != nil {
			return nil, err
		}
		v := value.Str(cur)
		if pyVersionCmp(v, chk.min) < 0 || chk.max != "" && pyVersionCmp(v, chk.max) > 0 {
			ret.Set("result", false)
			if chk.max == "" {
				ret.Set("comment", fmt.Sprintf("The '%s' option is only supported in pip %s and newer. The version of pip detected was %s.", chk.opt, chk.min, v))
			} else {
				ret.Set("comment", fmt.Sprintf("The '%s' option is only supported in pip between %s and %s. The version of pip detected was %s.", chk.opt, chk.min, chk.max, v))
			}
			return ret, nil
		}
	}
	if !value.Truthy(requirements) && !c.Bool("pip_pkgs") {
		return ret, nil
	}
	freeze := func(kw *value.Map) (map[string]bool, error) {
		v, err := c.Salt("pip.freeze", nil, kw)
		if err != nil {
			return nil, err
		}
		set := map[string]bool{}
		if l, ok := v.(*value.List); ok {
			for _, it := range l.Items {
				set[value.Str(it)] = true
			}
		}
		return set, nil
	}
	before, err := freeze(value.MapOf("bin_env", name, "user", c.Get("user"), "use_vt", c.Get("use_vt")))
	if err != nil {
		var ce *execmod.CommandExecutionError
		if !errors.As(err, &ce) {
			return nil, err
		}
		ret.Set("result", false)
		ret.Set("comment", err.Error())
		return ret, nil
	}
	cwd := c.Get("cwd")
	if value.Truthy(requirements) {
		var canary string
		switch r := requirements.(type) {
		case string:
			canary, _, _ = strings.Cut(r, ",")
		case *value.List:
			canary = value.Str(r.Items[0])
		default:
			return nil, errors.New("pip requirements must be either a string or a list")
		}
		if abs, _ := filepath.Abs(canary); canary != abs {
			cwd = filepath.Dir(abs)
		}
	}
	kw := value.MapOf("pkgs", c.Get("pip_pkgs"), "requirements", requirements,
		"process_dependency_links", c.Get("process_dependency_links"), "bin_env", name, "use_wheel", c.Get("use_wheel"),
		"no_use_wheel", c.Get("no_use_wheel"), "no_binary", c.Get("no_binary"), "user", c.Get("user"), "cwd", cwd,
		"index_url", c.Get("index_url"), "extra_index_url", c.Get("extra_index_url"), "download", c.Get("pip_download"),
		"download_cache", c.Get("pip_download_cache"), "pre_releases", c.Get("pre_releases"),
		"exists_action", c.Get("pip_exists_action"), "ignore_installed", c.Get("pip_ignore_installed"),
		"upgrade", c.Get("pip_upgrade"), "no_deps", c.Get("no_deps"), "proxy", c.Get("proxy"), "use_vt", c.Get("use_vt"),
		"env_vars", c.Get("env_vars"), "no_cache_dir", c.Get("pip_no_cache_dir"), "cache_dir", c.Get("pip_cache_dir"))
	kwargs.Range(func(k, v any) bool {
		kw.Set(k, v)
		return true
	})
	res, err := c.Salt("pip.install", nil, kw)
	if err != nil {
		return nil, err
	}
	pr, _ := res.(*value.Map)
	rcv, _ := getMapKey(pr, "retcode")
	rc, _ := rcv.(int64)
	if rc != 0 {
		ret.Set("result", false)
	}
	if rc > 0 {
		out, _ := getMapKey(pr, "stdout")
		errOut, _ := getMapKey(pr, "stderr")
		ret.Set("comment", fmt.Sprintf("%s\n%s\n%s", value.Str(getv(ret, "comment")), value.Str(out), value.Str(errOut)))
	}
	after, err := freeze(value.MapOf("bin_env", name))
	if err != nil {
		return nil, err
	}
	diff := func(a, b map[string]bool) any {
		var out []string
		for k := range a {
			if !b[k] {
				out = append(out, k)
			}
		}
		if len(out) == 0 {
			return ""
		}
		// Salt lists a set difference (in hash order); brine sorts it.
		sort.Strings(out)
		return value.NewList(anySlice(out)...)
	}
	newPkgs, oldPkgs := diff(after, before), diff(before, after)
	if newPkgs != "" || oldPkgs != "" {
		changes.Set("packages", value.MapOf("new", newPkgs, "old", oldPkgs))
	}
	return ret, nil
}
