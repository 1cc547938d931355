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
	fn   jinja.FilterFunc
}

type namedTest struct {
	name string
	fn   jinja.TestFunc
}

func adapt() {
	for _, e := range Entries(Filter) {
		fn := e.Fn
		adapted.filters = append(adapted.filters, namedFilter{e.Name, func(val any, args []any, kw *value.Map) (any, error) {
			all := make([]any, 0, len(args)+1)
			all = append(append(all, val), args...)
			return fn(all, kw)
		}})
	}
	for _, e := range Entries(Test) {
		fn := e.Fn
		adapted.tests = append(adapted.tests, namedTest{e.Name, func(val any, args []any, kw *value.Map) (bool, error) {
			all := make([]any, 0, len(args)+1)
			all = append(append(all, val), args...)
			v, err := fn(all, kw)
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
		env.AddFilter(f.name, f.fn)
	}
	for _, t := range adapted.tests {
		env.AddTest(t.name, t.fn)
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
