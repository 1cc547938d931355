package execmod

import (
	"fmt"
	"strings"

	"brine/internal/value"
)

// Param describes one parameter of an execution function, for Bind.
type Param struct {
	Name     string
	Default  any
	Required bool
}

// Req is a required parameter.
func Req(name string) Param { return Param{Name: name, Required: true} }

// Opt is an optional parameter with a default.
func Opt(name string, def any) Param { return Param{Name: name, Default: def} }

// Bind matches args and kwargs to params the way Python binds a call:
// positional arguments fill params in order, keyword arguments by name.
// It returns one value per param and the keyword arguments left over (the
// function's **kwargs; Salt's __pub_* keys are dropped from them). Too many
// positional arguments, a parameter given twice or a missing required one is
// an *InvocationError naming fun.
func Bind(fun string, args []any, kwargs *value.Map, params ...Param) ([]any, *value.Map, error) {
	vals := make([]any, len(params))
	set := make([]bool, len(params))
	if len(args) > len(params) {
		return nil, nil, &InvocationError{Msg: fmt.Sprintf("%s() takes at most %d positional arguments but %d were given", fun, len(params), len(args))}
	}
	for i, a := range args {
		vals[i], set[i] = a, true
	}
	rest := value.NewMap(0)
	var err error
	kwargs.Range(func(k, v any) bool {
		ks, _ := k.(string)
		for i, p := range params {
			if p.Name == ks {
				if set[i] {
					err = &InvocationError{Msg: fmt.Sprintf("%s() got multiple values for argument '%s'", fun, ks)}
					return false
				}
				vals[i], set[i] = v, true
				return true
			}
		}
		if !strings.HasPrefix(ks, "__pub_") {
			rest.Set(k, v)
		}
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	for i, p := range params {
		if set[i] {
			continue
		}
		if p.Required {
			return nil, nil, &InvocationError{Msg: fmt.Sprintf("%s() missing required argument: '%s'", fun, p.Name)}
		}
		vals[i] = p.Default
	}
	return vals, rest, nil
}

// String returns v as a string the way Salt modules usually coerce a
// parameter: strings as is, nil as "", anything else by Python's str().
func String(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return value.Str(v)
}
