package modules

// environ.go is salt/modules/environ.py: the minion process's
// environment (setting shares internal/system/procenv with environ.setenv;
// permanent is a Windows registry option and has no effect here, as in
// Salt on Linux).

import (
	"os"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/procenv"
	"brine/internal/value"
)

func init() {
	execmod.Register("environ.get", environGet, "Return the environment variable key, default '' (environ.get key default=x).")
	execmod.Register("environ.has_value", environHasValue, "True when key is in the environment (and equals value when given).")
	execmod.Register("environ.item", environItem, "Return a mapping of the named environment variables (keys: a name or a list).")
	execmod.Register("environ.items", environItems, "Return the whole environment as a mapping.")
	execmod.Register("environ.setval", environSetval, "Set key to val (False: '' or, with false_unsets, unset); the value, None when unset, False when refused.")
	execmod.Register("environ.setenv", environSetenv, "Set several variables from a mapping (clear_all: unset the others); {key: setval's result}, False for a bad value.")
}

func environSetval(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("setval", args, kwargs, execmod.Req("key"), execmod.Req("val"), execmod.Opt("false_unsets", false), execmod.Opt("permanent", false))
	if err != nil {
		return nil, err
	}
	return procenv.Setval(value.Str(v[0]), v[1], v[2] == true), nil
}

func environSetenv(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("setenv", args, kwargs, execmod.Req("environ"), execmod.Opt("false_unsets", false),
		execmod.Opt("clear_all", false), execmod.Opt("update_minion", false), execmod.Opt("permanent", false))
	if err != nil {
		return nil, err
	}
	environ, ok := v[0].(*value.Map)
	if !ok {
		return false, nil
	}
	falseUnsets := v[1] == true
	ret := value.NewMap(0)
	if v[2] == true {
		for _, k := range procenv.Names() {
			if _, keep := environ.Get(k); !keep {
				ret.Set(k, procenv.Setval(k, false, falseUnsets))
			}
		}
	}
	bad := false
	environ.Range(func(k, val any) bool {
		switch val.(type) {
		case string, bool:
			if val == true {
				bad = true
				return false
			}
			ret.Set(k, procenv.Setval(value.Str(k), val, falseUnsets))
			return true
		}
		bad = true
		return false
	})
	if bad {
		return false, nil
	}
	if v[3] == true {
		data := value.MapOf("environ", environ, "false_unsets", v[1], "clear_all", v[2], "permanent", v[4])
		if _, err := ctx.Call("event.fire", []any{data, "environ_setenv"}, nil); err != nil {
			return nil, err
		}
	}
	return ret, nil
}

func environGet(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs, execmod.Req("key"), execmod.Opt("default", ""))
	if err != nil {
		return nil, err
	}
	key, ok := v[0].(string)
	if !ok {
		return false, nil
	}
	if s, ok := os.LookupEnv(key); ok {
		return s, nil
	}
	return v[1], nil
}

func environHasValue(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("has_value", args, kwargs, execmod.Req("key"), execmod.Opt("value", nil))
	if err != nil {
		return nil, err
	}
	key, ok := v[0].(string)
	if !ok {
		return false, nil
	}
	cur, ok := os.LookupEnv(key)
	if !ok {
		return false, nil
	}
	if v[1] != nil {
		return value.Equal(cur, v[1]), nil
	}
	return true, nil
}

func environItem(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("item", args, kwargs, execmod.Req("keys"), execmod.Opt("default", ""))
	if err != nil {
		return nil, err
	}
	var keys []any
	switch k := v[0].(type) {
	case string:
		keys = []any{k}
	case *value.List:
		keys = k.Items
	}
	out := value.NewMap(len(keys))
	for _, k := range keys {
		if s, ok := os.LookupEnv(execmod.String(k)); ok {
			out.Set(k, s)
		} else {
			out.Set(k, v[1])
		}
	}
	return out, nil
}

func environItems(*execmod.Context, []any, *value.Map) (any, error) {
	env := os.Environ()
	sort.Strings(env)
	out := value.NewMap(len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		out.Set(k, v)
	}
	return out, nil
}
