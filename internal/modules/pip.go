package modules

// pip.go is salt/modules/pip.py: pip run through cmd.run_all for a
// bin_env (a virtualenv, a python or a pip executable; the system's
// Python when unset; internal/system/pipcmd finds it, shared with the pip
// states). Options of pip releases older than 9 are not supported.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/pipcmd"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("pip.version", pipVersion, "Return the version of pip for bin_env.")
	execmod.Register("pip.freeze", pipFreeze, "Return pip freeze --all as a list of lines.")
	execmod.Register("pip.list", pipList, "Return {name: version} of the installed packages (prefix filters).")
	execmod.Register("pip.list_freeze_parse", pipListFreezeParse, "Return {name: version} parsed from pip freeze (prefix filters).")
	execmod.Register("pip.is_installed", pipIsInstalled, "True when the package pkgname is installed.")
	execmod.Register("pip.install", pipInstall, "Install packages (pkgs, requirements, editable) with pip; cmd.run_all's result.")
	execmod.Register("pip.uninstall", pipUninstall, "Uninstall packages with pip uninstall -y; cmd.run_all's result.")
	execmod.Register("pip.list_upgrades", pipListUpgrades, "Return {name: 'version [filetype]'} of the outdated packages.")
	execmod.Register("pip.upgrade_available", pipUpgradeAvailable, "True when an upgrade of pkg is available.")
	execmod.Register("pip.upgrade", pipUpgrade, "Upgrade every outdated package: {'changes', 'result', 'comment'}.")
	execmod.Register("pip.list_all_versions", pipListAllVersions, "Return the versions of pkg the index offers (None when none).")
}

func pipBinArgv(binEnv any) ([]string, error) {
	b := ""
	if binEnv != nil {
		b = value.Str(binEnv)
	}
	argv, err := pipcmd.Bin(b)
	if err != nil {
		var nf *pipcmd.NotFoundError
		if errors.As(err, &nf) {
			return nil, execmod.Errorf("%s", nf.Msg)
		}
		return nil, execmod.Errorf("%s", err)
	}
	return argv, nil
}

// pipEnv is the env of a run: VIRTUAL_ENV for a virtualenv, env_vars.
func pipEnv(binEnv, envVars any) (*value.Map, error) {
	env := value.NewMap(0)
	if b, ok := binEnv.(string); ok && pipcmd.IsVirtualenv(b) {
		env.Set("VIRTUAL_ENV", b)
	}
	if envVars != nil {
		m, ok := envVars.(*value.Map)
		if !ok {
			return nil, execmod.Errorf("env_vars %s is not a dictionary", value.Str(envVars))
		}
		m.Range(func(k, v any) bool {
			env.Set(value.Str(k), value.Str(v))
			return true
		})
	}
	return env, nil
}

// pipRun runs pip args through cmd.run_all with Salt's keyword arguments.
func pipRun(ctx *execmod.Context, binEnv any, args []string, kw ...any) (*value.Map, error) {
	argv, err := pipBinArgv(binEnv)
	if err != nil {
		return nil, err
	}
	res, err := runArgv(ctx, "cmd.run_all", append(argv, args...), kw...)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	return m, nil
}

func pipRunKw(cwd, user, env any) []any {
	kw := []any{"runas", user}
	if cwd != nil {
		kw = append(kw, "cwd", cwd)
	}
	if m, ok := env.(*value.Map); ok && m.Len() > 0 {
		kw = append(kw, "env", m)
	}
	return kw
}

func pipVersionOf(ctx *execmod.Context, binEnv, cwd, user any) (string, error) {
	key := "pip.version"
	if binEnv != nil {
		key += "." + value.Str(binEnv)
	}
	if v, ok := ctx.Cache().Load(key); ok {
		s, _ := v.(string)
		return s, nil
	}
	m, err := pipRun(ctx, binEnv, []string{"--version"}, pipRunKw(cwd, user, nil)...)
	if err != nil {
		return "", err
	}
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		return "", execmod.Errorf("Could not find a `pip` binary")
	}
	var ver string
	if g := regexp.MustCompile(`^pip (\S+)`).FindStringSubmatch(execmod.String(cmdGet(m, "stdout"))); g != nil {
		ver = g[1]
	}
	ctx.Cache().Store(key, ver)
	return ver, nil
}

