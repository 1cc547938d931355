package modules

// file_meta.go holds the pieces salt/modules/file.py builds file.managed
// from, which users also call directly: get_managed (fetch, verify and
// render a source into a local file), check_file_meta (what would change),
// check_managed and check_managed_changes (both at once), and manage_file
// (apply the change). They go through the other file, cp and config
// functions as Salt's do, and through fileops for the atomic write, the
// minion backup and the template engines that the file states use too.

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	execmod.Register("file.get_managed", fileGetManaged, "Fetch, verify and render the source of a managed file; [cached path, {'hsum', 'hash_type'}, error comment].")
	execmod.Register("file.check_file_meta", fileCheckFileMeta, "The changes file.managed would make to name (diff, user, group, mode, attrs), or {'newfile': name}.")
	execmod.Register("file.check_managed", fileCheckManaged, "Whether a managed file is in the correct state: [True|None|False, comment].")
	execmod.Register("file.check_managed_changes", fileCheckManagedChanges, "The changes file.managed would make to name.")
	execmod.Register("file.manage_file", fileManageFile, "Apply a managed file (from sfn, source or contents) and its permissions; the state return.")
}

// tempfilePrefix is salt.utils.files.TEMPFILE_PREFIX.
const tempfilePrefix = "__salt.tmp."

var (
	validProtos  = map[string]bool{"salt": true, "file": true, "http": true, "https": true, "ftp": true, "swift": true, "s3": true}
	remoteProtos = map[string]bool{"http": true, "https": true, "ftp": true, "swift": true, "s3": true}
)

// urlScheme is urlparse(source).scheme, lowered.
func urlScheme(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme)
}

// cleanTmp is __clean_tmp: remove a rendered or downloaded temp file.
func cleanTmp(ctx *execmod.Context, sfn string) {
	if !strings.HasPrefix(sfn, filepath.Join(os.TempDir(), tempfilePrefix)) {
		return
	}
	if roots, ok := ctx.Opts.Get("file_roots"); ok {
		if m, ok := roots.(*value.Map); ok {
			in := false
			m.Range(func(_, v any) bool {
				if l, ok := v.(*value.List); ok {
					for _, r := range l.Items {
						if strings.HasPrefix(sfn, value.Str(r)) {
							in = true
						}
					}
				}
				return !in
			})
			if in {
				return
			}
		}
	}
	os.Remove(sfn)
}

