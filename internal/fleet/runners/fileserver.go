package runners

// fileserver.go is salt/runners/fileserver.py for the roots backend: what
// the master's file_roots serve. It reads the master's files only, so it
// needs no running master.

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"brine/internal/execmod"
	"brine/internal/highstate"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	Register("fileserver.envs", fileserverEnvs, "Return the environments of the master's file server (the keys of file_roots), sorted.")
	Register("fileserver.file_list", fileserverFileList, "Return the files the master serves in saltenv (base by default), relative and sorted.")
	Register("fileserver.dir_list", fileserverDirList, "Return the directories the master serves in saltenv (base by default), relative and sorted.")
}

// checkBackend refuses a backend other than roots, the only one brine has.
func checkBackend(v any) error {
	if v == nil {
		return nil
	}
	for _, b := range splitInput(v) {
		if b != "roots" && b != "" {
			return &execmod.InvocationError{Msg: "brine's file server has only the roots backend, not " + b}
		}
	}
	return nil
}

func fileserverEnvs(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("envs", args, kwargs, execmod.Opt("backend", nil), execmod.Opt("sources", false))
	if err != nil {
		return nil, err
	}
	if err := checkBackend(v[0]); err != nil {
		return nil, err
	}
	roots, _ := c.opt("file_roots").(*value.Map)
	var envs []string
	if roots != nil {
		roots.Range(func(k, _ any) bool {
			envs = append(envs, execmod.String(k))
			return true
		})
	}
	sort.Strings(envs)
	return strList(envs), nil
}

// listArgs binds saltenv and backend.
func listArgs(name string, args []any, kwargs *value.Map) (string, error) {
	v, _, err := execmod.Bind(name, args, kwargs, execmod.Opt("saltenv", "base"), execmod.Opt("backend", nil))
	if err != nil {
		return "", err
	}
	if err := checkBackend(v[1]); err != nil {
		return "", err
	}
	return execmod.String(v[0]), nil
}

func fileserverFileList(c *Context, args []any, kwargs *value.Map) (any, error) {
	env, err := listArgs("file_list", args, kwargs)
	if err != nil {
		return nil, err
	}
	return strList(highstate.FileRoots(c.Opts).FileList(env)), nil
}

func fileserverDirList(c *Context, args []any, kwargs *value.Map) (any, error) {
	env, err := listArgs("dir_list", args, kwargs)
	if err != nil {
		return nil, err
	}
	return strList(c.dirList(env)), nil
}

// dirList lists the directories under the roots of env as the roots
// backend does: every directory below a root (not the root itself),
// symlinked ones followed unless fileserver_followsymlinks is off and
// dropped with fileserver_ignoresymlinks, file_ignore_* applied.
func (c *Context) dirList(env string) []string {
	roots, _ := c.opt("file_roots").(*value.Map)
	if roots == nil {
		return nil
	}
	rv, _ := roots.Get(env)
	var dirs []string
	switch x := rv.(type) {
	case *value.List:
		for _, e := range x.Items {
			dirs = append(dirs, execmod.String(e))
		}
	case string:
		dirs = []string{x}
	}
	follow := c.opt("fileserver_followsymlinks") == nil || value.Truthy(c.opt("fileserver_followsymlinks"))
	noLinks := value.Truthy(c.opt("fileserver_ignoresymlinks"))
	ignored := match.FileIgnore(optStrings(c.opt("file_ignore_regex")), optStrings(c.opt("file_ignore_glob")))
	ignore := func(p string) bool { return ignored != nil && ignored(p) }
	seen := map[string]bool{}
	var out []string
	var visit func(dir, rel string, depth int)
	visit = func(dir, rel string, depth int) {
		if depth > 64 {
			return
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			full := filepath.Join(dir, e.Name())
			erel := e.Name()
			if rel != "" {
				erel = rel + "/" + e.Name()
			}
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if noLinks {
					continue
				}
				st, err := os.Stat(full)
				if err != nil || !st.IsDir() {
					continue
				}
				isDir = true
				if !follow {
					// os.walk lists the link among the directories but
					// does not descend into it.
					if !ignore(erel) && !seen[erel] {
						seen[erel] = true
						out = append(out, erel)
					}
					continue
				}
			}
			if !isDir {
				continue
			}
			// An ignored directory is not listed, but os.walk still
			// descends into it.
			if !ignore(erel) && !seen[erel] {
				seen[erel] = true
				out = append(out, erel)
			}
			visit(full, erel, depth+1)
		}
	}
	for _, d := range dirs {
		visit(d, "", 0)
	}
	sort.Strings(out)
	return out
}

// optStrings reads an option holding a list of strings (or one string).
func optStrings(v any) []string {
	switch x := v.(type) {
	case *value.List:
		out := make([]string, 0, x.Len())
		for _, e := range x.Items {
			out = append(out, execmod.String(e))
		}
		return out
	case string:
		if x != "" {
			return []string{x}
		}
	}
	return nil
}
