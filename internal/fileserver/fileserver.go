// Package fileserver gives saltenv-aware read access to the file roots, as
// Salt's roots fileserver backend and local file client do: salt:// URLs,
// SLS name resolution (a.b is a/b.sls, else a/b/init.sls; the first root
// holding the file wins) and the list of available SLS per environment.
//
// Every path is confined to its root: absolute paths, '..' escapes and
// symlinks resolving outside the root are refused (reported as not found).
package fileserver

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"brine/internal/value"
)

// ErrNotFound is returned when no root of the environment holds the file;
// it wraps fs.ErrNotExist.
var ErrNotFound = fmt.Errorf("file not found: %w", fs.ErrNotExist)

// Roots is a set of environments, each a list of directories searched in
// order. It is safe for concurrent use.
type Roots struct {
	envs []string
	dirs map[string][]string

	mu     sync.Mutex
	states map[string][]string // env -> sorted SLS names (cache)
	real   map[string]string   // root -> its resolved real path (cache)

	dirsReal map[string]string // directory -> resolved real path (cache)

	ignore func(path string) bool // file_ignore_regex/file_ignore_glob; nil: none

	noFollow bool // fileserver_followsymlinks off
	noLinks  bool // fileserver_ignoresymlinks on
}

// SetSymlinks sets Salt's fileserver_followsymlinks (descend into
// symlinked directories when listing; default true) and
// fileserver_ignoresymlinks (leave links out of listings; default false).
// Call it before the first lookup.
func (r *Roots) SetSymlinks(follow, ignore bool) {
	r.mu.Lock()
	r.noFollow, r.noLinks = !follow, ignore
	r.states = map[string][]string{}
	r.mu.Unlock()
}

// SetIgnore installs Salt's is_file_ignored test (the file_ignore_regex and
// file_ignore_glob options): lookups skip a file when ignore(full local
// path) is true, and listings skip it when ignore(path relative to its root)
// is, as Salt's roots backend does. Call it before the first lookup.
func (r *Roots) SetIgnore(ignore func(path string) bool) {
	r.mu.Lock()
	r.ignore = ignore
	r.states = map[string][]string{}
	r.mu.Unlock()
}

func (r *Roots) ignored(p string) bool { return r.ignore != nil && r.ignore(p) }

// New builds Roots from a file_roots-style mapping: env -> list of dirs (a
// single string is one dir). Environments keep the mapping's order.
func New(roots *value.Map) *Roots {
	r := &Roots{dirs: map[string][]string{}, states: map[string][]string{}, real: map[string]string{}, dirsReal: map[string]string{}}
	roots.Range(func(k, v any) bool {
		env := value.Str(k)
		var dirs []string
		switch d := v.(type) {
		case string:
			dirs = []string{d}
		case *value.List:
			for _, e := range d.Items {
				if s, ok := e.(string); ok {
					dirs = append(dirs, s)
				}
			}
		}
		if _, seen := r.dirs[env]; !seen {
			r.envs = append(r.envs, env)
		}
		r.dirs[env] = dirs
		return true
	})
	return r
}

// FromDirs builds Roots from a plain Go map, environments sorted (tests).
func FromDirs(m map[string][]string) *Roots {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	vm := value.NewMap(len(m))
	for _, n := range names {
		l := value.NewList()
		for _, d := range m[n] {
			l.Append(d)
		}
		vm.Set(n, l)
	}
	return New(vm)
}

// Envs returns the configured environment names in configuration order.
func (r *Roots) Envs() []string { return r.envs }

// SortedEnvs returns the environment names sorted (Salt's fileclient envs()).
func (r *Roots) SortedEnvs() []string {
	out := append([]string(nil), r.envs...)
	sort.Strings(out)
	return out
}

// Has reports whether env is configured (or an __env__ catch-all is).
func (r *Roots) Has(env string) bool {
	_, ok := r.dirs[env]
	if !ok {
		_, ok = r.dirs["__env__"]
	}
	return ok
}

// rootsOf returns the directories of env, mapping through __env__.
func (r *Roots) rootsOf(env string) []string {
	if d, ok := r.dirs[env]; ok {
		return d
	}
	if d, ok := r.dirs["__env__"]; ok {
		out := make([]string, len(d))
		for i, root := range d {
			out[i] = strings.ReplaceAll(root, "__env__", env)
		}
		return out
	}
	return nil
}

// cleanRel normalizes a root-relative path as os.path.normpath does and
// reports whether it stays inside the root. A path with a "../" segment
// is refused even when it would stay inside, as Salt's file server does.
func cleanRel(rel string) (string, bool) {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "../") {
		return "", false
	}
	c := path.Clean(rel)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