// mkstempText writes data to a new /tmp/__salt.tmp.* file.
func mkstempText(data []byte) (string, error) {
	f, err := os.CreateTemp("", tempfilePrefix)
	if err != nil {
		return "", fileops.PyOSError(err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing %s failed", f.Name())
	}
	return f.Name(), nil
}

func fileHashOf(ctx *execmod.Context, path, form string) (any, error) {
	return ctx.Call("file.get_hash", []any{path}, value.MapOf("form", form))
}

func optHashType(ctx *execmod.Context) string {
	if v, _ := ctx.Opts.Get("hash_type"); v != nil {
		return value.Str(v)
	}
	return "sha256"
}

// managedArgs are get_managed's parameters, shared with check_managed.
type managedArgs struct {
	name, source, sourceHash, sourceHashName, template, saltenv any
	user, group, mode, attrs                                    any
	context, defaults                                           any
	skipVerify, verifySSL, useEtag                              any
}

// getManaged is file.get_managed; the error is an exception of the call,
// the comment a failure it reports.
func getManaged(ctx *execmod.Context, a managedArgs) (sfn string, sum *value.Map, comment string, err error) {
	sum = value.NewMap(0)
	source := ""
	if a.source != nil {
		source = value.Str(a.source)
	}
	if !value.Truthy(a.source) {
		return "", sum, "", nil
	}
	saltenv := value.Str(a.saltenv)
	scheme := urlScheme(source)
	if !validProtos[scheme] {
		scheme = ""
	}
	parsedPath := source
	if u, perr := url.Parse(source); perr == nil && scheme != "" {
		parsedPath = strings.TrimRight(filepath.Join(u.Host, u.Path), "/")
		if u.Host == "" {
			parsedPath = strings.TrimRight(u.Path, "/")
		}
	}
	localSource := scheme == "" || scheme == "file"
	if localSource {
		sfn = parsedPath
		if !existsPath(sfn) {
			return "", value.NewMap(0), "Local file source " + sfn + " does not exist", nil
		}
	}
	localSum := func(p string) (*value.Map, error) {
		h, err := fileHashOf(ctx, p, "sha256")
		if err != nil {
			return nil, err
		}
		return value.MapOf("hsum", h, "hash_type", "sha256"), nil
	}
	switch {
	case scheme == "salt":
		hs, err := ctx.Call("cp.hash_file", []any{source, saltenv}, nil)
		if err != nil {
			return "", nil, "", err
		}
		m, _ := hs.(*value.Map)
		if m == nil || m.Len() == 0 {
			return "", value.NewMap(0), fmt.Sprintf("Source file %s not found in saltenv '%s'", source, saltenv), nil
		}
		sum = m
	case !value.Truthy(a.sourceHash) && localSource:
		if sum, err = localSum(parsedPath); err != nil {
			return "", nil, "", err
		}
	case !value.Truthy(a.sourceHash) && strings.HasPrefix(source, "/"):
		if sum, err = localSum(source); err != nil {
			return "", nil, "", err
		}
	case !value.Truthy(a.skipVerify):
		if value.Truthy(a.sourceHash) {
			ss, err := ctx.Call("file.get_source_sum", nil, value.MapOf("file_name", a.name, "source", source,
				"source_hash", a.sourceHash, "source_hash_name", a.sourceHashName, "saltenv", saltenv, "verify_ssl", a.verifySSL))
			if err != nil {
				if _, ok := err.(*execmod.CommandExecutionError); ok {
					return "", value.NewMap(0), err.Error(), nil
				}
				return "", nil, "", err
			}
			sum, _ = ss.(*value.Map)
		} else if !value.Truthy(a.useEtag) {
			return "", value.NewMap(0), fmt.Sprintf("Unable to verify upstream hash of source file %s, please set source_hash or set skip_verify to True", redactAuth(source)), nil
		}
	}
	if sum == nil {
		sum = value.NewMap(0)
	}
	if !value.Truthy(a.template) && !remoteProtos[scheme] {
		return sfn, sum, "", nil
	}
	refetch := false
	cached, err := ctx.Call("cp.is_cached", []any{source, saltenv}, nil)
	if err != nil {
		return "", nil, "", err
	}
	if cd := value.Str(cached); value.Truthy(cached) && (value.Truthy(a.sourceHash) || value.Truthy(a.skipVerify) || value.Truthy(a.useEtag)) {
		htype := value.Str(mapValue(sum, "hash_type", "sha256"))
		csum, err := fileHashOf(ctx, cd, htype)
		if err != nil {
			return "", nil, "", err
		}
		switch {
		case value.Truthy(a.skipVerify):
			sfn = cd
			sum = value.MapOf("hsum", csum, "hash_type", htype)
		case value.Truthy(a.useEtag) || !value.Equal(csum, mapValue(sum, "hsum", optHashType(ctx))):
			refetch = true
		default:
			sfn = cd
		}
	}
	if sfn == "" || refetch {
		got, err := ctx.Call("cp.cache_file", []any{source, saltenv}, value.MapOf("source_hash", mapValue(sum, "hsum", nil),
			"verify_ssl", a.verifySSL, "use_etag", a.useEtag))
		if err != nil {
			return "", value.NewMap(0), fmt.Sprintf("Failed to cache %s: %s", redactAuth(source), err.Error()), nil
		}
		sfn = ""
		if value.Truthy(got) {
			sfn = value.Str(got)
		}
	}
	if sfn == "" || !existsPath(sfn) {
		return sfn, value.NewMap(0), fmt.Sprintf("Source file '%s' not found", redactAuth(source)), nil
	}
	if sfn == value.Str(a.name) {
		return "", nil, "", &execmod.InvocationError{Msg: "Source file cannot be the same as destination"}
	}
	if value.Truthy(a.template) {
		vars := value.NewMap(8)
		if d, ok := a.defaults.(*value.Map); ok {
			vars.Update(d)
		}
		if c, ok := a.context.(*value.Map); ok {
			vars.Update(c)
		}
		tctx := value.MapOf("name", a.name, "source", source, "user", a.user, "group", a.group, "mode", a.mode,
			"attrs", a.attrs, "saltenv", saltenv)
		tctx.Update(vars)
		text, rerr := os.ReadFile(sfn)
		if rerr != nil {
			return "", nil, "", fileops.PyOSError(rerr)
		}
		out, rerr := fileops.RenderTemplate(ctx, saltenv, value.Str(a.template), string(text), tctx, source)
		if rerr != nil {
			return sfn, value.NewMap(0), rerr.Error(), nil
		}
		tmp, err := mkstempText([]byte(out))
		if err != nil {
			return "", nil, "", err
		}
		h, err := fileHashOf(ctx, tmp, "sha256")
		if err != nil {
			return "", nil, "", err
		}
		return tmp, value.MapOf("hash_type", "sha256", "hsum", h), "", nil
	}
	return sfn, sum, "", nil
}

var getManagedParams = []execmod.Param{execmod.Req("name"), execmod.Req("template"), execmod.Req("source"),
	execmod.Req("source_hash"), execmod.Req("source_hash_name"), execmod.Req("user"), execmod.Req("group"),
	execmod.Req("mode"), execmod.Req("attrs"), execmod.Req("saltenv"), execmod.Req("context"), execmod.Req("defaults"),
	execmod.Opt("skip_verify", false), execmod.Opt("verify_ssl", true), execmod.Opt("use_etag", false)}

func fileGetManaged(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_managed", args, kwargs, getManagedParams...)
	if err != nil {
		return nil, err
	}
	sfn, sum, comment, err := getManaged(ctx, managedArgs{name: v[0], template: v[1], source: v[2], sourceHash: v[3],
		sourceHashName: v[4], user: v[5], group: v[6], mode: v[7], attrs: v[8], saltenv: v[9], context: v[10],
		defaults: v[11], skipVerify: v[12], verifySSL: v[13], useEtag: v[14]})
	if err != nil {
		return nil, err
	}
	return value.Tuple{sfn, sum, comment}, nil
}

// checkFileMeta is file.check_file_meta.
func checkFileMeta(ctx *execmod.Context, name, sfn string, source any, sum *value.Map, user, group, mode, attrs, saltenv, contents, verifySSL any, follow bool) (*value.Map, error) {
	changes := value.NewMap(0)
	if sum == nil {
		sum = value.NewMap(0)
	}
	st, err := ctx.Call("file.stats", []any{name}, value.MapOf("hash_type", mapValue(sum, "hash_type", nil), "follow_symlinks", follow))
	lstats, _ := st.(*value.Map)
	if err != nil || lstats == nil || lstats.Len() == 0 {
		changes.Set("newfile", name)
		return changes, nil
	}
	if hsum, ok := sum.Get("hsum"); ok && !value.Equal(hsum, mapValue(lstats, "sum", nil)) {
		if sfn == "" && value.Truthy(source) {
			got, err := ctx.Call("cp.cache_file", []any{source, saltenv}, value.MapOf("source_hash", hsum, "verify_ssl", verifySSL))
			if err != nil {
				return nil, err
			}
			if value.Truthy(got) {
				sfn = value.Str(got)
			}
		}
		if sfn != "" {
			d, err := ctx.Call("file.get_diff", []any{name, sfn}, value.MapOf("template", true, "show_filenames", false))
			if err != nil {
				d = err.Error()
			}
			changes.Set("diff", d)
		} else {
			changes.Set("sum", "Checksum differs")
		}
	}
	if contents != nil {
		var data []byte
		if b, ok := contents.([]byte); ok {
			data = b
		} else {
			data = []byte(value.Str(contents))
		}
		tmp, err := mkstempText(data)
		if err != nil {
			return nil, err
		}
		d, derr := ctx.Call("file.get_diff", []any{name, tmp}, value.MapOf("show_filenames", false))
		if derr != nil {
			d = derr.Error()
		}
		cleanTmp(ctx, tmp)
		if value.Truthy(d) {
			if obf, _ := ctx.Call("config.option", []any{"obfuscate_templates"}, nil); value.Truthy(obf) {
				d = "<Obfuscated Template>"
			}
			changes.Set("diff", d)
		}
	}
	if user != nil && !value.Equal(user, mapValue(lstats, "user", nil)) && !value.Equal(user, mapValue(lstats, "uid", nil)) {
		changes.Set("user", user)
	}
	if group != nil && !value.Equal(group, mapValue(lstats, "group", nil)) && !value.Equal(group, mapValue(lstats, "gid", nil)) {
		changes.Set("group", group)
	}
	smode := fileops.NormalizeMode(mapValue(lstats, "mode", nil))
	if m := fileops.NormalizeMode(mode); m != nil && !value.Equal(m, smode) {
		changes.Set("mode", m)
	}
	if value.Truthy(attrs) {
		add, rm, err := cmpAttrs(ctx, name, value.Str(attrs))
		if err != nil {
			return nil, err
		}
		if add != "" || rm != "" {
			changes.Set("attrs", attrs)
		}
	}
	return changes, nil
}

func fileCheckFileMeta(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_file_meta", args, kwargs, execmod.Req("name"), execmod.Req("sfn"), execmod.Req("source"),
		execmod.Req("source_sum"), execmod.Req("user"), execmod.Req("group"), execmod.Req("mode"), execmod.Req("attrs"),
		execmod.Req("saltenv"), execmod.Opt("contents", nil), execmod.Opt("seuser", nil), execmod.Opt("serole", nil),
		execmod.Opt("setype", nil), execmod.Opt("serange", nil), execmod.Opt("verify_ssl", true), execmod.Opt("follow_symlinks", false))
	if err != nil {
		return nil, err
	}
	if selinuxRequested(v[10:14]) {
		return nil, execmod.Errorf("SELinux contexts are not supported by brine's file.check_file_meta")
	}
	sum, _ := v[3].(*value.Map)
	sfn := ""
	if value.Truthy(v[1]) {
		sfn = value.Str(v[1])
	}
	return checkFileMeta(ctx, expandUser(value.Str(v[0])), sfn, v[2], sum, v[4], v[5], v[6], v[7], v[8], v[9], v[14], value.Truthy(v[15]))
}

