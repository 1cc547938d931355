package modules

// archive.go is salt/modules/archive.py: tar, gzip, gunzip, zip and unzip
// run as commands (cmd_zip, cmd_unzip), zip and unzip done natively (as
// Salt does with Python's zipfile), and listing archives
// (internal/system/archive, shared with archive.extracted). rar and unrar
// are in archive_rar.go.

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/render"
	"brine/internal/system"
	"brine/internal/system/archive"
	"brine/internal/value"
)

func init() {
	execmod.Register("archive.tar", archiveTar, "Run tar with options on tarfile and sources (dest: -C); the output lines.")
	execmod.Register("archive.gzip", archiveGzip, "gzip sourcefile; the output lines.")
	execmod.Register("archive.gunzip", archiveGunzip, "gunzip gzipfile; the output lines.")
	execmod.Register("archive.cmd_zip", archiveCmdZip, "zip -r zip_file sources; the output lines.")
	execmod.Register("archive.cmd_unzip", archiveCmdUnzip, "unzip zip_file into dest (excludes, options, password); the output lines.")
	execmod.Register("archive.zip", archiveZip, "Create zip_file from sources (relative to cwd); the archived names.")
	execmod.Register("archive.unzip", archiveUnzip, "Extract zip_file into dest (excludes, password, extract_perms); the extracted names.")
	execmod.Register("archive.is_encrypted", archiveIsEncrypted, "True when the ZIP archive name is password-protected.")
	execmod.Register("archive.list", archiveList, "List the members of a tar, zip or rar (with the rar command) archive (verbose: dirs, files, links and top-level ones).")
}

// commandNotFound is Salt's CommandNotFoundError, raised by the
// salt.utils.decorators.path.which decorators before the function runs:
// salt-call prints "Command required for 'fun' not found: <msg>".
type commandNotFound struct{ msg string }

func (e *commandNotFound) Error() string { return e.msg }

// SaltExceptionClass names the Salt exception.
func (e *commandNotFound) SaltExceptionClass() string {
	return "salt.exceptions.CommandNotFoundError"
}

// needCmd is the which decorator: an error unless name is in $PATH.
func needCmd(name string) error {
	if _, err := exec.LookPath(name); err != nil {
		return &commandNotFound{msg: "The '" + name + "' binary was not found in $PATH."}
	}
	return nil
}

// expandSources is Salt's _expand_sources: a comma list (or a list), each
// name with a wildcard (*, ? or [) replaced by its matches, possibly none.
func expandSources(v any) []string {
	var out []string
	for _, s := range splitComma(v) {
		if !strings.ContainsAny(s, "*?[") {
			out = append(out, s)
			continue
		}
		m, _ := filepath.Glob(s)
		out = append(out, m...)
	}
	return out
}

// archiveRunLines runs argv through cmd.run and splits the output lines.
func archiveRunLines(ctx *execmod.Context, argv []string, cwd, template, runas any) (any, error) {
	kw := []any{"template", template, "runas", runas}
	if cwd != nil {
		kw = append(kw, "cwd", cwd)
	}
	out, err := runArgv(ctx, "cmd.run", argv, kw...)
	if err != nil {
		return nil, err
	}
	return strList(splitLinesPy(execmod.String(out))), nil
}

func archiveTar(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("tar", args, kwargs, execmod.Req("options"), execmod.Req("tarfile"), execmod.Opt("sources", nil),
		execmod.Opt("dest", nil), execmod.Opt("cwd", nil), execmod.Opt("template", nil), execmod.Opt("runas", nil))
	if err != nil {
		return nil, err
	}
	if err := needCmd("tar"); err != nil {
		return nil, err
	}
	if !value.Truthy(v[0]) {
		return nil, &execmod.InvocationError{Msg: "Tar options can not be empty"}
	}
	argv := append([]string{"tar"}, strings.Fields(value.Str(v[0]))...)
	argv = append(append(argv, value.Str(v[1])), expandSources(v[2])...)
	if value.Truthy(v[3]) {
		argv = append(argv, "-C", value.Str(v[3]))
	}
	return archiveRunLines(ctx, argv, v[4], v[5], v[6])
}

func archiveGz(ctx *execmod.Context, tool, fun, arg string, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req(arg), execmod.Opt("template", nil), execmod.Opt("runas", nil), execmod.Opt("options", nil))
	if err != nil {
		return nil, err
	}
	if err := needCmd(tool); err != nil {
		return nil, err
	}
	argv := []string{tool}
	if value.Truthy(v[3]) {
		argv = append(argv, value.Str(v[3]))
	}
	return archiveRunLines(ctx, append(argv, value.Str(v[0])), nil, v[1], v[2])
}

