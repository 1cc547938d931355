package jinja

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"brine/internal/value"
)

// Loader finds templates for include, import, from-import and extends.
// name is the name as written in the template; parent is the resolved
// name of the template that asks (empty for a top-level lookup), so that
// relative names such as "./x" can be resolved. It returns the source and
// the resolved name (used for caching, error messages and nested
// lookups). A missing template is reported with an error wrapping
// ErrNotFound.
type Loader interface {
	Load(name, parent string) (source, resolved string, err error)
}

// MapLoader is a Loader over an in-memory map of name to source.
type MapLoader map[string]string

// Load returns the source stored under name.
func (m MapLoader) Load(name, parent string) (string, string, error) {
	if s, ok := m[name]; ok {
		return s, name, nil
	}
	return "", "", fmt.Errorf("%s: %w", name, ErrNotFound)
}

// FilterFunc is a template filter: val|name(args..., key=val...).
type FilterFunc func(val any, args []any, kwargs *value.Map) (any, error)

// ContextFilterFunc is a filter that also receives the render context.
type ContextFilterFunc func(ctx *Context, val any, args []any, kwargs *value.Map) (any, error)

// TestFunc is a template test: val is name(args...).
type TestFunc func(val any, args []any, kwargs *value.Map) (bool, error)

// ContextTestFunc is a test that also receives the render context.
type ContextTestFunc func(ctx *Context, val any, args []any, kwargs *value.Map) (bool, error)

// TagParser parses a custom statement tag. It is called with the parser
// positioned just after the tag's name and must stop before the closing %}
// of the statement (for block tags: before the closing %} of the end tag,
// see Parser.ParseBody).
type TagParser func(p *Parser) (TagNode, error)

// TagNode is a parsed custom statement; Execute runs it during rendering.
// A TagNode must not change after parsing: templates render concurrently.
type TagNode interface {
	Execute(ctx *Context) error
}

// Environment holds the options, filters, tests, globals, tags and loader
// shared by the templates parsed from it. Configure it before parsing and
// rendering; after that it is safe for concurrent use.
type Environment struct {
	TrimBlocks          bool
	LstripBlocks        bool
	KeepTrailingNewline bool
	// Lenient selects Jinja's default Undefined (prints as "", is false);
	// the default is StrictUndefined, as Salt configures Jinja.
	Lenient bool
	// Autoescape turns HTML autoescaping on for printed values.
	Autoescape bool
	// Finalize, when set, transforms every printed value before it is
	// turned into text.
	Finalize func(v any) any
	// Loader resolves include, import and extends.
	Loader Loader
	// MaxOutput bounds the size of one render's output in bytes (0: 1 GiB).
	MaxOutput int
	// MaxDepth bounds macro, include and import nesting (0: 400).
	MaxDepth int
	// MaxSteps, when positive, bounds the loop iterations and macro calls
	// of one render (a guard against runaway templates).
	MaxSteps int

	filters map[string]filterEntry
	tests   map[string]testEntry
	globals map[string]any
	tags    map[string]TagParser

	cache sync.Map // resolved name -> *Template
}

type filterEntry struct {
	fn  FilterFunc
	cfn ContextFilterFunc
	raw bool // receives undefined values unchecked
}

type testEntry struct {
	fn  TestFunc
	cfn ContextTestFunc
	raw bool
}

// New returns an environment with Jinja's builtin filters, tests and
// globals, strict undefined, and the do and loop-control statements.
func New() *Environment {
	e := &Environment{
		filters: make(map[string]filterEntry, len(builtinFilters)+64),
		tests:   make(map[string]testEntry, len(builtinTests)+16),
		globals: make(map[string]any, 16),
		tags:    map[string]TagParser{},
	}
	for k, v := range builtinFilters {
		e.filters[k] = v
	}
	for k, v := range builtinTests {
		e.tests[k] = v
	}
	for k, v := range builtinGlobals() {
		e.globals[k] = v
	}
	return e
}

// AddFilter registers (or replaces) a filter.
func (e *Environment) AddFilter(name string, f FilterFunc) { e.filters[name] = filterEntry{fn: f} }

