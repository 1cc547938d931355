package modules

// sys.go is salt/modules/sysmod.py: what the minion can run.

import (
	"sort"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/render"
	"brine/internal/saltspec"
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
	execmod.Register("sys.argspec", sysArgspec, "Return the argument specs (Salt 3006's signatures) of the execution functions of module (a name, or a glob).")
	execmod.Register("sys.state_argspec", sysStateArgspec, "Return the argument specs (Salt 3006's signatures) of the state functions of module (a name, or a glob).")
	execmod.Register("sys.renderer_doc", sysRendererDoc, "Return the docs of the renderers matching the globs given (all when none).")
	execmod.Register("sys.state_schema", sysStateSchema, "Return a JSON schema of the arguments of each state function of module (a name, or a glob).")
	execmod.Register("sys.reload_modules", sysReloadModules, "Return True: brine's modules are built in, the next call sees them as they are.")
}

func registry(ctx *execmod.Context) *execmod.Registry {
	if ctx.Registry == nil {
		return execmod.Default
	}
	return ctx.Registry
}

// sysDocFuns is sys.doc's selection: a glob with '*', else the module
// (or "mod." prefix) and the exact name.
func sysDocFuns(names []string, args []any) []string {
	if len(args) == 0 {
		return names
	}
	seen := map[string]bool{}
	var out []string
	for _, a := range args {
		pat := execmod.String(a)
		target := pat
		if pat != "" && !strings.HasSuffix(pat, ".") {
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
	for _, n := range sysDocFuns(reg.Names(), args) {
		out.Set(n, reg.Entry(n).Doc)
	}
	return out, nil
}

func sysListFunctions(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	return strList(sysSelect(registry(ctx).Names(), args)), nil
}

// sysSelect is list_functions' selection: with '*' or '.' a glob, else
// the functions of the module named.
func sysSelect(names []string, args []any) []string {
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

// sysModulesOf is list_modules' selection: with '*' the modules of the
// functions matching the glob, else the module of that exact name.
func sysModulesOf(names []string, args []any) []string {
	seen := map[string]bool{}
	var mods []string
	add := func(fun string) {
		mod, _, _ := strings.Cut(fun, ".")
		if !seen[mod] {
			seen[mod] = true
			mods = append(mods, mod)
		}
	}
	for _, n := range names {
		if len(args) == 0 {
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
	return mods
}

func sysListModules(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	return strList(sysModulesOf(registry(ctx).Names(), args)), nil
}

func sysListStateFunctions(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	var loaded []string
	for _, n := range statemod.Default.Names() {
		// a state module its __virtual__ leaves out is not loaded
		if f, ok := statemod.Default.Lookup(n); ok && f.Virtual != nil && f.Virtual() != "" {
			continue
		}
		loaded = append(loaded, n)
	}
	return strList(sysSelect(loaded, args)), nil
}

func sysListStateModules(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	return strList(sysModulesOf(statemod.Default.Names(), args)), nil
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
	funs := sysDocFuns(statemod.Default.Names(), args)
	out := value.NewMap(len(funs))
	for _, n := range funs {
		f, _ := statemod.Default.Lookup(n)
		out.Set(n, f.Doc)
	}
	return out, nil
}

func sysReloadModules(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("reload_modules", args, kwargs); err != nil {
		return nil, err
	}
	return true, nil
}

// sysRendererDoc is sys.renderer_doc: renderers are named without a
// module part, so only globs (with '*' or '.') select any.
func sysRendererDoc(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	var names []string
	for _, n := range render.Default.Names() {
		if e, _ := render.Default.Lookup(n); e.Unsupported == "" {
			names = append(names, n)
		}
	}
	out := value.NewMap(0)
	for _, n := range sysSelect(names, args) {
		e, _ := render.Default.Lookup(n)
		out.Set(n, e.Doc)
	}
	return out, nil
}

// sysArgSelect is salt.utils.args.argspec_report's selection: with '*'
// or '.' a glob, else the functions of the module named ("" names none).
func sysArgSelect(names []string, module string) []string {
	var out []string
	for _, n := range names {
		if strings.ContainsAny(module, "*.") {
			if match.Fnmatch(n, module) {
				out = append(out, n)
			}
		} else if strings.HasPrefix(n, module+".") {
			out = append(out, n)
		}
	}
	return out
}

// sysPyLiteral reads a Python default value as written in a signature
// ("None", "'sha512'", "300", "()"); other expressions stay text.
func sysPyLiteral(src string) any {
	switch src {
	case "None":
		return nil
	case "True":
		return true
	case "False":
		return false
	case "()":
		return value.Tuple{}
	case "[]":
		return value.NewList()
	case "{}":
		return value.NewMap(0)
	}
	if n, err := strconv.ParseInt(src, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(src, 64); err == nil && strings.ContainsAny(src, ".eE") {
		return f
	}
	if len(src) >= 2 && (src[0] == '\'' || src[0] == '"') && src[len(src)-1] == src[0] {
		if u, err := strconv.Unquote(`"` + strings.ReplaceAll(src[1:len(src)-1], `"`, `\"`) + `"`); err == nil {
			return u
		}
		return src[1 : len(src)-1]
	}
	return src
}

// sysSpecOf picks the signature of fn as loaded on Debian (the provider's
// source), else the first.
func sysSpecOf(fn *saltspec.Function) saltspec.Spec {
	want := testModuleProvider(fn.Module) + ".py"
	for _, s := range fn.Specs {
		for _, src := range s.Sources {
			if src == want {
				return s
			}
		}
	}
	return fn.Specs[0]
}

// sysArgspecReport is argspec_report for the functions of names that
// Salt 3006 has: args, defaults, varargs and kwargs as Salt reports them.
func sysArgspecReport(kind saltspec.Kind, names []string, module string) *value.Map {
	out := value.NewMap(0)
	for _, n := range sysArgSelect(names, module) {
		fn, ok := saltspec.Lookup(kind, n)
		if !ok || len(fn.Specs) == 0 {
			continue
		}
		spec := sysSpecOf(fn)
		var args any
		var defaults any
		if len(spec.Args) > 0 {
			l := value.NewList()
			var d value.Tuple
			for _, p := range spec.Args {
				l.Append(p.Name)
				if p.HasDefault {
					d = append(d, sysPyLiteral(p.Default))
				}
			}
			args = l
			if len(d) > 0 {
				defaults = d
			}
		}
		var varargs, kwargs any
		if spec.Varargs != "" {
			varargs = true
		}
		if spec.Kwargs != "" {
			kwargs = true
		}
		out.Set(n, value.MapOf("args", args, "defaults", defaults, "varargs", varargs, "kwargs", kwargs))
	}
	return out
}

func sysArgspec(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("argspec", args, kwargs, execmod.Opt("module", ""))
	if err != nil {
		return nil, err
	}
	return sysArgspecReport(saltspec.Exec, registry(ctx).Names(), execmod.String(v[0])), nil
}

func sysStateArgspec(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("state_argspec", args, kwargs, execmod.Opt("module", ""))
	if err != nil {
		return nil, err
	}
	return sysArgspecReport(saltspec.State, statemod.Default.Names(), execmod.String(v[0])), nil
}

// sysStateSchema is sys.state_schema: per state function, an object
// schema whose properties accept a boolean, integer, number or string,
// with the signature's default (a None default is left out).
func sysStateSchema(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("state_schema", args, kwargs, execmod.Opt("module", ""))
	if err != nil {
		return nil, err
	}
	specs := sysArgspecReport(saltspec.State, statemod.Default.Names(), execmod.String(v[0]))
	out := value.NewList()
	specs.Range(func(k, spec any) bool {
		out.Append(sysArgspecSchema(value.Str(k), spec.(*value.Map)))
		return true
	})
	for _, s := range out.Items {
		if e, ok := s.(error); ok {
			return nil, e
		}
	}
	return out, nil
}

func sysArgspecSchema(mod string, spec *value.Map) any {
	a, _ := spec.Get("args")
	names, ok := a.(*value.List)
	if !ok {
		return netPyErrorf("TypeError", "object of type 'NoneType' has no len()")
	}
	d, _ := spec.Get("defaults")
	defaults, _ := d.(value.Tuple)
	nreq := names.Len() - len(defaults)
	props := value.NewMap(names.Len())
	order := value.NewList()
	for i, n := range names.Items {
		name := value.Str(n)
		var def any
		hasDef := false
		if i >= nreq {
			def = defaults[i-nreq]
			hasDef = def != nil
		}
		alts := value.NewList()
		for _, typ := range []string{"boolean", "integer", "number", "string"} {
			item := value.MapOf("type", typ, "title", name, "description", name)
			if hasDef {
				item.Set("default", def)
			}
			alts.Append(item)
		}
		props.Set(name, value.MapOf("oneOf", alts))
		order.Append(name)
	}
	schema := value.MapOf("$schema", "http://json-schema.org/draft-04/schema#", "title", mod, "description", mod, "type", "object")
	if props.Len() > 0 {
		schema.Set("properties", props)
		schema.Set("x-ordering", order)
	}
	schema.Set("additionalProperties", false)
	return schema
}
