package modules

// cp.go is salt/modules/cp.py: reading files from the file server.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/match"
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
	// through the cache, as Salt: cp.is_cached finds the file afterwards
	cached, err := ctx.Call("cp.cache_file", []any{v[0], saltenv}, nil)
	if err != nil {
		if _, ok := err.(*execmod.CommandExecutionError); ok {
			return nil, err
		}
		return false, nil
	}
	p, ok := cached.(string)
	if !ok {
		return cached, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
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

// The file client side of salt/modules/cp.py and salt/fileclient.py:
// salt:// files come from the run's file server (ctx.Files: the local
// file roots under --local, the cache synced from the master on a fleet
// minion), and are written to a destination or to Salt's cache layout,
// cachedir/files/<saltenv>/<path> (cachedir/extrn_files/<saltenv>/<host>/
// <path> for http(s) URLs).

func init() {
	execmod.Register("cp.get_file", cpGetFile, "Copy a salt:// file to dest on the minion (makedirs creates its directory); returns dest, or '' when missing.")
	execmod.Register("cp.get_dir", cpGetDir, "Copy a salt:// directory recursively to dest; returns the files written.")
	execmod.Register("cp.get_template", cpGetTemplate, "Render a salt:// file with a template engine (jinja by default) and write it to dest.")
	execmod.Register("cp.get_url", cpGetURL, "Fetch a salt://, http(s)://, file:// URL or local path to dest (cached when dest is ''; the content when dest is None).")
	execmod.Register("cp.cache_file", cpCacheFile, "Cache a salt:// or http(s):// file on the minion and return its local path (False when missing).")
	execmod.Register("cp.cache_files", cpCacheFiles, "Cache each of a list (or comma-separated string) of files; returns their local paths.")
	execmod.Register("cp.cache_dir", cpCacheDir, "Cache every file below a salt:// directory (include_pat/exclude_pat: globs or E@regex); returns their paths.")
	execmod.Register("cp.cache_dest", cpCacheDest, "The local path cp.cache_file would cache a URL to.")
	execmod.Register("cp.list_master", cpListMaster, "List the files of the file server in saltenv, optionally those starting with prefix.")
	execmod.Register("cp.list_minion", cpListMinion, "List the files cached on the minion for saltenv (cachedir/files/<saltenv> and cachedir/localfiles).")
	execmod.Register("cp.is_cached", cpIsCached, "The local path of a cached copy of a file, or ''.")
	execmod.Register("cp.hash_file", cpHashFile, "The hash of a salt:// file (or local path) as {hsum, hash_type}, with the minion's hash_type.")
	execmod.Register("cp.envs", cpEnvs, "List the environments of the file server.")
}

// cpEnv is the saltenv cp functions use: the argument, else opts
// saltenv, else base.
func cpEnv(ctx *execmod.Context, v any) string { return listSaltenv(ctx, v) }

// splitEnv is salt.utils.url.split_env: a salt:// URL without its
// ?saltenv= query, and that environment (env when the URL names none).
func splitEnv(u, env string) (string, string) {
	if !strings.HasPrefix(u, "salt://") {
		return u, env
	}
	base, q, ok := strings.Cut(u, "?")
	if !ok {
		return u, env
	}
	vals, err := url.ParseQuery(q)
	if err != nil {
		return base, env
	}
	if e := vals.Get("saltenv"); e != "" {
		return base, e
	}
	return base, env
}

// saltRel is the file client's _check_proto: the path of a salt:// URL.
func saltRel(u string) (string, error) {
	rest, ok := strings.CutPrefix(u, "salt://")
	if !ok {
		return "", &execmod.CommandExecutionError{Msg: "Unsupported path: " + u}
	}
	rest, _, _ = strings.Cut(rest, "?")
	return strings.TrimLeft(rest, "|"), nil
}

func cpHashType(ctx *execmod.Context) string {
	if v, ok := ctx.Opts.Get("hash_type"); ok && value.Truthy(v) {
		return value.Str(v)
	}
	return "md5"
}

func hashOf(ctx *execmod.Context, data []byte) (*value.Map, error) {
	ht := cpHashType(ctx)
	h, ok := hashNew(ht)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("Invalid hash type '%s'", ht)}
	}
	d := h()
	d.Write(data)
	return value.MapOf("hsum", hex.EncodeToString(d.Sum(nil)), "hash_type", ht), nil
}