func archiveGzip(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return archiveGz(ctx, "gzip", "gzip", "sourcefile", args, kwargs)
}

func archiveGunzip(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return archiveGz(ctx, "gunzip", "gunzip", "gzipfile", args, kwargs)
}

func archiveCmdZip(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cmd_zip", args, kwargs, execmod.Req("zip_file"), execmod.Req("sources"), execmod.Opt("template", nil),
		execmod.Opt("cwd", nil), execmod.Opt("runas", nil))
	if err != nil {
		return nil, err
	}
	if err := needCmd("zip"); err != nil {
		return nil, err
	}
	argv := append([]string{"zip", "-r", value.Str(v[0])}, expandSources(v[1])...)
	return archiveRunLines(ctx, argv, v[3], v[2], v[4])
}

// trimFiles is Salt's _trim_files.
func trimFiles(files []string, trim any) []string {
	count := 100
	if n, ok := trim.(int64); ok {
		count = int(n)
	}
	if trim != false && trim != nil && len(files) > count {
		files = append(files[:count:count], "List trimmed after "+value.Str(int64(count))+" files.")
	}
	return files
}

func archiveCmdUnzip(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cmd_unzip", args, kwargs, execmod.Req("zip_file"), execmod.Req("dest"), execmod.Opt("excludes", nil),
		execmod.Opt("options", nil), execmod.Opt("template", nil), execmod.Opt("runas", nil), execmod.Opt("trim_output", false),
		execmod.Opt("password", nil))
	if err != nil {
		return nil, err
	}
	if err := needCmd("unzip"); err != nil {
		return nil, err
	}
	argv := []string{"unzip"}
	if value.Truthy(v[7]) {
		argv = append(argv, "-P", value.Str(v[7]))
	}
	if value.Truthy(v[3]) {
		o, err := system.ShlexSplit(value.Str(v[3]))
		if err != nil {
			return nil, &execmod.InvocationError{Msg: err.Error()}
		}
		argv = append(argv, o...)
	}
	argv = append(argv, value.Str(v[0]), "-d", value.Str(v[1]))
	if v[2] != nil {
		argv = append(append(argv, "-x"), splitComma(v[2])...)
	}
	level := "debug"
	if value.Truthy(v[7]) {
		level = "quiet"
	}
	res, err := runArgv(ctx, "cmd.run_all", argv, "template", v[4], "runas", v[5], "redirect_stderr", true, "output_loglevel", level)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	out := execmod.String(cmdGet(m, "stdout"))
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		return nil, execmod.Errorf("%s", out)
	}
	return strList(trimFiles(splitLinesPy(out), v[6])), nil
}

// renderNames is Salt's _render_filenames: the names rendered with the
// template engine.
func renderNames(ctx *execmod.Context, template any, names ...string) ([]string, error) {
	if !value.Truthy(template) {
		return names, nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		rc := ctx.RenderContext(ctx.SaltenvOr("base"))
		rc.Path = ":string:"
		r, err := render.Render([]byte(n), rc, render.Options{Default: value.Str(template), FromString: true})
		var unknown *render.UnknownRendererError
		if errors.As(err, &unknown) {
			return nil, execmod.Errorf("Attempted to render file paths with unavailable engine %s", value.Str(template))
		}
		if err != nil {
			return nil, execmod.Errorf("Failed to render file path with error: %s", err)
		}
		out[i] = value.Str(r)
	}
	return out, nil
}

