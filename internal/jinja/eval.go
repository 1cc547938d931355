package jinja

import (
	"errors"
	"fmt"
	"strings"

	"brine/internal/pyops"
	"brine/internal/value"
)

// scope is one level of variables. The render-vars level keeps them in a
// *value.Map; other levels in small slices.
type scope struct {
	parent *scope
	names  []string
	vals   []any
	vars   map[string]any // the render variables (string keys)
	ovars  *value.Map     // the same, in order (for Context.Vars)
	inlN   [3]string
	inlV   [3]any
}

// newScope returns an empty scope whose first few variables need no
// further allocation.
func newScope(parent *scope) *scope {
	s := &scope{parent: parent}
	s.names, s.vals = s.inlN[:0], s.inlV[:0]
	return s
}

func (s *scope) lookup(name string) (any, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		for i, n := range sc.names {
			if n == name {
				return sc.vals[i], true
			}
		}
		if sc.vars != nil {
			if v, ok := sc.vars[name]; ok {
				return v, true
			}
		}
	}
	return nil, false
}

func (s *scope) set(name string, v any) {
	for i, n := range s.names {
		if n == name {
			s.vals[i] = v
			return
		}
	}
	s.names = append(s.names, name)
	s.vals = append(s.vals, v)
}

// frame is one template execution (a template and the templates it
// extends share one frame).
type frame struct {
	t        *Template
	top      *scope
	exported map[string]bool
	blocks   map[string][]*blockNode
	owner    map[*blockNode]*Template
	parent   *Template // set by extends
}

// renderer is the state of one render call.
type renderer struct {
	env      *Environment
	out      *strings.Builder
	written  int
	depth    int
	autoesc  bool
	suppress bool // output after {% extends %} is dropped
	steps    int
	modules  map[string]*Module
	globals  map[string]any // per-render globals (RenderConfig)
	loader   Loader         // the render's loader
	objNames map[*value.Map]string
	// inLoop says whether a break or continue now acts on a loop: the
	// compile checks refuse them elsewhere, except in the bodies of custom
	// tags, which can only be checked when they run (Context.ExecBody).
	inLoop bool
	nsFree nsFreeCache // containers known to hold no namespace
}

const defaultMaxOutput = pyops.MaxSize

// RenderTo renders the template into b.
func (t *Template) RenderTo(b *strings.Builder, vars *value.Map) error {
	return t.render(b, vars, RenderConfig{})
}

// RenderConfig holds settings of one render that the environment's
// defaults do not give.
type RenderConfig struct {
	// Globals are variables visible to every template of the render (the
	// rendered one, and those it includes, imports or extends, with or
	// without context), looked up before the environment's globals. The
	// render's Loader may change the map while it runs (Salt's loader sets
	// tpldir); a map must not be shared by concurrent renders.
	Globals map[string]any
	// Loader, when set, replaces the environment's Loader for the render.
	Loader Loader
	// ObjectNames name mappings in the messages of their undefined
	// attributes and items, where Jinja's object_type_repr would say
	// "dict object" (Salt's pillar is a
	// "salt.utils.context.NamespacedDictWrapper object").
	ObjectNames map[*value.Map]string
}

