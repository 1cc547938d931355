package modules

// data.go is salt/modules/data.py: the minion's local data store,
// cachedir/datastore in MessagePack (read and written with mine.go's
// loadDatastore and dumpDatastore, which keep the local mine in it too).

import (
	"os"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	execmod.Register("data.clear", dataClear, "Delete the whole data store; True.")
	execmod.Register("data.load", dataLoad, "Return the whole data store.")
	execmod.Register("data.dump", dataDump, "Replace the data store with a dict (or the text of one); False when it is not a dict.")
	execmod.Register("data.update", dataUpdate, "Set key to value in the data store; True.")
	execmod.Register("data.cas", dataCas, "Set key to value only when it holds old_value; True when it was set.")
	execmod.Register("data.pop", dataPop, "Remove key from the data store and return its value (default when missing).")
	execmod.Register("data.get", dataGet, "Return the value of key (or the values of a list of keys) from the data store.")
	execmod.Register("data.keys", dataKeys, "Return the keys of the data store.")
	execmod.Register("data.values", dataValues, "Return the values of the data store.")
	execmod.Register("data.items", dataLoad, "Return the whole data store.")
	execmod.Register("data.has_key", dataHasKey, "True when key is in the data store.")
}

func dataClear(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("clear", args, kwargs); err != nil {
		return nil, err
	}
	if p, err := datastorePath(ctx); err == nil {
		os.Remove(p)
	}
	return true, nil
}

func dataLoad(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("load", args, kwargs); err != nil {
		return nil, err
	}
	return loadDatastore(ctx), nil
}

func dataDump(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("dump", args, kwargs, execmod.Req("new_data"))
	if err != nil {
		return nil, err
	}
	m, ok := v[0].(*value.Map)
	if !ok {
		// Salt evaluates a string as a Python literal; the flow mappings
		// of Python's literal syntax load the same as YAML.
		s, isStr := v[0].(string)
		if !isStr {
			return false, nil
		}
		d, err := yamlload.SafeLoad([]byte(s), "<new_data>")
		if m, ok = d.(*value.Map); !ok || err != nil {
			return false, nil
		}
	}
	return dumpDatastore(ctx, m) == nil, nil
}

func dataUpdate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("update", args, kwargs, execmod.Req("key"), execmod.Req("value"))
	if err != nil {
		return nil, err
	}
	store := loadDatastore(ctx)
	store.Set(v[0], v[1])
	dumpDatastore(ctx, store)
	return true, nil
}

func dataCas(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cas", args, kwargs, execmod.Req("key"), execmod.Req("value"), execmod.Req("old_value"))
	if err != nil {
		return nil, err
	}
	store := loadDatastore(ctx)
	cur, ok := store.Get(v[0])
	if !ok || !value.Equal(cur, v[2]) {
		return false, nil
	}
	store.Set(v[0], v[1])
	dumpDatastore(ctx, store)
	return true, nil
}

func dataPop(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("pop", args, kwargs, execmod.Req("key"), execmod.Opt("default", nil))
	if err != nil {
		return nil, err
	}
	store := loadDatastore(ctx)
	val, ok := store.Get(v[0])
	if !ok {
		val = v[1]
	}
	store.Delete(v[0])
	dumpDatastore(ctx, store)
	return val, nil
}

func dataGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs, execmod.Req("key"), execmod.Opt("default", nil))
	if err != nil {
		return nil, err
	}
	store := loadDatastore(ctx)
	keys, isList := v[0].(*value.List)
	if !isList {
		if val, ok := store.Get(v[0]); ok {
			return val, nil
		}
		return v[1], nil
	}
	out := value.NewList()
	for _, k := range keys.Items {
		val, ok := store.Get(k)
		switch {
		case ok:
			out.Append(val)
		case v[1] != nil:
			out.Append(v[1])
		}
	}
	return out, nil
}

func dataKeys(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("keys", args, kwargs); err != nil {
		return nil, err
	}
	out := value.NewList()
	loadDatastore(ctx).Range(func(k, _ any) bool {
		out.Append(k)
		return true
	})
	return out, nil
}

func dataValues(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("values", args, kwargs); err != nil {
		return nil, err
	}
	out := value.NewList()
	loadDatastore(ctx).Range(func(_, v any) bool {
		out.Append(v)
		return true
	})
	return out, nil
}

func dataHasKey(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("has_key", args, kwargs, execmod.Req("key"))
	if err != nil {
		return nil, err
	}
	_, ok := loadDatastore(ctx).Get(v[0])
	return ok, nil
}
