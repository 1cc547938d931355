package pyext

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"brine/internal/value"
)

// Kinds are the extension kinds brine loads from the module cache.
var Kinds = []string{"modules", "states", "grains", "renderers", "utils"}

// ExtmodsDir is Salt's extension_modules directory: the option when set,
// else cachedir/extmods.
func ExtmodsDir(opts *value.Map) string {
	if v, ok := opts.Get("extension_modules"); ok {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	cd, _ := opts.Get("cachedir")
	s, _ := cd.(string)
	if s == "" {
		s = "/var/cache/salt/minion"
	}
	return filepath.Join(s, "extmods")
}

// syncable reports whether Salt's sync copies a file of this name
// (`\.(pyx?|so|zip)$`).
func syncable(name string) bool {
	for _, ext := range []string{".py", ".pyx", ".so", ".zip"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// fileRoots returns the root directories of saltenv, in order.
func fileRoots(opts *value.Map, saltenv string) []string {
	v, _ := opts.Get("file_roots")
	m, _ := v.(*value.Map)
	if m == nil {
		return nil
	}
	l, _ := m.Get(saltenv)
	list, _ := l.(*value.List)
	if list == nil {
		return nil
	}
	var out []string
	for _, d := range list.Items {
		if s, ok := d.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Sync copies the files of salt://_<kind> in each of saltenvs into the
// extension module cache (extmods/<kind>/, subdirectories kept), as Salt's
// saltutil.sync_<kind> (but creating no directory when there is nothing
// to copy): it returns "<kind>.<name>" for every file added or
// changed, sorted bytewise, and removes cached files no longer in the
// source (clean_dynamic_modules, unless the option is False).
func Sync(opts *value.Map, kind string, saltenvs []string, filter Filter) ([]string, error) {
	dest := filepath.Join(ExtmodsDir(opts), kind)
	remote := map[string]string{} // relpath -> source file
	for _, env := range saltenvs {
		for _, root := range fileRoots(opts, env) {
			src := filepath.Join(root, "_"+kind)
			_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !syncable(d.Name()) {
					return nil
				}
				rel, _ := filepath.Rel(src, p)
				if !filter.keeps(kind, rel) {
					return nil
				}
				if _, seen := remote[rel]; !seen {
					remote[rel] = p
				}
				return nil
			})
		}
	}
	var ret []string
	for rel, src := range remote {
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(dest, rel)
		if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return nil, err
		}
		ret = append(ret, kind+"."+relName(rel))
	}
	sort.Strings(ret)
	if v, ok := opts.Get("clean_dynamic_modules"); !ok || value.Truthy(v) {
		clean(dest, remote)
	}
	return ret, nil
}

// relName is Salt's name of a synced file: its path without the
// extension, dotted ("pkg/inner.py" is pkg.inner).
func relName(rel string) string {
	return strings.ReplaceAll(strings.TrimSuffix(rel, filepath.Ext(rel)), string(filepath.Separator), ".")
}

// Filter is Salt's extmod_whitelist and extmod_blacklist: for each kind
// it names, the modules (dotted relative names) a sync copies, or skips.
// A kind a list does not name is not filtered by it.
type Filter struct {
	Allow, Deny map[string][]string
}

// FilterOf builds the filter of a sync: the whitelist and blacklist
// arguments when given ("a,b" for this kind, or a mapping of kinds to
// lists), else the minion options extmod_whitelist and extmod_blacklist.
func FilterOf(opts *value.Map, kind string, allow, deny any) Filter {
	return Filter{Allow: filterList(opts, "extmod_whitelist", kind, allow),
		Deny: filterList(opts, "extmod_blacklist", kind, deny)}
}

func filterList(opts *value.Map, option, kind string, arg any) map[string][]string {
	if arg == nil {
		arg, _ = opts.Get(option)
	}
	switch a := arg.(type) {
	case string:
		return map[string][]string{kind: strings.Split(a, ",")}
	case *value.Map:
		out := map[string][]string{}
		a.Range(func(k, v any) bool {
			var names []string
			switch l := v.(type) {
			case *value.List:
				for _, x := range l.Items {
					names = append(names, value.Str(x))
				}
			case string:
				names = strings.Split(l, ",")
			}
			out[value.Str(k)] = names
			return true
		})
		return out
	}
	return nil
}

func (f Filter) keeps(kind, rel string) bool {
	name := relName(rel)
	if l, ok := f.Allow[kind]; ok && !slices.Contains(l, name) {
		return false
	}
	if l, ok := f.Deny[kind]; ok && slices.Contains(l, name) {
		return false
	}
	return true
}

// clean removes the files of dir not in keep, then the empty directories.
func clean(dir string, keep map[string]string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel != "." {
				dirs = append(dirs, p)
			}
			return nil
		}
		if _, ok := keep[rel]; !ok {
			_ = os.Remove(p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // fails unless empty
	}
}

// hasPython reports whether the cache holds Python files of kind.
func hasPython(opts *value.Map, kind string) bool {
	found := false
	_ = filepath.WalkDir(filepath.Join(ExtmodsDir(opts), kind), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".py") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}
