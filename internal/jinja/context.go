package jinja

import (
	"brine/internal/pyops"
	"brine/internal/value"
)

// Context is the render-time view given to tag extensions, context
// filters, context tests and ContextCallable globals.
type Context struct {
	r   *renderer
	fr  *frame
	sc  *scope
	pos int
	sig loopSignal // a break or continue left by ExecBody
}

// Env returns the environment being rendered with.
func (c *Context) Env() *Environment { return c.r.env }

// TemplateName returns the name of the template being executed.
func (c *Context) TemplateName() string { return c.fr.t.name }

// Line returns the line of the statement being executed (tags only).
func (c *Context) Line() int { return lineOf(c.fr, c.pos) }

// Autoescape reports whether autoescaping is on.
func (c *Context) Autoescape() bool { return c.r.autoesc }

// Eval evaluates an expression parsed by a tag extension.
func (c *Context) Eval(x Expr) (any, error) { return c.r.eval(c.fr, c.sc, x) }

// RenderBody renders a body parsed by a tag extension in an inner scope
// (as a macro body: variables it sets are lost afterwards) and returns its
// text.
func (c *Context) RenderBody(b Body) (string, error) {
	inner := newScope(c.sc)
	savedIn := c.r.inLoop
	c.r.inLoop = false
	defer func() { c.r.inLoop = savedIn }()
	return c.r.capture(func() error {
		_, err := c.r.execBody(c.fr, inner, b)
		return err
	})
}

// ExecBody runs a body parsed by a tag extension in the current scope,
// writing to the output, as if its statements stood in place of the tag
// (Salt's profile block): variables it sets stay visible after the tag. A
// {% break %} or {% continue %} in the body ends it; ExecBody then returns
// nil, Stopped reports true, and the loop acts on the signal once Execute
// returns.
func (c *Context) ExecBody(b Body) error {
	sig, err := c.r.execBody(c.fr, c.sc, b)
	if err == nil && sig != sigNone {
		c.sig = sig
	}
	return err
}

// Stopped reports whether a body run by ExecBody ended with a break or
// continue statement.
func (c *Context) Stopped() bool { return c.sig != sigNone }

// Write appends text to the output.
func (c *Context) Write(s string) error { return c.r.write(s) }

// Set assigns a variable in the current scope, as {% set %} does
// (at the top level it is exported to importers).
func (c *Context) Set(name string, v any) {
	_ = c.r.assign(c.fr, c.sc, &nameExpr{Name: name}, v)
}

// Resolve looks a variable up (locals, render variables, globals).
func (c *Context) Resolve(name string) (any, bool) {
	v := c.r.lookupName(c.sc, name)
	if _, u := v.(*Undefined); u {
		return nil, false
	}
	return v, true
}

// Vars returns every visible variable, innermost last, as Jinja's
// context.get_all() (globals first, then render variables, then locals).
func (c *Context) Vars() *value.Map {
	m := value.NewMap(len(c.r.env.globals) + len(c.r.globals) + 16)
	for k, v := range c.r.env.globals {
		m.Set(k, v)
	}
	for k, v := range c.r.globals {
		m.Set(k, v)
	}
	var chain []*scope
	for s := c.sc; s != nil; s = s.parent {
		chain = append(chain, s)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i]
		if s.ovars != nil {
			m.Update(s.ovars)
		}
		for j, n := range s.names {
			m.Set(n, s.vals[j])
		}
	}
	return m
}

// Call calls a template value (a macro, a global function, a method).
func (c *Context) Call(fn any, args []any, kwargs *value.Map) (any, error) {
	return c.r.call(c.fr, c.sc, fn, args, kwargs)
}

// ApplyFilter applies a registered filter by name.
func (c *Context) ApplyFilter(name string, v any, args []any, kwargs *value.Map) (any, error) {
	return c.r.applyFilter(c.fr, c.sc, name, v, args, kwargs)
}

// ApplyTest applies a registered test by name.
func (c *Context) ApplyTest(name string, v any, args []any, kwargs *value.Map) (bool, error) {
	return c.r.applyTest(c.fr, c.sc, name, v, args, kwargs)
}

// RenderTemplate loads a template (relative to the current one) and
// renders it, with the current variables if withContext, and returns its
// output. Salt's import_yaml/import_json/import_text use it.
func (c *Context) RenderTemplate(name string, withContext bool) (string, error) {
	t, err := c.r.loadTemplate(c.fr, name)
	if err != nil {
		return "", c.r.locate(c.fr, c.pos, err)
	}
	if err := c.r.enter(); err != nil {
		return "", err
	}
	defer c.r.leave()
	var top *scope
	if withContext {
		top = newScope(c.sc)
	} else {
		top = newScope(nil)
	}
	out, err := c.r.capture(func() error {
		_, err := c.r.runTemplate(t, top)
		return err
	})
	if err != nil {
		return "", c.r.chainErr(c.fr, c.pos, err)
	}
	return out, nil
}

// CheckSize refuses a result of n bytes beyond the size limit (the one
// every string-building operation respects: pyops.CheckSize bounded by the
// environment's MaxOutput) with a MemoryError. Filters and tags that build
// strings compute the size first and call it before building.
func (c *Context) CheckSize(n int64) error {
	return sizeErr(pyops.CheckSize(n, c.r.env.MaxOutput))
}

// Str is Python's str(v) as the template sees it (failing on strict
// undefined values).
func (c *Context) Str(v any) (string, error) { return c.r.str(v) }

// Iterate lists the items of an iterable template value.
func (c *Context) Iterate(v any) ([]any, error) { return c.r.iterate(v) }

// Errorf returns a runtime error located at the current statement.
func (c *Context) Errorf(typ, format string, args ...any) error {
	e := newError(KindRuntime, typ, sprintf(format, args...))
	return c.r.locate(c.fr, c.pos, e)
}

// IsStrictUndefined reports whether v is an undefined value that fails
// when used (Jinja's StrictUndefined: printing, iterating, truth, length,
// comparison), as opposed to a lenient one that acts as an empty string.
// Raw filters and tests (AddRawFilter) use it to act as Python's code does
// on a StrictUndefined object.
func (c *Context) IsStrictUndefined(v any) bool {
	u, ok := v.(*Undefined)
	return ok && c.r.strict(u)
}

// IsUndefined reports whether v is an undefined value.
func IsUndefined(v any) bool { _, ok := v.(*Undefined); return ok }

// UndefinedError returns the error using v raises if v is undefined,
// or nil.
func UndefinedError(v any) error {
	if u, ok := v.(*Undefined); ok {
		return u.err()
	}
	return nil
}