func (r *Roots) realRoot(root string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.real[root]; ok {
		return rr
	}
	rr, err := filepath.EvalSymlinks(root)
	if err != nil {
		rr = ""
	} else if abs, err := filepath.Abs(rr); err == nil {
		rr = abs
	}
	r.real[root] = rr
	return rr
}

// within reports whether full, symlinks resolved, lies under root. The
// resolved directories are cached, so a tree without symlinks costs one
// Lstat per file.
func (r *Roots) within(root, full string) bool {
	rr := r.realRoot(root)
	if rr == "" {
		return false
	}
	var rf string
	st, err := os.Lstat(full)
	if err != nil {
		return false
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		rf, err = filepath.EvalSymlinks(full)
		if err != nil {
			return false
		}
		if abs, err := filepath.Abs(rf); err == nil {
			rf = abs
		}
	} else {
		rd := r.realDir(filepath.Dir(full))
		if rd == "" {
			return false
		}
		rf = filepath.Join(rd, filepath.Base(full))
	}
	return rf == rr || strings.HasPrefix(rf, rr+string(filepath.Separator))
}

// realDir resolves a directory's symlinks, cached.
func (r *Roots) realDir(dir string) string {
	r.mu.Lock()
	if d, ok := r.dirsReal[dir]; ok {
		r.mu.Unlock()
		return d
	}
	r.mu.Unlock()
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		d = ""
	} else if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	r.mu.Lock()
	r.dirsReal[dir] = d
	r.mu.Unlock()
	return d
}

// Find returns the local path of rel in env: the first root holding a
// regular file at rel, confined to that root.
func (r *Roots) Find(env, rel string) (string, error) {
	c, ok := cleanRel(rel)
	if !ok {
		return "", ErrNotFound
	}
	for _, root := range r.rootsOf(env) {
		full := filepath.Join(root, filepath.FromSlash(c))
		st, err := os.Stat(full)
		if err != nil || !st.Mode().IsRegular() || r.ignored(full) {
			continue
		}
		// Only pay for symlink resolution when a link may be involved.
		if !r.within(root, full) {
			continue
		}
		return full, nil
	}
	return "", ErrNotFound
}

// ReadFile reads rel from env; it returns the data and the local path.
func (r *Roots) ReadFile(env, rel string) ([]byte, string, error) {
	p, err := r.Find(env, rel)
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, "", err
	}
	return data, p, nil
}

// SLS is a resolved SLS file.
type SLS struct {
	Name   string // the SLS name as asked for
	Env    string
	Source string // the salt:// relative path that was found: a/b.sls or a/b/init.sls
	Path   string // local file path
}

// IsInit reports whether the SLS was served by an init.sls file.
func (s SLS) IsInit() bool { return strings.HasSuffix(s.Source, "/init.sls") || s.Source == "init.sls" }

// ResolveSLS finds the file of an SLS name as Salt's get_state does: dots
// become slashes, then NAME.sls is tried before NAME/init.sls.
func (r *Roots) ResolveSLS(env, name string) (SLS, bool) {
	p := strings.ReplaceAll(name, ".", "/")
	for _, rel := range [2]string{p + ".sls", p + "/init.sls"} {
		if full, err := r.Find(env, rel); err == nil {
			return SLS{Name: name, Env: env, Source: rel, Path: full}, true
		}
	}
	return SLS{}, false
}

