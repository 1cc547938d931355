package states

// file.go is salt/states/file.py: managed (built, as in Salt, on the
// file.get_managed, check_managed_changes and manage_file execution
// functions of internal/modules/file_meta.go), directory, absent, exists,
// missing, touch, symlink, copy, rename. fileedit.go has the line editors
// (append, prepend, replace, line, blockreplace, comment, uncomment,
// keyvalue, accumulated), fileserialize.go serialize, filerecurse.go
// recurse, filepatch.go patch and filehash.go source_hash checks and
// http(s) downloads for the states that fetch sources themselves.

import (
	"brine/internal/execmod"
	"brine/internal/fileops"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/pyops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func fileErr(ret *value.Map, msg string) (*value.Map, error) {
	ret.Set("result", false)
	ret.Set("comment", msg)
	return ret, nil
}

func p(name string, def any) statemod.Param { return statemod.Opt(name, def) }

func init() {
	statemod.Register(&statemod.Function{Name: "file.managed", Kwargs: true, Run: fileManaged,
		Doc: "Manage a given file, this function allows for a file to be downloaded from the salt master and potentially run through a templating system.",
		Params: []statemod.Param{statemod.Req("name"), p("source", nil), p("source_hash", ""), p("source_hash_name", nil),
			p("keep_source", true), p("user", nil), p("group", nil), p("mode", nil), p("attrs", nil), p("template", nil),
			p("makedirs", false), p("dir_mode", nil), p("context", nil), p("replace", true), p("defaults", nil),
			p("backup", ""), p("show_changes", true), p("create", true), p("contents", nil), p("tmp_dir", ""),
			p("tmp_ext", ""), p("contents_pillar", nil), p("contents_grains", nil), p("contents_newline", true),
			p("contents_delimiter", ":"), p("encoding", nil), p("encoding_errors", "strict"), p("allow_empty", true),
			p("follow_symlinks", true), p("check_cmd", nil), p("skip_verify", false), p("selinux", nil),
			p("win_owner", nil), p("win_perms", nil), p("win_deny_perms", nil), p("win_inheritance", true),
			p("win_perms_reset", false), p("verify_ssl", true), p("use_etag", false)}})
	statemod.Register(&statemod.Function{Name: "file.directory", Kwargs: true, Run: fileDirectory,
		Doc: "Ensure that a named directory is present and has the right perms.",
		Params: []statemod.Param{statemod.Req("name"), p("user", nil), p("group", nil), p("recurse", nil), p("max_depth", nil),
			p("dir_mode", nil), p("file_mode", nil), p("makedirs", false), p("clean", false), p("require", nil),
			p("exclude_pat", nil), p("follow_symlinks", false), p("force", false), p("backupname", nil),
			p("allow_symlink", true), p("children_only", false), p("win_owner", nil), p("win_perms", nil),
			p("win_deny_perms", nil), p("win_inheritance", true), p("win_perms_reset", false)}})
	statemod.Register(&statemod.Function{Name: "file.absent", Kwargs: true, Run: fileAbsent,
		Doc: "Make sure that the named file or directory is absent.", Params: []statemod.Param{statemod.Req("name")}})
	statemod.Register(&statemod.Function{Name: "file.exists", Kwargs: true, Run: fileExists,
		Doc: "Verify that the named file or directory is present or exists.", Params: []statemod.Param{statemod.Req("name")}})
	statemod.Register(&statemod.Function{Name: "file.missing", Kwargs: true, Run: fileMissing,
		Doc: "Verify that the named file or directory is missing.", Params: []statemod.Param{statemod.Req("name")}})
	statemod.Register(&statemod.Function{Name: "file.touch", Run: fileTouch,
		Doc:    "Replicate the 'nix \"touch\" command to create a new empty file or update the atime and mtime of an existing file.",
		Params: []statemod.Param{statemod.Req("name"), p("atime", nil), p("mtime", nil), p("makedirs", false)}})
	statemod.Register(&statemod.Function{Name: "file.symlink", Kwargs: true, Run: fileSymlink,
		Doc: "Create a symbolic link (symlink, soft link).",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("target"), p("force", false), p("backupname", nil),
			p("makedirs", false), p("user", nil), p("group", nil), p("mode", nil), p("win_owner", nil),
			p("win_perms", nil), p("win_deny_perms", nil), p("win_inheritance", nil), p("atomic", false),
			p("disallow_copy_and_unlink", false), p("inherit_user_and_group", false)}})
	statemod.Register(&statemod.Function{Name: "file.copy", Kwargs: true, Run: fileCopy,
		Doc: "If the file defined by the source option exists on the minion, copy it to the named path.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("source"), p("force", false), p("makedirs", false),
			p("preserve", false), p("user", nil), p("group", nil), p("mode", nil), p("dir_mode", nil), p("subdir", false)}})
	statemod.Register(&statemod.Function{Name: "file.mod_run_check_cmd", Kwargs: true,
		Doc:    "Execute the check_cmd logic.",
		Params: []statemod.Param{statemod.Req("cmd"), statemod.Req("filename")},
		Run: func(c *statemod.Call) (*value.Map, error) {
			if r := modRunCheckCmd(c, c.Str("cmd"), c.Str("filename")); r != nil {
				return r, nil
			}
			return statemod.Ret(c.Get("filename"), true, ""), nil
		}})
	statemod.Register(&statemod.Function{Name: "file.rename", Kwargs: true, Run: fileRename,
		Doc:    "If the source file exists on the system, rename it to the named file.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("source"), p("force", false), p("makedirs", false)}})
}

// readSource reads a salt://, file:// or local source.
func readSource(c *statemod.Call, src string) ([]byte, error) {
	return fileops.ReadSource(execCtx(c), c.Saltenv, src)
}

// sourceList is file.source_list: the first source of a list that exists.
func sourceList(c *statemod.Call, source any) (string, error) {
	if source == nil {
		return "", nil
	}
	src, _, err := fileops.SourceList(execCtx(c), c.Saltenv, source, nil)
	if err != nil {
		return "", err
	}
	return value.Str(src), nil
}

// renderTemplate renders text with a template engine in the run's context.
func renderTemplate(c *statemod.Call, engine, text string, context *value.Map, source string) (string, error) {
	return fileops.RenderTemplate(execCtx(c), c.Saltenv, engine, text, context, source)
}

func fileManaged(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", true)
	if name == "" {
		return fileErr(ret, "Destination file name is required")
	}
	mode := c.Get("mode")
	keepMode := false
	if s, ok := mode.(string); ok && strings.ToLower(s) == "keep" {
		keepMode, mode = true, nil
	}
	mode = fileops.NormalizeMode(mode)
	source := c.Get("source")
	contents, cPillar, cGrains := c.Get("contents"), c.Get("contents_pillar"), c.Get("contents_grains")
	count := 0
	for _, x := range []any{contents, cPillar, cGrains} {
		if x != nil {
			count++
		}
	}
	replace := c.Bool("replace")
	switch {
	case value.Truthy(source) && count > 0:
		return fileErr(ret, "'source' cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'")
	case keepMode && count > 0:
		return fileErr(ret, "Mode preservation cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'")
	case count > 1:
		return fileErr(ret, "Only one of 'contents', 'contents_pillar', and 'contents_grains' is permitted")
	}
	if !value.Truthy(source) && count == 0 && replace {
		replace = false
	}
	if c.Args.Has("file_mode") {
		ret.Set("warnings", value.NewList("The 'file_mode' argument will be ignored.  Please use 'mode' instead to set file permissions."))
	}
	delim := c.Str("contents_delimiter")
	var useContents any
	lookup := func(src *value.Map, key string) (any, bool) { return value.Traverse(src, key, delim) }
	switch {
	case cPillar != nil:
		if l, ok := cPillar.(*value.List); ok {
			var parts []string
			for _, k := range l.Items {
				v, ok := lookup(c.Pillar(), value.Str(k))
				if !ok {
					return fileErr(ret, fmt.Sprintf("Pillar %s does not exist", value.Str(k)))
				}
				parts = append(parts, value.Str(v))
			}
			useContents = strings.Join(parts, "\n")
		} else {
			v, ok := lookup(c.Pillar(), value.Str(cPillar))
			if !ok {
				return fileErr(ret, fmt.Sprintf("Pillar %s does not exist", value.Str(cPillar)))
			}
			useContents = v
		}
	case cGrains != nil:
		if l, ok := cGrains.(*value.List); ok {
			var parts []string
			for _, k := range l.Items {
				v, ok := lookup(c.Grains(), value.Str(k))
				if !ok {
					return fileErr(ret, fmt.Sprintf("Grain %s does not exist", value.Str(v)))
				}
				parts = append(parts, value.Str(v))
			}
			useContents = strings.Join(parts, "\n")
		} else {
			v, ok := lookup(c.Grains(), value.Str(cGrains))
			if !ok {
				return fileErr(ret, fmt.Sprintf("Grain %s does not exist", value.Str(cGrains)))
			}
			useContents = v
		}
	case contents != nil:
		useContents = contents
	}
	var newContents *string
	if useContents != nil {
		if !c.Bool("allow_empty") && !value.Truthy(useContents) {
			id := "'contents'"
			if value.Truthy(cPillar) {
				id = "contents_pillar " + value.Str(cPillar)
			} else if value.Truthy(cGrains) {
				id = "contents_grains " + value.Str(cGrains)
			}
			return fileErr(ret, id+" value would result in empty contents. Set allow_empty to True to allow the managed file to be empty.")
		}
		parts, ok := validateStrList(useContents)
		if !ok {
			return fileErr(ret, "Contents specified by contents/contents_pillar/contents_grains is not a string or list of strings, and is not binary data. SLS is likely malformed.")
		}
		var b strings.Builder
		for _, part := range parts {
			for _, line := range pyops.SplitLines(part, false) {
				b.WriteString(strings.TrimRight(strings.TrimRight(line, "\n"), "\r"))
				b.WriteByte('\n')
			}
		}
		s := b.String()
		if !c.Bool("contents_newline") {
			s = strings.TrimRight(strings.TrimRight(s, "\n"), "\r")
		}
		if tmpl := c.Get("template"); value.Truthy(tmpl) {
			ctx := value.NewMap(4)
			if d, ok := c.Get("defaults").(*value.Map); ok {
				ctx.Update(d)
			}
			if cx, ok := c.Get("context").(*value.Map); ok {
				ctx.Update(cx)
			}
			out, err := renderTemplate(c, value.Str(tmpl), s, ctx, name)
			if err != nil {
				return fileErr(ret, err.Error())
			}
			s = out
		}
		newContents = &s
	}
	user, group := c.Get("user"), c.Get("group")
	if !c.Bool("create") && !isFile(name) {
		ret.Set("comment", fmt.Sprintf("File %s is not present and is not set for creation", name))
		return ret, nil
	}
	if msg := checkUser(user, group, c.Test); msg != "" {
		return fileErr(ret, msg)
	}
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if isDir(name) {
		ret.Set("comment", fmt.Sprintf("Specified target %s is a directory", name))
		ret.Set("result", false)
		return ret, nil
	}
	var context, defaults *value.Map
	switch x := c.Get("context").(type) {
	case nil:
		context = value.NewMap(0)
	case *value.Map:
		context = x
	default:
		return fileErr(ret, "Context must be formed as a dict")
	}
	if d := c.Get("defaults"); value.Truthy(d) {
		m, ok := d.(*value.Map)
		if !ok {
			return fileErr(ret, "Defaults must be formed as a dict")
		}
		defaults = m
	}
	follow := c.Bool("follow_symlinks")
	if !replace && exists(name) {
		lmode := fileops.CheckPerms(name, ret, user, group, mode, follow, c.Test).LMode
		if c.Test {
			if mode != nil && lmode != "" && mode != lmode {
				ret.Set("comment", fmt.Sprintf("File %s will be updated with permissions %s from its current state of %s", name, value.Str(mode), lmode))
			} else {
				ret.Set("comment", fmt.Sprintf("File %s not updated", name))
			}
		} else if !value.Truthy(mapGet(ret, "changes")) && value.Truthy(mapGet(ret, "result")) {
			ret.Set("comment", fmt.Sprintf("File %s exists with proper permissions. No changes made.", name))
		}
		return ret, nil
	}
	if acc := accumulatorsFor(c, name); acc != nil {
		context.Set("accumulator", acc)
	}
	var contentsArg any
	if newContents != nil {
		contentsArg = *newContents
	}
	attrs, template, skipVerify := c.Get("attrs"), c.Get("template"), c.Get("skip_verify")
	if c.Test {
		out, err := c.Salt("file.check_managed_changes", []any{name, source, c.Get("source_hash"), c.Get("source_hash_name"),
			user, group, mode, attrs, template, context, defaults, c.Saltenv, contentsArg, skipVerify, keepMode},
			value.MapOf("verify_ssl", c.Get("verify_ssl"), "follow_symlinks", follow))
		if err != nil {
			return fileErr(ret, "Unable to manage file: "+err.Error())
		}
		switch ch := out.(type) {
		case value.Tuple:
			ret.Set("result", ch[0])
			ret.Set("comment", ch[1])
		case *value.Map:
			if ch.Len() == 0 {
				ret.Set("comment", fmt.Sprintf("The file %s is in the correct state", name))
				return ret, nil
			}
			ret.Set("changes", ch)
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("The file %s is set to be changed\nNote: No changes made, actual changes may\nbe different due to other states.", name))
			if ch.Has("diff") && !c.Bool("show_changes") {
				ch.Set("diff", "<show_changes=False>")
			}
		}
		return ret, nil
	}
	src, srcHash, err := fileops.SourceList(execCtx(c), c.Saltenv, source, c.Get("source_hash"))
	if err != nil {
		return fileErr(ret, "Unable to manage file: "+err.Error())
	}
	out, err := c.Salt("file.get_managed", []any{name, template, src, srcHash, c.Get("source_hash_name"), user, group, mode,
		attrs, c.Saltenv, context, defaults, skipVerify}, value.MapOf("verify_ssl", c.Get("verify_ssl"), "use_etag", c.Get("use_etag")))
	if err != nil {
		ret.Set("changes", value.NewMap(0))
		return fileErr(ret, "Unable to manage file: "+err.Error())
	}
	got, _ := out.(value.Tuple)
	if len(got) != 3 {
		return nil, fmt.Errorf("file.get_managed returned %s", value.Repr(out))
	}
	sfn, sum, comment := got[0], got[1], value.Str(got[2])
	manage := func(target string, sfn any, ret *value.Map) (*value.Map, error) {
		return callManageFile(c, []any{target, sfn, ret, src, sum, user, group, mode, attrs, c.Saltenv,
			c.Get("backup"), c.Get("makedirs"), template, c.Get("show_changes"), contentsArg, c.Get("dir_mode"), follow,
			skipVerify, keepMode}, value.MapOf("encoding", c.Get("encoding"), "encoding_errors", c.Get("encoding_errors"),
			"use_etag", c.Get("use_etag")))
	}
	if cc := c.Get("check_cmd"); value.Truthy(cc) {
		// Salt applies the change to a temporary copy first and runs
		// check_cmd on it when anything changed.
		tmp, err := os.CreateTemp(c.Str("tmp_dir"), "__salt.tmp.*"+c.Str("tmp_ext"))
		if err != nil {
			return fileErr(ret, err.Error())
		}
		tmpName := tmp.Name()
		tmp.Close()
		defer os.Remove(tmpName)
		if isFile(name) {
			if _, err := c.Salt("file.copy", []any{name, tmpName}, nil); err != nil {
				return fileErr(ret, fmt.Sprintf("Unable to copy file %s to %s: %s", name, tmpName, err))
			}
		}
		r, err := manage(tmpName, sfn, ret)
		if err != nil {
			ret.Set("changes", value.NewMap(0))
			return fileErr(ret, "Unable to check_cmd file: "+err.Error())
		}
		ret = value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", true)
		if value.Truthy(mapGet(r, "changes")) {
			if cret := modRunCheckCmd(c, value.Str(cc), tmpName); cret != nil {
				ret.Update(cret)
				return ret, nil
			}
			sfn = tmpName
		}
	}
	if comment != "" && contentsArg == nil {
		return fileErr(ret, comment)
	}
	r, err := manage(name, sfn, ret)
	if err != nil {
		ret.Set("changes", value.NewMap(0))
		return fileErr(ret, "Unable to manage file: "+err.Error())
	}
	return r, nil
}