// readSalt reads rel of env from the run's file server (nil when it is
// missing).
func readSalt(ctx *execmod.Context, env, rel string) ([]byte, error) {
	if ctx.Files == nil {
		return nil, nil
	}
	data, _, err := ctx.Files.ReadFile(env, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil
		}
		return nil, err
	}
	return data, nil
}

// cacheLoc is cachedir/files/<env>/<rel>.
func cacheLoc(ctx *execmod.Context, env, rel string) string {
	return filepath.Join(optString(ctx.Opts, "cachedir"), "files", env, filepath.FromSlash(strings.TrimLeft(rel, "/")))
}

func optString(opts *value.Map, k string) string {
	v, _ := opts.Get(k)
	if v == nil {
		return ""
	}
	return value.Str(v)
}

func isDir(p string) bool    { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFileAt(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }

// fetchSalt is the file client's get_file: salt:// URL u of env to dest
// (a directory takes the file's base name; "" is the cache location). It
// returns the path written (or already up to date), or false.
func fetchSalt(ctx *execmod.Context, u, dest string, makedirs bool, env string) (any, error) {
	u, env = splitEnv(u, env)
	rel, err := saltRel(u)
	if err != nil {
		return nil, err
	}
	data, err := readSalt(ctx, env, rel)
	if err != nil {
		return nil, err
	}
	if data == nil {
		return false, nil
	}
	if dest != "" && (isDir(dest) || strings.HasSuffix(dest, "/")) {
		dest = filepath.Join(dest, path.Base(rel))
	}
	target := dest
	if target == "" {
		target = cacheLoc(ctx, env, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return nil, err
		}
	}
	if isFileAt(target) {
		if cur, err := os.ReadFile(target); err == nil && string(cur) == string(data) {
			return target, nil
		}
	}
	if dest != "" && !isDir(filepath.Dir(dest)) {
		if !makedirs {
			return false, nil
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return nil, err
		}
	}
	if isDir(target) {
		if err := os.RemoveAll(target); err != nil {
			return nil, err
		}
	}
	if err := writeAtomic(target, data, 0o644); err != nil {
		return nil, err
	}
	return target, nil
}

// writeAtomic writes data to p through a temporary file in its directory.
func writeAtomic(p string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".cp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

// renderFilenames is cp's _render_filenames: path and dest rendered with
// the template engine when template is set.
func renderFilenames(ctx *execmod.Context, p, dest, env string, template any, kw *value.Map) (string, string, error) {
	if !value.Truthy(template) {
		return p, dest, nil
	}
	engine := execmod.String(template)
	vars := value.NewMap(0)
	if pv, ok := kw.Get("pillar"); ok {
		vars.Set("pillar", pv)
	}
	r := func(s string) (string, error) {
		out, err := fileops.RenderTemplate(ctx, env, engine, s, vars, "")
		if err != nil {
			if strings.Contains(err.Error(), "is not supported") {
				return "", &execmod.CommandExecutionError{Msg: "Attempted to render file paths with unavailable engine " + engine}
			}
			return "", &execmod.CommandExecutionError{Msg: "Failed to render file path with error: " + err.Error()}
		}
		return out, nil
	}
	var err error
	if p, err = r(p); err != nil {
		return "", "", err
	}
	dest, err = r(dest)
	return p, dest, err
}

func cpGetFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("get_file", args, kwargs, execmod.Req("path"), execmod.Req("dest"), execmod.Opt("saltenv", nil),
		execmod.Opt("makedirs", false), execmod.Opt("template", nil), execmod.Opt("gzip", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[2])
	p, dest, err := renderFilenames(ctx, execmod.String(v[0]), execmod.String(v[1]), env, v[4], kw)
	if err != nil {
		return nil, err
	}
	p, env = splitEnv(p, env)
	h, err := hashFile(ctx, p, env)
	if err != nil {
		return nil, err
	}
	if m, ok := h.(*value.Map); !ok || m.Len() == 0 {
		return "", nil
	}
	return fetchSalt(ctx, p, dest, value.Truthy(v[3]), env)
}

// hashFile is the file client's hash_file: {hsum, hash_type} of a salt://
// file ({} when missing) or of a local file (Salt's ({}, None) when
// missing).
func hashFile(ctx *execmod.Context, p, env string) (any, error) {
	if !strings.HasPrefix(p, "salt://") {
		data, err := os.ReadFile(p)
		if err != nil || !isFileAt(p) {
			return value.NewList(value.NewMap(0), nil), nil
		}
		return hashOf(ctx, data)
	}
	rel, err := saltRel(p)
	if err != nil {
		return nil, err
	}
	data, err := readSalt(ctx, env, rel)
	if err != nil || data == nil {
		return value.NewMap(0), err
	}
	m, err := hashOf(ctx, data)
	if err != nil {
		return nil, err
	}
	// the file server answers {hash_type, hsum}, in that order
	hsum, _ := m.Get("hsum")
	ht, _ := m.Get("hash_type")
	return value.MapOf("hash_type", ht, "hsum", hsum), nil
}

func cpHashFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("hash_file", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[1])
	p, env := splitEnv(execmod.String(v[0]), env)
	return hashFile(ctx, p, env)
}

// saltFiles lists the files of env (the file server's file_list).
func saltFiles(ctx *execmod.Context, env string) []string {
	if fl, ok := fileServer(ctx).(fileLister); ok {
		out := append([]string(nil), fl.FileList(env)...)
		sort.Strings(out)
		return out
	}
	return nil
}

func cpGetDir(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("get_dir", args, kwargs, execmod.Req("path"), execmod.Req("dest"), execmod.Opt("saltenv", nil),
		execmod.Opt("template", nil), execmod.Opt("gzip", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[2])
	p, dest, err := renderFilenames(ctx, execmod.String(v[0]), execmod.String(v[1]), env, v[3], kw)
	if err != nil {
		return nil, err
	}
	p, env = splitEnv(p, env)
	rel, err := saltRel(p)
	if err != nil {
		return nil, err
	}
	rel = strings.TrimRight(rel, "/")
	prefix := ""
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		prefix = rel[:i]
	}
	var out []string
	for _, fn := range saltFiles(ctx, env) {
		if !strings.HasPrefix(fn, rel) || len(fn) <= len(rel) || fn[len(rel)] != '/' {
			continue
		}
		minionRel := strings.TrimLeft(fn[len(prefix):], "/")
		r, err := fetchSalt(ctx, "salt://"+fn, dest+"/"+minionRel, true, env)
		if err != nil {
			return nil, err
		}
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return strList(out), nil
}

func cpGetTemplate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("get_template", args, kwargs, execmod.Req("path"), execmod.Req("dest"), execmod.Opt("template", "jinja"),
		execmod.Opt("saltenv", nil), execmod.Opt("makedirs", false))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[3])
	u := execmod.String(v[0])
	sfn, err := cacheURL(ctx, u, env)
	if err != nil {
		return nil, err
	}
	local, ok := sfn.(string)
	if !ok || local == "" || !isFileAt(local) {
		return "", nil
	}
	text, err := os.ReadFile(local)
	if err != nil {
		return "", nil
	}
	// Salt's render_tmpl takes context= as the variables themselves, the
	// other keyword arguments over them
	vars := value.NewMap(kw.Len() + 1)
	if c, ok := kw.Get("context"); ok {
		if cm, ok := c.(*value.Map); ok {
			vars.Update(cm)
		}
	}
	kw.Range(func(k, val any) bool {
		if k != "env" && k != "context" {
			vars.Set(k, val)
		}
		return true
	})
	vars.Set("saltenv", env)
	out, err := fileops.RenderTemplate(ctx, env, execmod.String(v[2]), string(text), vars, u)
	if err != nil {
		slog.Error("Failed to render template with error: " + err.Error())
		return "", nil
	}
	dest := execmod.String(v[1])
	makedirs := value.Truthy(v[4])
	if dest == "" {
		dest, makedirs = extrnPath(ctx, u, env), true
	}
	if !isDir(filepath.Dir(dest)) {
		if !makedirs {
			return "", nil
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return nil, err
		}
	}
	if err := writeAtomic(dest, []byte(out), 0o644); err != nil {
		return nil, err
	}
	return dest, nil
}

