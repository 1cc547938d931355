package modules

// sys.go is salt/modules/sysmod.py: what the minion can run.

import (
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	execmod.Register("sys.doc", sysDoc, "Return the docs of the functions matching the arguments (module names or globs).")
	execmod.Register("sys.list_functions", sysListFunctions, "List the functions of the modules named (or globs); all when none.")
	execmod.Register("sys.list_modules", sysListModules, "List the execution modules (optionally matching a glob).")
}

func registry(ctx *execmod.Context) *execmod.Registry {
	if ctx.Registry == nil {
		return execmod.Default
	}
	return ctx.Registry
}

// matchFuns returns the function names matching any pattern as sysmod
// does: a bare module name means its functions; otherwise a glob.
func matchFuns(reg *execmod.Registry, args []any) []string {
	names := reg.Names()
	if len(args) == 0 {
		return names
	}
	var out []string
	seen := map[string]bool{}
	for _, a := range args {
		pat := execmod.String(a)
		for _, n := range names {
			ok := false
			switch {
			case match.IsGlob(pat):
				ok = match.Fnmatch(n, pat)
			case strings.HasSuffix(pat, "."):
				ok = strings.HasPrefix(n, pat)
			default:
				ok = n == pat || strings.HasPrefix(n, pat+".")
			}
			if ok && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

func sysDoc(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	reg := registry(ctx)
	out := value.NewMap(0)
	for _, n := range matchFuns(reg, args) {
		out.Set(n, reg.Entry(n).Doc)
	}
	return out, nil
}

func sysListFunctions(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	l := value.NewList()
	for _, n := range matchFuns(registry(ctx), args) {
		l.Append(n)
	}
	return l, nil
}

func sysListModules(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	pat := "*"
	if len(args) > 0 {
		pat = execmod.String(args[0])
	}
	seen := map[string]bool{}
	var mods []string
	for _, n := range registry(ctx).Names() {
		mod, _, _ := strings.Cut(n, ".")
		if !seen[mod] && match.Fnmatch(mod, pat) {
			seen[mod] = true
			mods = append(mods, mod)
		}
	}
	l := value.NewList()
	for _, m := range mods {
		l.Append(m)
	}
	return l, nil
}
