package modules

// sys.go is salt/modules/sysmod.py: what the minion can run.

import (
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/render"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	execmod.Register("sys.doc", sysDoc, "Return the docs of the functions matching the arguments (module names or globs).")
	execmod.Register("sys.list_functions", sysListFunctions, "List the functions of the modules named (or globs); all when none.")
	execmod.Register("sys.list_modules", sysListModules, "List the execution modules (optionally matching a glob).")
	execmod.Register("sys.list_state_functions", sysListStateFunctions, "List the state functions of the state modules named (or globs); all when none.")
	execmod.Register("sys.list_state_modules", sysListStateModules, "List the state modules (optionally those named or matching globs).")
	execmod.Register("sys.list_renderers", sysListRenderers, "List the renderers (optionally those matching globs).")
	execmod.Register("sys.state_doc", sysStateDoc, "Return the docs of the state functions matching the arguments (module names, functions or globs).")
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

// stateFuns returns the state function names matching any pattern as
// sysmod's list_state_functions does: with "*" or "." a glob, else a
// module name.
func stateFuns(args []any) []string {
	names := statemod.Default.Names()
	if len(args) == 0 {
		return names
	}
	seen := map[string]bool{}
	var out []string
	for _, a := range args {
		pat := execmod.String(a)
		glob := strings.ContainsAny(pat, "*.")
		for _, n := range names {
			ok := strings.HasPrefix(n, pat+".")
			if glob {
				ok = match.Fnmatch(n, pat)
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

func sysListStateFunctions(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	return strList(stateFuns(args)), nil
}

func sysListStateModules(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	seen := map[string]bool{}
	var mods []string
	add := func(fun string) {
		mod, _, _ := strings.Cut(fun, ".")
		if !seen[mod] {
			seen[mod] = true
			mods = append(mods, mod)
		}
	}
	names := statemod.Default.Names()
	if len(args) == 0 {
		for _, n := range names {
			add(n)
		}
	}
	for _, a := range args {
		pat := execmod.String(a)
		for _, n := range names {
			mod, _, _ := strings.Cut(n, ".")
			if (strings.Contains(pat, "*") && match.Fnmatch(n, pat)) || mod == pat {
				add(n)
			}
		}
	}
	sort.Strings(mods)
	return strList(mods), nil
}

func sysListRenderers(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	var out []string
	for _, n := range render.Default.Names() {
		if e, _ := render.Default.Lookup(n); e.Unsupported != "" {
			continue // known to Salt, not available here
		}
		if len(args) == 0 {
			out = append(out, n)
			continue
		}
		for _, a := range args {
			if match.Fnmatch(n, execmod.String(a)) {
				out = append(out, n)
				break
			}
		}
	}
	return strList(out), nil
}

func sysStateDoc(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	names := statemod.Default.Names()
	var funs []string
	if len(args) == 0 {
		funs = names
	}
	seen := map[string]bool{}
	for _, a := range args {
		pat := execmod.String(a)
		target := pat
		if !strings.Contains(pat, "*") && pat != "" && !strings.HasSuffix(pat, ".") {
			target = pat + "."
		}
		for _, n := range names {
			var ok bool
			if strings.Contains(pat, "*") {
				ok = match.Fnmatch(n, pat)
			} else {
				ok = n == pat || strings.HasPrefix(n, target)
			}
			if ok && !seen[n] {
				seen[n] = true
				funs = append(funs, n)
			}
		}
	}
	sort.Strings(funs)
	out := value.NewMap(len(funs))
	for _, n := range funs {
		f, _ := statemod.Default.Lookup(n)
		out.Set(n, f.Doc)
	}
	return out, nil
}