// execCtx is the run's execution context (nil outside a run).
func execCtx(c *statemod.Call) *execmod.Context {
	if c.Env == nil {
		return nil
	}
	return c.Env.Exec
}

// validateStrList is _validate_str_list: a string, or a list whose items
// become strings.
func validateStrList(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []byte:
		return []string{string(x)}, true
	case *value.List:
		var out []string
		for _, it := range x.Items {
			switch s := it.(type) {
			case string:
				out = append(out, s)
			case *value.List, *value.Map:
				out = append(out, value.Str(s))
			default:
				out = append(out, value.Str(s))
			}
		}
		return out, len(out) > 0
	case nil:
		return nil, false
	}
	return []string{value.Str(v)}, true
}

// getManaged is file.get_managed for states that need the rendered
// content itself (cron.file): the content, or the comment explaining why
// it cannot be had.
func getManaged(c *statemod.Call, source string, template any, context, defaults *value.Map) ([]byte, string) {
	out, err := c.Salt("file.get_managed", []any{c.Get("name"), template, source, c.Get("source_hash"),
		c.Get("source_hash_name"), c.Get("user"), c.Get("group"), c.Get("mode"), c.Get("attrs"), c.Saltenv, context,
		defaults, c.Get("skip_verify")}, nil)
	if err != nil {
		return nil, "Unable to manage file: " + err.Error()
	}
	got, _ := out.(value.Tuple)
	if len(got) != 3 {
		return nil, "Unable to manage file: file.get_managed returned " + value.Repr(out)
	}
	if comment := value.Str(got[2]); comment != "" {
		return nil, comment
	}
	sfn := ""
	if value.Truthy(got[0]) {
		sfn = value.Str(got[0])
	} else if source != "" {
		// Salt caches a plain salt:// source only in manage_file.
		cached, err := c.Salt("cp.cache_file", []any{source, c.Saltenv}, nil)
		if err != nil || !value.Truthy(cached) {
			return nil, fmt.Sprintf("Source file '%s' not found", source)
		}
		sfn = value.Str(cached)
	}
	data, err := os.ReadFile(sfn)
	if err != nil {
		return nil, fmt.Sprintf("Source file '%s' not found", source)
	}
	if strings.HasPrefix(sfn, filepath.Join(os.TempDir(), "__salt.tmp.")) {
		os.Remove(sfn)
	}
	return data, ""
}

