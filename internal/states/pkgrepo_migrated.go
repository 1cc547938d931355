package states

// pkgrepo_migrated.go is pkgrepo.migrated of salt/states/pkgrepo.py: copy
// the package repositories (and their GPG keys) of this system into a
// chroot. Salt supports it on the Suse family only and fails with a fixed
// comment everywhere else; on Suse it compares pkg.list_repos and
// lowpkg.list_gpg_keys of the system with those of the root, and adds
// (and with drop removes) what differs through the same functions.

import (
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pkgrepo.migrated",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("keys", true), statemod.Opt("drop", false),
			statemod.Opt("method", nil)},
		Kwargs: true,
		Doc:    "Migrate the repositories and GPG keys of the system into the root name (Suse only).",
		Run:    pkgrepoMigrated})
}

// migItem is one repository or key: its name and its normalized fields.
type migItem struct {
	name string
	info *value.Map
}

// migSet is a set of items keyed by name and fields together (Salt puts
// (name, sorted field tuples) in a Python set).
type migSet map[string]migItem

func (s migSet) minus(o migSet) []migItem {
	var out []migItem
	for k, it := range s {
		if _, ok := o[k]; !ok {
			out = append(out, it)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func migNames(items []migItem) *value.List {
	l := value.NewList()
	for _, it := range items {
		l.Append(it.name)
	}
	return l
}

// migNormalize keeps the fields of table, renamed (Salt's _normalize_repo
// and _normalize_key), sorted by their new name.
func migNormalize(v any, table map[string]string) *value.Map {
	out := value.NewMap(0)
	m, _ := v.(*value.Map)
	if m == nil {
		return out
	}
	var keys []string
	vals := map[string]any{}
	m.Range(func(k, x any) bool {
		if to, ok := table[value.Str(k)]; ok {
			keys = append(keys, to)
			vals[to] = x
		}
		return true
	})
	sort.Strings(keys)
	for _, k := range keys {
		out.Set(k, vals[k])
	}
	return out
}

var (
	migRepoFields = map[string]map[string]string{"Suse": {"name": "humanname", "priority": "priority",
		"enabled": "enabled", "autorefresh": "refresh", "gpgcheck": "gpgcheck", "keepackages": "cache", "baseurl": "url"}}
	migKeyFields = map[string]map[string]string{"Suse": {"Description": "key"}, "RedHat": {"Description": "key"}}
)

// migList calls fun and turns its mapping into a set; a failure gives the
// error (the caller decides whether Salt ignores it).
func migList(c *statemod.Call, fun string, kw *value.Map, table map[string]string) (migSet, error) {
	r, err := c.Salt(fun, nil, kw)
	if err != nil {
		return nil, err
	}
	out := migSet{}
	if m, ok := r.(*value.Map); ok {
		m.Range(func(k, v any) bool {
			it := migItem{value.Str(k), migNormalize(v, table)}
			out[it.name+"\x00"+value.Repr(it.info)] = it
			return true
		})
	}
	return out, nil
}

// migDiff is Salt's _repos_keys_migrate_drop: repositories and keys to
// migrate into root and, with drop, to remove from it.
func migDiff(c *statemod.Call, root string, keys, drop bool) (repos, dropRepos, ks, dropKeys []migItem, err error) {
	fam := osFamily(c)
	src, err := migList(c, "pkg.list_repos", nil, migRepoFields[fam])
	if err != nil {
		return
	}
	tgt, terr := migList(c, "pkg.list_repos", value.MapOf("root", root), migRepoFields[fam])
	if terr != nil {
		tgt = migSet{} // the root may not be initialized yet
	}
	srcKeys, tgtKeys := migSet{}, migSet{}
	if keys {
		if srcKeys, err = migList(c, "lowpkg.list_gpg_keys", value.MapOf("info", true), migKeyFields[fam]); err != nil {
			return
		}
		if t, terr := migList(c, "lowpkg.list_gpg_keys", value.MapOf("info", true, "root", root), migKeyFields[fam]); terr == nil {
			tgtKeys = t
		}
	}
	repos, ks = src.minus(tgt), srcKeys.minus(tgtKeys)
	if drop {
		dropRepos, dropKeys = tgt.minus(src), tgtKeys.minus(srcKeys)
	}
	return
}

func pkgrepoMigrated(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "result", false, "changes", value.NewMap(0), "comment", "")
	keys, drop, method := c.Bool("keys"), c.Bool("drop"), c.Get("method")
	if osFamily(c) != "Suse" {
		ret.Set("comment", "Migration not supported for this platform")
		return ret, nil
	}
	if keys && !hasExec(c, "lowpkg.import_gpg_key") {
		ret.Set("comment", "Keys cannot be migrated for this platform")
		return ret, nil
	}
	if method != nil && method != "salt" && method != "copy" {
		ret.Set("comment", "Migration method not supported")
		return ret, nil
	}
	repos, dropRepos, ks, dropKeys, err := migDiff(c, name, keys, drop)
	if err != nil {
		return nil, err
	}
	if len(repos)+len(dropRepos)+len(ks)+len(dropKeys) == 0 {
		ret.Set("result", true)
		ret.Set("comment", "Repositories are already migrated")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "There are keys or repositories to migrate or drop")
		ret.Set("changes", value.MapOf("repos to migrate", migNames(repos), "repos to drop", migNames(dropRepos),
			"keys to migrate", migNames(ks), "keys to drop", migNames(dropKeys)))
		return ret, nil
	}
	for _, r := range repos {
		if method == "copy" {
			if err := migCopyRepos(c, name); err != nil {
				return nil, err
			}
			continue
		}
		kw := r.info.Copy()
		kw.Set("root", name)
		if _, err := c.Salt("pkg.mod_repo", []any{r.name}, kw); err != nil {
			return nil, err
		}
	}
	for _, r := range dropRepos {
		if _, err := c.Salt("pkg.del_repo", []any{r.name}, value.MapOf("root", name)); err != nil {
			return nil, err
		}
	}
	for _, k := range ks {
		if _, err := c.Salt("lowpkg.import_gpg_key", []any{getv(k.info, "key")}, value.MapOf("root", name)); err != nil {
			return nil, err
		}
	}
	for _, k := range dropKeys {
		if _, err := c.Salt("lowpkg.remove_gpg_key", []any{k.name}, value.MapOf("root", name)); err != nil {
			return nil, err
		}
	}
	r2, d2, k2, dk2, err := migDiff(c, name, keys, drop)
	if err != nil {
		return nil, err
	}
	if len(r2)+len(d2)+len(k2)+len(dk2) > 0 {
		ret.Set("result", false)
		ret.Set("comment", "Migration of repositories failed")
		return ret, nil
	}
	ret.Set("result", true)
	ret.Set("comment", "Repositories synchronized")
	ret.Set("changes", value.MapOf("repos migrated", migNames(repos), "repos dropped", migNames(dropRepos),
		"keys migrated", migNames(ks), "keys dropped", migNames(dropKeys)))
	return ret, nil
}

// migCopyRepos is Salt's _copy_repository_to: the family's repository
// configuration copied under root with file.copy.
func migCopyRepos(c *statemod.Call, root string) error {
	srcs := map[string][]string{"Suse": {"/etc/zypp/repos.d"}, "RedHat": {"/etc/yum.conf", "/etc/yum.repos.d"}}
	for _, src := range srcs[osFamily(c)] {
		dst := filepath.Join(root, strings.TrimPrefix(src, "/"))
		if _, err := c.Salt("file.copy", nil, value.MapOf("src", src, "dst", dst, "recurse", true)); err != nil {
			return err
		}
	}
	return nil
}