// RenderWith renders the template with vars as its context and the
// per-render globals and loader of cfg. One Environment and its parsed
// templates can so serve any number of concurrent renders, each with its
// own globals and loader.
func (t *Template) RenderWith(vars *value.Map, cfg RenderConfig) (string, error) {
	var b strings.Builder
	b.Grow(len(t.src) + len(t.src)/2)
	if err := t.render(&b, vars, cfg); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (t *Template) render(b *strings.Builder, vars *value.Map, cfg RenderConfig) (err error) {
	defer recoverInternal(&err)
	r := &renderer{env: t.env, out: b, autoesc: t.env.Autoescape, globals: cfg.Globals, loader: cfg.Loader, objNames: cfg.ObjectNames}
	if r.loader == nil {
		r.loader = t.env.Loader
	}
	vm := make(map[string]any, vars.Len())
	vars.Range(func(k, v any) bool {
		if ks, ok := k.(string); ok {
			vm[ks] = v
		}
		return true
	})
	top := newScope(&scope{vars: vm, ovars: vars})
	_, err = r.runTemplate(t, top)
	return err
}

// recoverInternal turns a panic (a bug) into an error value.
func recoverInternal(err *error) {
	if p := recover(); p != nil {
		*err = &Error{Kind: KindRuntime, Type: "InternalError", Msg: fmt.Sprintf("internal error: %v", p)}
	}
}

// runTemplate executes t with top as its top-level scope and returns the
// frame (for imports).
func (r *renderer) runTemplate(t *Template, top *scope) (*frame, error) {
	fr := &frame{t: t, top: top}
	r.addBlocks(fr, t)
	savedSup, savedIn := r.suppress, r.inLoop
	r.inLoop = false
	defer func() { r.inLoop = savedIn }()
	_, err := r.execBody(fr, top, t.body)
	r.suppress = savedSup
	if err != nil {
		return fr, err
	}
	for fr.parent != nil {
		p := fr.parent
		fr.parent = nil
		fr.t = p
		r.addBlocks(fr, p)
		r.suppress = savedSup
		_, err := r.execBody(fr, top, p.body)
		r.suppress = savedSup
		if err != nil {
			return fr, err
		}
	}
	return fr, nil
}

func (r *renderer) addBlocks(fr *frame, t *Template) {
	if len(t.blocks) == 0 {
		return
	}
	if fr.blocks == nil {
		fr.blocks = map[string][]*blockNode{}
		fr.owner = map[*blockNode]*Template{}
	}
	for name, b := range t.blocks {
		fr.blocks[name] = append(fr.blocks[name], b)
		fr.owner[b] = t
	}
}

func (r *renderer) write(s string) error {
	r.written += len(s)
	if pyops.CheckSize(int64(r.written), r.env.MaxOutput) != nil {
		// Jinja2 has no such limit: Python would run out of memory, so
		// the error is a MemoryError (a runtime failure Salt words as
		// "Jinja error", with the traceback), not a TemplateRuntimeError
		// (which Salt words as a "Jinja syntax error").
		max := r.env.MaxOutput
		if max <= 0 || max > defaultMaxOutput {
			max = defaultMaxOutput
		}
		return newError(KindRuntime, "MemoryError", fmt.Sprintf("output too large (more than %d bytes)", max))
	}
	if r.suppress {
		return nil
	}
	r.out.WriteString(s)
	return nil
}

// capture runs f with output redirected and returns what it wrote.
func (r *renderer) capture(f func() error) (string, error) {
	saved, savedSup := r.out, r.suppress
	var b strings.Builder
	r.out, r.suppress = &b, false
	err := f()
	r.out, r.suppress = saved, savedSup
	return b.String(), err
}

func (r *renderer) maxDepth() int {
	if r.env.MaxDepth > 0 {
		return r.env.MaxDepth
	}
	return 400
}

// step counts one loop iteration or call against MaxSteps.
func (r *renderer) step() error {
	if r.env.MaxSteps > 0 {
		r.steps++
		if r.steps > r.env.MaxSteps {
			return errRuntime("template exceeded %d steps", r.env.MaxSteps)
		}
	}
	return nil
}

func (r *renderer) enter() error {
	if err := r.step(); err != nil {
		return err
	}
	r.depth++
	if r.depth > r.maxDepth() {
		r.depth--
		return newError(KindRuntime, "RecursionError", "maximum recursion depth exceeded while calling a Python object")
	}
	return nil
}

func (r *renderer) leave() { r.depth-- }

// locate adds the position of the failing statement to an error that has
// none yet. As in Jinja, the line is the statement's (for a print, its
// expression's first line); the column is the innermost failing
// expression's when it lies on that line.
func (r *renderer) locate(fr *frame, pos int, err error) error {
	if err == nil {
		return nil
	}
	e := asError(err)
	if e.Name == "" && e.Line == 0 {
		fr.t.errAt(pos, e)
		if e.epos > 0 {
			if l, c := lineCol(fr.t.src, e.epos-1); l == e.Line {
				e.Col = c
			}
		}
	}
	return e
}

// mark records the innermost failing expression of an error.
func (r *renderer) mark(pos int, err error) error {
	e := asError(err)
	if e.epos == 0 && e.Line == 0 && e.Name == "" {
		e.epos = pos + 1
	}
	return e
}

// stmtPos is the position Jinja reports for errors in statement n.
func stmtPos(n Node) int {
	if p, ok := n.(*printNode); ok {
		return p.X.exprPos()
	}
	return n.nodePos()
}

func (r *renderer) execBody(fr *frame, sc *scope, body Body) (loopSignal, error) {
	for _, n := range body {
		sig, err := r.exec(fr, sc, n)
		if err != nil {
			return sigNone, r.locate(fr, stmtPos(n), err)
		}
		if sig != sigNone {
			return sig, nil
		}
	}
	return sigNone, nil
}

func (r *renderer) exec(fr *frame, sc *scope, n Node) (loopSignal, error) {
	switch x := n.(type) {
	case *dataNode:
		return sigNone, r.write(x.Text)
	case *printNode:
		v, err := r.eval(fr, sc, x.X)
		if err != nil {
			return sigNone, err
		}
		if r.suppress {
			return sigNone, nil
		}
		s, err := r.printable(v)
		if err != nil {
			return sigNone, r.locate(fr, x.X.exprPos(), err)
		}
		return sigNone, r.write(s)
	case *ifNode:
		for i, test := range x.Tests {
			v, err := r.eval(fr, sc, test)
			if err == nil {
				var ok bool
				ok, err = r.truth(v)
				if err == nil && ok {
					return r.execBody(fr, sc, x.Bodies[i])
				}
				if err == nil {
					continue
				}
			}
			if i > 0 {
				return sigNone, r.locate(fr, test.exprPos(), err)
			}
			return sigNone, err
		}
		return r.execBody(fr, sc, x.Else)
	case *forNode:
		return r.execFor(fr, sc, x)
	case *setNode:
		v, err := r.eval(fr, sc, x.X)
		if err != nil {
			return sigNone, err
		}
		return sigNone, r.assign(fr, sc, x.Target, v)
	case *setBlockNode:
		inner := newScope(sc)
		var sig loopSignal
		s, err := r.capture(func() error {
			var err error
			sig, err = r.execBody(fr, inner, x.Body)
			return err
		})
		if err != nil || sig != sigNone {
			// a break or continue leaves before the assignment
			return sig, err
		}
		var v any = s
		if r.autoesc {
			v = Markup(s)
		}
		if x.Filter != nil {
			if v, err = r.applyFilterChain(fr, inner, x.Filter, v); err != nil {
				return sigNone, err
			}
		}
		return sigNone, r.assign(fr, sc, x.Target, v)
	case *macroNode:
		m := &Macro{node: x, closure: sc, fr: fr, r: r}
		sc.set(x.Name, m)
		if sc == fr.top && !strings.HasPrefix(x.Name, "_") {
			fr.export(x.Name)
		}
		return sigNone, nil
	case *callBlockNode:
		caller := &Macro{node: x.Macro, closure: sc, fr: fr, r: r}
		v, err := r.evalCall(fr, sc, x.Call, caller)
		if err != nil {
			return sigNone, err
		}
		s, err := r.printable(v)
		if err != nil {
			return sigNone, err
		}
		return sigNone, r.write(s)
	case *filterBlockNode:
		inner := newScope(sc)
		var sig loopSignal
		s, err := r.capture(func() error {
			var err error
			sig, err = r.execBody(fr, inner, x.Body)
			return err
		})
		if err != nil || sig != sigNone {
			// a break or continue leaves before the output
			return sig, err
		}
		var v any = s
		if r.autoesc {
			v = Markup(s)
		}
		v, err = r.applyFilterChain(fr, inner, x.Filter, v)
		if err != nil {
			return sigNone, err
		}
		out, err := r.printable(v)
		if err != nil {
			return sigNone, err
		}
		return sigNone, r.write(out)
	case *withNode:
		inner := newScope(sc)
		vals := make([]any, len(x.Values))
		for i, e := range x.Values {
			v, err := r.eval(fr, sc, e)
			if err != nil {
				return sigNone, r.locate(fr, x.markPos, err)
			}
			vals[i] = v
		}
		for i, t := range x.Targets {
			if err := r.assign(fr, inner, t, vals[i]); err != nil {
				return sigNone, err
			}
		}
		return r.execBody(fr, inner, x.Body)
	case *seqNode:
		return r.execBody(fr, sc, x.Body)
	case *doNode:
		_, err := r.eval(fr, sc, x.X)
		return sigNone, err
	case *breakNode:
		if !r.inLoop {
			return sigNone, newError(KindSyntax, "SyntaxError", "'break' outside loop")
		}
		return sigBreak, nil
	case *continueNode:
		if !r.inLoop {
			return sigNone, newError(KindSyntax, "SyntaxError", "'continue' not properly in loop")
		}
		return sigContinue, nil
	case *includeNode:
		return sigNone, r.execInclude(fr, sc, x)
	case *importNode:
		m, err := r.importModule(fr, sc, x.Template, x.WithContext, x.P)
		if err != nil {
			return sigNone, err
		}
		sc.set(x.Target, m)
		if sc == fr.top {
			delete(fr.exported, x.Target)
		}
		return sigNone, nil
	case *fromImportNode:
		m, err := r.importModule(fr, sc, x.Template, x.WithContext, x.P)
		if err != nil {
			return sigNone, err
		}
		for i, name := range x.Names {
			v, ok := m.vars.Get(name)
			if !ok {
				line, _ := lineCol(fr.t.src, x.P)
				where := ""
				if fr.t.name != "" {
					where = " in " + value.Repr(fr.t.name)
				}
				v = &Undefined{name: name, hint: fmt.Sprintf("the template %s (imported on line %d%s) does not export the requested name %s", value.Repr(m.name), line, where, value.Repr(name))}
			}
			sc.set(x.Aliases[i], v)
			if sc == fr.top {
				delete(fr.exported, x.Aliases[i])
			}
		}
		return sigNone, nil
	case *extendsNode:
		if fr.parent != nil {
			return sigNone, errRuntime("extended multiple times")
		}
		v, err := r.eval(fr, sc, x.Template)
		if err != nil {
			return sigNone, err
		}
		t, err := r.loadTemplate(fr, v)
		if err != nil {
			return sigNone, err
		}
		fr.parent = t
		r.suppress = true
		return sigNone, nil
	case *blockNode:
		if fr.parent != nil {
			return sigNone, nil
		}
		return sigNone, r.renderBlock(fr, sc, x.Name, 0, x.Scoped)
	case *autoescNode:
		v, err := r.eval(fr, sc, x.X)
		if err != nil {
			return sigNone, err
		}
		saved := r.autoesc
		r.autoesc = value.Truthy(v)
		sig, err := r.execBody(fr, sc, x.Body)
		r.autoesc = saved
		return sig, err
	case *extNode:
		ctx := &Context{r: r, fr: fr, sc: sc, pos: x.P}
		err := x.Tag.Execute(ctx)
		return ctx.sig, err
	}
	return sigNone, errRuntime("unknown node %T", n)
}

func (fr *frame) export(name string) {
	if fr.exported == nil {
		fr.exported = map[string]bool{}
	}
	fr.exported[name] = true
}

// renderBlock renders the i-th definition of block name; scoped comes from
// the block statement being rendered (Jinja passes its locals then).
func (r *renderer) renderBlock(fr *frame, sc *scope, name string, i int, scoped bool) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	chain := fr.blocks[name]
	if i >= len(chain) {
		return errRuntime("no block %s", pyQuote(name))
	}
	b := chain[i]
	if b.Required && len(chain) == i+1 {
		return errRuntime("Required block %s not found", pyQuote(name))
	}
	parent := fr.top
	if scoped {
		parent = sc
	}
	bs := newScope(parent)
	bs.set("super", value.Func(func(args []any, kw *value.Map) (any, error) {
		if i+1 >= len(chain) {
			return &Undefined{name: "super", hint: "there is no parent block called " + pyQuote(name) + "."}, nil
		}
		s, err := r.capture(func() error { return r.renderBlock(fr, sc, name, i+1, scoped) })
		if err != nil {
			return nil, err
		}
		return r.maybeMarkup(s), nil
	}))
	owner := fr.owner[b]
	bfr := fr
	if owner != fr.t {
		cp := *fr
		cp.t = owner
		cp.parent = nil
		bfr = &cp
	}
	savedIn := r.inLoop
	r.inLoop = false
	_, err := r.execBody(bfr, bs, b.Body)
	r.inLoop = savedIn
	return err
}