// checkFileMeta is file.check_file_meta with want as the contents: the
// changes a managed file would get, for test mode.
func checkFileMeta(c *statemod.Call, name string, want []byte, user, group, mode any, follow bool) (*value.Map, error) {
	out, err := c.Salt("file.check_file_meta", []any{name, "", nil, value.NewMap(0), user, group, mode, nil, c.Saltenv},
		value.MapOf("contents", want, "follow_symlinks", follow))
	if err != nil {
		return nil, err
	}
	changes, _ := out.(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
	}
	return changes, nil
}

// manageFile is file.manage_file with want as the contents, taking
// backup, makedirs, dir_mode and show_changes from the state's arguments.
func manageFile(c *statemod.Call, name string, want []byte, ret *value.Map, user, group, mode any, follow bool) (*value.Map, error) {
	return callManageFile(c, []any{name, "", ret, nil, value.NewMap(0), user, group, mode, nil, c.Saltenv,
		c.Get("backup"), c.Get("makedirs"), nil, c.Get("show_changes"), want, c.Get("dir_mode"), follow}, nil)
}

// callManageFile calls file.manage_file and returns the state return it
// gives back.
func callManageFile(c *statemod.Call, args []any, kwargs *value.Map) (*value.Map, error) {
	out, err := c.Salt("file.manage_file", args, kwargs)
	if err != nil {
		return nil, err
	}
	r, ok := out.(*value.Map)
	if !ok {
		return nil, fmt.Errorf("file.manage_file returned %s", value.Repr(out))
	}
	return r, nil
}

