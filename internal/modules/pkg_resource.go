package modules

// pkg_resource.go is salt/modules/pkg_resource.py: the helpers the pkg
// modules and states share (target parsing, version lists, comparisons).
// The functions Salt documents as changing their argument in place
// (add_pkg, sort_pkglist, stringify) change the mapping given and return
// None, so a template sees the change as in Salt.

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	for name, f := range map[string]struct {
		fn  execmod.Func
		doc string
	}{
		"pack_sources":             {pkgResPackSources, "Pack a list of one-key mappings (or its YAML) into one mapping, names normalised (normalize=True); {} on bad input."},
		"parse_targets":            {pkgResParseTargets, "Return [targets, 'repository'|'file'|'advisory'] for name/pkgs/sources (version=, saltenv=, normalize=), [None, None] without targets."},
		"version":                  {pkgResVersion, "Return the installed version(s) of the names (globs allowed) from pkg.list_pkgs (versions_as_list=False)."},
		"add_pkg":                  {pkgResAddPkg, "Append pkgver to pkgs[name] (a list), in place; None."},
		"sort_pkglist":             {pkgResSortPkglist, "Sort and de-duplicate each version list of pkgs, in place; None."},
		"stringify":                {pkgResStringify, "Join each version list of pkgs with commas, in place; None."},
		"version_clean":            {pkgResVersionClean, "Return verstr cleaned by pkg.version_clean where the pkg module has one, else unchanged."},
		"version_compare":          {pkgResVersionCompare, "Compare ver1 and ver2 with oper (==, !=, >=, <=, >, <) as Salt's LooseVersion fallback does (ignore_epoch=False)."},
		"check_extra_requirements": {pkgResCheckExtra, "Return pkg.check_extra_requirements(pkgname, pkgver) where the pkg module has it, else True."},
		"format_pkg_list":          {pkgResFormatPkgList, "Format {name: [{'epoch', 'version', 'release', ...}]} as list_pkgs returns it (versions_as_list, attr)."},
		"format_version":           {pkgResFormatVersion, "Return epoch:version-release (without the empty parts)."},
	} {
		execmod.Register("pkg_resource."+name, f.fn, f.doc)
	}
}

// normalizeFunc is pkg.normalize_name where the pkg module has one (and it
// works on this minion), else the identity.
func normalizeFunc(ctx *execmod.Context, normalize bool) func(string) any {
	return func(name string) any {
		if normalize {
			if _, ok := ctx.Lookup("pkg.normalize_name"); ok {
				if n, err := ctx.Call("pkg.normalize_name", []any{name}, nil); err == nil {
					return n
				}
			}
		}
		return name
	}
}

func pkgLoadIfString(v any) any {
	if s, ok := v.(string); ok {
		parsed, err := yamlload.SafeLoad([]byte(s), "<string>")
		if err != nil {
			return nil
		}
		return parsed
	}
	return v
}

func pkgResPackSources(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("pack_sources", args, kwargs, execmod.Req("sources"), execmod.Opt("normalize", true))
	if err != nil {
		return nil, err
	}
	return packSources(ctx, v[0], value.Truthy(v[1])), nil
}

func packSources(ctx *execmod.Context, sources any, normalize bool) *value.Map {
	norm := normalizeFunc(ctx, normalize)
	ret := value.NewMap(0)
	l, ok := pkgLoadIfString(sources).(*value.List)
	if !ok {
		return ret
	}
	for _, s := range l.Items {
		m, ok := s.(*value.Map)
		if !ok || m.Len() != 1 {
			return value.NewMap(0)
		}
		k, val := m.At(0)
		ret.Set(norm(execmod.String(k)), val)
	}
	return ret
}

// repackDictlist is salt.utils.data.repack_dictlist: a list of names and
// one-key mappings (or its YAML) as one mapping; {} on bad input.
func repackDictlist(data any) *value.Map {
	ret := value.NewMap(0)
	l, ok := pkgLoadIfString(data).(*value.List)
	if !ok {
		return ret
	}
	for _, e := range l.Items {
		switch x := e.(type) {
		case string, int64, float64, bool:
			ret.Set(x, nil)
		case *value.Map:
			if x.Len() != 1 {
				return value.NewMap(0)
			}
			k, val := x.At(0)
			ret.Set(k, val)
		default:
			return value.NewMap(0)
		}
	}
	return ret
}

