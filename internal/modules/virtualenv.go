package modules

// virtualenv.go is salt/modules/virtualenv_mod.py: create a virtual
// environment with virtualenv (or pyvenv), ask one for its site-packages
// and for pkg_resources paths, and read the virtualenv version.
//
// One addition to Salt: when neither the call nor the minion config name
// a venv_bin and no virtualenv binary is on PATH (Salt would fail running
// "virtualenv"), create uses the standard library's `python3 -m venv`
// (python selects the interpreter) with pyvenv's options.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	execmod.Register("virtualenv.create", virtualenvCreate, "Create a virtualenv at path (venv_bin: virtualenv, pyvenv, or python3 -m venv when neither is installed); cmd.run_all's result.")
	execmod.Register("virtualenv.virtualenv_ver", virtualenvVer, "The version of the virtualenv binary venv_bin, as a list of integers.")
	execmod.Register("virtualenv.get_site_packages", virtualenvSitePackages, "The site-packages (purelib) directory of the virtualenv venv.")
	execmod.Register("virtualenv.get_distribution_path", virtualenvDistPath, "Where the distribution is installed in the virtualenv venv (pkg_resources).")
	execmod.Register("virtualenv.get_resource_path", virtualenvResourcePath, "The path of a package's resource in the virtualenv venv (pkg_resources.resource_filename).")
	execmod.Register("virtualenv.get_resource_content", virtualenvResourceContent, "The content of a package's resource in the virtualenv venv, as Python prints bytes (pkg_resources.resource_string).")
}

var venvVersionToken = regexp.MustCompile(`^\d.\d*`)
var venvVersionTail = regexp.MustCompile(`(rc|\+ds).*$`)

func virtualenvVer(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("virtualenv_ver", args, kwargs, execmod.Req("venv_bin"), execmod.Opt("user", nil))
	if err != nil {
		return nil, err
	}
	return venvVersion(ctx, value.Str(v[0]), v[1], rest)
}

// venvRunAll is cmd.run_all(argv) with the keyword arguments kv and then
// the caller's other keyword arguments (rest).
func venvRunAll(ctx *execmod.Context, argv *value.List, rest *value.Map, kv ...any) (*value.Map, error) {
	kw := value.MapOf(kv...)
	rest.Range(func(k, x any) bool {
		kw.Set(k, x)
		return true
	})
	res, err := ctx.Call("cmd.run_all", []any{argv}, kw)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	return m, nil
}

// venvVersion runs venv_bin --version and parses the version as Salt does
// (the tokens that look like a version, joined; rc/+ds suffixes dropped).
func venvVersion(ctx *execmod.Context, bin string, user any, rest *value.Map) (*value.List, error) {
	argv := value.NewList(bin, "--version")
	m, err := venvRunAll(ctx, argv, rest, "runas", user, "python_shell", false, "redirect_stderr", true)
	if err != nil {
		return nil, err
	}
	out := strings.TrimSpace(execmod.String(cmdGet(m, "stdout")))
	if rc, _ := cmdGet(m, "retcode").(int64); rc > 0 || out == "" {
		return nil, execmod.Errorf("Unable to get the virtualenv version output using '%s'. Returned data: %s", value.Repr(argv), value.Repr(m))
	}
	var ver strings.Builder
	for _, f := range strings.Fields(out) {
		if venvVersionToken.MatchString(f) {
			ver.WriteString(f)
		}
	}
	l := value.NewList()
	for _, p := range strings.Split(venvVersionTail.ReplaceAllString(ver.String(), ""), ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("invalid literal for int() with base 10: %s", value.Repr(p))
		}
		l.Append(int64(n))
	}
	return l, nil
}

// versionAtLeast compares a version list with a minimum, as tuples compare.
func versionAtLeast(v *value.List, min ...int64) bool {
	for i, m := range min {
		if i >= len(v.Items) {
			return false
		}
		x, _ := v.Items[i].(int64)
		if x != m {
			return x > m
		}
	}
	return true
}