func pipClearVersion(ctx *execmod.Context, binEnv any) {
	key := "pip.version"
	if binEnv != nil {
		key += "." + value.Str(binEnv)
	}
	ctx.Cache().Delete(key)
}

func pipVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("version", args, kwargs, execmod.Opt("bin_env", nil), execmod.Opt("cwd", nil), execmod.Opt("user", nil))
	if err != nil {
		return nil, err
	}
	ver, err := pipVersionOf(ctx, v[0], v[1], v[2])
	if err != nil || ver == "" {
		return nil, err
	}
	return ver, nil
}

func pipMust(m *value.Map) error {
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		return execmod.Errorf("%s", execmod.String(cmdGet(m, "stderr")))
	}
	return nil
}

func pipFreezeLines(ctx *execmod.Context, binEnv, user, cwd, envVars any) ([]string, error) {
	env, err := pipEnv(binEnv, envVars)
	if err != nil {
		return nil, err
	}
	m, err := pipRun(ctx, binEnv, []string{"freeze", "--all"}, pipRunKw(cwd, user, env)...)
	if err != nil {
		return nil, err
	}
	if err := pipMust(m); err != nil {
		return nil, err
	}
	return splitLinesPy(execmod.String(cmdGet(m, "stdout"))), nil
}

func pipCommonParams(lead ...execmod.Param) []execmod.Param {
	return append(lead, execmod.Opt("bin_env", nil), execmod.Opt("user", nil), execmod.Opt("cwd", nil))
}

func pipFreeze(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("freeze", args, kwargs, append(pipCommonParams(), execmod.Opt("use_vt", false), execmod.Opt("env_vars", nil))...)
	if err != nil {
		return nil, err
	}
	lines, err := pipFreezeLines(ctx, v[0], v[1], v[2], v[4])
	if err != nil {
		return nil, err
	}
	return strList(lines), nil
}

func pipPackages(ctx *execmod.Context, prefix, binEnv, user, cwd, envVars any) (*value.Map, error) {
	env, err := pipEnv(binEnv, envVars)
	if err != nil {
		return nil, err
	}
	m, err := pipRun(ctx, binEnv, []string{"list", "--format=json"}, pipRunKw(cwd, user, env)...)
	if err != nil {
		return nil, err
	}
	if err := pipMust(m); err != nil {
		return nil, err
	}
	var rows []struct{ Name, Version string }
	if err := json.Unmarshal([]byte(execmod.String(cmdGet(m, "stdout"))), &rows); err != nil {
		return nil, execmod.Errorf("Invalid JSON")
	}
	ret := value.NewMap(0)
	p := strings.ToLower(execmod.String(prefix))
	for _, r := range rows {
		if p == "" || strings.HasPrefix(strings.ToLower(r.Name), p) {
			ret.Set(r.Name, r.Version)
		}
	}
	return ret, nil
}

func pipListParams() []execmod.Param {
	return append(pipCommonParams(execmod.Opt("prefix", nil)), execmod.Opt("env_vars", nil))
}

func pipList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_", args, kwargs, pipListParams()...)
	if err != nil {
		return nil, err
	}
	return pipPackages(ctx, v[0], v[1], v[2], v[3], v[4])
}

func pipListFreezeParse(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_freeze_parse", args, kwargs, pipListParams()...)
	if err != nil {
		return nil, err
	}
	prefix := execmod.String(v[0])
	ret := value.NewMap(0)
	if prefix == "" || strings.HasPrefix("pip", prefix) {
		ver, err := pipVersionOf(ctx, v[1], v[3], v[2])
		if err != nil {
			return nil, err
		}
		ret.Set("pip", ver)
	}
	lines, err := pipFreezeLines(ctx, v[1], v[2], v[3], v[4])
	if err != nil {
		return nil, err
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "-f") || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "-e hg+not trust") {
			continue
		}
		var name, ver string
		if rest, ok := strings.CutPrefix(line, "-e"); ok {
			_, line, _ = strings.Cut(rest, "-e ")
			if line == "" {
				line = strings.TrimPrefix(rest, " ")
			}
			if a, b, ok := strings.Cut(line, "#egg="); ok {
				name, ver = b, a
				goto set
			}
		}
		if a, b, ok := strings.Cut(line, "==="); ok {
			name, ver = a, b
		} else if a, b, ok := strings.Cut(line, "=="); ok {
			name, ver = a, b
		} else {
			continue
		}
	set:
		if prefix == "" || strings.HasPrefix(strings.ToLower(name), strings.ToLower(prefix)) {
			ret.Set(name, ver)
		}
	}
	return ret, nil
}