// walkEntry is one directory of os.walk: root, dirs, files.
type walkEntry struct {
	root        string
	dirs, files []string
}

// osWalk is os.walk (top-down, names sorted as os.scandir returns them is
// unspecified; sorted here for stable output), limited to maxDepth when
// maxDepth >= 0.
func osWalk(top string, maxDepth int) []walkEntry {
	var out []walkEntry
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		e := walkEntry{root: dir}
		for _, de := range ents {
			full := filepath.Join(dir, de.Name())
			if de.IsDir() || (de.Type()&os.ModeSymlink == 0 && isDir(full)) {
				e.dirs = append(e.dirs, de.Name())
			} else if de.Type()&os.ModeSymlink != 0 && isDir(full) {
				e.dirs = append(e.dirs, de.Name())
			} else {
				e.files = append(e.files, de.Name())
			}
		}
		out = append(out, e)
		if maxDepth >= 0 && depth >= maxDepth {
			return
		}
		for _, d := range e.dirs {
			full := filepath.Join(dir, d)
			if isLink(full) {
				continue
			}
			walk(full, depth+1)
		}
	}
	walk(top, 0)
	return out
}

func checkDirMeta(name string, user, group, mode any, follow bool) *value.Map {
	changes := value.NewMap(0)
	st, ok := fileops.Stat(name, follow)
	if !ok {
		changes.Set("directory", "new")
		return changes
	}
	if user != nil && value.Str(user) != st.User && !value.Equal(user, int64(st.UID)) {
		changes.Set("user", user)
	}
	if group != nil && value.Str(group) != st.Group && !value.Equal(group, int64(st.GID)) {
		changes.Set("group", group)
	}
	mode = fileops.NormalizeMode(mode)
	if mode != nil && mode != st.Mode && (follow || !st.IsLink) {
		changes.Set("mode", mode)
	}
	return changes
}

func recurseSet(v any) (map[string]bool, error) {
	l, ok := v.(*value.List)
	if !ok {
		return nil, fmt.Errorf("recurse must be formed as a list of strings")
	}
	out := map[string]bool{}
	for _, it := range l.Items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("recurse must be formed as a list of strings")
		}
		switch s {
		case "user", "group", "mode", "ignore_files", "ignore_dirs", "silent":
		default:
			return nil, fmt.Errorf("Types for \"recurse\" limited to \"user\", \"group\", \"mode\", \"ignore_files\", \"ignore_dirs\", and \"silent\"")
		}
		out[s] = true
	}
	if out["ignore_files"] && out["ignore_dirs"] {
		return nil, fmt.Errorf("Must not specify \"recurse\" options \"ignore_files\" and \"ignore_dirs\" at the same time.")
	}
	return out, nil
}

// keepFiles is _gen_keep_files: the paths the required file states manage.
func keepFiles(c *statemod.Call, name string, require any) map[string]bool {
	keep := map[string]bool{}
	l, ok := require.(*value.List)
	if !ok {
		return keep
	}
	for _, comp := range l.Items {
		m, ok := comp.(*value.Map)
		if !ok {
			continue
		}
		target, ok := m.Get("file")
		if !ok {
			continue
		}
		t := value.Str(target)
		for _, low := range c.Chunks {
			if value.Str(mapGet(low, "name")) != t && value.Str(mapGet(low, "__id__")) != t {
				continue
			}
			fn := value.Str(mapGet(low, "name"))
			if isDir(fn) {
				rel, err := filepath.Rel(name, fn)
				if err == nil && !strings.HasPrefix(rel, "..") {
					for _, e := range osWalk(fn, -1) {
						keep[e.root] = true
						for _, f := range e.files {
							keep[filepath.Join(e.root, f)] = true
						}
						for _, d := range e.dirs {
							keep[filepath.Join(e.root, d)] = true
						}
					}
				}
			} else {
				keep[fn] = true
			}
		}
	}
	return keep
}

func realKeep(root string, keep map[string]bool) map[string]bool {
	out := map[string]bool{root: true}
	for fn := range keep {
		if !filepath.IsAbs(fn) {
			continue
		}
		fn = filepath.Clean(fn)
		out[fn] = true
		for {
			fn = filepath.Dir(fn)
			out[fn] = true
			if fn == "/" {
				break
			}
		}
	}
	return out
}

// cleanDir is _clean_dir: remove what is not kept; returns the removed
// paths sorted.
func cleanDir(root string, keep map[string]bool, excludePat any, test bool) []string {
	rk := realKeep(root, keep)
	var removed []string
	// Like Python's os.walk, each directory is listed only when the walk
	// reaches it, after its parent's entries were handled: a subdirectory
	// removed there is gone and its contents are not listed (test mode
	// removes nothing, so it lists them).
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		var dirs, files []string
		for _, de := range ents {
			full := filepath.Join(dir, de.Name())
			if de.IsDir() || (de.Type()&os.ModeSymlink != 0 && isDir(full)) {
				dirs = append(dirs, de.Name())
			} else {
				files = append(files, de.Name())
			}
		}
		for _, n := range append(append([]string(nil), dirs...), files...) {
			full := filepath.Join(dir, n)
			if rk[full] {
				continue
			}
			rel, _ := filepath.Rel(root, full)
			if !checkIncludeExclude(rel, nil, excludePat) {
				continue
			}
			removed = append(removed, full)
			if !test {
				os.RemoveAll(full)
			}
		}
		for _, n := range dirs {
			full := filepath.Join(dir, n)
			if !isLink(full) {
				walk(full)
			}
		}
	}
	walk(root)
	sort.Strings(removed)
	return removed
}