func selinuxRequested(vals []any) bool {
	for _, x := range vals {
		if value.Truthy(x) {
			return true
		}
	}
	return false
}

var checkManagedParams = []execmod.Param{execmod.Req("name"), execmod.Req("source"), execmod.Req("source_hash"),
	execmod.Req("source_hash_name"), execmod.Req("user"), execmod.Req("group"), execmod.Req("mode"), execmod.Req("attrs"),
	execmod.Req("template"), execmod.Req("context"), execmod.Req("defaults"), execmod.Req("saltenv"),
	execmod.Opt("contents", nil), execmod.Opt("skip_verify", false)}

// checkManagedChanges is the shared body of check_managed and
// check_managed_changes: the changes, or a failure comment.
func checkManagedChanges(ctx *execmod.Context, v []any, keepMode, verifySSL any, follow bool) (*value.Map, string, error) {
	name := value.Str(v[0])
	src, srcHash, err := fileops.SourceList(ctx, value.Str(v[11]), v[1], v[2])
	if err != nil {
		return nil, "", err
	}
	mode := v[6]
	sfn := ""
	var sum *value.Map
	if v[12] == nil {
		var comment string
		sfn, sum, comment, err = getManaged(ctx, managedArgs{name: v[0], template: v[8], source: src, sourceHash: srcHash,
			sourceHashName: v[3], user: v[4], group: v[5], mode: v[6], attrs: v[7], saltenv: v[11], context: v[9],
			defaults: v[10], skipVerify: v[13], verifySSL: verifySSL})
		if err != nil {
			return nil, "", err
		}
		if h, ok := sum.GetString("hsum"); ok {
			sum.Set("hsum", strings.ToLower(value.Str(h)))
		}
		if comment != "" {
			cleanTmp(ctx, sfn)
			return nil, comment, nil
		}
		if s := value.Str(src); sfn != "" && value.Truthy(src) && value.Truthy(keepMode) {
			if sc := urlScheme(s); sc == "salt" || sc == "file" || strings.HasPrefix(s, "/") {
				if m, err := ctx.Call("cp.stat_file", []any{s}, value.MapOf("saltenv", v[11], "octal", true)); err == nil {
					mode = m
				}
			}
		}
	}
	changes, err := checkFileMeta(ctx, name, sfn, src, sum, v[4], v[5], mode, v[7], v[11], v[12], verifySSL, follow)
	cleanTmp(ctx, sfn)
	return changes, "", err
}