func (r *renderer) maybeMarkup(s string) any {
	if r.autoesc {
		return Markup(s)
	}
	return s
}

// assign binds target to v in sc.
func (r *renderer) assign(fr *frame, sc *scope, target Expr, v any) error {
	switch t := target.(type) {
	case *nameExpr:
		sc.set(t.Name, v)
		if sc == fr.top {
			if strings.HasPrefix(t.Name, "_") {
				return nil
			}
			fr.export(t.Name)
		}
		return nil
	case *tupleExpr:
		items, err := r.iterate(v)
		if err != nil {
			if e := asError(err); e.Type == "TypeError" && strings.HasSuffix(e.Msg, "is not iterable") {
				return errType("cannot unpack non-iterable %s object", pyops.TypeName(v))
			}
			return err
		}
		if len(items) != len(t.Items) {
			if len(items) > len(t.Items) {
				return errValue("too many values to unpack (expected %d)", len(t.Items))
			}
			return errValue("not enough values to unpack (expected %d, got %d)", len(t.Items), len(items))
		}
		for i, e := range t.Items {
			if err := r.assign(fr, sc, e, items[i]); err != nil {
				return err
			}
		}
		return nil
	case *nsRefExpr:
		ns, ok := sc.lookup(t.NS)
		if !ok {
			ns, ok = r.lookupGlobal(t.NS)
		}
		n, isNS := ns.(*Namespace)
		if !ok || !isNS {
			return errRuntime("cannot assign attribute on non-namespace object")
		}
		if r.nsFree == nil {
			r.nsFree = nsFreeCache{}
		}
		if found, _ := r.nsFree.reachesNS(v, n, mutations.Load(), map[any]bool{}); found {
			return cycleErr()
		}
		n.Setattr(t.Attr, v)
		return nil
	}
	return errRuntime("cannot assign to %T", target)
}