func fileDirectory(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.directory")
	}
	if strings.HasSuffix(name, "/") && name != "/" {
		name = name[:len(name)-1]
	}
	clean := c.Bool("clean")
	if c.Get("max_depth") != nil && clean {
		return fileErr(ret, "Cannot specify both max_depth and clean")
	}
	user, group := c.Get("user"), c.Get("group")
	dirMode := c.Get("dir_mode")
	if c.Args.Has("mode") && !value.Truthy(dirMode) {
		dirMode = c.Get("mode")
	}
	fileMode := c.Get("file_mode")
	if !value.Truthy(fileMode) {
		fileMode = dirMode
	}
	dirMode, fileMode = fileops.NormalizeMode(dirMode), fileops.NormalizeMode(fileMode)
	if msg := checkUser(user, group, c.Test); msg != "" {
		return fileErr(ret, msg)
	}
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	force := c.Bool("force")
	changes := mapGet(ret, "changes").(*value.Map)
	if isFile(name) || (!c.Bool("allow_symlink") && isLink(name)) || (force && isLink(name)) {
		if bn := c.Get("backupname"); bn != nil {
			b := value.Str(bn)
			if lexists(b) {
				if !force {
					return fileErr(ret, fmt.Sprintf("File exists where the backup target %s should go", b))
				}
				os.RemoveAll(b)
			}
			os.Rename(name, b)
		} else if force {
			switch {
			case isFile(name) && !isLink(name):
				if c.Test {
					changes.Set("forced", "File would be forcibly replaced")
				} else {
					os.Remove(name)
					changes.Set("forced", "File was forcibly replaced")
				}
			case isLink(name):
				if c.Test {
					changes.Set("forced", "Symlink would be forcibly replaced")
				} else {
					os.Remove(name)
					changes.Set("forced", "Symlink was forcibly replaced")
				}
			default:
				if c.Test {
					changes.Set("forced", "Directory would be forcibly replaced")
				} else {
					os.RemoveAll(name)
					changes.Set("forced", "Directory was forcibly replaced")
				}
			}
		} else {
			if isFile(name) {
				return fileErr(ret, fmt.Sprintf("Specified location %s exists and is a file", name))
			}
			if isLink(name) {
				return fileErr(ret, fmt.Sprintf("Specified location %s exists and is a symlink", name))
			}
		}
	}
	follow := c.Bool("follow_symlinks")
	maxDepth := -1
	if md := c.Get("max_depth"); md != nil {
		maxDepth = c.Int("max_depth", -1)
	}
	recurse := c.Get("recurse")
	var rset map[string]bool
	if value.Truthy(recurse) {
		var err error
		rset, err = recurseSet(recurse)
		if err != nil && c.Test {
			ret.Set("result", false)
			ret.Set("comment", err.Error())
			return ret, nil
		}
		if err != nil {
			ret.Set("result", false)
			ret.Set("comment", err.Error())
			rset = nil
		}
	}
	// _check_directory: what would change.
	tchanges := value.NewMap(0)
	var walk []walkEntry
	if value.Truthy(recurse) || clean {
		walk = osWalk(name, maxDepth)
	}
	if rset != nil {
		u, g, dm, fm := user, group, dirMode, fileMode
		if !rset["user"] {
			u = nil
		}
		if !rset["group"] {
			g = nil
		}
		if !rset["mode"] {
			dm, fm = nil, nil
		}
		for _, e := range walk {
			if !rset["ignore_files"] {
				for _, f := range e.files {
					path := filepath.Join(e.root, f)
					st, ok := fileops.Stat(path, follow)
					if !ok {
						continue
					}
					fc := value.NewMap(0)
					if u != nil && value.Str(u) != st.User && !value.Equal(u, int64(st.UID)) {
						fc.Set("user", u)
					}
					if g != nil && value.Str(g) != st.Group && !value.Equal(g, int64(st.GID)) {
						fc.Set("group", g)
					}
					if fm != nil && fm != st.Mode && (follow || !st.IsLink) {
						fc.Set("mode", fm)
					}
					if fc.Len() > 0 {
						tchanges.Set(path, fc)
					}
				}
			}
			if !rset["ignore_dirs"] {
				for _, d := range e.dirs {
					path := filepath.Join(e.root, d)
					if fc := checkDirMeta(path, u, g, dm, follow); fc.Len() > 0 {
						tchanges.Set(path, fc)
					}
				}
			}
		}
	}
	if fc := checkDirMeta(name, user, group, dirMode, follow); fc.Len() > 0 {
		tchanges.Set(name, fc)
	}
	var keep map[string]bool
	if clean {
		keep = keepFiles(c, name, c.Get("require"))
		for _, e := range walk {
			for _, n := range append(append([]string(nil), e.files...), e.dirs...) {
				path := filepath.Join(e.root, n)
				if keep[path] {
					continue
				}
				rel, _ := filepath.Rel(name, path)
				if !checkIncludeExclude(rel, nil, c.Get("exclude_pat")) {
					continue
				}
				tchanges.Set(path, value.MapOf("removed", "Removed due to clean"))
			}
		}
	}
	if !isDir(name) {
		tchanges.Set(name, value.MapOf("directory", "new"))
	}
	var tresult any = true
	tcomment := fmt.Sprintf("The directory %s is in the correct state", name)
	if tchanges.Len() > 0 {
		var b strings.Builder
		b.WriteString("The following files will be changed:\n")
		tchanges.Range(func(k, v any) bool {
			v.(*value.Map).Range(func(kk, vv any) bool {
				fmt.Fprintf(&b, "%s: %s - %s\n", value.Str(k), value.Str(kk), value.Str(vv))
				return true
			})
			return true
		})
		tresult, tcomment = nil, b.String()
	}
	changes.Update(tchanges)
	if c.Test {
		ret.Set("result", tresult)
		ret.Set("comment", tcomment)
		return ret, nil
	}
	// Nothing to change: stop here, as Salt does on POSIX.
	if changes.Len() == 0 {
		ret.Set("result", tresult)
		ret.Set("comment", tcomment)
		return ret, nil
	}
	if !isDir(name) {
		if !isDir(filepath.Dir(name)) {
			if c.Bool("makedirs") {
				if err := fileops.Makedirs(name, user, group, dirMode); err != nil {
					return fileErr(ret, err.Error())
				}
			} else {
				return fileErr(ret, fmt.Sprintf("No directory to create %s in", name))
			}
		}
		if err := fileops.Mkdir(name, user, group, dirMode); err != nil || !isDir(name) {
			return fileErr(ret, fmt.Sprintf("Failed to create directory %s", name))
		}
		// Added to changes: a "forced" entry made above stays.
		changes.Set(name, value.MapOf("directory", "new"))
		return ret, nil
	}
	if !c.Bool("children_only") {
		fileops.CheckPerms(name, ret, user, group, dirMode, follow, false)
	}
	if rset != nil {
		u, g, dm, fm := user, group, dirMode, fileMode
		if rset["user"] {
			if !value.Truthy(u) {
				ret.Set("result", false)
				ret.Set("comment", "user not specified, but configured as a target for recursive ownership management")
			}
		} else {
			u = nil
		}
		if rset["group"] {
			if !value.Truthy(g) {
				ret.Set("result", false)
				ret.Set("comment", "group not specified, but configured as a target for recursive ownership management")
			}
		} else {
			g = nil
		}
		if !rset["mode"] {
			dm, fm = nil, nil
		}
		if rset["silent"] {
			ret.Set("changes", value.MapOf("recursion", "Changes silenced"))
		}
		for _, e := range walk {
			if !rset["ignore_files"] {
				for _, f := range e.files {
					fileops.CheckPerms(filepath.Join(e.root, f), ret, u, g, fm, follow, false)
				}
			}
			if !rset["ignore_dirs"] {
				for _, d := range e.dirs {
					fileops.CheckPerms(filepath.Join(e.root, d), ret, u, g, dm, follow, false)
				}
			}
		}
	}
	if clean {
		removed := cleanDir(name, keep, c.Get("exclude_pat"), false)
		if len(removed) > 0 {
			l := value.NewList()
			for _, r := range removed {
				l.Append(r)
			}
			mapGet(ret, "changes").(*value.Map).Set("removed", l)
			ret.Set("comment", fmt.Sprintf("Files cleaned from directory %s", name))
		}
	}
	if !value.Truthy(mapGet(ret, "comment")) {
		if c.Bool("children_only") {
			ret.Set("comment", fmt.Sprintf("Directory %s/* updated", name))
		} else if value.Truthy(mapGet(ret, "changes")) {
			ret.Set("comment", fmt.Sprintf("Directory %s updated", name))
		}
	}
	if !value.Truthy(mapGet(ret, "changes")) && value.Truthy(mapGet(ret, "result")) {
		orig := value.Str(mapGet(ret, "comment"))
		cm := fmt.Sprintf("Directory %s is in the correct state", name)
		if value.Truthy(mapGet(ret, "comment")) {
			cm += "\n" + orig
		}
		ret.Set("comment", cm)
	}
	return ret, nil
}