// extrnPath is the file client's _extrn_path: where a URL other than
// salt:// is cached, cachedir/extrn_files/<saltenv>/<host>/<path>.
func extrnPath(ctx *execmod.Context, u, env string) string {
	pu, err := url.Parse(u)
	if err != nil {
		pu = &url.URL{Path: u}
	}
	host := pu.Host
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	name := pu.Path
	if pu.RawQuery != "" {
		name = pu.Path + "-" + pu.RawQuery
	}
	name = path.Clean("/" + name)
	if len(name) > 255 {
		sum := sha256.Sum256([]byte(name))
		name = hex.EncodeToString(sum[:])
	}
	return filepath.Join(optString(ctx.Opts, "cachedir"), "extrn_files", env, host, filepath.FromSlash(name))
}

// httpReasons are the long reasons of Python's http.server responses,
// which Salt's file client quotes in its HTTP errors.
var httpReasons = map[int]string{
	400: "Bad request syntax or unsupported method", 401: "No permission -- see authorization schemes",
	403: "Request forbidden -- authorization will not help", 404: "Nothing matches the given URI",
	405: "Specified method is invalid for this resource.", 408: "Request timed out; try again later.",
	410: "URI no longer exists and has been permanently removed.", 500: "Server got itself in trouble",
	501: "Server does not support this operation", 502: "Invalid responses from another server/proxy.",
	503: "The server cannot process the request due to a high load", 504: "The gateway server did not receive a timely response",
}