// ListStates returns the sorted SLS names of env (Salt's list_states):
// every .sls file under every root, init.sls naming its directory.
func (r *Roots) ListStates(env string) []string {
	r.mu.Lock()
	if s, ok := r.states[env]; ok {
		r.mu.Unlock()
		return s
	}
	r.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, root := range r.rootsOf(env) {
		files, _ := r.walk(root)
		for _, rel := range files {
			if !strings.HasSuffix(rel, ".sls") {
				continue
			}
			var name string
			if strings.HasSuffix(rel, "/init.sls") {
				name = strings.ReplaceAll(rel, "/", ".")[:len(rel)-9]
			} else {
				name = strings.ReplaceAll(rel, "/", ".")[:len(rel)-4]
			}
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	r.mu.Lock()
	r.states[env] = out
	r.mu.Unlock()
	return out
}

// FileList returns every file under the roots of env, relative, sorted and
// deduplicated (Salt's file_list).
func (r *Roots) FileList(env string) []string {
	return r.list(env, func(files, _ []string) []string { return files })
}

// DirList returns every directory under the roots of env (not the roots
// themselves), relative, sorted and deduplicated (Salt's dir_list).
func (r *Roots) DirList(env string) []string {
	return r.list(env, func(_, dirs []string) []string { return dirs })
}

func (r *Roots) list(env string, pick func(files, dirs []string) []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, root := range r.rootsOf(env) {
		for _, rel := range pick(r.walk(root)) {
			if !seen[rel] {
				seen[rel] = true
				out = append(out, rel)
			}
		}
	}
	sort.Strings(out)
	return out
}

// walk lists the files and the directories under root as slash-separated
// relative paths, as Salt's roots backend builds its lists with os.walk:
// symlinks are listed wherever they point (a broken one with the files;
// Find still refuses what resolves outside the root), symlinked
// directories are descended unless fileserver_followsymlinks is off (the
// link is then listed with the directories only), and
// fileserver_ignoresymlinks drops every link. An ignored directory is not
// listed but still descended, as os.walk does.
func (r *Roots) walk(root string) (files, dirs []string) {
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
			mode := e.Type()
			if mode&fs.ModeSymlink != 0 {
				if r.noLinks {
					continue
				}
				st, err := os.Stat(full)
				switch {
				case err != nil:
					mode = 0 // broken: os.walk lists it with the files
				case st.IsDir() && r.noFollow:
					if !r.ignored(erel) {
						dirs = append(dirs, erel)
					}
					continue
				default:
					mode = st.Mode().Type()
				}
			}
			if !r.ignored(erel) {
				if mode.IsDir() {
					dirs = append(dirs, erel)
				} else {
					files = append(files, erel)
				}
			}
			if mode.IsDir() {
				visit(full, erel, depth+1)
			}
		}
	}
	visit(root, "", 0)
	return files, dirs
}

// ParseURL splits "salt://path/to/file?saltenv=dev" into its path and
// saltenv ("" when the URL names none). ok is false for a non-salt:// URL.
func ParseURL(u string) (rel, saltenv string, ok bool) {
	if !strings.HasPrefix(u, "salt://") {
		return "", "", false
	}
	rest := u[len("salt://"):]
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		query := rest[i+1:]
		rest = rest[:i]
		for _, kv := range strings.Split(query, "&") {
			if v, found := strings.CutPrefix(kv, "saltenv="); found {
				saltenv = v
			} else if v, found := strings.CutPrefix(kv, "env="); found && saltenv == "" {
				saltenv = v
			}
		}
	}
	return rest, saltenv, true
}

// CreateURL is Salt's salt.utils.url.create: salt://path, with an optional
// ?saltenv= suffix.
func CreateURL(rel, saltenv string) string {
	u := "salt://" + strings.TrimPrefix(rel, "/")
	if saltenv != "" {
		u += "?saltenv=" + saltenv
	}
	return u
}

// ReadURL reads a salt:// URL (its own ?saltenv= winning over env) or a
// plain root-relative path.
func (r *Roots) ReadURL(u, env string) ([]byte, string, error) {
	rel := u
	if p, e, ok := ParseURL(u); ok {
		rel = p
		if e != "" {
			env = e
		}
	}
	return r.ReadFile(env, rel)
}

// EnvList is Salt's BaseHighState._get_envs: base first, then the
// configured environments; with env_order, only those of env_order (in
// that order) that are configured.
func (r *Roots) EnvList(envOrder []string) []string {
	var order []string
	seen := map[string]bool{}
	for _, e := range envOrder {
		if !seen[e] {
			seen[e] = true
			order = append(order, e)
		}
	}
	client := r.SortedEnvs()
	if len(order) > 0 {
		if len(client) == 0 {
			return order
		}
		var out []string
		for _, e := range order {
			if _, ok := r.dirs[e]; ok {
				out = append(out, e)
			}
		}
		return out
	}
	out := []string{"base"}
	have := map[string]bool{"base": true}
	for _, e := range r.envs {
		if !have[e] {
			have[e] = true
			out = append(out, e)
		}
	}
	for _, e := range client {
		if !have[e] {
			have[e] = true
			out = append(out, e)
		}
	}
	return out
}

// Avail is Salt's LazyAvailStates: the environments a run may use (base
// always) and their SLS lists.
type Avail struct {
	Roots *Roots
	envs  map[string]bool
	list  []string
}

// NewAvail returns the available environments: base plus EnvList(envOrder).
func NewAvail(r *Roots, envOrder []string) *Avail {
	a := &Avail{Roots: r, envs: map[string]bool{"base": true}, list: []string{"base"}}
	for _, e := range r.EnvList(envOrder) {
		if !a.envs[e] {
			a.envs[e] = true
			a.list = append(a.list, e)
		}
	}
	return a
}

// Has reports whether env is available.
func (a *Avail) Has(env string) bool { return a.envs[env] }

// Envs returns the available environments, base first.
func (a *Avail) Envs() []string { return a.list }

// States returns the sorted SLS names of env.
func (a *Avail) States(env string) []string { return a.Roots.ListStates(env) }
