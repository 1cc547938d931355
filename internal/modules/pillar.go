package modules

// pillar.go is salt/modules/pillar.py: pillar.items (pillar.data),
// pillar.item, pillar.raw, pillar.get (pillar.fetch), pillar.keys,
// pillar.ls, pillar.obfuscate, pillar.file_exists, pillar.filter_by.
//
// Fresh compiles go through the run's "pillar" service (see PillarService),
// which the command line attaches to the execmod.Context; without it the
// functions that compile report that pillar compilation is unavailable.

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"brine/internal/execmod"
	"brine/internal/value"
)

// PillarServiceName is the execmod.Context service name under which the
// run's pillar compiler is attached.
const PillarServiceName = "pillar"

// PillarService compiles pillar for pillar.items and friends. The pillar
// package's Service implements it.
type PillarService interface {
	// Compile compiles a fresh pillar for the minion: opts and grains of
	// the run, saltenv and pillarenv of the call ("" for none), the
	// command-line pillar (nil for none) and the in-memory pillar it is
	// merged over.
	Compile(opts, grains *value.Map, minionID, saltenv, pillarenv string, override, previous *value.Map) (*value.Map, error)
	// Decrypt runs the decryption renderer named renderer over data,
	// checking it against opts["decrypt_pillar_renderers"].
	Decrypt(opts *value.Map, data any, renderer string, translateNewlines bool) (any, error)
}

func init() {
	execmod.Register("pillar.items", pillarItems, "Compile a fresh pillar for this minion; with keys, like pillar.item.")
	execmod.Register("pillar.data", pillarItems, "Alias of pillar.items.")
	execmod.Register("pillar.item", pillarItem, "Return one or more pillar entries (a:b paths) from the in-memory pillar.")
	execmod.Register("pillar.raw", pillarRaw, "Return the in-memory pillar, or one top-level key of it.")
	execmod.Register("pillar.get", pillarGet, "Return a pillar value by a:b path, with default and merge.")
	execmod.Register("pillar.fetch", pillarGet, "Alias of pillar.get.")
	execmod.Register("pillar.keys", pillarKeys, "Return the keys of a nested pillar mapping.")
	execmod.Register("pillar.ls", pillarLs, "Return the top-level keys of a fresh pillar.")
	execmod.Register("pillar.obfuscate", pillarObfuscate, "Like pillar.items with every leaf replaced by its type name.")
	execmod.Register("pillar.file_exists", pillarFileExists, "Whether a path exists relative to pillar_roots.")
	execmod.Register("pillar.filter_by", pillarFilterBy, "Pick the entry of lookup_dict matching a pillar value, with merge, default and base.")
}

func pillarFilterBy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("filter_by", args, kwargs,
		execmod.Req("lookup_dict"), execmod.Req("pillar"), execmod.Opt("merge", nil),
		execmod.Opt("default", "default"), execmod.Opt("base", nil))
	if err != nil {
		return nil, err
	}
	lookup, ok := v[0].(*value.Map)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("filter_by lookup_dict must be a dictionary, not %s", value.TypeName(v[0]))}
	}
	p := ctx.Pillar
	if p == nil {
		p = value.NewMap(0)
	}
	return FilterBy(lookup, execmod.String(v[1]), p, v[2], v[3], v[4])
}

func pillarService(ctx *execmod.Context) (PillarService, error) {
	s, ok := ctx.Service(PillarServiceName).(PillarService)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: "Pillar compilation is not available in this run"}
	}
	return s, nil
}