// execFor runs a for loop; the signal returned is that of a break or
// continue in its else branch, which acts on an enclosing loop.
func (r *renderer) execFor(fr *frame, sc *scope, x *forNode) (loopSignal, error) {
	seq, err := r.eval(fr, sc, x.Iter)
	if err != nil {
		return sigNone, err
	}
	var loop *loopObj
	// run runs the loop (or a recursive call of it) and returns the number
	// of items it had
	var run func(seq any, depth int) (int, error)
	run = func(seq any, depth int) (int, error) {
		items, err := r.iterate(seq)
		if err != nil {
			return 0, r.mark(x.Iter.exprPos(), err)
		}
		if x.Cond != nil {
			filtered := make([]any, 0, len(items))
			cs := newScope(sc)
			for _, it := range items {
				if err := r.assign(fr, cs, x.Target, it); err != nil {
					return 0, err
				}
				v, err := r.eval(fr, cs, x.Cond)
				if err != nil {
					return 0, err
				}
				ok, err := r.truth(v)
				if err != nil {
					return 0, err
				}
				if ok {
					filtered = append(filtered, it)
				}
			}
			items = filtered
		}
		saved := loop
		loop = &loopObj{items: items, depth0: depth, r: r}
		if x.Recursive {
			loop.recurse = func(s any) (any, error) {
				if err := r.enter(); err != nil {
					return nil, err
				}
				defer r.leave()
				out, err := r.capture(func() error {
					_, err := run(s, depth+1)
					return err
				})
				if err != nil {
					return nil, err
				}
				return r.maybeMarkup(out), nil
			}
		}
		for i, it := range items {
			if err := r.step(); err != nil {
				return 0, err
			}
			loop.i = i
			// each iteration has its own scope: a set inside the body
			// does not survive into the next iteration
			body := newScope(sc)
			body.names = append(body.names, "loop")
			body.vals = append(body.vals, loop)
			if err := r.assign(fr, body, x.Target, it); err != nil {
				return 0, err
			}
			savedIn := r.inLoop
			r.inLoop = true
			sig, err := r.execBody(fr, body, x.Body)
			r.inLoop = savedIn
			if err != nil {
				return 0, err
			}
			if sig == sigBreak {
				break
			}
		}
		loop = saved
		return len(items), nil
	}
	n, err := run(seq, 0)
	if err != nil || n > 0 || len(x.Else) == 0 {
		return sigNone, err
	}
	return r.execBody(fr, newScope(sc), x.Else)
}

