// Package jinja is brine's Jinja2 (3.1) template engine, configured by
// default as Salt configures Jinja: a sandboxed environment with strict
// undefined values and the do and loop-control statements. It knows
// nothing of Salt; Salt's filters, tests, globals and tags plug in through
// the extension API.
//
// # Use
//
//	env := jinja.New()                // builtin filters, tests, globals
//	env.TrimBlocks = true             // options before parsing
//	env.Loader = myLoader             // resolves include/import/extends
//	env.AddFilter("yaml", yamlFilter) // func(val, args, kwargs) (any, error)
//	env.AddTag("load_yaml", parseLoadYAML)
//	t, err := env.Parse("x.sls", src) // parse once ...
//	out, err := t.Render(vars)        // ... render many, concurrently
//
// A render can bring its own globals and loader (Salt's context and file
// loader), so that one Environment and its parsed templates serve every
// render:
//
//	out, err := t.RenderWith(vars, jinja.RenderConfig{Globals: g, Loader: ld})
//
// Values are those of package value (nil, bool, int64, *big.Int, float64,
// string, *value.Map, *value.List, value.Tuple) plus the engine's own:
// Markup, Undefined, Macro, Namespace, Module. Python semantics of
// operators and methods come from package pyops.
//
// # Extension API
//
//   - Filters: FilterFunc or ContextFilterFunc (AddFilter,
//     AddContextFilter). A plain filter given an undefined value fails
//     with the undefined error before it is called (strict mode); a raw
//     filter (AddRawFilter) receives the Undefined as Python's filters
//     do and decides (Context.IsStrictUndefined, UndefinedError).
//   - Tests: TestFunc or ContextTestFunc (AddTest, AddContextTest,
//     AddRawTest).
//   - Globals: any value (AddGlobal); functions are value.Callable or
//     ContextCallable.
//   - Tags: AddTag(name, TagParser). The TagParser receives the *Parser
//     just after the tag name and uses its helpers (ParseExpression,
//     Name, Keyword, SkipKeyword, PeekName, AtBlockEnd, ParseBody, Fail)
//     to build a TagNode, whose Execute(*Context) runs at render time
//     with Context.Eval, RenderBody (inner scope, as a macro body),
//     ExecBody (in place: assignments stay, break/continue reach the
//     loop), Write, Set, Resolve and RenderTemplate.
//   - Caller objects: a value may implement Getattrer (obj.name),
//     Getitemer (obj[key]), Iterable (for loops) and value.Callable or
//     ContextCallable (calls). Names starting with "_" and Python dunder
//     names are never looked up (sandbox).
//   - Loader: Load(name, parent) returns source and resolved name; errors
//     wrapping ErrNotFound mean "no such template".
//
// # Errors
//
// Every failure is an *Error with a Kind, the Python exception type Jinja
// would raise, Jinja's message text, the template name, line, column,
// source line and the include/import chain.
package jinja
