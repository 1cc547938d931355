package states

// archive_options.go is the part of salt/states/archive.py that hands
// extraction to the tar and unzip commands (the options argument), with
// strip_components, trim_output and the archive_hash checksum files of
// source_hash_update.

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system"
	"brine/internal/system/archive"
	"brine/internal/value"
)

// tarStripRe finds the number of --strip-components in tar options.
var tarStripRe = regexp.MustCompile(`--strip(?:-components)?(?:\s+|=)["']?(\d+)["']?`)

// tarStripComponents is the strip_components the state lists a tar archive
// with: the number given to --strip(-components) in options, else 0.
func tarStripComponents(options string) int {
	m := tarStripRe.FindStringSubmatch(options)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

// stripContents is archive.list(strip_components=n, verbose=True): n
// leading components off every path (paths left empty dropped), sorted,
// with the top-level entries recomputed.
func stripContents(ac *archive.Contents, n int) *archive.Contents {
	strip := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			parts := strings.SplitN(x, "/", n+1)
			if len(parts) <= n || parts[n] == "" {
				continue
			}
			out = append(out, parts[n])
		}
		sort.Strings(out)
		return out
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
	out := &archive.Contents{Members: ac.Members, Dirs: strip(ac.Dirs), Files: strip(ac.Files), Links: strip(ac.Links)}
	out.TopDirs = top(out.Dirs)
	if len(out.Dirs) > 0 {
		p := out.Dirs[0]
		for _, d := range out.Dirs[1:] {
			i := 0
			for i < len(p) && i < len(d) && p[i] == d[i] {
				i++
			}
			p = p[:i]
		}
		if i := strings.Index(p, "/"); i >= 0 && !contains(out.TopDirs, p[:i+1]) {
			out.TopDirs = append(out.TopDirs, p[:i+1])
		}
	}
	out.TopFiles, out.TopLinks = top(out.Files), top(out.Links)
	return out
}

// trimOutputArg is the state's trim_output: True is 100, a string an
// integer (a non-numeric one is Python's ValueError).
func trimOutputArg(v any) (any, error) {
	switch t := v.(type) {
	case bool:
		if t {
			return int64(100), nil
		}
	case float64:
		return int64(t), nil
	case string:
		if t == "" {
			return t, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("ValueError: invalid literal for int() with base 10: %s", value.Repr(t))
		}
		return n, nil
	}
	return v, nil
}

// trimFiles keeps the first trim names (files[:trim] in Python) when trim
// is a non-zero integer.
func trimFiles(files []string, trim any) []string {
	n, ok := trim.(int64)
	if !ok || n == 0 {
		return files
	}
	if n < 0 {
		n += int64(len(files))
		if n < 0 {
			n = 0
		}
	}
	if int(n) < len(files) {
		return files[:n]
	}
	return files
}

// tarArgv is the tar command line the state runs for options: "xv" and
// the first option when it is not one (its x and f removed), the other
// options after it, verbose options dropped, then -f cached.
func tarArgv(options, cached string) ([]string, error) {
	words, err := system.ShlexSplit(options)
	if err != nil {
		return nil, fmt.Errorf("ValueError: %v", err)
	}
	var opts []string
	for _, w := range words {
		if w != "v" && w != "-v" && w != "--verbose" {
			opts = append(opts, w)
		}
	}
	short := "xv"
	var long []string
	for i, o := range opts {
		if strings.HasPrefix(o, "-") || i > 0 {
			long = append(long, o)
		} else {
			short += strings.ReplaceAll(strings.ReplaceAll(o, "x", ""), "f", "")
		}
	}
	argv := append([]string{"tar", short}, long...)
	return append(argv, "-f", cached), nil
}

// extractWithTar runs tar with the options in dest, as the state does
// when options are given; a failed run is the state's return (result
// False, the run_all return as changes).
func extractWithTar(c *statemod.Call, ret *value.Map, options, cached, dest string, trim any) ([]string, bool, error) {
	argv, err := tarArgv(options, cached)
	if err != nil {
		return nil, false, err
	}
	res, err := c.Salt("cmd.run_all", []any{strsValue(argv)}, value.MapOf("cwd", dest, "python_shell", false))
	if err != nil {
		return nil, false, err
	}
	m, _ := res.(*value.Map)
	if !value.Equal(getv(m, "retcode"), int64(0)) {
		ret.Set("result", false)
		ret.Set("changes", m)
		return nil, false, nil
	}
	out := "stdout"
	if v, err := c.Salt("cmd.run", []any{value.NewList("tar", "--version")}, value.MapOf("python_shell", false)); err == nil && strings.Contains(value.Str(v), "bsdtar") {
		out = "stderr"
	}
	var files []string
	if s := value.Str(getv(m, out)); s != "" {
		files = strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	}
	return trimFiles(files, trim), true, nil
}