// pillarFresh is items(saltenv=..., pillarenv=..., pillar=..., pillar_enc=...).
func pillarFresh(ctx *execmod.Context, kwargs *value.Map) (*value.Map, error) {
	svc, err := pillarService(ctx)
	if err != nil {
		return nil, err
	}
	opts := ctx.Opts
	if opts == nil {
		opts = value.NewMap(0)
	}
	pillarenv := ""
	if v, ok := kwargs.GetString("pillarenv"); ok && v != nil {
		pillarenv = execmod.String(v)
	} else if pillarOptTruthy(opts, "pillarenv_from_saltenv") {
		if v, _ := kwargs.GetString("saltenv"); value.Truthy(v) {
			pillarenv = execmod.String(v)
		} else {
			pillarenv = pillarOptStr(opts, "saltenv")
		}
	} else {
		pillarenv = pillarOptStr(opts, "pillarenv")
	}
	var override any
	if v, ok := kwargs.GetString("pillar"); ok {
		override = v
	}
	enc, _ := kwargs.GetString("pillar_enc")
	if value.Truthy(override) && value.Truthy(enc) {
		dec, err := svc.Decrypt(opts, override, execmod.String(enc), true)
		if err != nil {
			return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("Failed to decrypt pillar override: %s", err.Error())}
		}
		override = dec
	}
	om, isMap := override.(*value.Map)
	if !isMap && value.Truthy(override) {
		slog.Error("Pillar data must be a dictionary") // and it is ignored
	}
	id := pillarOptStr(opts, "id")
	return svc.Compile(opts, ctx.Grains, id, "", pillarenv, om, ctx.Pillar)
}

func pillarItems(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) > 0 {
		return pillarItem(ctx, args, value.NewMap(0))
	}
	return pillarFresh(ctx, kwargs)
}

// pillarSource is the in-memory pillar, or a fresh one when the call names
// a saltenv or pillarenv.
func pillarSource(ctx *execmod.Context, saltenv, pillarenv any) (*value.Map, error) {
	if saltenv == nil && pillarenv == nil {
		if ctx.Pillar == nil {
			return value.NewMap(0), nil
		}
		return ctx.Pillar, nil
	}
	kw := value.NewMap(2)
	kw.Set("saltenv", saltenv)
	if pillarenv != nil {
		kw.Set("pillarenv", pillarenv)
	}
	return pillarFresh(ctx, kw)
}

func pillarItem(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	def, ok := kwargs.GetString("default")
	if !ok {
		def = ""
	}
	delim := ":"
	if v, ok := kwargs.GetString("delimiter"); ok {
		delim = execmod.String(v)
	}
	se, _ := kwargs.GetString("saltenv")
	pe, _ := kwargs.GetString("pillarenv")
	p, err := pillarSource(ctx, se, pe)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(len(args))
	for _, a := range args {
		v, ok := value.Traverse(p, execmod.String(a), delim)
		if !ok {
			v = def
		}
		ret.Set(a, v)
	}
	return ret, nil
}

func pillarRaw(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("raw", args, kwargs, execmod.Opt("key", nil))
	if err != nil {
		return nil, err
	}
	p := ctx.Pillar
	if p == nil {
		p = value.NewMap(0)
	}
	if value.Truthy(vals[0]) {
		if !value.Hashable(vals[0]) {
			return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("unhashable type: '%s'", value.TypeName(vals[0]))}
		}
		if v, ok := p.Get(vals[0]); ok {
			return v, nil
		}
		return value.NewMap(0), nil
	}
	return p.Copy(), nil
}

var errNotSet = errors.New("not set")

func pillarGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("get", args, kwargs,
		execmod.Req("key"),
		execmod.Opt("default", errNotSet),
		execmod.Opt("merge", false),
		execmod.Opt("merge_nested_lists", nil),
		execmod.Opt("delimiter", ":"),
		execmod.Opt("pillarenv", nil),
		execmod.Opt("saltenv", nil),
	)
	if err != nil {
		return nil, err
	}
	key := execmod.String(vals[0])
	def := vals[1]
	opts := ctx.Opts
	if opts == nil {
		opts = value.NewMap(0)
	}
	missingIsError := false
	if def == errNotSet {
		if pillarOptTruthy(opts, "pillar_raise_on_missing") {
			missingIsError = true
		}
		def = ""
	}
	mergeLists := pillarOptTruthy(opts, "pillar_merge_lists")
	if vals[3] != nil {
		mergeLists = value.Truthy(vals[3])
	}
	delim := execmod.String(vals[4])
	p, err := pillarSource(ctx, vals[6], vals[5])
	if err != nil {
		return nil, err
	}
	if value.Truthy(vals[2]) {
		switch d := def.(type) {
		case *value.Map:
			if ret, ok := value.Traverse(p, key, delim); ok {
				if rm, ok := ret.(*value.Map); ok {
					return value.Update(value.DeepCopy(d).(*value.Map), rm, mergeLists), nil
				}
			} else {
				return value.DeepCopy(d), nil
			}
		case *value.List:
			if ret, ok := value.Traverse(p, key, delim); ok {
				if rl, ok := ret.(*value.List); ok {
					return value.MergeListsUnique(value.DeepCopy(d).(*value.List), rl), nil
				}
			} else {
				return value.DeepCopy(d), nil
			}
		}
	}
	ret, ok := value.Traverse(p, key, delim)
	if !ok {
		if missingIsError {
			return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("'Pillar key not found: %s'", key)}
		}
		return def, nil
	}
	return ret, nil
}