func archiveZip(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("zip_", args, kwargs, execmod.Req("zip_file"), execmod.Req("sources"), execmod.Opt("template", nil),
		execmod.Opt("cwd", nil), execmod.Opt("runas", nil), execmod.Opt("zip64", false))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[4]) {
		return nil, execmod.Errorf("runas is not supported by brine's archive.zip: use archive.cmd_zip")
	}
	names, err := renderNames(ctx, v[2], value.Str(v[0]), value.Str(v[1]))
	if err != nil {
		return nil, err
	}
	zipFile, sources := names[0], expandSources(names[1])
	cwd := ""
	if value.Truthy(v[3]) {
		cwd = value.Str(v[3])
		if !filepath.IsAbs(cwd) {
			return nil, &execmod.InvocationError{Msg: "cwd must be absolute"}
		}
	} else {
		for _, s := range sources {
			if !filepath.IsAbs(s) {
				return nil, &execmod.InvocationError{Msg: "Relative paths require the 'cwd' parameter"}
			}
		}
	}
	f, err := os.Create(zipFile)
	if err != nil {
		return nil, execmod.Errorf("Exception encountered creating zipfile: %s", err)
	}
	zw := zip.NewWriter(f)
	archived := []string{}
	add := func(abs, name string, st os.FileInfo) error {
		// Like Python's ZipFile.write, links are followed.
		if fi, err := os.Stat(abs); err == nil {
			st = fi
		}
		h, err := zip.FileInfoHeader(st)
		if err != nil {
			return err
		}
		h.Name = name
		if st.IsDir() {
			h.Name += "/"
			_, err := zw.CreateHeader(h)
			return err
		}
		h.Method = zip.Deflate
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		src, err := os.Open(abs)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	}
	var werr error
	for _, src := range sources {
		if cwd != "" {
			src = filepath.Join(cwd, src)
		}
		st, err := os.Stat(src)
		if err != nil {
			continue
		}
		rel := func(p string) string {
			base := "/"
			if cwd != "" && strings.HasPrefix(p, cwd) {
				base = cwd
			}
			r, _ := filepath.Rel(base, p)
			return r
		}
		if !st.IsDir() {
			archived = append(archived, rel(src))
			werr = errors.Join(werr, add(src, rel(src), st))
			continue
		}
		werr = errors.Join(werr, filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			name := rel(p)
			if fi.IsDir() {
				archived = append(archived, name+"/")
			} else {
				archived = append(archived, name)
			}
			return add(p, name, fi)
		}))
	}
	werr = errors.Join(werr, zw.Close(), f.Close())
	if werr != nil {
		return nil, execmod.Errorf("Exception encountered creating zipfile: %s", werr)
	}
	return strList(archived), nil
}

func archiveUnzip(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("unzip", args, kwargs, execmod.Req("zip_file"), execmod.Req("dest"), execmod.Opt("excludes", nil),
		execmod.Opt("options", nil), execmod.Opt("template", nil), execmod.Opt("runas", nil), execmod.Opt("trim_output", false),
		execmod.Opt("password", nil), execmod.Opt("extract_perms", true))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[5]) {
		return nil, execmod.Errorf("runas is not supported by brine's archive.unzip: use archive.cmd_unzip")
	}
	if value.Truthy(v[7]) {
		return nil, execmod.Errorf("Exception encountered unpacking zipfile: password-protected archives need archive.cmd_unzip")
	}
	names, err := renderNames(ctx, v[4], value.Str(v[0]), value.Str(v[1]))
	if err != nil {
		return nil, err
	}
	excl := map[string]bool{}
	if value.Truthy(v[2]) {
		for _, e := range splitComma(v[2]) {
			excl[e] = true
		}
	}
	fail := func(err error) (any, error) {
		return nil, execmod.Errorf("Exception encountered unpacking zipfile: %s", err)
	}
	zr, err := zip.OpenReader(names[0])
	if err != nil {
		return fail(err)
	}
	defer zr.Close()
	dest := names[1]
	umask := os.FileMode(fileops.Umask())
	var done []string
	for _, f := range zr.File {
		if excl[f.Name] {
			continue
		}
		done = append(done, f.Name)
		rel, ok := archive.SafeRel(f.Name)
		if !ok {
			continue
		}
		p := filepath.Join(dest, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o777&^umask); err != nil {
			return fail(err)
		}
		if f.Mode()&os.ModeSymlink != 0 {
			rc, err := f.Open()
			if err != nil {
				return fail(err)
			}
			target, _ := io.ReadAll(rc)
			rc.Close()
			if err := os.Symlink(string(target), p); err != nil {
				return fail(err)
			}
			continue
		}
		perm := os.FileMode(f.ExternalAttrs>>16) & os.ModePerm
		if strings.HasSuffix(f.Name, "/") {
			if err := os.MkdirAll(p, 0o777&^umask); err != nil {
				return fail(err)
			}
		} else if err := extractZipFile(f, p); err != nil {
			return fail(err)
		}
		if value.Truthy(v[8]) {
			if perm == 0 {
				perm = 0o666 &^ umask
				if strings.HasSuffix(f.Name, "/") {
					perm = 0o777 &^ umask
				}
			}
			os.Chmod(p, perm)
		}
	}
	return strList(trimFiles(done, v[6])), nil
}