func fileCheckManaged(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_managed", args, kwargs, append(append([]execmod.Param(nil), checkManagedParams...),
		execmod.Opt("seuser", nil), execmod.Opt("serole", nil), execmod.Opt("setype", nil), execmod.Opt("serange", nil),
		execmod.Opt("follow_symlinks", false))...)
	if err != nil {
		return nil, err
	}
	if selinuxRequested(v[14:18]) {
		return nil, execmod.Errorf("SELinux contexts are not supported by brine's file.check_managed")
	}
	changes, comment, err := checkManagedChanges(ctx, v, false, true, value.Truthy(v[18]))
	if err != nil {
		return nil, err
	}
	if comment != "" {
		return value.Tuple{false, comment}, nil
	}
	name := value.Str(v[0])
	if strings.HasPrefix(name, os.TempDir()) {
		for _, k := range []string{"user", "group", "mode"} {
			changes.Delete(k)
		}
	}
	if changes.Len() > 0 {
		var b strings.Builder
		b.WriteString("The following values are set to be changed:\n")
		changes.Range(func(k, x any) bool {
			fmt.Fprintf(&b, "%s: %s\n", value.Str(k), value.Str(x))
			return true
		})
		return value.Tuple{nil, b.String()}, nil
	}
	return value.Tuple{true, "The file " + name + " is in the correct state"}, nil
}