func pipIsInstalled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_installed", args, kwargs, pipCommonParams(execmod.Req("pkgname"))...)
	if err != nil {
		return nil, err
	}
	pkgs, err := pipPackages(ctx, v[0], v[1], v[2], v[3], nil)
	if err != nil {
		return nil, err
	}
	found := false
	pkgs.Range(func(k, _ any) bool {
		found = strings.EqualFold(value.Str(k), execmod.String(v[0]))
		return !found
	})
	return found, nil
}

// splitComma is Salt's "a, b" -> ["a", "b"] for list-or-string arguments.
func splitComma(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case *value.List:
		out := make([]string, 0, x.Len())
		for _, i := range x.Items {
			out = append(out, value.Str(i))
		}
		return out
	}
	var out []string
	for _, p := range strings.Split(value.Str(v), ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// pipRequirements adds --requirement for each requirements file (salt://
// ones cached first); ok is false with Salt's result for a missing one.
func pipRequirements(ctx *execmod.Context, reqs, saltenv any) ([]string, *value.Map, error) {
	if reqs == nil {
		return nil, nil, nil
	}
	if _, ok := reqs.(*value.List); !ok {
		if _, ok := reqs.(string); !ok {
			return nil, nil, execmod.Errorf("requirements must be a string or list")
		}
	}
	var args []string
	for _, r := range splitComma(reqs) {
		if strings.HasPrefix(r, "salt://") {
			p, err := ctx.Call("cp.cache_file", []any{r, saltenv}, nil)
			if err != nil || !value.Truthy(p) {
				return nil, value.MapOf("result", false, "comment", fmt.Sprintf("pip requirements file '%s' not found", r)), nil
			}
			r = execmod.String(p)
		}
		args = append(args, "--requirement", r)
	}
	return args, nil, nil
}

func pipProxy(ctx *execmod.Context, proxy any) []string {
	if value.Truthy(proxy) {
		return []string{"--proxy", value.Str(proxy)}
	}
	if proxy == false {
		return nil
	}
	host, _ := ctx.Opts.GetString("proxy_host")
	port, _ := ctx.Opts.GetString("proxy_port")
	if !value.Truthy(host) || !value.Truthy(port) {
		return nil
	}
	user, _ := ctx.Opts.GetString("proxy_username")
	pass, _ := ctx.Opts.GetString("proxy_password")
	if value.Truthy(user) && value.Truthy(pass) {
		return []string{"--proxy", fmt.Sprintf("http://%s:%s@%s:%s", value.Str(user), value.Str(pass), value.Str(host), value.Str(port))}
	}
	return []string{"--proxy", fmt.Sprintf("http://%s:%s", value.Str(host), value.Str(port))}
}

func pipTimeout(t any) ([]string, error) {
	if !value.Truthy(t) {
		return nil, nil
	}
	switch x := t.(type) {
	case float64:
		return nil, execmod.Errorf("'%s' is not a valid timeout, must be an integer", value.Str(x))
	case string:
		for _, c := range strings.TrimSpace(x) {
			if c < '0' || c > '9' {
				return nil, execmod.Errorf("'%s' is not a valid timeout, must be an integer", x)
			}
		}
	}
	return []string{"--timeout", value.Str(t)}, nil
}

var pipURLRE = regexp.MustCompile(`^(https?|ftp|file)://`)

var pipInstallParams = []execmod.Param{
	execmod.Opt("pkgs", nil), execmod.Opt("requirements", nil), execmod.Opt("bin_env", nil), execmod.Opt("use_wheel", false),
	execmod.Opt("no_use_wheel", false), execmod.Opt("log", nil), execmod.Opt("proxy", nil), execmod.Opt("timeout", nil),
	execmod.Opt("editable", nil), execmod.Opt("find_links", nil), execmod.Opt("index_url", nil), execmod.Opt("extra_index_url", nil),
	execmod.Opt("no_index", false), execmod.Opt("mirrors", nil), execmod.Opt("build", nil), execmod.Opt("target", nil),
	execmod.Opt("download", nil), execmod.Opt("download_cache", nil), execmod.Opt("source", nil), execmod.Opt("upgrade", false),
	execmod.Opt("force_reinstall", false), execmod.Opt("ignore_installed", false), execmod.Opt("exists_action", nil),
	execmod.Opt("no_deps", false), execmod.Opt("no_install", false), execmod.Opt("no_download", false),
	execmod.Opt("global_options", nil), execmod.Opt("install_options", nil), execmod.Opt("user", nil), execmod.Opt("cwd", nil),
	execmod.Opt("pre_releases", false), execmod.Opt("cert", nil), execmod.Opt("allow_all_external", false),
	execmod.Opt("allow_external", nil), execmod.Opt("allow_unverified", nil), execmod.Opt("process_dependency_links", false),
	execmod.Opt("saltenv", "base"), execmod.Opt("env_vars", nil), execmod.Opt("use_vt", false), execmod.Opt("trusted_host", nil),
	execmod.Opt("no_cache_dir", false), execmod.Opt("extra_args", nil), execmod.Opt("cache_dir", nil), execmod.Opt("no_binary", nil),
	execmod.Opt("disable_version_check", false),
}

func pipInstall(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, rest, err := gitBind("install", args, kwargs, pipInstallParams...)
	if err != nil {
		return nil, err
	}
	cmd := []string{"install"}
	reqArgs, fail, err := pipRequirements(ctx, a["requirements"], a["saltenv"])
	if err != nil || fail != nil {
		return fail, err
	}
	cmd = append(cmd, reqArgs...)
	if value.Truthy(a["no_binary"]) {
		cmd = append(cmd, "--no-binary", strings.Join(splitComma(a["no_binary"]), ","))
	}
	if value.Truthy(a["log"]) {
		l := a.str("log")
		if st, err := os.Stat(l); err == nil && st.IsDir() {
			return nil, execmod.Errorf("'%s' is a directory. Use --log path_to_file", l)
		}
		cmd = append(cmd, "--log", l)
	}
	cmd = append(cmd, pipProxy(ctx, a["proxy"])...)
	t, err := pipTimeout(a["timeout"])
	if err != nil {
		return nil, err
	}
	cmd = append(cmd, t...)
	for _, link := range splitComma(a["find_links"]) {
		if _, err := os.Stat(link); err != nil && !pipURLRE.MatchString(link) {
			return nil, execmod.Errorf("'%s' is not a valid URL or path", link)
		}
		cmd = append(cmd, "--find-links", link)
	}
	if value.Truthy(a["no_index"]) && (value.Truthy(a["index_url"]) || value.Truthy(a["extra_index_url"])) {
		return nil, execmod.Errorf("'no_index' and ('index_url' or 'extra_index_url') are mutually exclusive.")
	}
	for _, k := range []string{"index_url", "extra_index_url"} {
		if value.Truthy(a[k]) {
			if !pipURLRE.MatchString(a.str(k)) {
				return nil, execmod.Errorf("'%s' is not a valid URL", a.str(k))
			}
			cmd = append(cmd, "--"+strings.ReplaceAll(k, "_", "-"), a.str(k))
		}
	}
	if value.Truthy(a["no_index"]) {
		cmd = append(cmd, "--no-index")
	}
	if value.Truthy(a["mirrors"]) {
		return nil, execmod.Errorf("pip >= 7.0.0 does not support mirror argument: use index_url and/or extra_index_url instead")
	}
	if value.Truthy(a["disable_version_check"]) {
		cmd = append(cmd, "--disable-pip-version-check")
	}
	if value.Truthy(a["build"]) {
		cmd = append(cmd, "--build", a.str("build"))
	}
	target := a["target"]
	if target == nil && a["bin_env"] == nil {
		if te, ok := os.LookupEnv("VENV_PIP_TARGET"); ok {
			target = te
		}
	}
	if value.Truthy(target) {
		cmd = append(cmd, "--target", value.Str(target))
	}
	if value.Truthy(a["download"]) {
		cmd = append(cmd, "--download", a.str("download"))
	}
	if value.Truthy(a["download_cache"]) || value.Truthy(a["cache_dir"]) {
		c := a["download_cache"]
		if !value.Truthy(c) {
			c = a["cache_dir"]
		}
		cmd = append(cmd, "--cache-dir", value.Str(c))
	}
	if value.Truthy(a["source"]) {
		cmd = append(cmd, "--source", a.str("source"))
	}
	for _, f := range [][2]string{{"upgrade", "--upgrade"}, {"force_reinstall", "--force-reinstall"}, {"ignore_installed", "--ignore-installed"}} {
		if value.Truthy(a[f[0]]) {
			cmd = append(cmd, f[1])
		}
	}
	if value.Truthy(a["exists_action"]) {
		ea := a.str("exists_action")
		if !strings.Contains("siwb", strings.ToLower(ea)) || len(ea) != 1 {
			return nil, execmod.Errorf("The exists_action pip option only supports the values s, i, w, and b. '%s' is not valid.", ea)
		}
		cmd = append(cmd, "--exists-action", ea)
	}
	for _, f := range [][2]string{{"no_deps", "--no-deps"}, {"no_install", "--no-install"}, {"no_download", "--no-download"},
		{"no_cache_dir", "--no-cache-dir"}, {"pre_releases", "--pre"}} {
		if value.Truthy(a[f[0]]) {
			cmd = append(cmd, f[1])
		}
	}
	if value.Truthy(a["cert"]) {
		cmd = append(cmd, "--cert", a.str("cert"))
	}
	for _, o := range splitComma(a["global_options"]) {
		cmd = append(cmd, "--global-option", o)
	}
	for _, o := range splitComma(a["install_options"]) {
		cmd = append(cmd, "--install-option", o)
	}
	if value.Truthy(a["pkgs"]) {
		for _, p := range splitComma(a["pkgs"]) {
			cmd = append(cmd, strings.ReplaceAll(p, ";", ","))
		}
	} else if !value.Truthy(a["requirements"]) && !value.Truthy(a["editable"]) {
		return value.MapOf("retcode", int64(0), "stdout", "No packages to install."), nil
	}
	egg := regexp.MustCompile(`(?:#|#.*?&)egg=([^&]*)`)
	for _, e := range splitComma(a["editable"]) {
		if e != "." && !strings.HasPrefix(e, "file://") && !strings.HasPrefix(e, "/") {
			if g := egg.FindStringSubmatch(e); g == nil || g[1] == "" {
				return nil, execmod.Errorf("You must specify an egg for this editable")
			}
		}
		cmd = append(cmd, "--editable", e)
	}
	if value.Truthy(a["allow_all_external"]) {
		cmd = append(cmd, "--allow-all-external")
	}
	for _, p := range splitComma(a["allow_external"]) {
		cmd = append(cmd, "--allow-external", p)
	}
	for _, p := range splitComma(a["allow_unverified"]) {
		cmd = append(cmd, "--allow-unverified", p)
	}
	if value.Truthy(a["process_dependency_links"]) {
		cmd = append(cmd, "--process-dependency-links")
	}
	if value.Truthy(a["trusted_host"]) {
		cmd = append(cmd, "--trusted-host", a.str("trusted_host"))
	}
	if l, ok := a["extra_args"].(*value.List); ok {
		for _, x := range l.Items {
			if m, ok := x.(*value.Map); ok {
				var err error
				m.Range(func(k, v any) bool {
					switch v.(type) {
					case *value.Map, *value.List:
						err = execmod.Errorf("Too many levels in: %s", value.Str(k))
						return false
					}
					cmd = append(cmd, value.Str(k), value.Str(v))
					return false
				})
				if err != nil {
					return nil, err
				}
			} else {
				cmd = append(cmd, value.Str(x))
			}
		}
	}
	env, err := pipEnv(a["bin_env"], a["env_vars"])
	if err != nil {
		return nil, err
	}
	kw := append(pipRunKw(a["cwd"], a["user"], env), "saltenv", a["saltenv"])
	rest.Range(func(k, v any) bool {
		kw = append(kw, k, v)
		return true
	})
	defer pipClearVersion(ctx, a["bin_env"])
	return pipRun(ctx, a["bin_env"], cmd, kw...)
}

func pipUninstall(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("uninstall", args, kwargs, execmod.Opt("pkgs", nil), execmod.Opt("requirements", nil), execmod.Opt("bin_env", nil),
		execmod.Opt("log", nil), execmod.Opt("proxy", nil), execmod.Opt("timeout", nil), execmod.Opt("user", nil), execmod.Opt("cwd", nil),
		execmod.Opt("saltenv", "base"), execmod.Opt("use_vt", false))
	if err != nil {
		return nil, err
	}
	cmd := []string{"uninstall", "-y"}
	reqArgs, fail, err := pipRequirements(ctx, a["requirements"], a["saltenv"])
	if err != nil || fail != nil {
		return fail, err
	}
	cmd = append(cmd, reqArgs...)
	if value.Truthy(a["log"]) {
		cmd = append(cmd, "--log", a.str("log"))
	}
	cmd = append(cmd, pipProxy(ctx, a["proxy"])...)
	t, err := pipTimeout(a["timeout"])
	if err != nil {
		return nil, err
	}
	cmd = append(cmd, t...)
	if value.Truthy(a["pkgs"]) {
		pkgs := splitComma(a["pkgs"])
		inReqs := map[string]bool{}
		for i := 1; i < len(reqArgs); i += 2 {
			data, _ := os.ReadFile(reqArgs[i])
			for _, line := range strings.Split(string(data), "\n") {
				if p, _, ok := strings.Cut(line, "=="); ok {
					inReqs[p] = true
				}
			}
		}
		for _, p := range pkgs {
			if !inReqs[p] {
				cmd = append(cmd, p)
			}
		}
	}
	env, _ := pipEnv(a["bin_env"], nil)
	defer pipClearVersion(ctx, a["bin_env"])
	return pipRun(ctx, a["bin_env"], cmd, append(pipRunKw(a["cwd"], a["user"], env), "saltenv", a["saltenv"], "use_vt", a["use_vt"])...)
}

func pipOutdated(ctx *execmod.Context, binEnv, user, cwd any) (*value.Map, error) {
	env, _ := pipEnv(binEnv, nil)
	m, err := pipRun(ctx, binEnv, []string{"list", "--outdated", "--format=json"}, pipRunKw(cwd, user, env)...)
	if err != nil {
		return nil, err
	}
	if err := pipMust(m); err != nil {
		return nil, err
	}
	var rows []struct {
		Name          string `json:"name"`
		LatestVersion string `json:"latest_version"`
		LatestType    string `json:"latest_filetype"`
	}
	if err := json.Unmarshal([]byte(execmod.String(cmdGet(m, "stdout"))), &rows); err != nil {
		return nil, execmod.Errorf("Invalid JSON")
	}
	ret := value.NewMap(0)
	for _, r := range rows {
		ret.Set(r.Name, fmt.Sprintf("%s [%s]", r.LatestVersion, r.LatestType))
	}
	return ret, nil
}

func pipListUpgrades(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_upgrades", args, kwargs, pipCommonParams()...)
	if err != nil {
		return nil, err
	}
	return pipOutdated(ctx, v[0], v[1], v[2])
}

func pipUpgradeAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("upgrade_available", args, kwargs, pipCommonParams(execmod.Req("pkg"))...)
	if err != nil {
		return nil, err
	}
	up, err := pipOutdated(ctx, v[1], v[2], v[3])
	if err != nil {
		return nil, err
	}
	_, ok := up.Get(v[0])
	return ok, nil
}

