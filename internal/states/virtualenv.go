package states

// virtualenv.go is the common path of salt/states/virtualenv_mod.py's
// virtualenv.managed: create (or clear) the environment with venv_bin
// (virtualenv by default; `python3 -m venv` when virtualenv is not
// installed), then install requirements or pip_pkgs with pip.installed.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "virtualenv.managed",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("venv_bin", nil), statemod.Opt("requirements", nil),
			statemod.Opt("system_site_packages", false), statemod.Opt("distribute", false), statemod.Opt("use_wheel", false),
			statemod.Opt("clear", false), statemod.Opt("python", nil), statemod.Opt("extra_search_dir", nil),
			statemod.Opt("never_download", nil), statemod.Opt("prompt", nil), statemod.Opt("user", nil),
			statemod.Opt("cwd", nil), statemod.Opt("index_url", nil), statemod.Opt("extra_index_url", nil),
			statemod.Opt("pre_releases", false), statemod.Opt("no_deps", false), statemod.Opt("pip_download", nil),
			statemod.Opt("pip_download_cache", nil), statemod.Opt("pip_exists_action", nil), statemod.Opt("pip_ignore_installed", false),
			statemod.Opt("proxy", nil), statemod.Opt("use_vt", false), statemod.Opt("env_vars", nil), statemod.Opt("no_use_wheel", false),
			statemod.Opt("pip_upgrade", false), statemod.Opt("pip_pkgs", nil), statemod.Opt("pip_no_cache_dir", false),
			statemod.Opt("pip_cache_dir", nil), statemod.Opt("process_dependency_links", false), statemod.Opt("no_binary", nil)},
		Kwargs: true, Doc: "Ensure that a virtualenv exists (and holds the given requirements or pip_pkgs).", Run: virtualenvManaged})
}

func pythonVersion(py string) string {
	out, err := exec.Command(py, "-V").CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}

func virtualenvManaged(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "result", true, "comment", "", "changes", value.NewMap(0))
	changes := getv(ret, "changes").(*value.Map)
	venvPy := filepath.Join(name, "bin", "python")
	venvExists := exists(venvPy)
	clear := c.Bool("clear")
	if venvExists && clear {
		changes.Set("old", pythonVersion(venvPy))
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
	if !venvExists || clear {
		var cmd *exec.Cmd
		venvBin := c.Str("venv_bin")
		if venvBin == "" {
			if p := value.Str(c.Opt("venv_bin")); p != "" && p != "None" {
				venvBin = p
			}
		}
		if venvBin == "" {
			if _, err := exec.LookPath("virtualenv"); err == nil {
				venvBin = "virtualenv"
			}
		}
		if venvBin != "" {
			args := []string{name}
			if py := c.Str("python"); py != "" {
				args = append(args, "--python", py)
			}
			if c.Bool("system_site_packages") {
				args = append(args, "--system-site-packages")
			}
			if clear {
				args = append(args, "--clear")
			}
			if p := c.Str("prompt"); p != "" {
				args = append(args, "--prompt", p)
			}
			cmd = exec.Command(venvBin, args...)
		} else {
			py := c.Str("python")
			if py == "" {
				py = "python3"
			}
			if _, err := exec.LookPath(py); err != nil {
				ret.Set("result", false)
				ret.Set("comment", "Failed to create virtualenv: Could not find a virtualenv binary nor "+py)
				return ret, nil
			}
			args := []string{"-m", "venv"}
			if c.Bool("system_site_packages") {
				args = append(args, "--system-site-packages")
			}
			if clear {
				args = append(args, "--clear")
			}
			if p := c.Str("prompt"); p != "" {
				args = append(args, "--prompt", p)
			}
			cmd = exec.Command(py, append(args, name)...)
		}
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			ret.Set("result", false)
			ret.Set("comment", out.String()+errb.String())
			if out.Len()+errb.Len() == 0 {
				ret.Set("comment", "Failed to create virtualenv: "+err.Error())
			}
			return ret, nil
		}
		if user := c.Str("user"); user != "" {
			if uid, ok := fileops.ResolveUID(user); ok {
				gid, _ := lookupUserGID(uid)
				filepath.Walk(name, func(p string, _ os.FileInfo, err error) error {
					if err == nil {
						os.Lchown(p, uid, gid)
					}
					return nil
				})
			}
		}
		changes.Set("new", pythonVersion(venvPy))
		if clear {
			ret.Set("comment", "Cleared existing virtualenv")
		} else {
			ret.Set("comment", "Created new virtualenv")
		}
	} else {
		ret.Set("comment", "virtualenv exists")
	}
	reqs := c.Str("requirements")
	pkgs := c.Get("pip_pkgs")
	if reqs == "" && !value.Truthy(pkgs) {
		return ret, nil
	}
	f, _ := statemod.Default.Lookup("pip.installed")
	low := value.MapOf("name", "", "bin_env", name, "upgrade", c.Get("pip_upgrade"), "no_deps", c.Get("no_deps"),
		"index_url", c.Get("index_url"), "extra_index_url", c.Get("extra_index_url"), "env_vars", c.Get("env_vars"))
	if reqs != "" {
		low.Set("requirements", reqs)
	}
	if value.Truthy(pkgs) {
		if s, ok := pkgs.(string); ok {
			pkgs = value.NewList(anySlice(strings.Split(s, ","))...)
		}
		low.Set("pkgs", pkgs)
	}
	args, _ := f.BindArgs(low)
	sub := *c
	sub.Fun, sub.Args = f, args
	pret, err := pipInstalled(&sub)
	if err != nil {
		return nil, err
	}
	if r := getv(pret, "result"); r != true {
		ret.Set("result", r)
		ret.Set("comment", getv(pret, "comment"))
		return ret, nil
	}
	if pc, ok := getv(pret, "changes").(*value.Map); ok && pc.Len() > 0 {
		changes.Set("packages", value.MapOf("new", pc, "old", value.NewList()))
	}
	return ret, nil
}