// fetchHTTP downloads u: into dest ("" caches it under extrn_files), or,
// with noCache, returns its content.
func fetchHTTP(ctx *execmod.Context, u, dest string, makedirs, noCache bool, env string, sourceHash string) (any, error) {
	if dest != "" {
		if !isDir(filepath.Dir(dest)) {
			if !makedirs {
				return "", nil
			}
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return nil, err
			}
		}
	} else if !noCache {
		dest = extrnPath(ctx, u, env)
		if sourceHash != "" {
			sh := sourceHash[strings.LastIndex(sourceHash, "=")+1:]
			if form := fileops.HashTypeOfLen(len(sh)); form != "" {
				if h, ok := hashNew(form); ok {
					if data, err := os.ReadFile(dest); err == nil {
						d := h()
						d.Write(data)
						if hex.EncodeToString(d.Sum(nil)) == strings.ToLower(sh) {
							return dest, nil
						}
					}
				}
			}
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return nil, err
		}
	}
	client := &http.Client{Timeout: 10 * time.Minute}
	resp, err := client.Get(u)
	if err != nil {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("Error reading %s: %v", u, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		reason := httpReasons[resp.StatusCode]
		if reason == "" {
			reason = http.StatusText(resp.StatusCode)
		}
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("HTTP error %d reading %s: %s", resp.StatusCode, u, reason)}
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("Error reading %s: %v", u, err)}
	}
	if noCache {
		return string(data), nil
	}
	if err := writeAtomic(dest, data, 0o644); err != nil {
		return nil, err
	}
	return dest, nil
}