func fileAbsent(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	changes := mapGet(ret, "changes").(*value.Map)
	if name == "" {
		return fileErr(ret, "Must provide name to file.absent")
	}
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if name == "/" {
		return fileErr(ret, `Refusing to make "/" absent`)
	}
	if isFile(name) || isLink(name) {
		if c.Test {
			ret.Set("result", nil)
			changes.Set("removed", name)
			ret.Set("comment", fmt.Sprintf("File %s is set for removal", name))
			return ret, nil
		}
		if err := os.Remove(name); err != nil {
			return fileErr(ret, err.Error())
		}
		ret.Set("comment", fmt.Sprintf("Removed file %s", name))
		changes.Set("removed", name)
		return ret, nil
	}
	if isDir(name) {
		if c.Test {
			ret.Set("result", nil)
			changes.Set("removed", name)
			ret.Set("comment", fmt.Sprintf("Directory %s is set for removal", name))
			return ret, nil
		}
		if err := os.RemoveAll(name); err != nil {
			return fileErr(ret, fmt.Sprintf("Failed to remove directory %s", name))
		}
		ret.Set("comment", fmt.Sprintf("Removed directory %s", name))
		changes.Set("removed", name)
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("File %s is not present", name))
	return ret, nil
}

func fileExists(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.exists")
	}
	if !lexists(name) {
		return fileErr(ret, fmt.Sprintf("Specified path %s does not exist", name))
	}
	ret.Set("comment", fmt.Sprintf("Path %s exists", name))
	return ret, nil
}

func fileMissing(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.missing")
	}
	if lexists(name) {
		return fileErr(ret, fmt.Sprintf("Specified path %s exists", name))
	}
	ret.Set("comment", fmt.Sprintf("Path %s is missing", name))
	return ret, nil
}

func fileTouch(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0))
	changes := mapGet(ret, "changes").(*value.Map)
	if name == "" {
		return fileErr(ret, "Must provide name to file.touch")
	}
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "")
		ret.Set("changes", value.MapOf("new", name))
		if !exists(name) {
			ret.Set("comment", fmt.Sprintf("File %s is set to be created", name))
		} else if c.Get("atime") != nil || c.Get("mtime") != nil {
			ret.Set("comment", fmt.Sprintf("Times set to be updated on file %s", name))
			ret.Set("changes", value.MapOf("touched", name))
		} else {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("File %s exists and has the correct times", name))
		}
		return ret, nil
	}
	if c.Bool("makedirs") {
		if err := fileops.Makedirs(name, nil, nil, nil); err != nil {
			return fileErr(ret, err.Error())
		}
	}
	if !isDir(filepath.Dir(name)) {
		return fileErr(ret, fmt.Sprintf("Directory not present to touch file %s", name))
	}
	extant := exists(name)
	err := fileops.Touch(name, c.Get("atime"), c.Get("mtime"))
	ret.Set("result", err == nil)
	if err != nil {
		ret.Set("comment", "")
		return ret, nil
	}
	if !extant {
		ret.Set("comment", fmt.Sprintf("Created empty file %s", name))
		changes.Set("new", name)
	} else {
		kind := "file"
		if isDir(name) {
			kind = "directory"
		}
		ret.Set("comment", fmt.Sprintf("Updated times on %s %s", kind, name))
		changes.Set("touched", name)
	}
	return ret, nil
}

