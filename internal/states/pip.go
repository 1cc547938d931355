package states

// pip.go is the common path of salt/states/pip_state.py: pip.installed
// (name or pkgs with version specifiers, requirements, bin_env, upgrade,
// index options) and pip.removed, through the pip of bin_env (a
// virtualenv directory or a pip executable) or of the PATH.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/pipcmd"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pip.installed",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("pkgs", nil), statemod.Opt("requirements", nil),
			statemod.Opt("bin_env", nil), statemod.Opt("use_wheel", false), statemod.Opt("no_use_wheel", false),
			statemod.Opt("log", nil), statemod.Opt("proxy", nil), statemod.Opt("timeout", nil), statemod.Opt("repo", nil),
			statemod.Opt("editable", nil), statemod.Opt("find_links", nil), statemod.Opt("index_url", nil),
			statemod.Opt("extra_index_url", nil), statemod.Opt("no_index", false), statemod.Opt("mirrors", nil),
			statemod.Opt("build", nil), statemod.Opt("target", nil), statemod.Opt("download", nil),
			statemod.Opt("download_cache", nil), statemod.Opt("source", nil), statemod.Opt("upgrade", false),
			statemod.Opt("force_reinstall", false), statemod.Opt("ignore_installed", false), statemod.Opt("exists_action", nil),
			statemod.Opt("no_deps", false), statemod.Opt("no_install", false), statemod.Opt("no_download", false),
			statemod.Opt("install_options", nil), statemod.Opt("global_options", nil), statemod.Opt("user", nil),
			statemod.Opt("cwd", nil), statemod.Opt("pre_releases", false), statemod.Opt("cert", nil),
			statemod.Opt("allow_all_external", false), statemod.Opt("allow_external", nil), statemod.Opt("allow_unverified", nil),
			statemod.Opt("process_dependency_links", false), statemod.Opt("env_vars", nil), statemod.Opt("use_vt", false),
			statemod.Opt("trusted_host", nil), statemod.Opt("no_cache_dir", false), statemod.Opt("cache_dir", nil),
			statemod.Opt("no_binary", nil), statemod.Opt("extra_args", nil)},
		Kwargs: true, Doc: "Ensure that Python packages are installed with pip.", Run: pipInstalled})
	statemod.Register(&statemod.Function{Name: "pip.removed",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("requirements", nil), statemod.Opt("bin_env", nil),
			statemod.Opt("log", nil), statemod.Opt("proxy", nil), statemod.Opt("timeout", nil), statemod.Opt("user", nil),
			statemod.Opt("cwd", nil), statemod.Opt("use_vt", false)},
		Doc: "Ensure that a Python package is not installed with pip.", Run: pipRemoved})
}

// pipBin is the command that runs pip for bin_env.
func pipBin(binEnv string) ([]string, error) {
	argv, err := pipcmd.Bin(binEnv)
	if errors.Is(err, pipcmd.ErrNoPip) {
		return nil, fmt.Errorf("Command required for 'pip.installed' not found: %w", err)
	}
	return argv, err
}

func pipCmd(c *statemod.Call, pip []string, args ...string) (string, string, error) {
	cmd := exec.Command(pip[0], append(pip[1:len(pip):len(pip)], args...)...)
	if cwd := c.Str("cwd"); cwd != "" {
		cmd.Dir = cwd
	}
	cmd.Env = append(os.Environ(), "PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1")
	if m, ok := c.Get("env_vars").(*value.Map); ok {
		m.Range(func(k, v any) bool { cmd.Env = append(cmd.Env, value.Str(k)+"="+value.Str(v)); return true })
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// pipList is pip.list: normalized name -> version. For a virtualenv the
// dist-info directories of its site-packages are read directly (pip
// itself takes a second to start).
func pipList(c *statemod.Call, pip []string) (map[string]string, error) {
	if env := c.Str("bin_env"); env != "" && isDir(env) {
		metas, _ := filepath.Glob(filepath.Join(env, "lib", "python*", "site-packages", "*.dist-info", "METADATA"))
		m := make(map[string]string, len(metas))
		for _, p := range metas {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			var name, version string
			for _, line := range strings.Split(string(data), "\n") {
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Name: "); ok {
					name = strings.TrimSpace(v)
				} else if v, ok := strings.CutPrefix(line, "Version: "); ok {
					version = strings.TrimSpace(v)
				}
			}
			if name != "" {
				m[normPyName(name)] = version
			}
		}
		return m, nil
	}
	out, stderr, err := pipCmd(c, pip, "list", "--format=json")
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimSpace(stderr))
	}
	var rows []struct{ Name, Version string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(rows))
	for _, r := range rows {
		m[normPyName(r.Name)] = r.Version
	}
	return m, nil
}

