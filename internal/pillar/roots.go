package pillar

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/value"
)

// roots is the pillar side of Salt's local file client: pillar_roots per
// environment, SLS listing and lookup.
type roots struct {
	envs  []string            // environment names in pillar_roots order
	dirs  map[string][]string // environment -> directories
	cache map[string][]string // list_states results
}

// newRoots reads opts["pillar_roots"], applying Salt's __env__ fallback:
// when __env__ is configured and env (pillarenv, else saltenv, else base) is
// not listed, env takes the __env__ directories with "__env__" in each path
// replaced by its name; otherwise __env__ is dropped.
func newRoots(opts *value.Map, env string) *roots {
	r := &roots{dirs: map[string][]string{}, cache: map[string][]string{}}
	pr, _ := opts.GetString("pillar_roots")
	m, _ := pr.(*value.Map)
	dunder, hasDunder := m.Get("__env__")
	envListed := m.Has(env)
	for i, k := range m.Keys() {
		name := value.Str(k)
		if name == "__env__" {
			continue
		}
		if _, dup := r.dirs[name]; !dup {
			r.envs = append(r.envs, name)
		}
		r.dirs[name] = stringList(m.Values()[i])
	}
	if hasDunder && !envListed {
		dirs := stringList(dunder)
		for j, d := range dirs {
			dirs[j] = strings.ReplaceAll(d, "__env__", env)
		}
		r.envs = append(r.envs, env)
		r.dirs[env] = dirs
	}
	return r
}

// asMap returns pillar_roots as Salt's opts hold it after the __env__
// fallback.
func (r *roots) asMap() *value.Map {
	m := value.NewMap(len(r.envs))
	for _, e := range r.envs {
		l := value.NewList()
		for _, d := range r.dirs[e] {
			l.Append(d)
		}
		m.Set(e, l)
	}
	return m
}

func (r *roots) has(env string) bool {
	_, ok := r.dirs[env]
	return ok
}

// findFile is cache_file for a salt:// path: the first root of env that
// holds rel as a regular file.
func (r *roots) findFile(env, rel string) string {
	rel = strings.TrimPrefix(rel, "/")
	if rel == "" || strings.Contains("/"+rel+"/", "/../") {
		return ""
	}
	for _, d := range r.dirs[env] {
		p := filepath.Join(d, filepath.FromSlash(rel))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// getState is the file client's get_state: sls "a.b" is a/b.sls, else
// a/b/init.sls. As in Salt, dots become slashes only when the last
// slash-separated part holds one, so "x.y/z" is x.y/z.sls. It returns the
// local path and the salt:// source.
func (r *roots) getState(sls, env string) (path, source string) {
	base := sls
	if strings.Contains(base[strings.LastIndexByte(base, '/')+1:], ".") {
		base = strings.ReplaceAll(sls, ".", "/")
	}
	for _, rel := range []string{base + ".sls", base + "/init.sls"} {
		if p := r.findFile(env, rel); p != "" {
			return p, "salt://" + rel
		}
	}
	return "", ""
}

// listStates is list_states: every .sls file of env as an SLS name, sorted;
// a/init.sls is "a".
func (r *roots) listStates(env string) []string {
	if l, ok := r.cache[env]; ok {
		return l
	}
	set := map[string]bool{}
	for _, d := range r.dirs[env] {
		walkFiles(d, "", func(rel string) {
			if !strings.HasSuffix(rel, ".sls") {
				return
			}
			if strings.HasSuffix(rel, "/init.sls") {
				set[strings.ReplaceAll(rel, "/", ".")[:len(rel)-9]] = true
			} else {
				set[strings.ReplaceAll(rel, "/", ".")[:len(rel)-4]] = true
			}
		}, 0)
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	r.cache[env] = out
	return out
}

// walkFiles calls f with the slash-separated path (relative to root) of
// every regular file below dir, following symbolic links to a bounded depth.
func walkFiles(root, rel string, f func(string), depth int) {
	if depth > 40 {
		return
	}
	dir := root
	if rel != "" {
		dir = filepath.Join(root, filepath.FromSlash(rel))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			st, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			mode = st.Mode().Type()
		}
		switch {
		case mode.IsDir():
			walkFiles(root, r, f, depth+1)
		case mode.IsRegular():
			f(r)
		}
	}
}

// stringList reads a config value that should be a list of strings; a
// single string is a one-item list.
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case *value.List:
		out := make([]string, 0, len(x.Items))
		for _, e := range x.Items {
			out = append(out, value.Str(e))
		}
		return out
	case value.Tuple:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, value.Str(e))
		}
		return out
	}
	return nil
}