// AddContextFilter registers (or replaces) a filter that needs the context.
func (e *Environment) AddContextFilter(name string, f ContextFilterFunc) {
	e.filters[name] = filterEntry{cfn: f}
}

// AddRawFilter registers (or replaces) a filter that receives undefined
// values as they are, as Python's filters receive Undefined objects: the
// filter decides what an undefined input means (Context.IsStrictUndefined
// and UndefinedError help). Other filters fail with the undefined error
// before they are called.
func (e *Environment) AddRawFilter(name string, f ContextFilterFunc) {
	e.filters[name] = filterEntry{cfn: f, raw: true}
}

// AddRawTest registers (or replaces) a test that receives undefined values
// as they are (see AddRawFilter).
func (e *Environment) AddRawTest(name string, f ContextTestFunc) {
	e.tests[name] = testEntry{cfn: f, raw: true}
}

// AddTest registers (or replaces) a test.
func (e *Environment) AddTest(name string, f TestFunc) { e.tests[name] = testEntry{fn: f} }

// AddContextTest registers (or replaces) a test that needs the context.
func (e *Environment) AddContextTest(name string, f ContextTestFunc) {
	e.tests[name] = testEntry{cfn: f}
}

// AddGlobal sets a global variable visible to every template (functions
// are value.Callable or ContextCallable values).
func (e *Environment) AddGlobal(name string, v any) { e.globals[name] = v }

// AddTag registers a custom statement tag; it panics if name is a builtin
// statement or already registered.
func (e *Environment) AddTag(name string, p TagParser) {
	switch name {
	case "for", "if", "block", "extends", "print", "macro", "include", "from", "import",
		"set", "with", "autoescape", "call", "filter", "do", "break", "continue":
		panic("jinja: tag " + name + " is builtin")
	}
	if _, dup := e.tags[name]; dup {
		panic("jinja: duplicate tag " + name)
	}
	e.tags[name] = p
}

// HasFilter reports whether a filter is registered.
func (e *Environment) HasFilter(name string) bool { _, ok := e.filters[name]; return ok }

// HasTest reports whether a test is registered.
func (e *Environment) HasTest(name string) bool { _, ok := e.tests[name]; return ok }

// Template is a parsed template. It is immutable and safe to render
// concurrently.
type Template struct {
	env    *Environment
	name   string
	src    string // normalized source
	orig   string // source as given
	body   Body
	blocks map[string]*blockNode
}

// Name returns the template's name.
func (t *Template) Name() string { return t.name }

// Parse parses source as a template called name.
func (e *Environment) Parse(name, source string) (t *Template, err error) {
	defer recoverInternal(&err)
	src := normalizeSource(source, e.KeepTrailingNewline)
	toks, err := lex(src, name, e.TrimBlocks, e.LstripBlocks)
	if err != nil {
		return nil, err
	}
	p := &Parser{toks: toks, name: name, src: src, tags: e.tags}
	body, err := p.parseTemplate()
	if err != nil {
		return nil, err
	}
	t = &Template{env: e, name: name, src: src, orig: source, body: body, blocks: map[string]*blockNode{}}
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := t.checkExtends(t.body, true); err != nil {
		return nil, err
	}
	if err := t.checkCompiled(); err != nil {
		return nil, err
	}
	markWith(t.body, 0)
	return t, nil
}

// check collects blocks and verifies filter and test names and that no
// loop body assigns to loop, as Jinja's compiler does.
func (t *Template) check() error {
	var err error
	walkNodes(t.body, func(n any) bool {
		if err != nil {
			return false
		}
		switch x := n.(type) {
		case *forNode:
			if pos, ok := loopStore(x); ok {
				err = t.errAt(pos, &Error{Kind: KindSyntax, Type: "TemplateAssertionError", Msg: msgLoopAssign})
				return false
			}
		case *blockNode:
			if _, dup := t.blocks[x.Name]; dup {
				err = t.errAt(x.P, &Error{Kind: KindSyntax, Type: "TemplateAssertionError", Msg: fmt.Sprintf("block %s defined twice", pyQuote(x.Name))})
				return false
			}
			t.blocks[x.Name] = x
		case *filterExpr:
			if _, ok := t.env.filters[x.Name]; !ok {
				err = t.errAt(x.P, &Error{Kind: KindSyntax, Type: "TemplateAssertionError", Msg: fmt.Sprintf("No filter named %s.", pyQuote(x.Name))})
				return false
			}
		case *testExpr:
			if _, ok := t.env.tests[x.Name]; !ok {
				err = t.errAt(x.P, &Error{Kind: KindSyntax, Type: "TemplateAssertionError", Msg: fmt.Sprintf("No test named %s.", pyQuote(x.Name))})
				return false
			}
		}
		return true
	})
	return err
}