// pkgPyLen is len() of a list, mapping or string.
func pkgPyLen(v any) int {
	switch x := v.(type) {
	case *value.List:
		return x.Len()
	case *value.Map:
		return x.Len()
	case string:
		return len([]rune(x))
	}
	return 0
}

func pkgResParseTargets(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("parse_targets", args, kwargs, execmod.Opt("name", nil), execmod.Opt("pkgs", nil), execmod.Opt("sources", nil),
		execmod.Opt("saltenv", "base"), execmod.Opt("normalize", true))
	if err != nil {
		return nil, err
	}
	name, pkgs, sources, saltenv, normalize := v[0], v[1], v[2], v[3], value.Truthy(v[4])
	version := mapGet(kw, "version")
	none := value.NewList(nil, nil)
	advisory, hasAdvisory := kw.GetString("advisory_ids")
	switch {
	case value.Truthy(pkgs) && value.Truthy(sources):
		slog.Error(`Only one of "pkgs" and "sources" can be used.`)
		return none, nil
	case hasAdvisory:
		if value.Truthy(pkgs) {
			slog.Error(`Cannot use "advisory_ids" and "pkgs" at the same time`)
			return none, nil
		}
		if value.Truthy(advisory) {
			return value.NewList(advisory, "advisory"), nil
		}
		return value.NewList(value.NewList(name), "advisory"), nil
	case value.Truthy(pkgs):
		norm := normalizeFunc(ctx, normalize)
		packed := value.NewMap(0)
		repackDictlist(pkgs).Range(func(k, val any) bool {
			if val != nil {
				val = execmod.String(val)
			}
			packed.Set(norm(execmod.String(k)), val)
			return true
		})
		if pkgPyLen(pkgs) != packed.Len() {
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("You are passing a list of packages that contains duplicated packages names: %s. "+
				"This cannot be processed. In case you are targeting different versions of the same package, please target them individually", value.Repr(pkgs))}
		}
		if packed.Len() == 0 {
			return none, nil
		}
		return value.NewList(packed, "repository"), nil
	case value.Truthy(sources) && execmod.String(ctxGrain(ctx, "os")) != "MacOS":
		packed := packSources(ctx, sources, normalize)
		if packed.Len() == 0 {
			return none, nil
		}
		info := value.NewList()
		for _, k := range packed.Keys() {
			src, _ := packed.Get(k)
			ok, err := ctx.Call("config.valid_fileproto", []any{src}, nil)
			if err != nil {
				return nil, err
			}
			if value.Truthy(ok) {
				cached, err := ctx.Call("cp.cache_file", []any{src, saltenv}, nil)
				if err != nil {
					return nil, err
				}
				info.Append(cached)
				continue
			}
			if !filepath.IsAbs(execmod.String(src)) {
				return nil, &execmod.InvocationError{Msg: fmt.Sprintf("Path %s for package %s is either not absolute or an invalid protocol", execmod.String(src), execmod.String(k))}
			}
			info.Append(src)
		}
		return value.NewList(info, "file"), nil
	case value.Truthy(name):
		norm := normalizeFunc(ctx, normalize)
		packed := value.NewMap(0)
		for _, n := range strings.Split(execmod.String(name), ",") {
			packed.Set(norm(n), version)
		}
		return value.NewList(packed, "repository"), nil
	}
	slog.Error("No package sources provided")
	return none, nil
}

func pkgResVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, kw, err := execmod.Bind("version", nil, kwargs)
	if err != nil {
		return nil, err
	}
	asList := pkgIsTrue(popKwarg(kw, "versions_as_list"))
	ret := value.NewMap(0)
	glob := false
	if len(args) > 0 {
		kw.Set("versions_as_list", true)
		res, err := ctx.Call("pkg.list_pkgs", nil, kw)
		if err != nil {
			return nil, err
		}
		pkgs, _ := res.(*value.Map)
		if pkgs == nil {
			pkgs = value.NewMap(0)
		}
		for _, a := range args {
			name := execmod.String(a)
			if !strings.Contains(name, "*") {
				l, ok := pkgs.GetString(name)
				if !ok {
					l = value.NewList()
				}
				ret.Set(name, l)
				continue
			}
			glob = true
			for _, k := range pkgs.Keys() {
				if match.Fnmatch(value.Str(k), name) {
					l, _ := pkgs.Get(k)
					ret.Set(k, l)
				}
			}
		}
	}
	if !asList {
		if err := stringifyPkgs(ret); err != nil {
			return nil, err
		}
	}
	if ret.Len() == 1 && !glob {
		_, v := ret.At(0)
		return v, nil
	}
	return ret, nil
}

func pkgResAddPkg(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("add_pkg", args, kwargs, execmod.Req("pkgs"), execmod.Req("name"), execmod.Req("pkgver"))
	if err != nil {
		return nil, err
	}
	if m, ok := v[0].(*value.Map); ok {
		cur, ok := m.Get(v[1])
		if !ok {
			m.Set(v[1], value.NewList(v[2]))
		} else if l, ok := cur.(*value.List); ok {
			l.Append(v[2])
		}
	}
	return nil, nil
}

// pkgPyLess orders two scalars as Python's < does for same-typed values
// (numbers numerically, strings by code point).
func pkgPyLess(a, b any) (bool, error) {
	fa, aNum := pkgPyNumber(a)
	fb, bNum := pkgPyNumber(b)
	switch {
	case aNum && bNum:
		return fa < fb, nil
	case !aNum && !bNum:
		as, aok := a.(string)
		bs, bok := b.(string)
		if aok && bok {
			return as < bs, nil
		}
	}
	return false, &execmod.InvocationError{Msg: fmt.Sprintf("'<' not supported between instances of '%s' and '%s'", pkgPyType(a), pkgPyType(b))}
}

func pkgPyNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func pkgPyType(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case string:
		return "str"
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case *value.List:
		return "list"
	case *value.Map:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// pkgPyIter is iter(v) for sort_pkglist: a list's items, a string's
// characters, a mapping's keys.
func pkgPyIter(v any) ([]any, error) {
	switch x := v.(type) {
	case *value.List:
		return append([]any(nil), x.Items...), nil
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	case *value.Map:
		return x.Keys(), nil
	}
	return nil, &execmod.InvocationError{Msg: fmt.Sprintf("'%s' object is not iterable", pkgPyType(v))}
}

func pkgResSortPkglist(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("sort_pkglist", args, kwargs, execmod.Req("pkgs"))
	if err != nil {
		return nil, err
	}
	m, ok := v[0].(*value.Map)
	if !ok {
		if _, isList := v[0].(*value.List); isList {
			return nil, &execmod.InvocationError{Msg: "list indices must be integers or slices, not str"}
		}
		return nil, nil
	}
	for _, k := range m.Keys() {
		cur, _ := m.Get(k)
		items, err := pkgPyIter(cur)
		if err != nil {
			return nil, err
		}
		var uniq []any
		for _, it := range items {
			dup := false
			for _, u := range uniq {
				if value.Equal(u, it) {
					dup = true
					break
				}
			}
			if !dup {
				uniq = append(uniq, it)
			}
		}
		var sortErr error
		sort.SliceStable(uniq, func(i, j int) bool {
			less, err := pkgPyLess(uniq[i], uniq[j])
			if err != nil && sortErr == nil {
				sortErr = err
			}
			return less
		})
		if sortErr != nil {
			return nil, sortErr
		}
		m.Set(k, value.NewList(uniq...))
	}
	return nil, nil
}

// stringifyPkgs joins each version list of pkgs with commas, in place.
func stringifyPkgs(pkgs *value.Map) error {
	for _, k := range pkgs.Keys() {
		cur, _ := pkgs.Get(k)
		items, err := pkgPyIter(cur)
		if err != nil {
			return &execmod.InvocationError{Msg: "can only join an iterable"}
		}
		parts := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return &execmod.InvocationError{Msg: fmt.Sprintf("sequence item %d: expected str instance, %s found", i, pkgPyType(it))}
			}
			parts[i] = s
		}
		pkgs.Set(k, strings.Join(parts, ","))
	}
	return nil
}