func pillarKeys(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("keys", args, kwargs, execmod.Req("key"), execmod.Opt("delimiter", ":"))
	if err != nil {
		return nil, err
	}
	key := execmod.String(vals[0])
	p := ctx.Pillar
	if p == nil {
		p = value.NewMap(0)
	}
	ret, ok := value.Traverse(p, key, execmod.String(vals[1]))
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("'Pillar key not found: %s'", key)}
	}
	m, ok := ret.(*value.Map)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("Pillar value in key %s is not a dict", key)}
	}
	return value.NewList(append([]any(nil), m.Keys()...)...), nil
}

func pillarLs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ret, err := pillarItems(ctx, args, value.NewMap(0))
	if err != nil {
		return nil, err
	}
	m, _ := ret.(*value.Map)
	return value.NewList(append([]any(nil), m.Keys()...)...), nil
}

func pillarObfuscate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ret, err := pillarItems(ctx, args, kwargs)
	if err != nil {
		return nil, err
	}
	return obfuscate(ret), nil
}

// obfuscate replaces every leaf by "<type name>", keeping keys and the
// shape of mappings, lists and tuples.
func obfuscate(v any) any {
	switch x := v.(type) {
	case *value.Map:
		out := value.NewMap(x.Len())
		x.Range(func(k, e any) bool { out.Set(k, obfuscate(e)); return true })
		return out
	case *value.List:
		out := value.NewList()
		for _, e := range x.Items {
			out.Append(obfuscate(e))
		}
		return out
	case value.Tuple:
		out := make(value.Tuple, len(x))
		for i, e := range x {
			out[i] = obfuscate(e)
		}
		return out
	}
	return "<" + value.TypeName(v) + ">"
}

func pillarFileExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("file_exists", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	opts := ctx.Opts
	if opts == nil {
		opts = value.NewMap(0)
	}
	rootsV, _ := opts.GetString("pillar_roots")
	roots, _ := rootsV.(*value.Map)
	if roots.Len() == 0 {
		return nil, &execmod.CommandExecutionError{Msg: "No pillar_roots found. Are you running this on the master?"}
	}
	if value.Truthy(vals[1]) {
		dirs, ok := roots.Get(vals[1])
		if !ok {
			return false, nil
		}
		roots = value.MapOf(vals[1], dirs)
	}
	path := execmod.String(vals[0])
	found := false
	roots.Range(func(_, dirs any) bool {
		var list []any
		switch d := dirs.(type) {
		case *value.List:
			list = d.Items
		case string:
			list = []any{d}
		}
		for _, dir := range list {
			full := path
			if !filepath.IsAbs(path) {
				full = filepath.Join(execmod.String(dir), path)
			}
			if st, err := os.Stat(full); err == nil && st.Mode().IsRegular() {
				found = true
				return false
			}
		}
		return true
	})
	return found, nil
}

func pillarOptStr(m *value.Map, k string) string {
	v, ok := m.GetString(k)
	if !ok || v == nil {
		return ""
	}
	return execmod.String(v)
}

func pillarOptTruthy(m *value.Map, k string) bool {
	v, _ := m.GetString(k)
	return value.Truthy(v)
}
