package jinjasalt

import (
	"brine/internal/jinja"
	"brine/internal/value"
)

// Install registers Salt's filters, tests, globals and tags in env, as
// salt/utils/templates.py configures its Jinja environment: Salt's
// entries replace Jinja's builtins of the same name (unique, min, max,
// tojson), except indent, which Salt restores to Jinja's own; the test
// `list` is Salt's is_list. The do and loop-control statements are builtin
// in package jinja.
func Install(env *jinja.Environment) {
	for _, e := range Entries(Filter) {
		fn := e.Fn
		env.AddFilter(e.Name, func(val any, args []any, kw *value.Map) (any, error) {
			all := make([]any, 0, len(args)+1)
			all = append(append(all, val), args...)
			return fn(all, kw)
		})
	}
	for _, e := range Entries(Test) {
		fn := e.Fn
		env.AddTest(e.Name, func(val any, args []any, kw *value.Map) (bool, error) {
			all := make([]any, 0, len(args)+1)
			all = append(append(all, val), args...)
			v, err := fn(all, kw)
			if err != nil {
				return false, err
			}
			return truthy(v), nil
		})
	}
	for _, e := range Entries(Global) {
		env.AddGlobal(e.Name, e.Fn)
	}
	env.AddGlobal("show_full_context", showFullContext{})
	for _, kind := range []string{"yaml", "json", "text"} {
		env.AddTag("load_"+kind, parseLoad("load_"+kind))
		env.AddTag("import_"+kind, parseImport("load_"+kind))
	}
	env.AddTag("profile", parseProfile)
}

// showFullContext is the show_full_context() global: every variable the
// template sees, reduced to simple types.
type showFullContext struct{}

func (showFullContext) CallContext(ctx *jinja.Context, args []any, kw *value.Map) (any, error) {
	if len(args) > 0 || kw.Len() > 0 {
		return nil, pyErr(excTypeError, "show_full_context() takes 1 positional argument but %d were given", len(args)+1)
	}
	return simpleTypes(ctx.Vars()), nil
}

func init() {
	markup = func(s string) any { return jinja.Markup(s) }
}