// getURLTo is the file client's get_url. dest nil means no cache: the
// content is returned.
func getURLTo(ctx *execmod.Context, u string, dest *string, makedirs bool, env, sourceHash string) (any, error) {
	pu, perr := url.Parse(u)
	scheme := ""
	if perr == nil {
		scheme = strings.ToLower(pu.Scheme)
	}
	if dest != nil && *dest != "" && (isDir(*dest) || strings.HasSuffix(*dest, "/")) {
		name := "index.html"
		if perr == nil && (pu.RawQuery != "" || len(pu.Path) > 1 && !strings.HasSuffix(pu.Path, "/")) {
			name = u[strings.LastIndex(u, "/")+1:]
		}
		d := filepath.Join(*dest, name)
		dest = &d
	}
	switch scheme {
	case "", "file":
		p := u
		if scheme == "file" {
			p = pu.Host + pu.Path
		}
		p = strings.TrimRight(p, "/")
		if !filepath.IsAbs(p) {
			return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("Path '%s' is not absolute", p)}
		}
		if dest == nil {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, &execmod.CommandExecutionError{Msg: err.Error()}
			}
			return string(data), nil
		}
		return p, nil
	case "salt":
		d := ""
		if dest != nil {
			d = *dest
		}
		r, err := fetchSalt(ctx, u, d, makedirs, env)
		if err != nil || dest != nil {
			return r, err
		}
		if s, ok := r.(string); ok {
			data, err := os.ReadFile(s)
			if err != nil {
				return nil, err
			}
			return string(data), nil
		}
		return r, nil
	case "http", "https":
		if dest == nil {
			return fetchHTTP(ctx, u, "", makedirs, true, env, sourceHash)
		}
		return fetchHTTP(ctx, u, *dest, makedirs, false, env, sourceHash)
	}
	return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("Unsupported URL scheme %q in %s: brine fetches salt://, http(s)://, file:// and local paths", scheme, u)}
}

func cpGetURL(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_url", args, kwargs, execmod.Req("path"), execmod.Opt("dest", ""), execmod.Opt("saltenv", nil),
		execmod.Opt("makedirs", false), execmod.Opt("source_hash", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[2])
	u := execmod.String(v[0])
	var dest *string
	if s, ok := v[1].(string); ok {
		dest = &s
	}
	sh := ""
	if value.Truthy(v[4]) {
		sh = execmod.String(v[4])
	}
	r, err := getURLTo(ctx, u, dest, value.Truthy(v[3]), env, sh)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(r) {
		slog.Error(fmt.Sprintf("Unable to fetch file %s from saltenv %s.", u, env))
	}
	return r, nil
}

// cacheURL is the file client's cache_file.
func cacheURL(ctx *execmod.Context, u, env string) (any, error) {
	u, env = splitEnv(u, env)
	empty := ""
	return getURLTo(ctx, u, &empty, true, env, "")
}

func cpCacheFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cache_file", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil),
		execmod.Opt("source_hash", nil), execmod.Opt("verify_ssl", true), execmod.Opt("use_etag", false))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[1])
	u, env := splitEnv(execmod.String(v[0]), env)
	empty := ""
	sh := ""
	if value.Truthy(v[2]) {
		sh = execmod.String(v[2])
	}
	r, err := getURLTo(ctx, u, &empty, true, env, sh)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(r) {
		slog.Error(fmt.Sprintf("Unable to cache file '%s' from saltenv '%s'.", u, env))
	}
	return r, nil
}

func cpCacheFiles(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cache_files", args, kwargs, execmod.Req("paths"), execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[1])
	var paths []string
	switch x := v[0].(type) {
	case string:
		paths = strings.Split(x, ",")
	case *value.List:
		for _, it := range x.Items {
			paths = append(paths, execmod.String(it))
		}
	}
	out := value.NewList()
	for _, p := range paths {
		r, err := cacheURL(ctx, p, env)
		if err != nil {
			return nil, err
		}
		out.Append(r)
	}
	return out, nil
}

// includeExclude is salt.utils.stringutils.check_include_exclude: globs,
// or regular expressions prefixed with E@, one or a list each.
func includeExclude(p string, include, exclude any) bool {
	pats := func(v any) []string {
		switch x := v.(type) {
		case *value.List:
			var out []string
			for _, it := range x.Items {
				out = append(out, value.Str(it))
			}
			return out
		case nil:
			return nil
		}
		return []string{value.Str(v)}
	}
	check := func(pat string) bool {
		if re, ok := strings.CutPrefix(pat, "E@"); ok {
			r, err := fileops.PyRegexp(re, nil)
			return err == nil && r.MatchString(p)
		}
		return match.Fnmatch(p, pat)
	}
	in, ex := value.Truthy(include), value.Truthy(exclude)
	inOK, exOK := false, true
	if in {
		for _, pat := range pats(include) {
			if inOK = check(pat); inOK {
				break
			}
		}
	}
	if ex {
		for _, pat := range pats(exclude) {
			if exOK = !check(pat); !exOK {
				break
			}
		}
	}
	switch {
	case in && !ex:
		return inOK
	case ex && !in:
		return exOK
	case in && ex:
		return inOK && exOK
	}
	return true
}

