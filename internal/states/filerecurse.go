package states

// filerecurse.go is file.recurse: a directory of the Salt file server
// mirrored onto the minion through file.managed and file.directory.

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

// fileLister is the optional part of the run's file source that lists the
// files of a saltenv (fileserver.Roots has it).
type fileLister interface {
	FileList(env string) []string
}

func init() {
	statemod.Register(&statemod.Function{Name: "file.recurse", Kwargs: true, Run: fileRecurse,
		Doc: "Recurse through a subdirectory on the master and copy said subdirectory over to the specified path.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("source"), p("keep_source", true), p("clean", false),
			p("require", nil), p("user", nil), p("group", nil), p("dir_mode", nil), p("file_mode", nil), p("sym_mode", nil),
			p("template", nil), p("context", nil), p("replace", true), p("defaults", nil), p("include_empty", false),
			p("backup", ""), p("include_pat", nil), p("exclude_pat", nil), p("maxdepth", nil), p("keep_symlinks", false),
			p("force_symlinks", false)}})
}

func validRelpath(rel string, maxdepth any) bool {
	if strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	if maxdepth == nil {
		return true
	}
	depth := len(strings.Split(path.Dir(rel), "/"))
	if path.Dir(rel) == "." {
		depth = 0
	}
	return int64(depth) <= int64(value.ToFloat(maxdepth))
}