// loopObj is the loop variable.
type loopObj struct {
	items   []any
	i       int
	depth0  int
	recurse func(any) (any, error)
	changed bool
	last    []any
	r       *renderer
}

// Getattr returns an attribute of the value.
func (l *loopObj) Getattr(name string) (any, bool) {
	n := len(l.items)
	switch name {
	case "index":
		return int64(l.i + 1), true
	case "index0":
		return int64(l.i), true
	case "revindex":
		return int64(n - l.i), true
	case "revindex0":
		return int64(n - l.i - 1), true
	case "first":
		return l.i == 0, true
	case "last":
		return l.i == n-1, true
	case "length":
		return int64(n), true
	case "depth":
		return int64(l.depth0 + 1), true
	case "depth0":
		return int64(l.depth0), true
	case "previtem":
		if l.i == 0 {
			return &Undefined{name: "previtem", hint: "there is no previous item"}, true
		}
		return l.items[l.i-1], true
	case "nextitem":
		if l.i+1 >= n {
			return &Undefined{name: "nextitem", hint: "there is no next item"}, true
		}
		return l.items[l.i+1], true
	case "cycle":
		return value.Func(func(args []any, kw *value.Map) (any, error) {
			if len(args) == 0 {
				return nil, errType("no items for cycling given")
			}
			return args[l.i%len(args)], nil
		}), true
	case "changed":
		return value.Func(func(args []any, kw *value.Map) (any, error) {
			if l.changed && value.Equal(value.Tuple(l.last), value.Tuple(args)) {
				return false, nil
			}
			l.changed = true
			l.last = args
			return true, nil
		}), true
	}
	return nil, false
}

