package modules

// match.go is salt/modules/match.py: the minion's matchers (internal/match)
// callable from templates and the command line, and filter_by, search_by
// and ifelse over them.

import (
	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	for _, m := range []struct{ name, matcher, doc string }{
		{"compound", "compound", "True when the compound target selects this minion (or minion_id)."},
		{"glob", "glob", "True when the glob matches the minion id (or minion_id)."},
		{"pcre", "pcre", "True when the regular expression matches the minion id (or minion_id)."},
		{"list", "list", "True when the minion id (or minion_id) is in the comma-separated list."},
	} {
		execmod.Register("match."+m.name, matchByID(m.matcher), m.doc)
	}
	for _, m := range []struct{ name, doc string }{
		{"grain", "True when the grain target (key:glob) matches this minion."},
		{"grain_pcre", "True when the grain target (key:regex) matches this minion."},
		{"pillar", "True when the pillar target (key:glob) matches this minion."},
		{"pillar_pcre", "True when the pillar target (key:regex) matches this minion."},
	} {
		execmod.Register("match."+m.name, matchDelim(m.name), m.doc)
	}
	execmod.Register("match.ipcidr", matchSimple("ipcidr"), "True when the address or subnet matches an address of this minion.")
	execmod.Register("match.data", matchSimple("data"), "True when the data store target (key:glob) matches.")
	execmod.Register("match.filter_by", matchFilterBy, "Return the lookup value of the first key that targets this minion (else lookup[default]), merged with merge.")
	execmod.Register("match.search_by", matchSearchBy, "Return the lookup keys one of whose targets selects this minion (None when none).")
	execmod.Register("match.ifelse", matchIfelse, "Return the value after the first target that selects this minion, else the last argument.")
}

// matchContext describes this minion (minion_id replacing its id).
func matchContext(ctx *execmod.Context, minionID any) *match.Context {
	id, _ := ctx.Opts.GetString("id")
	if minionID != nil {
		id = value.Str(minionID)
	}
	ng, _ := ctx.Opts.GetString("nodegroups")
	ngm, _ := ng.(*value.Map)
	return &match.Context{ID: execmod.String(id), Grains: ctx.Grains, Pillar: ctx.Pillar, Nodegroups: ngm,
		Data: func(k string) (any, bool) { return loadDatastore(ctx).Get(k) }}
}

func runMatcher(ctx *execmod.Context, kind string, tgt, minionID any, delim string) bool {
	m, ok := match.Lookup(kind)
	return ok && m.Match(matchContext(ctx, minionID), tgt, delim)
}

func matchByID(kind string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(kind, args, kwargs, execmod.Req("tgt"), execmod.Opt("minion_id", nil))
		if err != nil {
			return nil, err
		}
		return runMatcher(ctx, kind, v[0], v[1], match.DefaultDelim), nil
	}
}

func matchDelim(kind string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(kind, args, kwargs, execmod.Req("tgt"), execmod.Opt("delimiter", match.DefaultDelim))
		if err != nil {
			return nil, err
		}
		return runMatcher(ctx, kind, v[0], nil, value.Str(v[1])), nil
	}
}

func matchSimple(kind string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(kind, args, kwargs, execmod.Req("tgt"))
		if err != nil {
			return nil, err
		}
		return runMatcher(ctx, kind, v[0], nil, match.DefaultDelim), nil
	}
}

// matchExpr is filter_by's expr_funcs[tgt_type](key[, minion_id]): the
// module's own function named tgt_type with minion_id as its second
// positional argument (a delimiter for the grain and pillar ones, as in
// Salt).
func matchExpr(ctx *execmod.Context, tgtType string, key, minionID any) (bool, error) {
	names := map[string]string{"compound": "compound", "glob": "glob", "pcre": "pcre", "list_": "list", "grain": "grain",
		"grain_pcre": "grain_pcre", "pillar": "pillar", "pillar_pcre": "pillar_pcre", "ipcidr": "ipcidr", "data": "data"}
	fun, ok := names[tgtType]
	if !ok {
		return false, execmod.Errorf("'%s'", tgtType)
	}
	args := []any{key}
	if value.Truthy(minionID) {
		args = append(args, minionID)
	}
	r, err := ctx.Call("match."+fun, args, nil)
	if err != nil {
		return false, err
	}
	return r == true, nil
}