func fileCheckManagedChanges(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_managed_changes", args, kwargs, append(append([]execmod.Param(nil), checkManagedParams...),
		execmod.Opt("keep_mode", false), execmod.Opt("seuser", nil), execmod.Opt("serole", nil), execmod.Opt("setype", nil),
		execmod.Opt("serange", nil), execmod.Opt("verify_ssl", true), execmod.Opt("follow_symlinks", false))...)
	if err != nil {
		return nil, err
	}
	if selinuxRequested(v[15:19]) {
		return nil, execmod.Errorf("SELinux contexts are not supported by brine's file.check_managed_changes")
	}
	changes, comment, err := checkManagedChanges(ctx, v, v[14], v[19], value.Truthy(v[20]))
	if err != nil {
		return nil, err
	}
	if comment != "" {
		return value.Tuple{false, comment}, nil
	}
	return changes, nil
}

// saltCopyfile is salt.utils.files.copyfile: an atomic replacement of dst
// by src that keeps dst's owner and mode, after a minion backup when the
// backup mode asks for one.
func saltCopyfile(ctx *execmod.Context, src, dst string, backup any) error {
	if fi, err := os.Stat(src); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("[Errno 2] No such file or directory: %s", src)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fileops.PyOSError(err)
	}
	mode, err := ctx.Call("config.backup_mode", []any{backup}, nil)
	if err != nil {
		return err
	}
	if m := value.Str(mode); m == "minion" || m == "both" {
		cachedir, _ := ctx.Opts.Get("cachedir")
		if err := fileops.BackupMinion(dst, value.Str(cachedir)); err != nil {
			return err
		}
	}
	return fileops.WriteAtomic(dst, data, true)
}