// Call implements recursive loops: loop(children).
func (l *loopObj) Call(args []any, kw *value.Map) (any, error) {
	if l.recurse == nil {
		return nil, errType("The loop must have the 'recursive' marker to be called recursively.")
	}
	if len(args) != 1 {
		return nil, errType("loop() takes exactly one argument")
	}
	return l.recurse(args[0])
}

// Repr is the value's Python repr.
func (l *loopObj) Repr() string { return fmt.Sprintf("<LoopContext %d/%d>", l.i+1, len(l.items)) }

// ObjectRepr names the value in undefined messages as Jinja does.
func (l *loopObj) ObjectRepr() string { return "jinja2.runtime.LoopContext object" }

// PyTypeName is the Python type name used in error messages.
func (*loopObj) PyTypeName() string { return "LoopContext" }

// selfRef is the `self` variable: self.blockname() renders a block.
type selfRef struct {
	r  *renderer
	fr *frame
	sc *scope
}

// Getattr returns an attribute of the value.
func (s *selfRef) Getattr(name string) (any, bool) {
	if _, ok := s.fr.blocks[name]; !ok {
		return nil, false
	}
	return value.Func(func(args []any, kw *value.Map) (any, error) {
		out, err := s.r.capture(func() error { return s.r.renderBlock(s.fr, s.sc, name, 0, false) })
		if err != nil {
			return nil, err
		}
		return s.r.maybeMarkup(out), nil
	}), true
}

// Repr is the value's Python repr.
func (s *selfRef) Repr() string { return "<TemplateReference " + value.Repr(s.fr.t.name) + ">" }

// PyTypeName is the Python type name used in error messages.
func (*selfRef) PyTypeName() string { return "TemplateReference" }

