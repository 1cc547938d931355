package modules

// environ.go is salt/modules/environ.py (the reading half): the minion
// process's environment.

import (
	"os"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("environ.get", environGet, "Return the environment variable key, default '' (environ.get key default=x).")
	execmod.Register("environ.has_value", environHasValue, "True when key is in the environment (and equals value when given).")
	execmod.Register("environ.item", environItem, "Return a mapping of the named environment variables (keys: a name or a list).")
	execmod.Register("environ.items", environItems, "Return the whole environment as a mapping.")
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
