package execmod

import (
	"strings"

	"brine/internal/saltspec"
	"brine/internal/value"
)

// CheckKwargs refuses keyword arguments that Salt 3006's minion refuses
// before calling the function (load_args_and_kwargs): one neither named
// by the function's signature nor taken by its **kwargs. Only brine's own
// implementations of Salt's functions are checked (a Python extension
// overriding one has its own signature); the error is Salt's
// SaltInvocationError text, "The following keyword arguments are not
// valid: k=v, ...".
func CheckKwargs(reg *Registry, fun string, kwargs *value.Map) error {
	if kwargs == nil || kwargs.Len() == 0 || reg == nil {
		return nil
	}
	if e := reg.Entry(fun); e == nil || e != Default.Entry(fun) {
		return nil
	}
	keys := make([]string, 0, kwargs.Len())
	kwargs.Range(func(k, _ any) bool {
		if s, ok := k.(string); ok {
			keys = append(keys, s)
		}
		return true
	})
	bad := saltspec.InvalidKwargs(fun, keys)
	if len(bad) == 0 {
		return nil
	}
	kv := make([]string, len(bad))
	for i, k := range bad {
		v, _ := kwargs.Get(k)
		kv[i] = k + "=" + value.Str(v)
	}
	return &InvocationError{Msg: "The following keyword arguments are not valid: " + strings.Join(kv, ", ")}
}