// checkExtends refuses {% extends %} below the top level (inside loops,
// macros, blocks and other scoped statements), as Jinja's compiler does.
func (t *Template) checkExtends(body Body, top bool) error {
	for _, n := range body {
		var err error
		switch x := n.(type) {
		case *extendsNode:
			if !top {
				err = t.errAt(x.P, &Error{Kind: KindSyntax, Type: "TemplateAssertionError", Msg: "cannot use extend from a non top-level scope"})
			}
		case *ifNode:
			for _, b := range x.Bodies {
				if err = t.checkExtends(b, top); err != nil {
					break
				}
			}
			if err == nil {
				err = t.checkExtends(x.Else, top)
			}
		case *forNode:
			if err = t.checkExtends(x.Body, false); err == nil {
				err = t.checkExtends(x.Else, false)
			}
		case *macroNode:
			err = t.checkExtends(x.Body, false)
		case *callBlockNode:
			err = t.checkExtends(x.Macro.Body, false)
		case *filterBlockNode:
			err = t.checkExtends(x.Body, false)
		case *withNode:
			err = t.checkExtends(x.Body, false)
		case *setBlockNode:
			err = t.checkExtends(x.Body, false)
		case *blockNode:
			err = t.checkExtends(x.Body, false)
		case *autoescNode:
			err = t.checkExtends(x.Body, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errAt fills in the position of e from byte offset pos if unset.
func (t *Template) errAt(pos int, e *Error) *Error {
	if e.Line == 0 && e.Name == "" {
		e.Name = t.name
		e.Line, e.Col = lineCol(t.src, pos)
		e.Source = sourceLine(t.src, e.Line)
	}
	return e
}

// GetTemplate loads and parses a template through the Loader, relative to
// parent (the resolved name of the asking template, or ""). Parsed
// templates are cached by resolved name and source.
func (e *Environment) GetTemplate(name, parent string) (*Template, error) {
	return e.getTemplate(e.Loader, name, parent)
}

// getTemplate is GetTemplate through the loader ld (a render's own).
func (e *Environment) getTemplate(ld Loader, name, parent string) (*Template, error) {
	if ld == nil {
		return nil, &Error{Kind: KindNotFound, Type: "TemplateNotFound", Msg: name, Err: ErrNotFound}
	}
	src, resolved, err := ld.Load(name, parent)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, &Error{Kind: KindNotFound, Type: "TemplateNotFound", Msg: name, Err: err}
		}
		var je *Error
		if errors.As(err, &je) {
			return nil, je
		}
		return nil, &Error{Kind: KindRuntime, Type: "TemplateError", Msg: err.Error(), Err: err}
	}
	if resolved == "" {
		resolved = name
	}
	if c, ok := e.cache.Load(resolved); ok {
		if t := c.(*Template); t.orig == src {
			return t, nil
		}
	}
	t, err := e.Parse(resolved, src)
	if err != nil {
		return nil, err
	}
	e.cache.Store(resolved, t)
	return t, nil
}

// ClearCache forgets every parsed template.
func (e *Environment) ClearCache() { e.cache.Clear() }

// Render renders the template with vars (may be nil) as its context.
func (t *Template) Render(vars *value.Map) (string, error) {
	var b strings.Builder
	b.Grow(len(t.src) + len(t.src)/2)
	if err := t.RenderTo(&b, vars); err != nil {
		return "", err
	}
	return b.String(), nil
}

// RenderString parses and renders source in one step.
func (e *Environment) RenderString(name, source string, vars *value.Map) (string, error) {
	t, err := e.Parse(name, source)
	if err != nil {
		return "", err
	}
	return t.Render(vars)
}