func extractZipFile(f *zip.File, p string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rc); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func archiveIsEncrypted(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_encrypted", args, kwargs, execmod.Req("name"), execmod.Opt("clean", false), execmod.Opt("saltenv", "base"),
		execmod.Opt("source_hash", nil), execmod.Opt("use_etag", false))
	if err != nil {
		return nil, err
	}
	name := value.Str(v[0])
	cached, err := ctx.Call("cp.cache_file", []any{name, v[2]}, value.MapOf("source_hash", v[3], "use_etag", v[4]))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(cached) {
		return nil, execmod.Errorf("Failed to cache %s", name)
	}
	path := execmod.String(cached)
	zr, err := zip.OpenReader(path)
	if err != nil {
		// Salt's CommandExecutionError with info={"archive location": ...}
		return nil, execmod.Errorf("%s is not a ZIP file. Additional info follows:\n\narchive location:\n    %s", name, path)
	}
	enc := false
	for _, f := range zr.File {
		if f.Flags&0x1 != 0 {
			enc = true
			break
		}
	}
	zr.Close()
	if value.Truthy(v[1]) && path != name {
		os.Remove(path)
	}
	return enc, nil
}

// listedMembers splits an archive's members as Salt's archive.list does: a
// tar lists its members only; a zip adds the directory holding each file,
// since zips made on Windows have no entries for directories.
func listedMembers(format string, c *archive.Contents) (dirs, files, links []string) {
	seen := map[string]bool{}
	addDir := func(d string) {
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, m := range c.Members {
		switch m.Kind {
		case 'd':
			addDir(m.Name + "/")
		case 'l':
			links = append(links, m.Name)
		default:
			files = append(files, m.Name)
		}
	}
	if format == "zip" {
		for _, f := range files {
			if i := strings.LastIndex(f, "/"); i >= 0 {
				addDir(f[:i+1])
			}
		}
	}
	return dirs, files, links
}

func archiveList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_", args, kwargs, execmod.Req("name"), execmod.Opt("archive_format", nil), execmod.Opt("options", nil),
		execmod.Opt("strip_components", nil), execmod.Opt("clean", false), execmod.Opt("verbose", false), execmod.Opt("saltenv", "base"),
		execmod.Opt("source_hash", nil), execmod.Opt("use_etag", false))
	if err != nil {
		return nil, err
	}
	name := value.Str(v[0])
	cached, err := ctx.Call("cp.cache_file", []any{name, v[6]}, value.MapOf("source_hash", v[7], "use_etag", v[8]))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(cached) {
		return nil, execmod.Errorf("Failed to cache %s", name)
	}
	path := execmod.String(cached)
	ret, err := archiveListCached(ctx, v, name, path)
	var de *decompressError
	if errors.As(err, &de) {
		return nil, archiveInfoError(de.msg, "archive location", path, "error", de.stderr)
	}
	var ce *execmod.CommandExecutionError
	if errors.As(err, &ce) {
		// Salt re-raises with the cached archive's path as info.
		return nil, archiveInfoError(ce.Msg, "archive location", path)
	}
	return ret, err
}

// archiveInfoError is CommandExecutionError(msg, info) for an info of
// (key, text) pairs, printed as the nested outputter prints strings; a
// msg that has info already gets the pairs added to it.
func archiveInfoError(msg string, kv ...string) error {
	var lines []string
	for j := 0; j+1 < len(kv); j += 2 {
		lines = append(lines, kv[j]+":\n    "+strings.ReplaceAll(kv[j+1], "\n", "\n    "))
	}
	info := strings.Join(lines, "\n")
	if strings.Contains(msg, " Additional info follows:\n\n") {
		return execmod.Errorf("%s\n%s", msg, info)
	}
	if msg != "" && !strings.ContainsAny(msg[len(msg)-1:], ".?!") {
		msg += "."
	}
	return execmod.Errorf("%s Additional info follows:\n\n%s", msg, info)
}