func cpCacheDir(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cache_dir", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil),
		execmod.Opt("include_empty", false), execmod.Opt("include_pat", nil), execmod.Opt("exclude_pat", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[1])
	rel, err := saltRel(execmod.String(v[0]))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[2]) {
		return nil, &execmod.CommandExecutionError{Msg: "cp.cache_dir: include_empty is not supported: brine's file server lists no empty directories"}
	}
	if !strings.HasSuffix(rel, "/") {
		rel += "/"
	}
	out := value.NewList()
	for _, fn := range saltFiles(ctx, env) {
		if strings.TrimSpace(fn) == "" || !strings.HasPrefix(fn, rel) || !includeExclude(fn, v[3], v[4]) {
			continue
		}
		r, err := fetchSalt(ctx, "salt://"+fn, "", true, env)
		if err != nil {
			return nil, err
		}
		if value.Truthy(r) {
			out.Append(r)
		}
	}
	return out, nil
}

func cpCacheDest(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cache_dest", args, kwargs, execmod.Req("url"), execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[1])
	u := execmod.String(v[0])
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme == "" {
		return u, nil
	}
	if pu.Scheme == "salt" {
		base, env := splitEnv(u, env)
		rel, _ := saltRel(base)
		return cacheLoc(ctx, env, rel), nil
	}
	return extrnPath(ctx, u, env), nil
}

func cpListMaster(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_master", args, kwargs, execmod.Opt("saltenv", nil), execmod.Opt("prefix", ""))
	if err != nil {
		return nil, err
	}
	prefix := strings.Trim(execmod.String(v[1]), "/")
	out := value.NewList()
	for _, f := range saltFiles(ctx, cpEnv(ctx, v[0])) {
		if strings.HasPrefix(f, prefix) {
			out.Append(f)
		}
	}
	return out, nil
}

// walkFiles lists the files below dir, following directory links.
func walkFiles(dir string, into map[string]bool, depth int) {
	ents, err := os.ReadDir(dir)
	if err != nil || depth > 64 {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if isDir(p) {
			walkFiles(p, into, depth+1)
		} else {
			into[p] = true
		}
	}
}

func cpListMinion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_minion", args, kwargs, execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	cd := optString(ctx.Opts, "cachedir")
	files := map[string]bool{}
	// Salt's _file_local_list walks a cache directory that does not exist
	// yet by its parent instead: without localfiles, the whole cachedir.
	for _, d := range []string{filepath.Join(cd, "files", cpEnv(ctx, v[0])), filepath.Join(cd, "localfiles")} {
		if !isDir(d) {
			d = filepath.Dir(d)
		}
		walkFiles(d, files, 0)
	}
	out := make([]string, 0, len(files))
	for f := range files {
		if b := filepath.Base(f); !strings.HasPrefix(b, ".fetch-") && !strings.HasPrefix(b, ".cp-") { // transfers under way
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return strList(out), nil
}

func cpIsCached(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_cached", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[1])
	p, env := splitEnv(execmod.String(v[0]), env)
	u := p
	if rel, ok := strings.CutPrefix(p, "salt://"); ok {
		p = rel
	}
	escaped := strings.HasPrefix(p, "|")
	clean := strings.TrimLeft(p, "|/")
	cd := optString(ctx.Opts, "cachedir")
	esc := func(s string) string {
		if escaped {
			return "|" + s
		}
		return s
	}
	for _, c := range []string{filepath.Join(cd, "files", env, clean), filepath.Join(cd, "localfiles", clean)} {
		if _, err := os.Stat(c); err == nil {
			return esc(c), nil
		}
	}
	if ext := extrnPath(ctx, u, env); ext != "" {
		if _, err := os.Stat(ext); err == nil {
			return ext, nil
		}
	}
	return "", nil
}

func cpEnvs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("envs", args, kwargs); err != nil {
		return nil, err
	}
	type envLister interface{ Envs() []string }
	if el, ok := fileServer(ctx).(envLister); ok {
		return strList(el.Envs()), nil
	}
	return value.NewList(), nil
}