func pkgResStringify(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("stringify", args, kwargs, execmod.Req("pkgs"))
	if err != nil {
		return nil, err
	}
	if m, ok := v[0].(*value.Map); ok {
		return nil, stringifyPkgs(m)
	}
	return nil, nil
}

func pkgResVersionClean(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("version_clean", args, kwargs, execmod.Req("verstr"))
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Lookup("pkg.version_clean"); ok && value.Truthy(v[0]) {
		return ctx.Call("pkg.version_clean", []any{v[0]}, nil)
	}
	return v[0], nil
}

func pkgResCheckExtra(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_extra_requirements", args, kwargs, execmod.Req("pkgname"), execmod.Req("pkgver"))
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Lookup("pkg.check_extra_requirements"); ok && value.Truthy(v[1]) {
		return ctx.Call("pkg.check_extra_requirements", []any{v[0], v[1]}, nil)
	}
	return true, nil
}

var looseComponentRE = regexp.MustCompile(`\d+|[a-z]+|\.`)

// looseParts splits a version as Python's LooseVersion does: runs of
// digits (ints), of lowercase letters, and whatever lies between them,
// without the dots.
func looseParts(v string) []any {
	var out []any
	add := func(s string) {
		if s == "" || s == "." {
			return
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && s[0] >= '0' && s[0] <= '9' {
			out = append(out, n)
			return
		}
		out = append(out, s)
	}
	last := 0
	for _, loc := range looseComponentRE.FindAllStringIndex(v, -1) {
		add(v[last:loc[0]])
		add(v[loc[0]:loc[1]])
		last = loc[1]
	}
	add(v[last:])
	return out
}

// looseCmp is salt.utils.versions.version_cmp: LooseVersion ordering,
// comparing zero-padded strings when either version has a letter part.
func looseCmp(a, b string, ignoreEpoch bool) int {
	if ignoreEpoch {
		if _, after, ok := strings.Cut(a, ":"); ok {
			a = after
		}
		if _, after, ok := strings.Cut(b, ":"); ok {
			b = after
		}
	}
	pa, pb := looseParts(a), looseParts(b)
	strMode := false
	for _, p := range append(append([]any(nil), pa...), pb...) {
		if _, ok := p.(string); ok {
			strMode = true
		}
	}
	n := len(pa)
	if len(pb) < n {
		n = len(pb)
	}
	for i := 0; i < n; i++ {
		var c int
		if strMode {
			c = strings.Compare(looseZfill8(pa[i]), looseZfill8(pb[i]))
		} else {
			x, y := pa[i].(int64), pb[i].(int64)
			switch {
			case x < y:
				c = -1
			case x > y:
				c = 1
			}
		}
		if c != 0 {
			return c
		}
	}
	switch {
	case len(pa) < len(pb):
		return -1
	case len(pa) > len(pb):
		return 1
	}
	return 0
}

func looseZfill8(p any) string {
	if n, ok := p.(int64); ok {
		s := strconv.FormatInt(n, 10)
		for len(s) < 8 {
			s = "0" + s
		}
		return s
	}
	return p.(string)
}

func pkgResVersionCompare(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("version_compare", args, kwargs, execmod.Req("ver1"), execmod.Req("oper"), execmod.Req("ver2"), execmod.Opt("ignore_epoch", false))
	if err != nil {
		return nil, err
	}
	oper := execmod.String(v[1])
	c := looseCmp(execmod.String(v[0]), execmod.String(v[2]), value.Truthy(v[3]))
	switch oper {
	case "<":
		return c == -1, nil
	case "<=":
		return c <= 0, nil
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case ">=":
		return c >= 0, nil
	case ">":
		return c == 1, nil
	}
	return false, nil
}

func pkgResFormatVersion(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("format_version", args, kwargs, execmod.Req("epoch"), execmod.Req("version"), execmod.Req("release"))
	if err != nil {
		return nil, err
	}
	return pkgFormatVersion(v[0], v[1], v[2]), nil
}

// pkgFormatVersion is format_version: the version itself when there is no
// epoch or release.
func pkgFormatVersion(epoch, version, release any) any {
	full := version
	if value.Truthy(epoch) {
		full = execmod.String(epoch) + ":" + execmod.String(version)
	}
	if value.Truthy(release) {
		full = execmod.String(full) + "-" + execmod.String(release)
	}
	return full
}

var pkgListAttrs = []string{"epoch", "version", "release", "arch", "install_date", "install_date_time_t"}

func pkgResFormatPkgList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("format_pkg_list", args, kwargs, execmod.Req("packages"), execmod.Req("versions_as_list"), execmod.Req("attr"))
	if err != nil {
		return nil, err
	}
	pkgs, ok := v[0].(*value.Map)
	if !ok {
		return nil, execmod.Errorf("'%s' object has no attribute 'items'", pkgPyType(v[0]))
	}
	pkgs = value.DeepCopy(pkgs).(*value.Map)
	if value.Truthy(v[2]) {
		want := map[string]bool{}
		for _, a := range pkgListAttrs {
			want[a] = true
		}
		if s, isStr := v[2].(string); !isStr || s != "all" {
			l, ok := v[2].(*value.List)
			if !ok {
				return nil, execmod.Errorf("can only concatenate %s (not \"list\") to %s", pkgPyType(v[2]), pkgPyType(v[2]))
			}
			req := map[string]bool{"version": true, "arch": true}
			for _, x := range l.Items {
				req[execmod.String(x)] = true
			}
			for a := range want {
				want[a] = req[a]
			}
		}
		ret := value.NewMap(0)
		for _, name := range pkgs.Keys() {
			sname := execmod.String(name)
			pname, parch := any(sname), any(nil)
			if _, ok := ctx.Lookup("pkg.parse_arch"); ok {
				if pa, err := ctx.Call("pkg.parse_arch", []any{sname}, nil); err == nil {
					pm, _ := pa.(*value.Map)
					pname, parch = mapGet(pm, "name"), mapGet(pm, "arch")
				}
			}
			versions := value.NewList()
			var pkgname any
			cur, _ := pkgs.Get(name)
			items, err := pkgPyIter(cur)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				all, _ := it.(*value.Map)
				filtered := value.NewMap(0)
				for _, a := range pkgListAttrs {
					if !want[a] || all == nil {
						continue
					}
					if x, ok := all.GetString(a); ok {
						filtered.Set(a, x)
					}
				}
				versions.Append(filtered)
				if value.Truthy(pname) && value.Equal(mapGet(filtered, "arch"), parch) {
					pkgname = pname
				}
			}
			key := name
			if value.Truthy(pkgname) {
				key = pkgname
			}
			l, ok := ret.Get(key)
			if !ok {
				l = value.NewList()
				ret.Set(key, l)
			}
			l.(*value.List).Append(versions.Items...)
		}
		return ret, nil
	}
	for _, name := range pkgs.Keys() {
		cur, _ := pkgs.Get(name)
		items, err := pkgPyIter(cur)
		if err != nil {
			return nil, err
		}
		out := value.NewList()
		for _, it := range items {
			d, _ := it.(*value.Map)
			if d == nil {
				return nil, execmod.Errorf("string indices must be integers")
			}
			out.Append(pkgFormatVersion(mapGet(d, "epoch"), mapGet(d, "version"), mapGet(d, "release")))
		}
		pkgs.Set(name, out)
	}
	if !value.Truthy(v[1]) {
		if err := stringifyPkgs(pkgs); err != nil {
			return nil, err
		}
	}
	return pkgs, nil
}
