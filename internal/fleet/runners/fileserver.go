package runners

// fileserver.go is salt/runners/fileserver.py for the roots backend: what
// the master's file_roots serve. It reads the master's files only, so it
// needs no running master.

import (
	"sort"

	"brine/internal/execmod"
	"brine/internal/highstate"
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
	return strList(highstate.FileRoots(c.Opts).DirList(env)), nil
}