func pipUpgrade(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("upgrade", args, kwargs, append(pipCommonParams(), execmod.Opt("use_vt", false))...)
	if err != nil {
		return nil, err
	}
	old, err := pipPackages(ctx, nil, v[0], v[1], v[2], nil)
	if err != nil {
		return nil, err
	}
	up, err := pipOutdated(ctx, v[0], v[1], v[2])
	if err != nil {
		return nil, err
	}
	env, _ := pipEnv(v[0], nil)
	ok, comment := true, ""
	var runErr error
	up.Range(func(k, _ any) bool {
		m, err := pipRun(ctx, v[0], []string{"install", "-U", value.Str(k)}, append(pipRunKw(v[2], v[1], env), "use_vt", v[3])...)
		if err != nil {
			runErr = err
			return false
		}
		if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
			ok = false
		}
		comment += execmod.String(cmdGet(m, "stderr"))
		return true
	})
	if runErr != nil {
		return nil, runErr
	}
	pipClearVersion(ctx, v[0])
	cur, err := pipPackages(ctx, nil, v[0], v[1], v[2], nil)
	if err != nil {
		return nil, err
	}
	return value.MapOf("changes", compareDicts(old, cur), "result", ok, "comment", comment), nil
}

// compareDicts is salt.utils.data.compare_dicts: {key: {'old', 'new'}}
// for every key added, removed or changed.
func compareDicts(old, cur *value.Map) *value.Map {
	ret := value.NewMap(0)
	keys := map[any]bool{}
	for _, m := range []*value.Map{old, cur} {
		m.Range(func(k, _ any) bool {
			keys[k] = true
			return true
		})
	}
	var sorted []any
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool { return value.Str(sorted[i]) < value.Str(sorted[j]) })
	for _, k := range sorted {
		o, oo := old.Get(k)
		n, no := cur.Get(k)
		if oo && no && value.Equal(o, n) {
			continue
		}
		if !oo {
			o = ""
		}
		if !no {
			n = ""
		}
		ret.Set(k, value.MapOf("old", o, "new", n))
	}
	return ret
}