// ObjectRepr names the value in undefined messages as Jinja does.
func (s *selfRef) ObjectRepr() string { return "jinja2.runtime.TemplateReference object" }

// Macro is a template macro (or the caller of a call block).
type Macro struct {
	node    *macroNode
	closure *scope
	fr      *frame
	r       *renderer
}

// Call invokes the macro with Jinja's argument rules.
func (m *Macro) Call(args []any, kwargs *value.Map) (any, error) {
	r := m.r
	n := m.node
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer r.leave()
	sc := newScope(m.closure)
	if len(n.Args)+2 > len(sc.inlN) {
		sc.names = make([]string, 0, len(n.Args)+2)
		sc.vals = make([]any, 0, len(n.Args)+2)
	}
	var kw *value.Map
	if kwargs != nil && kwargs.Len() > 0 {
		kw = kwargs.Copy()
	}
	nargs := len(n.Args)
	ndef := len(n.Defaults)
	foundCaller := false
	for i, name := range n.Args {
		var v any
		have := false
		if i < len(args) {
			v, have = args[i], true
		} else if kw != nil {
			if kv, ok := kw.Delete(name); ok {
				v, have = kv, true
			}
		}
		if name == "caller" && i >= len(args) {
			foundCaller = true
		}
		if !have {
			if d := i - (nargs - ndef); d >= 0 {
				dv, err := r.eval(m.fr, sc, n.Defaults[d])
				if err != nil {
					return nil, err
				}
				v = dv
			} else {
				v = &Undefined{name: name, hint: fmt.Sprintf("parameter %s was not provided", value.Repr(name))}
			}
		}
		sc.names = append(sc.names, name)
		sc.vals = append(sc.vals, v)
	}
	if n.usesCaller && !foundCaller {
		var caller any
		if kw != nil {
			if c, ok := kw.Delete("caller"); ok {
				caller = c
			}
		}
		if caller == nil {
			caller = &Undefined{name: "caller", hint: "No caller defined"}
		}
		sc.set("caller", caller)
	}
	if n.usesKwargs {
		if kw == nil {
			kw = value.NewMap(0)
		}
		sc.set("kwargs", kw)
	} else if kw != nil && kw.Len() > 0 {
		if kw.Has("caller") {
			return nil, errType("macro %s was invoked with two values for the special caller argument. This is most likely a bug.", value.Repr(n.Name))
		}
		return nil, errType("macro %s takes no keyword argument %s", value.Repr(n.Name), value.Repr(kw.Keys()[0]))
	}
	if n.usesVarargs {
		var extra value.Tuple
		if len(args) > nargs {
			extra = append(value.Tuple{}, args[nargs:]...)
		} else {
			extra = value.Tuple{}
		}
		sc.set("varargs", extra)
	} else if len(args) > nargs {
		return nil, errType("macro %s takes not more than %d argument(s)", value.Repr(n.Name), nargs)
	}
	savedIn := r.inLoop
	r.inLoop = false
	out, err := r.capture(func() error {
		_, err := r.execBody(m.fr, sc, n.Body)
		return err
	})
	r.inLoop = savedIn
	if err != nil {
		return nil, err
	}
	return r.maybeMarkup(out), nil
}

// Getattr exposes the macro's introspection attributes.
func (m *Macro) Getattr(name string) (any, bool) {
	switch name {
	case "name":
		return m.node.Name, true
	case "arguments":
		t := make(value.Tuple, len(m.node.Args))
		for i, a := range m.node.Args {
			t[i] = a
		}
		return t, true
	case "catch_kwargs":
		return m.node.usesKwargs, true
	case "catch_varargs":
		return m.node.usesVarargs, true
	case "caller":
		return m.node.usesCaller, true
	}
	return nil, false
}

// Repr prints the macro as Jinja does.
func (m *Macro) Repr() string { return "<Macro " + value.Repr(m.node.Name) + ">" }

// ObjectRepr names the value in undefined messages as Jinja does.
func (m *Macro) ObjectRepr() string { return "jinja2.runtime.Macro object" }

// PyTypeName is the Python type name used in error messages.
func (*Macro) PyTypeName() string { return "Macro" }

