package modules

// cp.go is salt/modules/cp.py: reading files from the file server.

import (
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("cp.get_file_str", cpGetFileStr, "Return the contents of a salt:// file (or absolute path) as a string, False when missing.")
	execmod.Register("cp.list_states", cpListStates, "List the SLS names available in saltenv (default: the configured saltenv, else base).")
	execmod.Register("cp.list_master_dirs", cpListMasterDirs, "List the directories of the file server in saltenv, optionally those starting with prefix.")
}

func cpGetFileStr(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_file_str", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	saltenv := ctx.SaltenvOr("base")
	if value.Truthy(v[1]) {
		saltenv = execmod.String(v[1])
	}
	data, _, _, err := getURL(ctx, execmod.String(v[0]), saltenv)
	if err != nil {
		if _, ok := err.(*execmod.CommandExecutionError); ok {
			return nil, err
		}
		return false, nil
	}
	return string(data), nil
}

// fileLister is the listing side of a file server (fileserver.Roots).
type fileLister interface {
	FileList(env string) []string
}

// stateLister lists SLS names (fileserver.Roots.ListStates).
type stateLister interface {
	ListStates(env string) []string
}

// dirLister lists directories, empty ones included (Salt's dir_list).
type dirLister interface {
	DirList(env string) []string
}

// fileServer returns the run's file server without its cache wrapper.
func fileServer(ctx *execmod.Context) any {
	if cf, ok := ctx.Files.(*execmod.CachedFiles); ok {
		return cf.Src
	}
	return ctx.Files
}

// listSaltenv is the saltenv cp's list functions use: the argument, else
// opts saltenv, else base.
func listSaltenv(ctx *execmod.Context, v any) string {
	if value.Truthy(v) {
		return execmod.String(v)
	}
	return ctx.SaltenvOr("base")
}

func cpListStates(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_states", args, kwargs, execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	env := listSaltenv(ctx, v[0])
	var names []string
	switch fs := fileServer(ctx).(type) {
	case stateLister:
		names = fs.ListStates(env)
	case fileLister:
		seen := map[string]bool{}
		for _, p := range fs.FileList(env) {
			name, ok := strings.CutSuffix(p, ".sls")
			if !ok {
				continue
			}
			if n, isInit := strings.CutSuffix(p, "/init.sls"); isInit {
				name = n
			}
			seen[strings.ReplaceAll(name, "/", ".")] = true
		}
		for n := range seen {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	return strList(names), nil
}

func cpListMasterDirs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_master_dirs", args, kwargs, execmod.Opt("saltenv", nil), execmod.Opt("prefix", ""))
	if err != nil {
		return nil, err
	}
	env := listSaltenv(ctx, v[0])
	var dirs []string
	switch fs := fileServer(ctx).(type) {
	case dirLister:
		dirs = fs.DirList(env)
	case fileLister:
		// Without a directory listing, the parents of the files: empty
		// directories are missed.
		seen := map[string]bool{}
		for _, p := range fs.FileList(env) {
			for d := pyDirname(p); d != "" && !seen[d]; d = pyDirname(d) {
				seen[d] = true
			}
		}
		for d := range seen {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
	}
	prefix := strings.Trim(execmod.String(v[1]), "/")
	out := value.NewList()
	for _, d := range dirs {
		if strings.HasPrefix(d, prefix) {
			out.Append(d)
		}
	}
	return out, nil
}

func strList(xs []string) *value.List {
	items := make([]any, len(xs))
	for i, x := range xs {
		items[i] = x
	}
	return value.NewList(items...)
}