func pipListAllVersions(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("list_all_versions", args, kwargs, execmod.Req("pkg"), execmod.Opt("bin_env", nil), execmod.Opt("include_alpha", false),
		execmod.Opt("include_beta", false), execmod.Opt("include_rc", false), execmod.Opt("user", nil), execmod.Opt("cwd", nil),
		execmod.Opt("index_url", nil), execmod.Opt("extra_index_url", nil))
	if err != nil {
		return nil, err
	}
	var cmd []string
	for _, k := range []string{"index_url", "extra_index_url"} {
		if value.Truthy(a[k]) {
			if !pipURLRE.MatchString(a.str(k)) {
				return nil, execmod.Errorf("'%s' is not a valid URL", a.str(k))
			}
			cmd = append(cmd, "--"+strings.ReplaceAll(k, "_", "-"), a.str(k))
		}
	}
	cmd = append(cmd, "index", "versions", a.str("pkg"))
	env, _ := pipEnv(a["bin_env"], nil)
	m, err := pipRun(ctx, a["bin_env"], cmd, append(pipRunKw(a["cwd"], a["user"], env), "output_loglevel", "quiet", "redirect_stderr", true)...)
	if err != nil {
		return nil, err
	}
	var skip []string
	for _, f := range [][2]string{{"include_alpha", "a"}, {"include_beta", "b"}, {"include_rc", "rc"}} {
		if !value.Truthy(a[f[0]]) {
			skip = append(skip, f[1])
		}
	}
	re := regexp.MustCompile(`\s*Available versions: (.*)`)
	var versions []string
	for _, line := range strings.Split(execmod.String(cmdGet(m, "stdout")), "\n") {
		g := re.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		for _, v := range strings.Split(g[1], ", ") {
			keep := v != ""
			for _, s := range skip {
				keep = keep && !strings.Contains(v, s)
			}
			if keep {
				versions = append(versions, v)
			}
		}
		sort.SliceStable(versions, func(i, j int) bool { return pkgmgr.CompareDebian(versions[i], versions[j]) < 0 })
		break
	}
	if len(versions) == 0 {
		return nil, nil
	}
	return strList(versions), nil
}