// loadTemplate resolves a template name value (a string, a list of
// candidate names, or a Template) relative to the current template.
func (r *renderer) loadTemplate(fr *frame, v any) (*Template, error) {
	switch x := v.(type) {
	case *Template:
		return x, nil
	case string:
		return r.env.getTemplate(r.loader, x, fr.t.name)
	case Markup:
		return r.env.getTemplate(r.loader, string(x), fr.t.name)
	case *value.List, value.Tuple:
		items, _ := r.iterate(v)
		var names []string
		for _, it := range items {
			t, err := r.loadTemplate(fr, it)
			if err == nil {
				return t, nil
			}
			var je *Error
			if !errors.As(err, &je) || je.Kind != KindNotFound {
				return nil, err
			}
			names = append(names, pyStrOf(it))
		}
		return nil, &Error{Kind: KindNotFound, Type: "TemplatesNotFound", Msg: "none of the templates given were found: " + strings.Join(names, ", "), Err: ErrNotFound}
	case *Undefined:
		return nil, x.err()
	case nil:
		return nil, &Error{Kind: KindNotFound, Type: "TemplateNotFound", Msg: "None", Err: ErrNotFound}
	}
	return nil, errType("template name must be a string, got %s", value.TypeName(v))
}

// chainErr records the current template in an error raised by a nested one.
func (r *renderer) chainErr(fr *frame, pos int, err error) error {
	e := asError(err)
	if e.Name != "" || e.Line != 0 {
		line, _ := lineCol(fr.t.src, pos)
		e.Chain = append(e.Chain, Frame{Name: fr.t.name, Line: line})
		return e
	}
	return r.locate(fr, pos, e)
}

func (r *renderer) execInclude(fr *frame, sc *scope, x *includeNode) error {
	v, err := r.eval(fr, sc, x.Template)
	if err != nil {
		return err
	}
	t, err := r.loadTemplate(fr, v)
	if err != nil {
		var je *Error
		if x.IgnoreMissing && errors.As(err, &je) && je.Kind == KindNotFound {
			return nil
		}
		return r.locate(fr, x.P, err)
	}
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	var top *scope
	if x.WithContext {
		top = newScope(sc)
	} else {
		top = newScope(nil)
	}
	_, err = r.runTemplate(t, top)
	if err != nil {
		return r.chainErr(fr, x.P, err)
	}
	return nil
}

func (r *renderer) importModule(fr *frame, sc *scope, name Expr, withContext bool, pos int) (*Module, error) {
	v, err := r.eval(fr, sc, name)
	if err != nil {
		return nil, err
	}
	t, err := r.loadTemplate(fr, v)
	if err != nil {
		return nil, r.locate(fr, pos, err)
	}
	if !withContext {
		if m, ok := r.modules[t.name]; ok {
			return m, nil
		}
	}
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer r.leave()
	var top *scope
	if withContext {
		top = newScope(sc)
	} else {
		top = newScope(nil)
	}
	var mfr *frame
	out, err := r.capture(func() error {
		var err error
		mfr, err = r.runTemplate(t, top)
		return err
	})
	if err != nil {
		return nil, r.chainErr(fr, pos, err)
	}
	m := &Module{name: t.name, vars: value.NewMap(len(mfr.exported)), body: out}
	for i, n := range top.names {
		if mfr.exported[n] {
			m.vars.Set(n, top.vals[i])
		}
	}
	if !withContext {
		if r.modules == nil {
			r.modules = map[string]*Module{}
		}
		r.modules[t.name] = m
	}
	return m, nil
}

// lookupName resolves a variable.
func (r *renderer) lookupName(sc *scope, name string) any {
	if v, ok := sc.lookup(name); ok {
		return v
	}
	if v, ok := r.lookupGlobal(name); ok {
		return v
	}
	return undefinedName(name)
}

// lookupGlobal finds a per-render global, then an environment global.
func (r *renderer) lookupGlobal(name string) (any, bool) {
	if r.globals != nil {
		if v, ok := r.globals[name]; ok {
			return v, true
		}
	}
	v, ok := r.env.globals[name]
	return v, ok
}