// archiveListCached is the part of Salt's list_ whose errors carry the
// cached archive's path.
func archiveListCached(ctx *execmod.Context, v []any, name, path string) (any, error) {
	strip := 0
	if value.Truthy(v[3]) {
		n, ok := v[3].(int64)
		if !ok || n <= 0 {
			return nil, execmod.Errorf("'strip_components' must be a positive integer")
		}
		strip = int(n)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, execmod.Errorf("Failed to list contents of %s: %s", name, fileops.PyOSError(err))
	}
	format := strings.ToLower(execmod.String(v[1]))
	if format == "" {
		format = archive.DetectFormat(name, data)
		if format == "" {
			return nil, execmod.Errorf("Unable to guess archive format, please pass an 'archive_format' argument.")
		}
	}
	var contents *archive.Contents
	switch format {
	case "tar":
		if contents, err = archive.Read(format, data); err != nil {
			if contents, err = listTarWith(name, path, v[2]); err != nil {
				return nil, err
			}
		}
	case "zip":
		if contents, err = archive.Read(format, data); err != nil {
			return nil, execmod.Errorf("%s is not a ZIP file", name)
		}
	case "rar":
		if contents, err = listRar(ctx, name); err != nil {
			return nil, err
		}
	default:
		return nil, execmod.Errorf("Unsupported archive format '%s'", format)
	}
	if value.Truthy(v[4]) && path != name {
		os.Remove(path)
	}
	stripName := func(p string) (string, bool) {
		if strip == 0 {
			return p, true
		}
		dir := strings.HasSuffix(p, "/")
		parts := strings.Split(strings.TrimSuffix(p, "/"), "/")
		if len(parts) <= strip {
			return "", false
		}
		out := strings.Join(parts[strip:], "/")
		if dir {
			out += "/"
		}
		return out, true
	}
	strs := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			if s, ok := stripName(x); ok {
				out = append(out, s)
			}
		}
		sort.Strings(out)
		return out
	}
	rawDirs, rawFiles, rawLinks := listedMembers(format, contents)
	dirs, files, links := strs(rawDirs), strs(rawFiles), strs(rawLinks)
	if !value.Truthy(v[5]) {
		all := append(append(append([]string(nil), dirs...), files...), links...)
		sort.Strings(all)
		return strList(all), nil
	}
	top := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			if !strings.Contains(strings.TrimSuffix(x, "/"), "/") {
				out = append(out, x)
			}
		}
		return out
	}
	// a top directory need not be a member: the first part of the
	// directories' common prefix counts too
	topDirs := top(dirs)
	if p := commonPrefix(dirs); strings.Contains(p, "/") {
		p = p[:strings.Index(p, "/")+1]
		if !slices.Contains(topDirs, p) {
			topDirs = append(topDirs, p)
		}
	}
	return value.MapOf("dirs", strList(dirs), "files", strList(files), "links", strList(links),
		"top_level_dirs", strList(topDirs), "top_level_files", strList(top(files)), "top_level_links", strList(top(links))), nil
}

// decompressError is the CommandExecutionError of a failed decompress
// command, its stderr as the info.
type decompressError struct{ msg, stderr string }

func (e *decompressError) Error() string { return e.msg }

// listTarWith is the fallback of Salt's _list_tar for a tar archive it
// cannot read itself: with options, the command they give decompresses
// the archive (its path appended) for the listing.
func listTarWith(name, path string, options any) (*archive.Contents, error) {
	unable := execmod.Errorf("Unable to list contents of %s. If this is an XZ-compressed tar archive, install XZ Utils to "+
		"enable listing its contents. If it is compressed using something other than XZ, it may be necessary to specify "+
		"CLI options to decompress the archive. See the documentation for details.", name)
	opts, ok := options.(string)
	if !ok || opts == "" {
		return nil, unable
	}
	if _, err := exec.LookPath("tar"); err != nil {
		return nil, execmod.Errorf("'tar' command not available")
	}
	argv, err := system.ShlexSplit(opts)
	if err != nil || len(argv) == 0 {
		return nil, execmod.Errorf("Invalid CLI options")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	if c, err := archive.Read("tar", out); err == nil && runErr == nil {
		return c, nil
	}
	if runErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(runErr, &exitErr) {
			return nil, execmod.Errorf("Failed to list contents of %s: %s", name, fileops.PyOSError(runErr))
		}
		return nil, &decompressError{msg: "Failed to decompress " + name, stderr: strings.TrimRight(stderr.String(), " \t\n")}
	}
	return nil, unable
}

// commonPrefix is the longest string every one of xs starts with ("" for
// none), compared byte by byte as Python's os.path.commonprefix.
func commonPrefix(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	p := xs[0]
	for _, x := range xs[1:] {
		n := 0
		for n < len(p) && n < len(x) && p[n] == x[n] {
			n++
		}
		p = p[:n]
	}
	return p
}
