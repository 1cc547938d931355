package jinjasalt

import (
	"sync"

	"brine/internal/jinja"
	"brine/internal/value"
)

// adapted holds the registry converted to the engine's function types,
// built once.
var adapted struct {
	once    sync.Once
	filters []namedFilter
	tests   []namedTest
	globals []*Entry
}

type namedFilter struct {
	name string
	fn   jinja.ContextFilterFunc
}

type namedTest struct {
	name string
	fn   jinja.ContextTestFunc
}

// adapt converts the registry. Filters and tests are raw: like Salt's
// Python functions they receive undefined values, and onUndefined does
// with a strict one what Salt's function does (a lenient one goes to the
// function, which treats it as an empty value).
func adapt() {
	for _, e := range Entries(Filter) {
		fn, name := e.Fn, e.Name
		adapted.filters = append(adapted.filters, namedFilter{name, func(ctx *jinja.Context, val any, args []any, kw *value.Map) (any, error) {
			if ctx.IsStrictUndefined(val) {
				return onUndefined(Filter, name, val.(*jinja.Undefined), args, kw)
			}
			all := make([]any, 0, len(args)+1)
			all = append(append(all, val), args...)
			return fn(all, kw)
		}})
	}
	for _, e := range Entries(Test) {
		fn, name := e.Fn, e.Name
		adapted.tests = append(adapted.tests, namedTest{name, func(ctx *jinja.Context, val any, args []any, kw *value.Map) (bool, error) {
			var v any
			var err error
			if ctx.IsStrictUndefined(val) {
				v, err = onUndefined(Test, name, val.(*jinja.Undefined), args, kw)
			} else {
				all := make([]any, 0, len(args)+1)
				all = append(append(all, val), args...)
				v, err = fn(all, kw)
			}
			if err != nil {
				return false, err
			}
			return truthy(v), nil
		}})
	}
	adapted.globals = Entries(Global)
}

var (
	tagLoadYAML   = parseLoad("load_yaml")
	tagLoadJSON   = parseLoad("load_json")
	tagLoadText   = parseLoad("load_text")
	tagImportYAML = parseImport("load_yaml")
	tagImportJSON = parseImport("load_json")
	tagImportText = parseImport("load_text")
)

// Install registers Salt's filters, tests, globals and tags in env, as
// salt/utils/templates.py configures its Jinja environment: Salt's
// entries replace Jinja's builtins of the same name (unique, min, max,
// tojson), except indent, which Salt restores to Jinja's own; the test
// `list` is Salt's is_list. The do and loop-control statements are builtin
// in package jinja.
func Install(env *jinja.Environment) {
	adapted.once.Do(adapt)
	for _, f := range adapted.filters {
		env.AddRawFilter(f.name, f.fn)
	}
	for _, t := range adapted.tests {
		env.AddRawTest(t.name, t.fn)
	}
	for _, g := range adapted.globals {
		env.AddGlobal(g.Name, g.Fn)
	}
	env.AddGlobal("show_full_context", showFullContext{})
	env.AddTag("load_yaml", tagLoadYAML)
	env.AddTag("load_json", tagLoadJSON)
	env.AddTag("load_text", tagLoadText)
	env.AddTag("import_yaml", tagImportYAML)
	env.AddTag("import_json", tagImportJSON)
	env.AddTag("import_text", tagImportText)
	env.AddTag("profile", parseProfile)
}

// showFullContext is the show_full_context() global: every variable the
// template sees, reduced to simple types.
type showFullContext struct{}

// CallContext returns the template's variables.
func (showFullContext) CallContext(ctx *jinja.Context, args []any, kw *value.Map) (any, error) {
	if len(args) > 0 || kw.Len() > 0 {
		return nil, pyErr(excTypeError, "show_full_context() takes 1 positional argument but %d were given", len(args)+1)
	}
	return simpleTypes(ctx.Vars()), nil
}

func init() {
	markup = func(s string) any { return jinja.Markup(s) }
}