// archiveHashFile is the state's _checksum_file_path: the file under
// cachedir/archive_hash holding the hash of the archive at path when the
// state last saw it (local/<path> for an archive outside the cache).
func archiveHashFile(cachedir, path string) string {
	rel, err := filepath.Rel(cachedir, path)
	if err == nil {
		rel += ".hash"
	}
	if err != nil || (len(rel) > 2 && rel[2] == '/') {
		rel = filepath.Join("local", strings.TrimLeft(path, "/"))
	}
	return filepath.Join(cachedir, "archive_hash", rel)
}

// fileHash is the hex digest of the file at path.
func fileHash(path, form string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	if _, ok := newHash(form); !ok {
		return "", false
	}
	return hashOf(form, data), true
}

// readArchiveHash is _read_cached_checksum: the hash of type form in the
// checksum file ("" when there is none).
func readArchiveHash(file, form string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		typ, sum, ok := strings.Cut(line, ":")
		if !ok {
			return ""
		}
		if typ == form {
			return sum
		}
	}
	return ""
}

// updateArchiveHash is _update_checksum: the checksum file gets the
// archive's current hash of type form, other types' lines kept.
func updateArchiveHash(file, archivePath, form string) {
	sum, ok := fileHash(archivePath, form)
	if !ok {
		return
	}
	if os.MkdirAll(filepath.Dir(file), 0o755) != nil {
		return
	}
	var lines []string
	found := false
	if data, err := os.ReadFile(file); err == nil {
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			typ, _, _ := strings.Cut(line, ":")
			if typ == form {
				line, found = form+":"+sum, true
			}
			lines = append(lines, line)
		}
	}
	if !found {
		lines = append(lines, form+":"+sum)
	}
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// archiveOpts is what the state makes of options, use_cmd_unzip and
// trim_output, and the names the tar or unzip command reported.
type archiveOpts struct {
	given    bool   // options is set (None is not)
	options  string // str(options)
	strip    int    // strip_components for listing a tar archive
	cmdUnzip bool   // extract a zip archive with archive.cmd_unzip
	trim     any    // trim_output as the state uses it
	files    any    // the extracted names: a list, or Salt's placeholder string
}

// archiveOptionChecks checks the arguments as the state does before it
// looks at the archive; stop is true when ret is the answer.
func archiveOptionChecks(c *statemod.Call, ret *value.Map, format string) (o archiveOpts, stop bool, err error) {
	if v := c.Get("options"); v != nil {
		o.given, o.options = true, value.Str(v)
	}
	if o.options != "" && format == "tar" {
		o.strip = tarStripComponents(o.options)
	}
	useCmdUnzip := c.Get("use_cmd_unzip")
	password := c.Get("password")
	if format == "zip" {
		if o.options != "" {
			if useCmdUnzip == nil {
				useCmdUnzip = true
			} else if !value.Truthy(useCmdUnzip) {
				ret.Set("comment", "'use_cmd_unzip' cannot be set to False if CLI options are being specified (via the 'options' argument). Either remove 'use_cmd_unzip', or set it to True.")
				return o, true, nil
			}
		}
		if value.Truthy(password) && value.Truthy(useCmdUnzip) {
			appendWarning(ret, "Using a password in combination with setting 'use_cmd_unzip' to True is considered insecure. It is recommended to remove the 'use_cmd_unzip' argument (or set it to False) and allow Salt to extract the archive using Python's built-in ZIP file support.")
		}
		o.cmdUnzip = value.Truthy(useCmdUnzip)
	} else if value.Truthy(password) {
		ret.Set("comment", "The 'password' argument is only supported for zip archives")
		return o, true, nil
	}
	if o.options != "" && format != "tar" && format != "zip" {
		ret.Set("comment", "The 'options' argument is only compatible with the following archive formats: tar, zip")
		return o, true, nil
	}
	o.trim = c.Get("trim_output")
	if value.Truthy(o.trim) {
		if o.trim, err = trimOutputArg(o.trim); err != nil {
			return o, true, err
		}
	}
	if c.Bool("source_hash_update") && !c.Has("source_hash") {
		appendWarning(ret, "The 'source_hash_update' argument is ignored when 'source_hash' is not also specified.")
	}
	return o, false, nil
}

func appendWarning(ret *value.Map, w string) {
	l, _ := getv(ret, "warnings").(*value.List)
	if l == nil {
		l = value.NewList()
		ret.Set("warnings", l)
	}
	l.Append(w)
}