func init() {
	execmod.Register("cp.cache_master", cpCacheMaster, "Cache every file of the file server's saltenv on the minion; returns their local paths.")
	execmod.Register("cp.cache_local_file", cpCacheLocalFile, "Copy a local file into the minion's cache (cachedir/localfiles) unless an identical copy is there; returns the cached path, '' when the file is missing.")
	execmod.Register("cp.list_master_symlinks", cpListMasterSymlinks, "Map the symlinks of the file server's saltenv (those starting with prefix) to their targets.")
	execmod.Register("cp.stat_file", cpStatFile, "The mode of a salt:// file (or local path): '0644' when octal=True, else st_mode as a number; None when missing.")
}

func cpCacheMaster(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cache_master", args, kwargs, execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	env := cpEnv(ctx, v[0])
	out := value.NewList()
	for _, rel := range saltFiles(ctx, env) {
		r, err := cacheURL(ctx, "salt://"+rel, env)
		if err != nil {
			return nil, err
		}
		out.Append(r)
	}
	return out, nil
}

func cpCacheLocalFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cache_local_file", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	p := execmod.String(v[0])
	if _, err := os.Stat(p); err != nil {
		return "", nil
	}
	cached, err := cpIsCached(ctx, []any{p}, value.NewMap(0))
	if err != nil {
		return nil, err
	}
	if c := execmod.String(cached); c != "" {
		a, errA := os.ReadFile(p)
		b, errB := os.ReadFile(c)
		if errA == nil && errB == nil && bytes.Equal(a, b) {
			return c, nil
		}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, execmod.Errorf("%s", pyOSError(err))
	}
	dest := filepath.Join(optString(ctx.Opts, "cachedir"), "localfiles", strings.TrimLeft(p, "/"))
	if err := os.MkdirAll(filepath.Dir(dest), 0o777); err != nil {
		return nil, err
	}
	if err := os.WriteFile(dest, data, 0o666); err != nil {
		return nil, execmod.Errorf("%s", pyOSError(err))
	}
	return dest, nil
}

func cpListMasterSymlinks(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_master_symlinks", args, kwargs, execmod.Opt("saltenv", nil), execmod.Opt("prefix", ""))
	if err != nil {
		return nil, err
	}
	type symlinkLister interface {
		SymlinkList(env, prefix string) *value.Map
	}
	if sl, ok := fileServer(ctx).(symlinkLister); ok {
		return sl.SymlinkList(cpEnv(ctx, v[0]), execmod.String(v[1])), nil
	}
	return value.NewMap(0), nil
}

func cpStatFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("stat_file", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil), execmod.Opt("octal", true))
	if err != nil {
		return nil, err
	}
	p, env := splitEnv(execmod.String(v[0]), cpEnv(ctx, v[1]))
	local := p
	if strings.HasPrefix(p, "salt://") {
		rel, err := saltRel(p)
		if err != nil {
			return nil, err
		}
		// The file server's own path (not the cache's) carries the mode.
		src, ok := fileServer(ctx).(execmod.FileSource)
		if !ok {
			return nil, nil
		}
		_, l, err := src.ReadFile(env, rel)
		if err != nil {
			return nil, nil
		}
		local = l
	} else if !isFileAt(p) {
		slog.Warn(fmt.Sprintf("specified file %s is not present to generate hash: Unsupported path: %s", p, p))
		return nil, nil
	}
	var st syscall.Stat_t
	if err := syscall.Stat(local, &st); err != nil {
		return nil, nil
	}
	if v[2] == true {
		o := strconv.FormatUint(uint64(st.Mode), 8)
		if len(o) < 4 {
			o = strings.Repeat("0", 4-len(o)) + o
		}
		return o[len(o)-4:], nil
	}
	return int64(st.Mode), nil
}