// venvDefaultBin is the venv_bin used when the call names none: the
// minion's venv_bin option (or pillar), else a virtualenv binary on PATH;
// "" when there is none.
func venvDefaultBin(ctx *execmod.Context) string {
	if v, _ := ctx.Opts.Get("venv_bin"); value.Truthy(v) {
		return value.Str(v)
	}
	if ctx.Pillar != nil {
		if v, _ := ctx.Pillar.Get("venv_bin"); value.Truthy(v) {
			return value.Str(v)
		}
	}
	for _, n := range []string{"virtualenv3", "virtualenv"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func strSet(v any) bool { return v != nil && strings.TrimSpace(value.Str(v)) != "" }

func virtualenvCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("create", args, kwargs, execmod.Req("path"), execmod.Opt("venv_bin", nil),
		execmod.Opt("system_site_packages", false), execmod.Opt("distribute", false), execmod.Opt("clear", false),
		execmod.Opt("python", nil), execmod.Opt("extra_search_dir", nil), execmod.Opt("never_download", nil),
		execmod.Opt("prompt", nil), execmod.Opt("pip", false), execmod.Opt("symlinks", nil), execmod.Opt("upgrade", nil),
		execmod.Opt("user", nil), execmod.Opt("use_vt", false), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	path := value.Str(v[0])
	python, extra, never, prompt := v[5], v[6], v[7], v[8]
	symlinks, upgrade, user := v[10], v[11], v[12]
	bin := ""
	if v[1] != nil {
		bin = value.Str(v[1])
	} else {
		bin = venvDefaultBin(ctx)
	}
	var cmd []string
	switch {
	case bin == "":
		// No virtualenv: the standard library's venv, as pyvenv.
		bin = "python3 -m venv"
		py := "python3"
		if strSet(python) {
			py = value.Str(python)
			if _, err := exec.LookPath(py); err != nil {
				return nil, execmod.Errorf("Cannot find requested python (%s).", py)
			}
		}
		if err := venvOnlyOptions(bin, nil, extra, never, nil); err != nil {
			return nil, err
		}
		cmd = []string{py, "-m", "venv"}
		if strSet(prompt) {
			cmd = append(cmd, "--prompt", value.Str(prompt))
		}
		cmd = venvUpgradeSymlinks(cmd, upgrade, symlinks)
	case strings.Contains(bin, "pyvenv"):
		if err := venvOnlyOptions(bin, python, extra, never, prompt); err != nil {
			return nil, err
		}
		cmd = venvUpgradeSymlinks([]string{bin}, upgrade, symlinks)
	default:
		if upgrade != nil {
			return nil, execmod.Errorf("The `upgrade`(`--upgrade`) option is not supported by '%s'", bin)
		}
		if symlinks != nil {
			return nil, execmod.Errorf("The `symlinks`(`--symlinks`) option is not supported by '%s'", bin)
		}
		ver, err := venvVersion(ctx, bin, user, rest)
		if err != nil {
			return nil, err
		}
		cmd = []string{bin}
		if value.Truthy(v[3]) && !versionAtLeast(ver, 1, 10) {
			cmd = append(cmd, "--distribute")
		}
		if strSet(python) {
			if _, err := exec.LookPath(value.Str(python)); err != nil {
				return nil, execmod.Errorf("Cannot find requested python (%s).", value.Str(python))
			}
			cmd = append(cmd, "--python="+value.Str(python))
		}
		if extra != nil {
			var dirs []string
			switch x := extra.(type) {
			case *value.List:
				for _, e := range x.Items {
					dirs = append(dirs, value.Str(e))
				}
			default:
				if s := value.Str(x); strings.TrimSpace(s) != "" {
					for _, e := range strings.Split(s, ",") {
						dirs = append(dirs, strings.TrimSpace(e))
					}
				}
			}
			for _, d := range dirs {
				cmd = append(cmd, "--extra-search-dir="+d)
			}
		}
		if never == true && !(versionAtLeast(ver, 1, 10) && !versionAtLeast(ver, 14)) {
			cmd = append(cmd, "--never-download")
		}
		if strSet(prompt) {
			// Salt quotes the prompt although no shell runs the command.
			cmd = append(cmd, "--prompt='"+value.Str(prompt)+"'")
		}
	}
	if v[4] == true {
		cmd = append(cmd, "--clear")
	}
	if v[2] == true {
		cmd = append(cmd, "--system-site-packages")
	}
	cmd = append(cmd, path)
	argv := value.NewList()
	for _, a := range cmd {
		argv.Append(a)
	}
	ret, err := venvRunAll(ctx, argv, rest, "runas", user, "python_shell", false)
	if err != nil {
		return nil, err
	}
	if rc, _ := cmdGet(ret, "retcode").(int64); rc != 0 {
		return ret, nil
	}
	venvPy := filepath.Join(path, "bin", "python")
	pip, distribute := value.Truthy(v[9]), value.Truthy(v[3])
	if (pip || distribute) && !pathExists(filepath.Join(path, "bin", "easy_install")) {
		if _, err := venvInstallScript(ctx, "https://bootstrap.pypa.io/ez_setup.py", path, venvPy, user, v[14], v[13]); err != nil {
			return nil, err
		}
		matches, _ := filepath.Glob(filepath.Join(path, "distribute-*.tar.gz*"))
		for _, m := range matches {
			os.Remove(m)
		}
	}
	if pip && !pathExists(filepath.Join(path, "bin", "pip")) {
		r, err := venvInstallScript(ctx, "https://bootstrap.pypa.io/get-pip.py", path, venvPy, user, v[14], v[13])
		if err != nil {
			return nil, err
		}
		ret.Set("retcode", cmdGet(r, "retcode"))
		ret.Set("stdout", strings.TrimSpace(execmod.String(cmdGet(ret, "stdout"))+"\n"+execmod.String(cmdGet(r, "stdout"))))
		ret.Set("stderr", strings.TrimSpace(execmod.String(cmdGet(ret, "stderr"))+"\n"+execmod.String(cmdGet(r, "stderr"))))
	}
	return ret, nil
}

// pathExists is os.path.exists (symlinks followed).
func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// venvOnlyOptions rejects the virtualenv-only options for a pyvenv-style
// venv_bin (python is nil when the interpreter may be chosen).
func venvOnlyOptions(bin string, python, extra, never, prompt any) error {
	switch {
	case strSet(python):
		return execmod.Errorf("The `python`(`--python`) option is not supported by '%s'", bin)
	case strSet(extra):
		return execmod.Errorf("The `extra_search_dir`(`--extra-search-dir`) option is not supported by '%s'", bin)
	case never != nil:
		return execmod.Errorf("The `never_download`(`--never-download`) option is not supported by '%s'", bin)
	case strSet(prompt):
		return execmod.Errorf("The `prompt`(`--prompt`) option is not supported by '%s'", bin)
	}
	return nil
}

func venvUpgradeSymlinks(cmd []string, upgrade, symlinks any) []string {
	if upgrade == true {
		cmd = append(cmd, "--upgrade")
	}
	if symlinks == true {
		cmd = append(cmd, "--symlinks")
	}
	return cmd
}

// venvInstallScript caches a bootstrap script, copies it into the
// environment and runs it with the environment's python.
func venvInstallScript(ctx *execmod.Context, source, cwd, python string, user, saltenv, useVT any) (*value.Map, error) {
	tmp, err := os.CreateTemp(cwd, "__salt.tmp.")
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath)
	cached, err := ctx.Call("cp.cache_file", []any{source, saltenv}, nil)
	if err != nil {
		return nil, err
	}
	src, ok := cached.(string)
	if !ok || src == "" {
		return nil, execmod.Errorf("Unable to cache %s", source)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	if err := os.WriteFile(tmpPath, data, 0o500); err != nil {
		return nil, fileops.PyOSError(err)
	}
	os.Chmod(tmpPath, 0o500)
	if uid, ok := fileops.ResolveUID(user); ok && user != nil {
		os.Chown(tmpPath, uid, -1)
	}
	res, err := ctx.Call("cmd.run_all", []any{value.NewList(python, tmpPath)}, value.MapOf("runas", user, "cwd", cwd,
		"env", value.MapOf("VIRTUAL_ENV", cwd), "use_vt", useVT, "python_shell", false))
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	return m, nil
}

// venvPython is _verify_virtualenv: the environment's bin/python.
func venvPython(venv any) (string, error) {
	p := filepath.Join(value.Str(venv), "bin/python")
	if _, err := os.Stat(p); err != nil {
		return "", execmod.Errorf("Path '%s' does not appear to be a virtualenv: bin/python not found.", value.Str(venv))
	}
	return p, nil
}

// safePyCode is salt.utils.verify.safe_py_code, for the values pasted
// into the Python snippets below.
func safePyCode(args ...any) error {
	for _, a := range args {
		if a == nil {
			return errors.New("'NoneType' object has no attribute 'count'")
		}
		s := value.Str(a)
		for _, bad := range []string{"import", ";", "subprocess", "eval", "open", "file", "exec", "input"} {
			if strings.Contains(s, bad) {
				return &execmod.InvocationError{Msg: fmt.Sprintf("Unsafe python code detected in '%s'", s)}
			}
		}
	}
	return nil
}

// venvExec runs a Python snippet with the environment's interpreter and
// returns its output.
func venvExec(ctx *execmod.Context, venv any, code string) (any, error) {
	py, err := venvPython(venv)
	if err != nil {
		return nil, err
	}
	res, err := ctx.Call("cmd.exec_code_all", []any{py, code}, nil)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if rc, _ := cmdGet(m, "retcode").(int64); rc != 0 {
		return nil, execmod.Errorf("%s\n%s", execmod.String(cmdGet(m, "stdout")), execmod.String(cmdGet(m, "stderr")))
	}
	return cmdGet(m, "stdout"), nil
}

func virtualenvSitePackages(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_site_packages", args, kwargs, execmod.Req("venv"))
	if err != nil {
		return nil, err
	}
	return venvExec(ctx, v[0], `import sysconfig; print(sysconfig.get_path("purelib"))`)
}

func virtualenvDistPath(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_distribution_path", args, kwargs, execmod.Req("venv"), execmod.Req("distribution"))
	if err != nil {
		return nil, err
	}
	if err := safePyCode(v[1]); err != nil {
		return nil, err
	}
	return venvExec(ctx, v[0], fmt.Sprintf("import pkg_resources; print(pkg_resources.get_distribution('%s').location)", value.Str(v[1])))
}

func virtualenvResource(fun, call string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("venv"), execmod.Opt("package", nil), execmod.Opt("resource", nil))
		if err != nil {
			return nil, err
		}
		if err := safePyCode(v[1], v[2]); err != nil {
			return nil, err
		}
		return venvExec(ctx, v[0], fmt.Sprintf("import pkg_resources; print(pkg_resources.%s('%s', '%s'))", call, value.Str(v[1]), value.Str(v[2])))
	}
}

var (
	virtualenvResourcePath    = virtualenvResource("get_resource_path", "resource_filename")
	virtualenvResourceContent = virtualenvResource("get_resource_content", "resource_string")
)