func fileSymlink(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	target := c.Str("target")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	changes := mapGet(ret, "changes").(*value.Map)
	if name == "" {
		return fileErr(ret, "Must provide name to file.symlink")
	}
	mode := fileops.NormalizeMode(c.Get("mode"))
	user, group := c.Get("user"), c.Get("group")
	if c.Bool("inherit_user_and_group") && (user == nil || group == nil) && isLink(name) {
		if st, ok := fileops.Stat(name, false); ok {
			if user == nil {
				user = st.User
			}
			if group == nil {
				group = st.Group
			}
		}
	}
	if user == nil {
		user = value.Str(c.Opt("user"))
		if user == "" || user == "None" {
			user = fileops.UserName(os.Getuid())
		}
	}
	if group == nil {
		if uid, ok := fileops.ResolveUID(user); ok {
			if u, err := lookupUserGID(uid); err == nil {
				group = fileops.GroupName(u)
			}
		}
		if group == nil {
			group = user
		}
	}
	var pre []string
	if _, ok := fileops.ResolveUID(user); !ok {
		pre = append(pre, fmt.Sprintf("User %s does not exist", value.Str(user)))
	}
	if _, ok := fileops.ResolveGID(group); !ok {
		pre = append(pre, fmt.Sprintf("Group %s does not exist", value.Str(group)))
	}
	if !filepath.IsAbs(name) {
		pre = append(pre, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if len(pre) > 0 {
		msg := strings.Join(pre, ". ")
		if len(pre) > 1 {
			msg += "."
		}
		return fileErr(ret, msg)
	}
	force := c.Bool("force")
	// _symlink_check
	var tresult any
	var tcomment string
	tchanges := value.NewMap(0)
	switch {
	case !exists(name) && !isLink(name):
		tchanges.Set("new", name)
		tcomment = fmt.Sprintf("Symlink %s to %s is set for creation", name, target)
	case isLink(name):
		cur, _ := os.Readlink(name)
		if cur != target {
			tchanges.Set("change", name)
			tcomment = fmt.Sprintf("Link %s target is set to be changed to %s", name, target)
		} else {
			tresult = true
			tcomment = fmt.Sprintf("The symlink %s is present", name)
			if st, ok := fileops.Stat(name, false); ok && (st.User != value.Str(user) || st.Group != value.Str(group)) {
				tresult = nil
				tchanges.Set("ownership", fmt.Sprintf("%s:%s", st.User, st.Group))
				tcomment += fmt.Sprintf(", but the ownership of the symlink would be changed from %s:%s to %s:%s", st.User, st.Group, value.Str(user), value.Str(group))
			}
		}
	default:
		if force {
			tcomment = fmt.Sprintf("The file or directory %s is set for removal to make way for a new symlink targeting %s", name, target)
		} else {
			tresult = false
			tcomment = fmt.Sprintf("File or directory exists where the symlink %s should be. Did you mean to use force?", name)
		}
	}
	dir := filepath.Dir(name)
	if !isDir(dir) {
		if c.Bool("makedirs") {
			if c.Test {
				tcomment += fmt.Sprintf("\n%s will be created", dir)
			} else if err := fileops.Makedirs(name, user, group, mode); err != nil {
				return fileErr(ret, err.Error())
			}
		} else {
			if c.Test {
				tcomment += fmt.Sprintf("\nDirectory %s for symlink is not present", dir)
			} else {
				return fileErr(ret, fmt.Sprintf("Directory %s for symlink is not present", dir))
			}
		}
	}
	if c.Test {
		ret.Set("result", tresult)
		ret.Set("comment", tcomment)
		ret.Set("changes", tchanges)
		return ret, nil
	}
	if isLink(name) {
		cur, _ := os.Readlink(name)
		if filepath.Clean(cur) == filepath.Clean(target) {
			st, _ := fileops.Stat(name, false)
			if st.User == value.Str(user) && st.Group == value.Str(group) {
				ret.Set("comment", fmt.Sprintf("Symlink %s is present and owned by %s:%s", name, value.Str(user), value.Str(group)))
			} else {
				uid, _ := fileops.ResolveUID(user)
				gid, _ := fileops.ResolveGID(group)
				if err := os.Lchown(name, uid, gid); err == nil {
					ret.Set("comment", fmt.Sprintf("Set ownership of symlink %s to %s:%s", name, value.Str(user), value.Str(group)))
					changes.Set("ownership", fmt.Sprintf("%s:%s", value.Str(user), value.Str(group)))
				} else {
					ret.Set("result", false)
					ret.Set("comment", value.Str(mapGet(ret, "comment"))+fmt.Sprintf("Failed to set ownership of symlink %s to %s:%s", name, value.Str(user), value.Str(group)))
				}
			}
			return ret, nil
		}
	} else if exists(name) {
		if bn := c.Get("backupname"); bn != nil {
			b := value.Str(bn)
			if !filepath.IsAbs(b) {
				if b == filepath.Base(b) {
					b = filepath.Join(filepath.Dir(filepath.Clean(name)), b)
				} else {
					return fileErr(ret, fmt.Sprintf("Backupname must be an absolute path or a file name: %s", b))
				}
			}
			if lexists(b) {
				if !force {
					return fileErr(ret, fmt.Sprintf("Symlink & backup dest exists and Force not set. %s -> %s - backup: %s", name, target, b))
				}
				os.RemoveAll(b)
			}
			if err := os.Rename(name, b); err != nil {
				ret.Set("changes", value.NewMap(0))
				return fileErr(ret, fmt.Sprintf("Unable to rename %s to backup %s -> : %v", name, b, err))
			}
		} else if !force && !c.Bool("atomic") {
			kind := "File system entry"
			if isFile(name) {
				kind = "File"
			} else if isDir(name) {
				kind = "Directory"
			}
			return fileErr(ret, fmt.Sprintf("%s exists where the symlink %s should be", kind, name))
		}
	}
	// Salt's file.symlink clears the way with os.unlink, which cannot
	// remove a directory.
	if force && !c.Bool("atomic") && isDir(name) && !isLink(name) {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Unable to create new symlink %s -> %s: [Errno 21] Is a directory: '%s'", name, target, name))
		return ret, nil
	}
	if err := fileops.Symlink(target, name, force, c.Bool("atomic")); err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Unable to create new symlink %s -> %s: %s", name, target, err.Error()))
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("Created new symlink %s -> %s", name, target))
	changes.Set("new", name)
	uid, _ := fileops.ResolveUID(user)
	gid, _ := fileops.ResolveGID(group)
	if err := os.Lchown(name, uid, gid); err != nil {
		ret.Set("result", false)
		ret.Set("comment", value.Str(mapGet(ret, "comment"))+fmt.Sprintf(", but was unable to set ownership to %s:%s", value.Str(user), value.Str(group)))
	}
	return ret, nil
}

func fileCopy(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	source := fileops.ExpandUser(c.Str("source"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "comment", fmt.Sprintf("Copied \"%s\" to \"%s\"", source, name), "result", true)
	if name == "" {
		return fileErr(ret, "Must provide name to file.copy")
	}
	changed := true
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if !exists(source) {
		return fileErr(ret, fmt.Sprintf("Source file \"%s\" is not present", source))
	}
	user, group, mode := c.Get("user"), c.Get("group"), c.Get("mode")
	if c.Bool("preserve") {
		st, _ := fileops.Stat(source, true)
		user, group, mode = st.User, st.Group, st.Mode
	} else {
		if user == nil {
			user = value.Str(c.Opt("user"))
			if user == "" || user == "None" {
				user = fileops.UserName(os.Getuid())
			}
		}
		if group == nil {
			if uid, ok := fileops.ResolveUID(user); ok {
				if g, err := lookupUserGID(uid); err == nil {
					group = fileops.GroupName(g)
				}
			}
			if group == nil {
				group = user
			}
		}
		if msg := checkUser(user, group, c.Test); msg != "" {
			return fileErr(ret, msg)
		}
		if mode == nil {
			st, _ := fileops.Stat(source, true)
			mode = st.Mode
		}
	}
	if isDir(name) && c.Bool("subdir") {
		name = filepath.Join(name, filepath.Base(source))
	}
	force := c.Bool("force")
	if lexists(source) && lexists(name) {
		if force && isFile(name) {
			a, _ := os.ReadFile(name)
			b, _ := os.ReadFile(source)
			if string(a) == string(b) {
				ret.Set("comment", value.Str(mapGet(ret, "comment"))+" - files are identical but force flag is set")
			}
		}
		if !force {
			changed = false
		} else if !c.Test && changed {
			if err := os.RemoveAll(name); err != nil {
				return fileErr(ret, fmt.Sprintf("Failed to delete \"%s\" in preparation for forced move", name))
			}
		}
	}
	if c.Test {
		if changed {
			ret.Set("comment", fmt.Sprintf("File \"%s\" is set to be copied to \"%s\"", source, name))
			ret.Set("result", nil)
		} else {
			ret.Set("comment", fmt.Sprintf("The target file \"%s\" exists and will not be overwritten", name))
			ret.Set("result", true)
		}
		return ret, nil
	}
	if !changed {
		ret.Set("comment", fmt.Sprintf("The target file \"%s\" exists and will not be overwritten", name))
		ret.Set("result", true)
		return ret, nil
	}
	dname := filepath.Dir(name)
	if !isDir(dname) {
		if c.Bool("makedirs") {
			dm := c.Get("dir_mode")
			if dm == nil && mode != nil {
				dm = dirModeFrom(mode)
			}
			if err := fileops.Makedirs(name, user, group, fileops.NormalizeMode(dm)); err != nil {
				return fileErr(ret, err.Error())
			}
		} else {
			return fileErr(ret, fmt.Sprintf("The target directory %s is not present", dname))
		}
	}
	var err error
	if isDir(source) {
		err = fileops.CopyTree(source, name)
	} else {
		err = fileops.CopyFile(source, name)
	}
	if err != nil {
		return fileErr(ret, fmt.Sprintf("Failed to copy \"%s\" to \"%s\"", source, name))
	}
	ret.Set("changes", value.MapOf(name, source))
	if !c.Bool("preserve") {
		chk := value.MapOf("changes", mapGet(ret, "changes"), "result", true, "comment", mapGet(ret, "comment"))
		fileops.CheckPerms(name, chk, user, group, mode, false, false)
		if !value.Truthy(mapGet(chk, "result")) {
			ret.Set("result", mapGet(chk, "result"))
			ret.Set("comment", mapGet(chk, "comment"))
		}
	}
	return ret, nil
}

func fileRename(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	source := fileops.ExpandUser(c.Str("source"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "comment", "", "result", true)
	if name == "" {
		return fileErr(ret, "Must provide name to file.rename")
	}
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if !lexists(source) {
		ret.Set("comment", fmt.Sprintf("Source file \"%s\" has already been moved out of place", source))
		return ret, nil
	}
	force := c.Bool("force")
	if lexists(source) && lexists(name) {
		if !force {
			ret.Set("comment", fmt.Sprintf("The target file \"%s\" exists and will not be overwritten", name))
			return ret, nil
		} else if !c.Test {
			if err := os.RemoveAll(name); err != nil {
				return fileErr(ret, fmt.Sprintf("Failed to delete \"%s\" in preparation for forced move", name))
			}
		}
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("File \"%s\" is set to be moved to \"%s\"", source, name))
		ret.Set("result", nil)
		return ret, nil
	}
	dname := filepath.Dir(name)
	if !isDir(dname) {
		if c.Bool("makedirs") {
			if err := fileops.Makedirs(name, nil, nil, nil); err != nil {
				return fileErr(ret, err.Error())
			}
		} else {
			return fileErr(ret, fmt.Sprintf("The target directory %s is not present", dname))
		}
	}
	if err := os.Rename(source, name); err != nil {
		return fileErr(ret, fmt.Sprintf("Failed to move \"%s\" to \"%s\"", source, name))
	}
	ret.Set("comment", fmt.Sprintf("Moved \"%s\" to \"%s\"", source, name))
	ret.Set("changes", value.MapOf(name, source))
	return ret, nil
}

// modRunCheckCmd is file.mod_run_check_cmd: nil when "cmd filename"
// succeeds, else the failure return.
func modRunCheckCmd(c *statemod.Call, cmd, filename string) *value.Map {
	kw := value.MapOf("python_shell", true)
	if sh, ok := c.Grains().Get("shell"); ok {
		kw.Set("shell", sh)
	}
	out, err := c.Salt("cmd.run_all", []any{cmd + " " + filename}, kw)
	cret, _ := out.(*value.Map)
	if err == nil && cret != nil && value.Equal(mapGet(cret, "retcode"), int64(0)) {
		return nil
	}
	comment := "check_cmd execution failed"
	if cret != nil {
		if s := value.Str(mapGet(cret, "stdout")); value.Truthy(mapGet(cret, "stdout")) {
			comment += "\n" + s
		}
		if s := value.Str(mapGet(cret, "stderr")); value.Truthy(mapGet(cret, "stderr")) {
			comment += "\n" + s
		}
	}
	return value.MapOf("comment", comment, "skip_watch", true, "result", false)
}
