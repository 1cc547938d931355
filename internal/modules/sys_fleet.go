package modules

// sys_fleet.go is the part of salt/modules/sysmod.py that lists runner
// and returner functions: sys.list_runners, list_runner_functions,
// runner_doc, list_returners, list_returner_functions and returner_doc,
// over brine's runner and returner registries (internal/fleet, read
// through internal/catalog).

import (
	"strings"

	"brine/internal/catalog"
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("sys.list_runners", sysCatalogModules(catalog.Runners), "List the runner modules (those named, or matching globs; all when none).")
	execmod.Register("sys.list_runner_functions", sysCatalogFunctions(catalog.Runners), "List the runner functions of the modules named (or matching globs; all when none).")
	execmod.Register("sys.runner_doc", sysCatalogDoc(catalog.Runners, true), "Return the docs of the runner functions of the modules or functions named (or matching globs; all when none).")
	execmod.Register("sys.list_returners", sysCatalogModules(catalog.Returners), "List the returners (those named, or matching globs; all when none).")
	execmod.Register("sys.list_returner_functions", sysCatalogFunctions(catalog.Returners), "List the functions of the returners named (or matching globs; all when none).")
	execmod.Register("sys.returner_doc", sysCatalogDoc(catalog.Returners, false), "Return the docs of the returner functions of the returners or functions named (all when none; as in Salt, globs select nothing).")
}

// sysCatalogModules is list_runners and list_returners: the modules of the
// catalog's functions.
func sysCatalogModules(kind string) execmod.Func {
	return func(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
		return strList(sysModulesOf(catalog.Lookup(kind).Names(), args)), nil
	}
}

// sysCatalogFunctions is list_runner_functions and list_returner_functions
// (extra keyword arguments are ignored, as in Salt).
func sysCatalogFunctions(kind string) execmod.Func {
	return func(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
		return strList(sysSelect(catalog.Lookup(kind).Names(), args)), nil
	}
}

// sysCatalogDoc is runner_doc (glob selects by pattern) and returner_doc
// (Salt matches a pattern with '*' by prefix there too, so it selects
// nothing but a name with a literal '*').
func sysCatalogDoc(kind string, glob bool) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if _, _, err := execmod.Bind(kind+"_doc", nil, kwargs); err != nil {
			return nil, err
		}
		cat := catalog.Lookup(kind)
		names := cat.Names()
		if !glob && len(args) > 0 {
			names, args = sysPrefixOnly(names, args), nil
		}
		out := value.NewMap(0)
		for _, n := range sysDocFuns(names, args) {
			out.Set(n, cat.Doc(n))
		}
		return out, nil
	}
}

// sysPrefixOnly selects names as returner_doc does for every argument:
// the name itself, or the names starting with "arg." ("arg" when it ends
// with a dot, or has a '*').
func sysPrefixOnly(names []string, args []any) []string {
	var out []string
	for _, n := range names {
		for _, a := range args {
			pat := execmod.String(a)
			target := pat
			if pat != "" && !strings.Contains(pat, "*") && !strings.HasSuffix(pat, ".") {
				target = pat + "."
			}
			if n == pat || strings.HasPrefix(n, target) {
				out = append(out, n)
				break
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}