func matchFilterBy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("filter_by", args, kwargs, execmod.Req("lookup"), execmod.Opt("tgt_type", "compound"),
		execmod.Opt("minion_id", nil), execmod.Opt("merge", nil), execmod.Opt("merge_lists", false), execmod.Opt("default", "default"))
	if err != nil {
		return nil, err
	}
	lookup, ok := v[0].(*value.Map)
	if !ok {
		return nil, execmod.Errorf("lookup must be a dictionary")
	}
	return filterBy(ctx, lookup, value.Str(v[1]), v[2], v[3], value.Truthy(v[4]), v[5])
}

func filterBy(ctx *execmod.Context, lookup *value.Map, tgtType string, minionID, merge any, mergeLists bool, def any) (any, error) {
	for _, key := range lookup.Keys() {
		ok, err := matchExpr(ctx, tgtType, key, minionID)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		val, _ := lookup.Get(key)
		if value.Truthy(merge) {
			mm, isMap := merge.(*value.Map)
			if !isMap {
				return nil, execmod.Errorf("filter_by merge argument must be a dictionary.")
			}
			if val == nil {
				return merge, nil
			}
			if vm, ok := val.(*value.Map); ok {
				value.Update(vm, value.DeepCopy(mm).(*value.Map), mergeLists)
			}
		}
		return val, nil
	}
	val, _ := lookup.Get(def)
	return val, nil
}

func matchSearchBy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("search_by", args, kwargs, execmod.Req("lookup"), execmod.Opt("tgt_type", "compound"), execmod.Opt("minion_id", nil))
	if err != nil {
		return nil, err
	}
	lookup, ok := v[0].(*value.Map)
	if !ok {
		return nil, execmod.Errorf("lookup must be a dictionary")
	}
	out := value.NewList()
	for _, key := range lookup.Keys() {
		targets, _ := lookup.Get(key)
		var tl []any
		switch x := targets.(type) {
		case *value.List:
			tl = x.Items
		case string:
			for _, c := range x {
				tl = append(tl, string(c))
			}
		}
		for _, tgt := range tl {
			ok, err := matchExpr(ctx, value.Str(v[1]), tgt, v[2])
			if err != nil {
				return nil, err
			}
			if ok {
				out.Append(key)
			}
		}
	}
	if out.Len() == 0 {
		return nil, nil
	}
	return out, nil
}

func matchIfelse(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, rest, err := execmod.Bind("ifelse", nil, kwargs, execmod.Opt("tgt_type", "compound"), execmod.Opt("minion_id", nil),
		execmod.Opt("merge", nil), execmod.Opt("merge_lists", false))
	if err != nil {
		return nil, err
	}
	if rest.Len() > 0 {
		return nil, &execmod.InvocationError{Msg: "ifelse() got an unexpected keyword argument '" + value.Str(rest.Keys()[0]) + "'"}
	}
	opt := func(k string, def any) any {
		if x, ok := kwargs.GetString(k); ok {
			return x
		}
		return def
	}
	if len(args)%2 == 0 {
		return nil, execmod.Errorf("The ifelse function must have an odd number of arguments!")
	}
	if len(args) == 1 {
		return args[0], nil
	}
	const defKey = "SALT_IFELSE_FUNCTION_DEFAULT"
	lookup := value.NewMap(0)
	for i := 0; i+1 < len(args); i += 2 {
		k := args[i]
		switch k {
		case true:
			k = "*"
		case false:
			k = "SALT_IFELSE_MATCH_NOTHING"
		}
		lookup.Set(k, args[i+1])
	}
	lookup.Set(defKey, args[len(args)-1])
	return filterBy(ctx, lookup, value.Str(opt("tgt_type", "compound")), opt("minion_id", nil), opt("merge", nil),
		value.Truthy(opt("merge_lists", false)), defKey)
}