// archiveLocalPath is the real path of a local source ("" for others).
func archiveLocalPath(source string) string {
	p := strings.TrimPrefix(source, "file://")
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func archiveCacheDir(c *statemod.Call) string {
	if dir := value.Str(c.Opt("cachedir")); dir != "" && dir != "None" {
		return dir
	}
	return ""
}

// archiveCachePath is where a remote source is cached, as cp.cache_file
// keeps it: cachedir/extrn_files/<saltenv>/<host>/<path> ("" without a
// cachedir).
func archiveCachePath(c *statemod.Call, source string) string {
	dir := archiveCacheDir(c)
	if dir == "" {
		return ""
	}
	rest := source[strings.Index(source, "://")+3:]
	rest = strings.SplitN(rest, "?", 2)[0]
	env := c.Saltenv
	if env == "" {
		env = "base"
	}
	return filepath.Join(dir, "extrn_files", env, filepath.FromSlash(path.Clean("/"+rest)))
}

// onDisk is a path holding the archive for a command to read: the local
// source, the cached copy of a remote one, or a temporary copy of its
// data (removed by the func).
func onDisk(c *statemod.Call, source string, data []byte) (string, func(), error) {
	if p := archiveLocalPath(source); p != "" {
		return p, func() {}, nil
	}
	if isRemote(source) {
		if p := archiveCachePath(c, source); p != "" {
			if st, err := os.Stat(p); err == nil && st.Size() == int64(len(data)) {
				return p, func() {}, nil
			}
		}
	}
	f, err := os.CreateTemp("", "brine-archive-*")
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

// extractTar extracts with the tar command (options given); false when
// ret is the state's answer.
func (o *archiveOpts) extractTar(c *statemod.Call, ret *value.Map, source string, data []byte, dest string) (bool, error) {
	if _, err := exec.LookPath("tar"); err != nil {
		ret.Set("comment", "tar command not available, it might not be installed on minion")
		return false, nil
	}
	cached, done, err := onDisk(c, source, data)
	if err != nil {
		ret.Set("comment", err.Error())
		return false, nil
	}
	defer done()
	files, ok, err := extractWithTar(c, ret, o.options, cached, dest, o.trim)
	if !ok || err != nil {
		return false, err
	}
	if len(files) == 0 {
		o.files = "no tar output so far"
	} else {
		o.files = strsValue(files)
	}
	return true, nil
}

// extractCmdUnzip extracts with archive.cmd_unzip (options given, or
// use_cmd_unzip); false when ret is the state's answer.
func (o *archiveOpts) extractCmdUnzip(c *statemod.Call, ret *value.Map, source string, data []byte, dest string) (bool, error) {
	cached, done, err := onDisk(c, source, data)
	if err != nil {
		ret.Set("comment", err.Error())
		return false, nil
	}
	defer done()
	var options any
	if o.given {
		options = o.options
	}
	res, err := c.Salt("archive.cmd_unzip", []any{cached, dest},
		value.MapOf("options", options, "trim_output", o.trim, "password", c.Get("password")))
	if err != nil {
		ret.Set("comment", err.Error())
		return false, nil
	}
	o.files = res
	return true, nil
}

// filesLen is len(files) of the extracted names (a list or a string).
func filesLen(v any) int {
	switch t := v.(type) {
	case *value.List:
		return len(t.Items)
	case string:
		return len(t)
	}
	return 0
}

// listWithModule lists an archive brine cannot read itself with
// archive.list (list_options, strip_components), as the state does; a
// listing that fails is the state's answer (stop), with the workarounds
// Salt suggests.
func listWithModule(c *statemod.Call, ret *value.Map, o archiveOpts, format, source string, data []byte) (*archive.Contents, bool, error) {
	cached, done, err := onDisk(c, source, data)
	if err != nil {
		ret.Set("comment", err.Error())
		return nil, true, nil
	}
	defer done()
	var strip any
	if o.strip > 0 {
		strip = int64(o.strip)
	}
	res, err := c.Salt("archive.list", []any{cached}, value.MapOf("archive_format", format, "options", c.Get("list_options"),
		"strip_components", strip, "clean", false, "verbose", true))
	if err == nil {
		m, _ := res.(*value.Map)
		get := func(k string) []string { return listStrings(getv(m, k)) }
		return &archive.Contents{Dirs: get("dirs"), Files: get("files"), Links: get("links"),
			TopDirs: get("top_level_dirs"), TopFiles: get("top_level_files"), TopLinks: get("top_level_links")}, false, nil
	}
	msg := err.Error()
	var workarounds []string
	if c.Str("if_missing") == "" {
		workarounds = append(workarounds, "'if_missing' must be set")
	}
	if c.Str("enforce_ownership_on") == "" && (value.Truthy(c.Get("user")) || value.Truthy(c.Get("group"))) {
		workarounds = append(workarounds, "Ownership cannot be managed without setting 'enforce_ownership_on'.")
	}
	if len(workarounds) > 0 {
		msg += "\n\n"
		if format == "tar" {
			msg += "If the source archive is a tar archive compressed using a compression type not natively supported by the tar command, " +
				"then setting the 'list_options' argument may allow the contents to be listed. Otherwise, if Salt is unable to determine " +
				"the files/directories in the archive, the following workaround(s) would need to be used for this state to proceed"
		} else {
			msg += "The following workarounds must be used for this state to proceed"
		}
		msg += " (assuming the source file is a valid " + format + " archive):\n"
		for _, w := range workarounds {
			msg += "\n- " + w
		}
	}
	ret.Set("comment", msg)
	return nil, true, nil
}