func normPyName(n string) string {
	return strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(n))
}

var pipSpecRE = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$`)
var pipCondRE = regexp.MustCompile(`^\s*(===|==|!=|<=|>=|~=|<|>)\s*(\S+)\s*$`)

// pyVersionCmp compares dotted versions numerically, part by part.
func pyVersionCmp(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y string
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		xn, e1 := strconv.Atoi(x)
		yn, e2 := strconv.Atoi(y)
		switch {
		case x == y:
			continue
		case e1 == nil && e2 == nil:
			if xn != yn {
				return map[bool]int{true: -1, false: 1}[xn < yn]
			}
		case x == "":
			return -1
		case y == "":
			return 1
		default:
			return strings.Compare(x, y)
		}
	}
	return 0
}

func pyFulfills(ver, spec string) bool {
	for _, cond := range strings.Split(spec, ",") {
		if strings.TrimSpace(cond) == "" {
			continue
		}
		m := pipCondRE.FindStringSubmatch(cond)
		if m == nil {
			return false
		}
		want := m[2]
		if strings.HasSuffix(want, ".*") && (m[1] == "==" || m[1] == "!=") {
			ok := ver == strings.TrimSuffix(want, ".*") || strings.HasPrefix(ver, strings.TrimSuffix(want, "*"))
			if ok != (m[1] == "==") {
				return false
			}
			continue
		}
		op := m[1]
		switch op {
		case "===":
			op = "=="
		case "~=":
			op = ">=" // a compatible release: at least the version
		}
		if !pkgmgr.Satisfies(op, pyVersionCmp(ver, want)) {
			return false
		}
	}
	return true
}

func pipInstalled(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	fail := func(msg string) (*value.Map, error) {
		ret.Set("result", false)
		ret.Set("comment", msg)
		return ret, nil
	}
	pip, err := pipBin(c.Str("bin_env"))
	if err != nil {
		return fail(err.Error())
	}
	var specs []string
	if l, ok := c.Get("pkgs").(*value.List); ok && l.Len() > 0 {
		specs = listStrings(l)
	} else if name != "" && !c.Has("requirements") && !c.Has("editable") {
		specs = []string{name}
	}
	reqs, editable := c.Str("requirements"), c.Str("editable")
	if (reqs != "" || editable != "") && c.Test {
		var cs []string
		if reqs != "" {
			cs = append(cs, "Requirements file '"+reqs+"' will be processed.")
		}
		if editable != "" {
			cs = append(cs, `Package will be installed in editable mode (i.e. setuptools "develop mode") from `+editable+".")
		}
		ret.Set("result", nil)
		ret.Set("comment", strings.Join(cs, " "))
		return ret, nil
	}
	before, err := pipList(c, pip)
	if err != nil {
		before = map[string]string{}
	}
	type target struct{ prefix, spec, cond string }
	var targets []target
	var already []string
	upgrade := c.Bool("upgrade")
	for _, s := range specs {
		m := pipSpecRE.FindStringSubmatch(s)
		if m == nil || strings.Contains(s, "://") || strings.HasSuffix(s, ".whl") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") {
			targets = append(targets, target{spec: s})
			continue
		}
		prefix, cond := m[1], strings.TrimSpace(m[3])
		if cond != "" && pipCondRE.FindStringSubmatch(strings.Split(cond, ",")[0]) == nil {
			return fail("Invalid version specification in package " + s + ". '" + cond + "' is not supported.")
		}
		cur, installed := before[normPyName(prefix)]
		if installed && !c.Bool("force_reinstall") && !c.Bool("ignore_installed") && !upgrade && (cond == "" || pyFulfills(cur, cond)) {
			already = append(already, "Python package "+s+" was already installed")
			continue
		}
		targets = append(targets, target{prefix, s, cond})
	}
	if reqs == "" && editable == "" {
		if len(targets) == 0 {
			last := "All specified packages are already installed"
			if upgrade {
				last += " and up-to-date"
			}
			ret.Set("comment", strings.Join(append(already, last), "\n"))
			return ret, nil
		}
		if c.Test {
			ret.Set("result", nil)
			if len(specs) > 1 {
				ret.Set("comment", "Python package(s) set to be installed:\n"+strings.Join(specs, "\n"))
			} else {
				ret.Set("comment", "Python package "+targets[0].spec+" is set to be installed")
			}
			return ret, nil
		}
	}
	args := []string{"install"}
	if reqs != "" {
		path := reqs
		if strings.HasPrefix(reqs, "salt://") {
			data, err := readSource(c, reqs)
			if err != nil {
				return fail("pip requirements file '" + reqs + "' not found")
			}
			f, err := os.CreateTemp("", "brine-req-*.txt")
			if err != nil {
				return fail(err.Error())
			}
			defer os.Remove(f.Name())
			f.Write(data)
			f.Close()
			path = f.Name()
		}
		args = append(args, "-r", path)
	}
	if editable != "" {
		args = append(args, "--editable", editable)
	}
	if upgrade {
		args = append(args, "--upgrade")
	}
	for _, o := range []struct{ arg, flag string }{{"index_url", "--index-url"}, {"extra_index_url", "--extra-index-url"},
		{"find_links", "--find-links"}, {"proxy", "--proxy"}, {"timeout", "--timeout"}, {"cert", "--cert"},
		{"trusted_host", "--trusted-host"}, {"target", "--target"}, {"cache_dir", "--cache-dir"}, {"exists_action", "--exists-action"}} {
		if v := c.Str(o.arg); v != "" {
			args = append(args, o.flag, v)
		}
	}
	for _, f := range []struct{ arg, flag string }{{"no_index", "--no-index"}, {"no_deps", "--no-deps"},
		{"force_reinstall", "--force-reinstall"}, {"ignore_installed", "--ignore-installed"}, {"pre_releases", "--pre"},
		{"no_cache_dir", "--no-cache-dir"}} {
		if c.Bool(f.arg) {
			args = append(args, f.flag)
		}
	}
	if c.Has("user") {
		args = append(args, "--user")
	}
	args = append(args, listStrings(c.Get("extra_args"))...)
	for _, t := range targets {
		args = append(args, t.spec)
	}
	_, stderr, err := pipCmd(c, pip, args...)
	if err != nil {
		return fail(fmt.Sprintf("Failed to install packages: %s. Error: %s", strings.Join(specs, ","), strings.TrimSpace(stderr)))
	}
	after, _ := pipList(c, pip)
	changes := getv(ret, "changes").(*value.Map)
	if reqs != "" || editable != "" {
		for n, v := range after {
			if before[n] != v {
				changes.Set(n+"=="+v, "Installed")
			}
		}
		if reqs != "" && changes.Len() > 0 {
			changes.Set("requirements", true)
		}
		ret.Set("comment", "Successfully processed requirements file "+reqs+".")
		if editable != "" {
			changes.Set("editable", true)
			ret.Set("comment", "Package successfully installed from VCS checkout "+editable+".")
		}
		return ret, nil
	}
	for _, t := range targets {
		if t.prefix == "" {
			changes.Set(t.spec+"==???", "Installed")
			continue
		}
		if v, ok := after[normPyName(t.prefix)]; ok && before[normPyName(t.prefix)] != v {
			changes.Set(t.prefix+"=="+v, "Installed")
		}
	}
	msg := "All packages were successfully installed"
	if len(already) > 0 {
		msg = strings.Join(already, "\n") + "\n" + msg
	}
	ret.Set("comment", msg)
	return ret, nil
}

func pipRemoved(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	pip, err := pipBin(c.Str("bin_env"))
	if err != nil {
		return statemod.Ret(c.Get("name"), false, "Error uninstalling '"+name+"': "+err.Error()), nil
	}
	list, err := pipList(c, pip)
	if err != nil {
		return statemod.Ret(c.Get("name"), false, "Error uninstalling '"+name+"': "+err.Error()), nil
	}
	if _, ok := list[normPyName(name)]; !ok {
		ret.Set("comment", "Package is not installed.")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Package "+name+" is set to be removed")
		return ret, nil
	}
	if _, _, err := pipCmd(c, pip, "uninstall", "-y", name); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Could not remove package.")
		return ret, nil
	}
	getv(ret, "changes").(*value.Map).Set(name, "Removed")
	ret.Set("comment", "Package was successfully removed.")
	return ret, nil
}