// managedErr is _error: result False with the comment.
func managedErr(ret *value.Map, msg string) (any, error) {
	ret.Set("result", false)
	ret.Set("comment", msg)
	return ret, nil
}

func fileManageFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("manage_file", args, kwargs, execmod.Req("name"), execmod.Req("sfn"), execmod.Req("ret"),
		execmod.Req("source"), execmod.Req("source_sum"), execmod.Req("user"), execmod.Req("group"), execmod.Req("mode"),
		execmod.Req("attrs"), execmod.Req("saltenv"), execmod.Req("backup"), execmod.Opt("makedirs", false),
		execmod.Opt("template", nil), execmod.Opt("show_changes", true), execmod.Opt("contents", nil),
		execmod.Opt("dir_mode", nil), execmod.Opt("follow_symlinks", true), execmod.Opt("skip_verify", false),
		execmod.Opt("keep_mode", false), execmod.Opt("encoding", nil), execmod.Opt("encoding_errors", "strict"),
		execmod.Opt("seuser", nil), execmod.Opt("serole", nil), execmod.Opt("setype", nil), execmod.Opt("serange", nil),
		execmod.Opt("verify_ssl", true), execmod.Opt("use_etag", false))
	if err != nil {
		return nil, err
	}
	if selinuxRequested(v[21:25]) {
		return nil, execmod.Errorf("SELinux contexts are not supported by brine's file.manage_file")
	}
	name := expandUser(value.Str(v[0]))
	sfn := ""
	if value.Truthy(v[1]) {
		sfn = value.Str(v[1])
	}
	source := ""
	if value.Truthy(v[3]) {
		source = value.Str(v[3])
	}
	saltenv, backup, user, group, mode, attrs := v[9], v[10], v[5], v[6], v[7], v[8]
	follow, contents, verifySSL, useEtag := value.Truthy(v[16]), v[14], v[25], v[26]
	checkWebHash := source != "" && urlScheme(source) != "salt" && !value.Truthy(v[17]) && !value.Truthy(useEtag)
	ret, _ := v[2].(*value.Map)
	if ret == nil || ret.Len() == 0 {
		ret = value.MapOf("name", name, "changes", value.NewMap(0), "comment", "", "result", true)
	}
	changes, _ := mapValue(ret, "changes", nil).(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
		ret.Set("changes", changes)
	}
	sum, _ := v[4].(*value.Map)
	if sum == nil {
		sum = value.NewMap(0)
	}
	if h, ok := sum.GetString("hsum"); ok {
		sum.Set("hsum", strings.ToLower(value.Str(h)))
	}
	cache := func(kw ...any) (string, error) {
		got, err := ctx.Call("cp.cache_file", []any{source, saltenv}, value.MapOf(append([]any{"verify_ssl", verifySSL}, kw...)...))
		if err != nil || !value.Truthy(got) {
			return "", err
		}
		return value.Str(got), nil
	}
	if source != "" {
		if sfn == "" {
			if sfn, err = cache(); err != nil {
				return nil, err
			}
			if sfn == "" {
				return managedErr(ret, fmt.Sprintf("Source file '%s' not found", source))
			}
			htype := value.Str(mapValue(sum, "hash_type", optHashType(ctx)))
			h, err := fileHashOf(ctx, sfn, htype)
			if err != nil {
				return nil, err
			}
			sum = value.MapOf("hash_type", htype, "hsum", h)
		}
		if value.Truthy(v[18]) {
			if sc := urlScheme(source); sc == "salt" || sc == "file" || sc == "" {
				if m, err := ctx.Call("cp.stat_file", []any{source}, value.MapOf("saltenv", saltenv, "octal", true)); err == nil {
					mode = m
				}
			}
		}
	}
	webHashMismatch := func(target string, hint bool) (bool, error) {
		if !checkWebHash {
			return false, nil
		}
		dl, err := fileHashOf(ctx, sfn, value.Str(mapValue(sum, "hash_type", nil)))
		if err != nil {
			return false, err
		}
		if value.Equal(dl, mapValue(sum, "hsum", nil)) {
			return false, nil
		}
		msg := fmt.Sprintf("Specified %s checksum for %s (%s) does not match actual checksum (%s)",
			value.Str(mapValue(sum, "hash_type", nil)), target, value.Str(mapValue(sum, "hsum", nil)), value.Str(dl))
		if hint {
			msg += ". If the 'source_hash' value refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'."
		}
		ret.Set("comment", msg)
		ret.Set("result", false)
		return true, nil
	}
	// fetch caches the source unless sfn is set and checks the web hash;
	// done is true when ret holds the failure.
	fetch := func(target string, hint bool, kw ...any) (done bool, err error) {
		if sfn == "" {
			if sfn, err = cache(kw...); err != nil {
				return true, err
			}
		}
		if sfn == "" {
			managedErr(ret, fmt.Sprintf("Source file '%s' not found", source))
			return true, nil
		}
		return webHashMismatch(target, hint)
	}
	writeContents := func() (string, error) {
		var data []byte
		if b, ok := contents.([]byte); ok {
			data = b
		} else {
			data = []byte(value.Str(contents))
		}
		return mkstempText(data)
	}
	if fi, err := os.Lstat(name); err == nil && (fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0 || isFilePath(name)) {
		isLink := fi.Mode()&os.ModeSymlink != 0
		real := name
		if isLink && follow {
			if r, err := filepath.EvalSymlinks(name); err == nil {
				real = r
			}
		}
		var nameSum any
		if source != "" && !(!follow && isLinkPath(real)) {
			if nameSum, err = fileHashOf(ctx, real, value.Str(mapValue(sum, "hash_type", optHashType(ctx)))); err != nil {
				nameSum = nil
			}
		}
		if source != "" && (nameSum == nil || !value.Equal(mapValue(sum, "hsum", optHashType(ctx)), nameSum)) {
			if done, err := fetch(source, true, "use_etag", useEtag); done || err != nil {
				return ret, err
			}
			if obf, _ := ctx.Call("config.option", []any{"obfuscate_templates"}, nil); value.Truthy(obf) {
				changes.Set("diff", "<Obfuscated Template>")
			} else if !value.Truthy(v[13]) {
				changes.Set("diff", "<show_changes=False>")
			} else {
				d, err := ctx.Call("file.get_diff", []any{real, sfn}, value.MapOf("show_filenames", false))
				if err != nil {
					changes.Set("diff", err.Error())
				} else if value.Truthy(d) {
					changes.Set("diff", d)
				}
			}
			if err := saltCopyfile(ctx, sfn, real, backup); err != nil {
				cleanTmp(ctx, sfn)
				return managedErr(ret, "Failed to commit change: "+err.Error())
			}
		}
		if contents != nil {
			tmp, err := writeContents()
			if err != nil {
				return nil, err
			}
			d, derr := ctx.Call("file.get_diff", []any{real, tmp}, value.MapOf("show_filenames", false,
				"show_changes", v[13], "template", true))
			if derr != nil {
				w, _ := mapValue(ret, "warnings", nil).(*value.List)
				if w == nil {
					w = value.NewList()
					ret.Set("warnings", w)
				}
				w.Append("Failed to detect changes to file: " + derr.Error())
				d = ""
			}
			if value.Truthy(d) {
				changes.Set("diff", d)
				if err := saltCopyfile(ctx, tmp, real, backup); err != nil {
					cleanTmp(ctx, tmp)
					return managedErr(ret, "Failed to commit change: "+err.Error())
				}
			}
			cleanTmp(ctx, tmp)
		}
		if isLinkPath(name) && !follow {
			if done, err := fetch(name, false); done || err != nil {
				return ret, err
			}
			os.Remove(name)
			if err := saltCopyfile(ctx, sfn, name, backup); err != nil {
				cleanTmp(ctx, sfn)
				return managedErr(ret, "Failed to commit change: "+err.Error())
			}
			changes.Set("diff", "Replace symbolic link with regular file")
		}
		if err := managedPerms(ctx, name, ret, user, group, mode, attrs, follow); err != nil {
			return nil, err
		}
		changes, _ = mapValue(ret, "changes", nil).(*value.Map)
		if changes != nil && changes.Len() > 0 {
			ret.Set("comment", "File "+name+" updated")
		} else if value.Truthy(mapValue(ret, "result", nil)) {
			ret.Set("comment", "File "+name+" is in the correct state")
		}
		if sfn != "" {
			cleanTmp(ctx, sfn)
		}
		return ret, nil
	}
	// The file does not exist yet.
	dir := filepath.Dir(name)
	makeDirs := func() error {
		dirMode := v[15]
		if dirMode == nil && mode != nil {
			s := value.Str(mode)
			if len(s) > 3 {
				s = s[len(s)-3:]
			}
			b := []byte(s)
			for i, ch := range b {
				if ch != '0' && ch >= '0' && ch <= '9' {
					b[i] = '0' + ((ch - '0') | 1)
				}
			}
			dirMode = string(b)
		}
		_, err := ctx.Call("file.makedirs", []any{name}, value.MapOf("user", user, "group", group, "mode", dirMode))
		return err
	}
	parentMissing := func() (any, error) {
		cleanTmp(ctx, sfn)
		changes.Delete("diff")
		return managedErr(ret, "Parent directory not present")
	}
	test := testMode(ctx)
	if source != "" {
		if done, err := fetch(name, false); done || err != nil {
			return ret, err
		}
		changes.Set("diff", "New file")
	}
	if !isDirPath(dir) {
		if !value.Truthy(v[11]) {
			return parentMissing()
		}
		if err := makeDirs(); err != nil {
			return nil, err
		}
	}
	if source == "" {
		if !test {
			perm := os.FileMode(0o666 &^ fileops.Umask())
			if value.Truthy(mode) {
				perm = 0o600
			}
			f, ferr := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, perm)
			if ferr == nil {
				f.Close()
			}
			switch {
			case contents == nil && ferr == nil:
				changes.Set("new", fmt.Sprintf("file %s created", name))
				ret.Set("comment", "Empty file")
			case contents == nil:
				return managedErr(ret, fmt.Sprintf("Empty file %s not created", name))
			case ferr == nil:
				changes.Set("diff", "New file")
			default:
				return managedErr(ret, fmt.Sprintf("File %s not created", name))
			}
		}
	}
	if contents != nil {
		tmp, err := writeContents()
		if err != nil {
			return nil, err
		}
		err = saltCopyfile(ctx, tmp, name, backup)
		cleanTmp(ctx, tmp)
		if err != nil {
			return nil, err
		}
	} else if sfn != "" {
		err := saltCopyfile(ctx, sfn, name, backup)
		cleanTmp(ctx, sfn)
		if err != nil {
			return nil, err
		}
	}
	if mode == nil {
		mode = fmt.Sprintf("0o%o", 0o666&^fileops.Umask())
	}
	if err := managedPerms(ctx, name, ret, user, group, mode, attrs, false); err != nil {
		return nil, err
	}
	if !value.Truthy(mapValue(ret, "comment", nil)) {
		ret.Set("comment", "File "+name+" updated")
	}
	changes, _ = mapValue(ret, "changes", nil).(*value.Map)
	if test {
		ret.Set("comment", "File "+name+" not updated")
	} else if (changes == nil || changes.Len() == 0) && value.Truthy(mapValue(ret, "result", nil)) {
		ret.Set("comment", "File "+name+" is in the correct state")
	}
	return ret, nil
}

func isFilePath(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// managedPerms is manage_file's check_perms call; it updates ret.
func managedPerms(ctx *execmod.Context, name string, ret *value.Map, user, group, mode, attrs any, follow bool) error {
	res, err := ctx.Call("file.check_perms", []any{name, ret, user, group, mode, attrs, follow}, nil)
	if err != nil {
		return err
	}
	if t, ok := res.(value.Tuple); ok && len(t) > 0 {
		if m, ok := t[0].(*value.Map); ok && m != ret {
			m.Range(func(k, x any) bool {
				ret.Set(k, x)
				return true
			})
		}
	}
	return nil
}
