package modules

// sys_argspec.go is sys.runner_argspec and sys.returner_argspec of
// salt/modules/sysmod.py: the argument specs of brine's runner and
// returner functions, as Salt 3006 reports them for its own (the table
// sys_argspec.json was recorded from Salt 3006's runner_argspec and
// returner_argspec '*'; pgjsonb, which needs psycopg2 to load, from its
// signatures).

import (
	_ "embed"
	"encoding/json"
	"math"
	"sync"

	"brine/internal/catalog"
	"brine/internal/execmod"
	"brine/internal/value"
)

//go:embed sys_argspec.json
var sysArgspecJSON []byte

func init() {
	execmod.Register("sys.runner_argspec", sysCatalogArgspec(catalog.Runners),
		"Return the argument specs (Salt 3006's signatures) of the runner functions of module (a name, or a glob with '*' or '.').")
	execmod.Register("sys.returner_argspec", sysCatalogArgspec(catalog.Returners),
		"Return the argument specs (Salt 3006's signatures) of the returner functions of module (a name, or a glob with '*' or '.').")
}

// pySpec is one function's argspec as Salt reports it.
type pySpec struct {
	Args     []string `json:"args"`
	Defaults []any    `json:"defaults"`
	Varargs  *bool    `json:"varargs"`
	Kwargs   *bool    `json:"kwargs"`
}

var sysCatalogSpecs = sync.OnceValue(func() map[string]map[string]pySpec {
	var out map[string]map[string]pySpec
	if err := json.Unmarshal(sysArgspecJSON, &out); err != nil {
		panic("modules: sys_argspec.json: " + err.Error())
	}
	return out
})

// sysCatalogSpec returns the Salt 3006 argspec of the function name of
// kind (catalog.Runners or catalog.Returners).
func sysCatalogSpec(kind, name string) (pySpec, bool) {
	s, ok := sysCatalogSpecs()[kind][name]
	return s, ok
}

// specValue is the spec as argspec_report gives it: args a list,
// defaults a tuple, varargs and kwargs True, each None when empty.
func (s pySpec) specValue() *value.Map {
	var args, defaults, varargs, kwargs any
	if len(s.Args) > 0 {
		l := value.NewList()
		for _, a := range s.Args {
			l.Append(a)
		}
		args = l
	}
	if len(s.Defaults) > 0 {
		d := make(value.Tuple, len(s.Defaults))
		for i, x := range s.Defaults {
			switch y := x.(type) {
			case float64:
				if y == math.Trunc(y) {
					d[i] = int64(y)
				} else {
					d[i] = y
				}
			case []any:
				d[i] = value.Tuple{} // the one such default is arg=()
			default:
				d[i] = y
			}
		}
		defaults = d
	}
	if s.Varargs != nil && *s.Varargs {
		varargs = true
	}
	if s.Kwargs != nil && *s.Kwargs {
		kwargs = true
	}
	return value.MapOf("args", args, "defaults", defaults, "varargs", varargs, "kwargs", kwargs)
}

// sysCatalogArgspec is runner_argspec and returner_argspec over the
// functions brine has of kind that Salt 3006 has too.
func sysCatalogArgspec(kind string) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(kind+"_argspec", args, kwargs, execmod.Opt("module", ""))
		if err != nil {
			return nil, err
		}
		out := value.NewMap(0)
		for _, n := range sysArgSelect(catalog.Lookup(kind).Names(), execmod.String(v[0])) {
			if s, ok := sysCatalogSpec(kind, n); ok {
				out.Set(n, s.specValue())
			}
		}
		return out, nil
	}
}