func fileRecurse(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if c.Args.Has("mode") {
		ret.Set("result", false)
		ret.Set("comment", "'mode' is not allowed in 'file.recurse'. Please use 'file_mode' and 'dir_mode'.")
		return ret, nil
	}
	dirMode := fileops.NormalizeMode(c.Get("dir_mode"))
	fileMode := c.Get("file_mode")
	keepMode := false
	if s, ok := fileMode.(string); ok && strings.ToLower(s) == "keep" {
		keepMode, fileMode = true, nil
	}
	fileMode = fileops.NormalizeMode(fileMode)
	user, group := c.Get("user"), c.Get("group")
	if msg := checkUser(user, group, c.Test); msg != "" {
		return fileErr(ret, msg)
	}
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	sources, _ := validateStrList(c.Get("source"))
	for i, s := range sources {
		sources[i] = strings.TrimRight(s, "/")
		if !strings.HasPrefix(sources[i], "salt://") {
			return fileErr(ret, fmt.Sprintf("Invalid source '%s' (must be a salt:// URI)", sources[i]))
		}
	}
	var lister fileLister
	if c.Env != nil && c.Env.Exec != nil {
		lister, _ = c.Env.Exec.Files.(fileLister)
		if cf, ok := c.Env.Exec.Files.(*execmod.CachedFiles); ok && lister == nil {
			lister, _ = cf.Src.(fileLister)
		}
	}
	listEnv := func(env string) []string {
		if lister == nil {
			return nil
		}
		return lister.FileList(env)
	}
	// file.source_list picks the first source the file server lists as a
	// file or directory, by its path as written (no "..", no "//").
	var ex *execmod.Context
	if c.Env != nil {
		ex = c.Env.Exec
	}
	srcList := value.NewList()
	for _, s := range sources {
		srcList.Append(s)
	}
	picked, _, err := fileops.SourceList(ex, c.Saltenv, srcList, "")
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Recurse failed: "+err.Error())
		return ret, nil
	}
	source, senv := parseSaltURL(value.Str(picked), c.Saltenv)
	found := false
	for _, f := range listEnv(senv) {
		if strings.HasPrefix(f, source+"/") {
			found = true
			break
		}
	}
	if !found && ex != nil {
		dirs, _ := c.Salt("cp.list_master_dirs", nil, value.MapOf("saltenv", senv))
		if l, ok := dirs.(*value.List); ok {
			for _, d := range l.Items {
				if ds := value.Str(d); ds == source || strings.HasPrefix(ds, source+"/") {
					found = true
					break
				}
			}
		}
	}
	if !found {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("The directory '%s' does not exist on the salt fileserver in saltenv '%s'", source, senv))
		return ret, nil
	}
	if !isDir(name) {
		if exists(name) {
			return fileErr(ret, fmt.Sprintf("The path %s exists and is not a directory", name))
		}
		if !c.Test {
			if err := fileops.Makedirs(name+"/x", user, group, dirMode); err != nil {
				return fileErr(ret, err.Error())
			}
		}
	}
	comments := value.NewMap(0)
	changes := mapGet(ret, "changes").(*value.Map)
	merge := func(p string, r *value.Map) {
		res := mapGet(r, "result")
		if res == false || mapGet(ret, "result") == true {
			ret.Set("result", res)
		}
		if res != true && value.Truthy(mapGet(r, "comment")) {
			l, _ := mapGet(comments, p).(*value.List)
			if l == nil {
				l = value.NewList()
				comments.Set(p, l)
			}
			l.Append(mapGet(r, "comment"))
		}
		if ch := mapGet(r, "changes"); value.Truthy(ch) {
			changes.Set(p, ch)
		}
	}
	// _gen_recurse_managed_files
	prefix := source + "/"
	var files [][2]string
	dirs := map[string]bool{}
	keep := map[string]bool{}
	for _, f := range listEnv(senv) {
		if !strings.HasPrefix(f, prefix) {
			continue
		}
		rel := strings.TrimPrefix(f, prefix)
		if !validRelpath(rel, c.Get("maxdepth")) || !checkIncludeExclude(rel, c.Get("include_pat"), c.Get("exclude_pat")) {
			continue
		}
		dest := filepath.Join(name, filepath.FromSlash(rel))
		keep[dest] = true
		dirs[filepath.Dir(dest)] = true
		// salt.utils.url.create(path, saltenv=senv)
		src := "salt://" + f + "?saltenv=" + senv
		files = append(files, [2]string{dest, src})
	}
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	sort.Strings(dirList)
	for _, d := range dirList {
		dc := *c
		dc.Args = value.MapOf("name", d, "user", user, "group", group, "recurse", value.NewList(), "dir_mode", dirMode,
			"file_mode", nil, "makedirs", true, "clean", false, "require", nil, "max_depth", nil, "exclude_pat", nil,
			"follow_symlinks", false, "force", false, "backupname", nil, "allow_symlink", true, "children_only", false)
		r, err := fileDirectory(&dc)
		if err != nil {
			return nil, err
		}
		merge(d, r)
	}
	fmode := any(fileMode)
	if keepMode {
		fmode = "keep"
	}
	for _, f := range files {
		mc := *c
		mf, _ := statemod.Default.Lookup("file.managed")
		args, _ := mf.BindArgs(value.MapOf("name", f[0], "source", f[1], "keep_source", c.Get("keep_source"),
			"user", user, "group", group, "mode", fmode, "template", c.Get("template"), "makedirs", true,
			"replace", c.Get("replace"), "context", c.Get("context"), "defaults", c.Get("defaults"), "backup", c.Get("backup")))
		mc.Fun, mc.Args = mf, args
		r, err := fileManaged(&mc)
		if err != nil {
			return nil, err
		}
		merge(f[0], r)
	}
	if c.Bool("clean") {
		for k := range keepFiles(c, name, c.Get("require")) {
			keep[k] = true
		}
		removed := cleanDir(name, keep, c.Get("exclude_pat"), c.Test)
		if len(removed) > 0 {
			l := value.NewList()
			for _, r := range removed {
				l.Append(r)
			}
			if c.Test {
				if mapGet(ret, "result") == true {
					ret.Set("result", nil)
				}
				comments.Set("removed", l)
			} else {
				changes.Set("removed", l)
			}
		}
	}
	var parts []string
	comments.Range(func(k, v any) bool {
		var body []string
		if l, ok := v.(*value.List); ok {
			for _, it := range l.Items {
				body = append(body, value.Str(it))
			}
		}
		parts = append(parts, fmt.Sprintf("\n#### %s ####\n%s", value.Str(k), strings.Join(body, "\n")))
		return true
	})
	comment := strings.TrimSpace(strings.Join(parts, "\n"))
	if comment == "" {
		comment = fmt.Sprintf("Recursively updated %s", name)
	}
	ret.Set("comment", comment)
	if changes.Len() == 0 && value.Truthy(mapGet(ret, "result")) {
		ret.Set("comment", fmt.Sprintf("The directory %s is in the correct state", name))
	}
	return ret, nil
}

// parseSaltURL is salt.utils.url.parse: the path after salt:// as written
// and the ?saltenv= query (def when absent).
func parseSaltURL(u, def string) (path, env string) {
	rest := strings.TrimPrefix(u, "salt://")
	env = def
	if p, q, ok := strings.Cut(rest, "?saltenv="); ok {
		rest, env = p, q
	}
	return rest, env
}
