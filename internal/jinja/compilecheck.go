package jinja

import "fmt"

// Checks for the errors Jinja finds only when it compiles a template to
// Python: assignments to the loop variable inside a for loop (Jinja's
// code generator, TemplateAssertionError) and the errors Python's own
// compiler raises on the generated code (SyntaxError): a macro with two
// parameters of the same name, break and continue outside a loop.

const msgLoopAssign = "Can't assign to special loop variable in for-loop target"

// loopStore returns the position of the first name "loop" that a
// statement under f (f's own target included) assigns to, as Jinja's
// visit_For looks for stored Name nodes in the whole loop.
func loopStore(f *forNode) (int, bool) {
	pos, found := 0, false
	note := func(target Expr) {
		for _, p := range storedLoopNames(target, nil) {
			if !found || p < pos {
				pos, found = p, true
			}
		}
	}
	walkAny(f, func(n any) bool {
		switch x := n.(type) {
		case *forNode:
			note(x.Target)
		case *setNode:
			note(x.Target)
		case *setBlockNode:
			note(x.Target)
		}
		return true
	})
	return pos, found
}

// storedLoopNames appends the positions of the names "loop" in an
// assignment target (a name or nested tuples of names).
func storedLoopNames(target Expr, out []int) []int {
	switch x := target.(type) {
	case *nameExpr:
		if x.Name == "loop" {
			out = append(out, x.P)
		}
	case *tupleExpr:
		for _, it := range x.Items {
			out = storedLoopNames(it, out)
		}
	}
	return out
}

// pyCheck finds what Python's compiler would refuse in the code Jinja
// generates. level is the depth of Jinja's symbol frames, which names the
// generated parameters (l_1_a for parameter a of a top-level macro).
type pyCheck struct {
	t      *Template
	blocks []*blockNode
	dup    *Error // a duplicate macro parameter (found first by Python)
	ctl    *Error // a break or continue outside a loop
}

// checkCompiled returns the SyntaxError Python would raise compiling the
// template, or nil. Block bodies are separate functions, generated after
// the template's own code.
func (t *Template) checkCompiled() error {
	c := &pyCheck{t: t}
	c.body(t.body, false, 0)
	for i := 0; i < len(c.blocks); i++ {
		c.body(c.blocks[i].Body, false, 0)
	}
	if c.dup != nil {
		return c.dup
	}
	if c.ctl != nil {
		return c.ctl
	}
	return nil
}

func (c *pyCheck) fail(slot **Error, pos int, msg string) {
	if *slot == nil {
		*slot = c.t.errAt(pos, &Error{Kind: KindSyntax, Type: "SyntaxError", Msg: msg})
	}
}

func (c *pyCheck) body(b Body, inLoop bool, level int) {
	for _, n := range b {
		switch x := n.(type) {
		case *breakNode:
			if !inLoop {
				c.fail(&c.ctl, x.P, "'break' outside loop")
			}
		case *continueNode:
			if !inLoop {
				c.fail(&c.ctl, x.P, "'continue' not properly in loop")
			}
		case *forNode:
			c.body(x.Body, true, level+1)
			// the else branch runs after the loop; a recursive loop is a
			// function of its own
			c.body(x.Else, inLoop && !x.Recursive, level+1)
		case *ifNode:
			for _, b := range x.Bodies {
				c.body(b, inLoop, level)
			}
			c.body(x.Else, inLoop, level)
		case *macroNode:
			c.macro(x, level)
		case *callBlockNode:
			c.macro(x.Macro, level)
		case *filterBlockNode:
			c.body(x.Body, inLoop, level+1)
		case *withNode:
			c.body(x.Body, inLoop, level+1)
		case *setBlockNode:
			c.body(x.Body, inLoop, level+1)
		case *autoescNode:
			c.body(x.Body, inLoop, level+1)
		case *seqNode:
			c.body(x.Body, inLoop, level)
		case *blockNode:
			c.blocks = append(c.blocks, x)
		}
	}
}

func (c *pyCheck) macro(m *macroNode, level int) {
	for i, a := range m.Args {
		for _, prev := range m.Args[:i] {
			if prev == a {
				c.fail(&c.dup, m.P, fmt.Sprintf("duplicate argument 'l_%d_%s' in function definition", level+1, a))
			}
		}
	}
	c.body(m.Body, false, level+1)
}

// markWith sets the error position of every {% with %} under body. Jinja
// generates no line marker for a with statement, so an error in one of
// its values is reported at the line of the last marker written before
// it in the generated code: the last statement, non-constant {{ }}
// expression or loop, taken in code generation order (a block set, a
// filter block and a call block mark their own line after their body; a
// block's body is a function of its own starting at the block's line).
// last is that position so far (0, line 1, when there is none); the
// position after body is returned.
func markWith(body Body, last int) int {
	for _, n := range body {
		switch x := n.(type) {
		case *dataNode:
		case *printNode:
			if !constLiteral(x.X) {
				last = stmtPos(x)
			}
		case *seqNode:
			last = markWith(x.Body, last)
		case *forNode:
			last = markWith(x.Body, x.P)
			last = markWith(x.Else, last)
		case *ifNode:
			for i, b := range x.Bodies {
				if i == 0 {
					last = x.P
				} else {
					last = x.Tests[i].exprPos()
				}
				last = markWith(b, last)
			}
			last = markWith(x.Else, last)
		case *macroNode:
			last = markWith(x.Body, x.P)
		case *callBlockNode:
			markWith(x.Macro.Body, x.P)
			last = x.P
		case *filterBlockNode:
			markWith(x.Body, last)
			last = x.P
		case *setBlockNode:
			markWith(x.Body, last)
			last = x.P
		case *blockNode:
			markWith(x.Body, x.P)
			last = x.P
		case *withNode:
			x.markPos = last
			last = markWith(x.Body, last)
		case *autoescNode:
			last = markWith(x.Body, last)
		default: // set, do, include, import, extends, break, continue, tags
			last = n.nodePos()
		}
	}
	return last
}

// constLiteral reports whether Jinja folds x into constant output at
// compile time (literals and containers of literals).
func constLiteral(x Expr) bool {
	switch x := x.(type) {
	case *constExpr:
		return true
	case *listExpr:
		return allConst(x.Items)
	case *tupleExpr:
		return allConst(x.Items)
	case *dictExpr:
		return allConst(x.Keys) && allConst(x.Vals)
	}
	return false
}

func allConst(xs []Expr) bool {
	for _, x := range xs {
		if !constLiteral(x) {
			return false
		}
	}
	return true
}
