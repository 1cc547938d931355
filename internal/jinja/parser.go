package jinja

import (
	"fmt"
	"strings"
)

// Parser is the template parser. Tag extensions receive it to parse their
// own statements with its helpers.
type Parser struct {
	toks     []token
	i        int
	name     string
	src      string
	tags     map[string]TagParser
	tagStack []string
	endStack [][]string
	depth    int
}

// maxNesting bounds expression and statement nesting.
const maxNesting = 200

func (p *Parser) cur() token  { return p.toks[p.i] }
func (p *Parser) look() token { return p.toks[min(p.i+1, len(p.toks)-1)] }
func (p *Parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *Parser) failAt(pos int, msg string) *Error {
	line, col := lineCol(p.src, pos)
	return &Error{Kind: KindSyntax, Type: "TemplateSyntaxError", Msg: msg, Name: p.name, Line: line, Col: col, Source: sourceLine(p.src, line)}
}

// Fail returns a syntax error at the current token.
func (p *Parser) Fail(msg string) error { return p.failAt(p.cur().pos, msg) }

func (p *Parser) isOp(op string) bool {
	t := p.cur()
	return t.typ == tOp && t.val == op
}

func (p *Parser) isName(n string) bool {
	t := p.cur()
	return t.typ == tName && t.val == n
}

func (p *Parser) skipOp(op string) bool {
	if p.isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *Parser) skipName(n string) bool {
	if p.isName(n) {
		p.next()
		return true
	}
	return false
}

// expectErr builds Jinja's "expected token" error for expectation desc.
func (p *Parser) expectErr(desc string) *Error {
	t := p.cur()
	if t.typ == tEOF {
		return p.failAt(t.pos, fmt.Sprintf("unexpected end of template, expected %s.", pyQuote(desc)))
	}
	return p.failAt(t.pos, fmt.Sprintf("expected token %s, got %s", pyQuote(desc), pyQuote(describeToken(t))))
}

func (p *Parser) expectOp(op string) error {
	if !p.skipOp(op) {
		return p.expectErr(op)
	}
	return nil
}

func (p *Parser) expectNameKw(n string) error {
	if !p.skipName(n) {
		return p.expectErr(n)
	}
	return nil
}

func (p *Parser) expectBlockEnd() error {
	if p.cur().typ != tBlockEnd {
		return p.expectErr("end of statement block")
	}
	p.next()
	return nil
}

// ParseExpression parses one expression (with conditional expressions).
func (p *Parser) ParseExpression() (Expr, error) { return p.parseExpression(true) }

// ParseTuple parses an expression or a comma-separated tuple of them.
func (p *Parser) ParseTuple() (Expr, error) { return p.parseTuple(false, true, nil, false) }

// Name consumes and returns a name token.
func (p *Parser) Name() (string, error) {
	t := p.cur()
	if t.typ != tName {
		return "", p.expectErr("name")
	}
	p.next()
	return t.val, nil
}

// Keyword consumes the name token word or fails.
func (p *Parser) Keyword(word string) error { return p.expectNameKw(word) }

// SkipKeyword consumes the name token word if it is next.
func (p *Parser) SkipKeyword(word string) bool { return p.skipName(word) }

// PeekName returns the current token's text if it is a name, else "".
func (p *Parser) PeekName() string {
	if t := p.cur(); t.typ == tName {
		return t.val
	}
	return ""
}

// AtBlockEnd reports whether the statement's closing %} is next.
func (p *Parser) AtBlockEnd() bool { return p.cur().typ == tBlockEnd }

// ParseBody parses the body of a block tag: it expects the end of the
// current statement, parses statements until one of endTags, and consumes
// that end tag's name, which it returns. The caller's statement must then
// be at its end (the block's closing %}).
func (p *Parser) ParseBody(endTags ...string) (Body, string, error) {
	b, err := p.parseStatements(endTags)
	if err != nil {
		return nil, "", err
	}
	return b, p.next().val, nil
}

func (p *Parser) parseTemplate() (Body, error) {
	b, err := p.subparse(nil)
	if err != nil {
		return nil, err
	}
	if p.cur().typ != tEOF {
		return nil, p.Fail("unexpected " + pyQuote(describeToken(p.cur())))
	}
	return b, nil
}

// parseStatements parses a body up to (not past) one of the end tags.
func (p *Parser) parseStatements(ends []string) (Body, error) {
	p.skipOp(":")
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	b, err := p.subparse(ends)
	if err != nil {
		return nil, err
	}
	if p.cur().typ == tEOF {
		p.endStack = append(p.endStack, ends)
		err := p.failEOF()
		p.endStack = p.endStack[:len(p.endStack)-1]
		return nil, err
	}
	return b, nil
}

func (p *Parser) subparse(ends []string) (Body, error) {
	var body Body
	if ends != nil {
		p.endStack = append(p.endStack, ends)
		defer func() { p.endStack = p.endStack[:len(p.endStack)-1] }()
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, p.Fail("template nesting too deep")
	}
	for {
		t := p.cur()
		switch t.typ {
		case tEOF:
			return body, nil
		case tData:
			body = append(body, &dataNode{posn{t.pos}, t.val})
			p.next()
		case tVarBegin:
			p.next()
			x, err := p.parseTuple(false, true, nil, false)
			if err != nil {
				return nil, err
			}
			if p.cur().typ != tVarEnd {
				return nil, p.expectErr("end of print statement")
			}
			p.next()
			body = append(body, &printNode{posn{t.pos}, x})
		case tBlockBegin:
			p.next()
			if ends != nil && p.cur().typ == tName {
				for _, e := range ends {
					if p.cur().val == e {
						return body, nil
					}
				}
			}
			n, err := p.parseStatement()
			if err != nil {
				return nil, err
			}
			if n != nil {
				body = append(body, n)
			}
			if err := p.expectBlockEnd(); err != nil {
				return nil, err
			}
		default:
			return nil, p.Fail("unexpected " + pyQuote(describeToken(t)))
		}
	}
}

func (p *Parser) failEOF() *Error {
	return p.failUnknown("", true, p.cur().pos)
}

func (p *Parser) failUnknown(name string, eof bool, pos int) *Error {
	expected := map[string]bool{}
	for _, es := range p.endStack {
		for _, e := range es {
			expected[e] = true
		}
	}
	var msg []string
	if eof {
		msg = append(msg, "Unexpected end of template.")
	} else {
		msg = append(msg, fmt.Sprintf("Encountered unknown tag %s.", pyQuote(name)))
	}
	if len(p.endStack) > 0 {
		var q []string
		for _, e := range p.endStack[len(p.endStack)-1] {
			q = append(q, pyQuote(e))
		}
		looking := strings.Join(q, " or ")
		if !eof && expected[name] {
			msg = append(msg, "You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for "+looking+".")
		} else {
			msg = append(msg, "Jinja was looking for the following tags: "+looking+".")
		}
	}
	if len(p.tagStack) > 0 {
		msg = append(msg, "The innermost block that needs to be closed is "+pyQuote(p.tagStack[len(p.tagStack)-1])+".")
	}
	return p.failAt(pos, strings.Join(msg, " "))
}

func (p *Parser) parseStatement() (Node, error) {
	t := p.cur()
	if t.typ != tName {
		return nil, p.Fail("tag name expected")
	}
	p.tagStack = append(p.tagStack, t.val)
	defer func() { p.tagStack = p.tagStack[:len(p.tagStack)-1] }()
	switch t.val {
	case "for":
		return p.parseFor()
	case "if":
		return p.parseIf()
	case "block":
		return p.parseBlock()
	case "extends":
		p.next()
		x, err := p.ParseExpression()
		return &extendsNode{posn{t.pos}, x}, err
	case "print":
		p.next()
		var items []Expr
		for p.cur().typ != tBlockEnd {
			if len(items) > 0 {
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
			x, err := p.ParseExpression()
			if err != nil {
				return nil, err
			}
			items = append(items, x)
		}
		seq := &seqNode{posn: posn{t.pos}}
		for _, x := range items {
			seq.Body = append(seq.Body, &printNode{posn{x.exprPos()}, x})
		}
		return seq, nil
	case "macro":
		return p.parseMacro()
	case "include":
		return p.parseInclude()
	case "from":
		return p.parseFrom()
	case "import":
		return p.parseImport()
	case "set":
		return p.parseSet()
	case "with":
		return p.parseWith()
	case "autoescape":
		p.next()
		x, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		b, err := p.parseStatements([]string{"endautoescape"})
		if err != nil {
			return nil, err
		}
		p.next()
		return &autoescNode{posn{t.pos}, x, b}, nil
	case "call":
		return p.parseCallBlock()
	case "filter":
		p.next()
		f, err := p.parseFilter(nil, true)
		if err != nil {
			return nil, err
		}
		b, err := p.parseStatements([]string{"endfilter"})
		if err != nil {
			return nil, err
		}
		p.next()
		return &filterBlockNode{posn{t.pos}, f, b}, nil
	case "do":
		p.next()
		x, err := p.ParseTuple()
		return &doNode{posn{t.pos}, x}, err
	case "break":
		p.next()
		return &breakNode{posn{t.pos}}, nil
	case "continue":
		p.next()
		return &continueNode{posn{t.pos}}, nil
	}
	if tp, ok := p.tags[t.val]; ok {
		p.next()
		n, err := tp(p)
		if err != nil {
			return nil, err
		}
		return &extNode{posn{t.pos}, n}, nil
	}
	p.tagStack = p.tagStack[:len(p.tagStack)-1]
	defer func() { p.tagStack = append(p.tagStack, "") }()
	return nil, p.failUnknown(t.val, false, t.pos)
}

func (p *Parser) parseFor() (Node, error) {
	t := p.next()
	target, err := p.parseAssignTarget(false, false, []string{"in"})
	if err != nil {
		return nil, err
	}
	if err := p.expectNameKw("in"); err != nil {
		return nil, err
	}
	iter, err := p.parseTuple(false, false, []string{"recursive"}, false)
	if err != nil {
		return nil, err
	}
	n := &forNode{posn: posn{t.pos}, Target: target, Iter: iter}
	if p.skipName("if") {
		if n.Cond, err = p.ParseExpression(); err != nil {
			return nil, err
		}
	}
	n.Recursive = p.skipName("recursive")
	if n.Body, err = p.parseStatements([]string{"endfor", "else"}); err != nil {
		return nil, err
	}
	if p.next().val == "else" {
		if n.Else, err = p.parseStatements([]string{"endfor"}); err != nil {
			return nil, err
		}
		p.next()
	}
	return n, nil
}

func (p *Parser) parseIf() (Node, error) {
	t := p.next()
	n := &ifNode{posn: posn{t.pos}}
	for {
		test, err := p.parseTuple(false, false, nil, false)
		if err != nil {
			return nil, err
		}
		body, err := p.parseStatements([]string{"elif", "else", "endif"})
		if err != nil {
			return nil, err
		}
		n.Tests = append(n.Tests, test)
		n.Bodies = append(n.Bodies, body)
		switch p.next().val {
		case "elif":
			continue
		case "else":
			if n.Else, err = p.parseStatements([]string{"endif"}); err != nil {
				return nil, err
			}
			p.next()
		}
		return n, nil
	}
}

func (p *Parser) parseBlock() (Node, error) {
	t := p.next()
	name, err := p.Name()
	if err != nil {
		return nil, err
	}
	n := &blockNode{posn: posn{t.pos}, Name: name}
	n.Scoped = p.skipName("scoped")
	n.Required = p.skipName("required")
	if p.isOp("-") {
		return nil, p.Fail("Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore instead.")
	}
	if n.Body, err = p.parseStatements([]string{"endblock"}); err != nil {
		return nil, err
	}
	p.next()
	if n.Required {
		for _, b := range n.Body {
			d, ok := b.(*dataNode)
			if !ok || strings.TrimSpace(d.Text) != "" {
				return nil, p.Fail("Required blocks can only contain comments or whitespace")
			}
		}
	}
	p.skipName(name)
	return n, nil
}

// parseImportContext reads an optional "with context"/"without context".
func (p *Parser) parseImportContext(def bool) bool {
	if (p.isName("with") || p.isName("without")) && p.look().typ == tName && p.look().val == "context" {
		w := p.next().val == "with"
		p.next()
		return w
	}
	return def
}

func (p *Parser) parseInclude() (Node, error) {
	t := p.next()
	x, err := p.ParseExpression()
	if err != nil {
		return nil, err
	}
	n := &includeNode{posn: posn{t.pos}, Template: x}
	if p.isName("ignore") && p.look().typ == tName && p.look().val == "missing" {
		n.IgnoreMissing = true
		p.next()
		p.next()
	}
	n.WithContext = p.parseImportContext(true)
	return n, nil
}

func (p *Parser) parseImport() (Node, error) {
	t := p.next()
	x, err := p.ParseExpression()
	if err != nil {
		return nil, err
	}
	if err := p.expectNameKw("as"); err != nil {
		return nil, err
	}
	name, err := p.Name()
	if err != nil {
		return nil, err
	}
	return &importNode{posn{t.pos}, x, name, p.parseImportContext(false)}, nil
}

func (p *Parser) parseFrom() (Node, error) {
	t := p.next()
	x, err := p.ParseExpression()
	if err != nil {
		return nil, err
	}
	if err := p.expectNameKw("import"); err != nil {
		return nil, err
	}
	n := &fromImportNode{posn: posn{t.pos}, Template: x}
	parseCtx := func() bool {
		if (p.isName("with") || p.isName("without")) && p.look().typ == tName && p.look().val == "context" {
			n.WithContext = p.next().val == "with"
			p.next()
			return true
		}
		return false
	}
	for {
		if len(n.Names) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		if p.cur().typ != tName {
			return nil, p.expectErr("name")
		}
		if parseCtx() {
			break
		}
		nt := p.next()
		if strings.HasPrefix(nt.val, "_") {
			e := p.failAt(nt.pos, "names starting with an underline can not be imported")
			e.Type = "TemplateAssertionError"
			return nil, e
		}
		alias := nt.val
		if p.skipName("as") {
			if alias, err = p.Name(); err != nil {
				return nil, err
			}
		}
		n.Names = append(n.Names, nt.val)
		n.Aliases = append(n.Aliases, alias)
		if parseCtx() || !p.isOp(",") {
			break
		}
	}
	return n, nil
}

func (p *Parser) parseSignature() ([]string, []Expr, error) {
	var args []string
	var defs []Expr
	if err := p.expectOp("("); err != nil {
		return nil, nil, err
	}
	for !p.isOp(")") {
		if len(args) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, nil, err
			}
		}
		name, err := p.Name()
		if err != nil {
			return nil, nil, err
		}
		if p.skipOp("=") {
			d, err := p.ParseExpression()
			if err != nil {
				return nil, nil, err
			}
			defs = append(defs, d)
		} else if len(defs) > 0 {
			return nil, nil, p.Fail("non-default argument follows default argument")
		}
		args = append(args, name)
	}
	p.next()
	return args, defs, nil
}

func (p *Parser) parseMacro() (Node, error) {
	t := p.next()
	name, err := p.Name()
	if err != nil {
		return nil, err
	}
	args, defs, err := p.parseSignature()
	if err != nil {
		return nil, err
	}
	body, err := p.parseStatements([]string{"endmacro"})
	if err != nil {
		return nil, err
	}
	p.next()
	if err := p.checkCallerArg(t.pos, args, defs, body); err != nil {
		return nil, err
	}
	m := &macroNode{posn: posn{t.pos}, Name: name, Args: args, Defaults: defs, Body: body}
	analyzeMacro(m)
	return m, nil
}

func (p *Parser) parseCallBlock() (Node, error) {
	t := p.next()
	var args []string
	var defs []Expr
	var err error
	if p.isOp("(") {
		if args, defs, err = p.parseSignature(); err != nil {
			return nil, err
		}
	}
	x, err := p.ParseExpression()
	if err != nil {
		return nil, err
	}
	call, ok := x.(*callExpr)
	if !ok {
		return nil, p.failAt(t.pos, "expected call")
	}
	body, err := p.parseStatements([]string{"endcall"})
	if err != nil {
		return nil, err
	}
	p.next()
	if err := p.checkCallerArg(t.pos, args, defs, body); err != nil {
		return nil, err
	}
	m := &macroNode{posn: posn{t.pos}, Name: "caller", Args: args, Defaults: defs, Body: body}
	analyzeMacro(m)
	return &callBlockNode{posn{t.pos}, call, m}, nil
}

func (p *Parser) parseSet() (Node, error) {
	t := p.next()
	target, err := p.parseAssignTarget(true, false, nil)
	if err != nil {
		return nil, err
	}
	if p.skipOp("=") {
		x, err := p.ParseTuple()
		if err != nil {
			return nil, err
		}
		return &setNode{posn{t.pos}, target, x}, nil
	}
	f, err := p.parseFilter(nil, false)
	if err != nil {
		return nil, err
	}
	body, err := p.parseStatements([]string{"endset"})
	if err != nil {
		return nil, err
	}
	p.next()
	return &setBlockNode{posn{t.pos}, target, f, body}, nil
}

func (p *Parser) parseWith() (Node, error) {
	t := p.next()
	n := &withNode{posn: posn{t.pos}}
	for p.cur().typ != tBlockEnd {
		if len(n.Targets) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		target, err := p.parseAssignTarget(false, false, nil)
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		v, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		n.Targets = append(n.Targets, target)
		n.Values = append(n.Values, v)
	}
	body, err := p.parseStatements([]string{"endwith"})
	if err != nil {
		return nil, err
	}
	p.next()
	n.Body = body
	return n, nil
}

// parseAssignTarget parses a name, a tuple of names, or (withNS) ns.attr.
func (p *Parser) parseAssignTarget(withNS, nameOnly bool, extraEnd []string) (Expr, error) {
	t := p.cur()
	if withNS && t.typ == tName && p.look().typ == tOp && p.look().val == "." {
		p.next()
		p.next()
		attr, err := p.Name()
		if err != nil {
			return nil, err
		}
		return &nsRefExpr{posn{t.pos}, t.val, attr}, nil
	}
	if nameOnly {
		n, err := p.Name()
		if err != nil {
			return nil, err
		}
		return &nameExpr{posn{t.pos}, n}, nil
	}
	x, err := p.parseTuple(true, true, extraEnd, false)
	if err != nil {
		return nil, err
	}
	if !validTarget(x) {
		return nil, p.failAt(t.pos, "can't assign to "+targetKind(x))
	}
	return x, nil
}

func validTarget(x Expr) bool {
	switch v := x.(type) {
	case *nameExpr:
		switch v.Name {
		case "true", "false", "none", "True", "False", "None":
			return false
		}
		return true
	case *tupleExpr:
		for _, e := range v.Items {
			if !validTarget(e) {
				return false
			}
		}
		return true
	case *nsRefExpr:
		return true
	}
	return false
}

func targetKind(x Expr) string {
	switch x.(type) {
	case *constExpr:
		return "'const'"
	case *tupleExpr:
		return "'tuple'"
	case *listExpr:
		return "'list'"
	case *dictExpr:
		return "'dict'"
	case *nameExpr:
		return "'name'"
	}
	return "'expression'"
}

func (p *Parser) isTupleEnd(extra []string) bool {
	t := p.cur()
	switch {
	case t.typ == tVarEnd, t.typ == tBlockEnd, t.typ == tOp && t.val == ")":
		return true
	}
	// Jinja passes its extra end rules in a way that never matches, so
	// they are deliberately ignored here too.
	return false
}

func (p *Parser) parseTuple(simplified, withCond bool, extraEnd []string, explicitParens bool) (Expr, error) {
	start := p.cur().pos
	var args []Expr
	isTuple := false
	for {
		if len(args) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		if p.isTupleEnd(extraEnd) {
			break
		}
		var x Expr
		var err error
		if simplified {
			x, err = p.parsePrimary()
		} else {
			x, err = p.parseExpression(withCond)
		}
		if err != nil {
			return nil, err
		}
		args = append(args, x)
		if p.isOp(",") {
			isTuple = true
		} else {
			break
		}
	}
	if !isTuple {
		if len(args) > 0 {
			return args[0], nil
		}
		if !explicitParens {
			return nil, p.Fail("Expected an expression, got " + pyQuote(describeToken(p.cur())))
		}
	}
	return &tupleExpr{posn{start}, args}, nil
}

func (p *Parser) parseExpression(withCond bool) (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, p.Fail("expression nesting too deep")
	}
	if withCond {
		return p.parseCondExpr()
	}
	return p.parseOr()
}

func (p *Parser) parseCondExpr() (Expr, error) {
	start := p.cur().pos
	x, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	for p.skipName("if") {
		test, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		var els Expr
		if p.skipName("else") {
			p.depth++
			if p.depth > maxNesting {
				return nil, p.Fail("expression nesting too deep")
			}
			els, err = p.parseCondExpr()
			p.depth--
			if err != nil {
				return nil, err
			}
		}
		x = &condExpr{posn{start}, test, x, els}
	}
	return x, nil
}

func (p *Parser) parseOr() (Expr, error) {
	start := p.cur().pos
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.skipName("or") {
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &binExpr{posn{start}, "or", l, r}
	}
	return l, nil
}

func (p *Parser) parseAnd() (Expr, error) {
	start := p.cur().pos
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.skipName("and") {
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = &binExpr{posn{start}, "and", l, r}
	}
	return l, nil
}

func (p *Parser) parseNot() (Expr, error) {
	if p.isName("not") {
		t := p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxNesting {
			return nil, p.Fail("expression nesting too deep")
		}
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{posn{t.pos}, "not", x}, nil
	}
	return p.parseCompare()
}

func (p *Parser) parseCompare() (Expr, error) {
	start := p.cur().pos
	x, err := p.parseMath1()
	if err != nil {
		return nil, err
	}
	var ops []compareOp
	for {
		t := p.cur()
		var op string
		switch {
		case t.typ == tOp && (t.val == "==" || t.val == "!=" || t.val == "<" || t.val == "<=" || t.val == ">" || t.val == ">="):
			op = t.val
			p.next()
		case t.typ == tName && t.val == "in":
			op = "in"
			p.next()
		case t.typ == tName && t.val == "not" && p.look().typ == tName && p.look().val == "in":
			op = "notin"
			p.next()
			p.next()
		}
		if op == "" {
			break
		}
		r, err := p.parseMath1()
		if err != nil {
			return nil, err
		}
		ops = append(ops, compareOp{op, r})
	}
	if len(ops) == 0 {
		return x, nil
	}
	return &compareExpr{posn{start}, x, ops}, nil
}

func (p *Parser) parseBinLevel(ops []string, next func() (Expr, error)) (Expr, error) {
	start := p.cur().pos
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		t := p.cur()
		if t.typ != tOp {
			return l, nil
		}
		found := false
		for _, o := range ops {
			if t.val == o {
				found = true
				break
			}
		}
		if !found {
			return l, nil
		}
		p.next()
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = &binExpr{posn{start}, t.val, l, r}
	}
}

func (p *Parser) parseMath1() (Expr, error) {
	return p.parseBinLevel([]string{"+", "-"}, p.parseConcat)
}

func (p *Parser) parseConcat() (Expr, error) {
	return p.parseBinLevel([]string{"~"}, p.parseMath2)
}

func (p *Parser) parseMath2() (Expr, error) {
	return p.parseBinLevel([]string{"*", "/", "//", "%"}, p.parsePow)
}

func (p *Parser) parsePow() (Expr, error) {
	return p.parseBinLevel([]string{"**"}, func() (Expr, error) { return p.parseUnary(true) })
}

func (p *Parser) parseUnary(withFilter bool) (Expr, error) {
	t := p.cur()
	var x Expr
	var err error
	if t.typ == tOp && (t.val == "-" || t.val == "+") {
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxNesting {
			return nil, p.Fail("expression nesting too deep")
		}
		inner, err := p.parseUnary(false)
		if err != nil {
			return nil, err
		}
		x = &unaryExpr{posn{t.pos}, t.val, inner}
	} else if x, err = p.parsePrimary(); err != nil {
		return nil, err
	}
	if x, err = p.parsePostfix(x); err != nil {
		return nil, err
	}
	if withFilter {
		return p.parseFilterExpr(x)
	}
	return x, nil
}

func (p *Parser) parsePrimary() (Expr, error) {
	t := p.cur()
	switch t.typ {
	case tName:
		p.next()
		switch t.val {
		case "true", "True":
			return &constExpr{posn{t.pos}, true}, nil
		case "false", "False":
			return &constExpr{posn{t.pos}, false}, nil
		case "none", "None":
			return &constExpr{posn{t.pos}, nil}, nil
		}
		return &nameExpr{posn{t.pos}, t.val}, nil
	case tString:
		p.next()
		s := t.val
		if p.cur().typ == tString {
			var b strings.Builder
			b.WriteString(s)
			for p.cur().typ == tString {
				b.WriteString(p.next().val)
			}
			s = b.String()
		}
		return &constExpr{posn{t.pos}, s}, nil
	case tInt, tFloat:
		p.next()
		return &constExpr{posn{t.pos}, t.num}, nil
	case tOp:
		switch t.val {
		case "(":
			p.next()
			p.depth++
			defer func() { p.depth-- }()
			if p.depth > maxNesting {
				return nil, p.Fail("expression nesting too deep")
			}
			x, err := p.parseTuple(false, true, nil, true)
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return x, nil
		case "[":
			return p.parseList()
		case "{":
			return p.parseDict()
		}
	}
	return nil, p.Fail("unexpected " + pyQuote(describeToken(t)))
}

func (p *Parser) parseList() (Expr, error) {
	t := p.next()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, p.Fail("expression nesting too deep")
	}
	var items []Expr
	for !p.isOp("]") {
		if len(items) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		if p.isOp("]") {
			break
		}
		x, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		items = append(items, x)
	}
	p.next()
	return &listExpr{posn{t.pos}, items}, nil
}

func (p *Parser) parseDict() (Expr, error) {
	t := p.next()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, p.Fail("expression nesting too deep")
	}
	d := &dictExpr{posn: posn{t.pos}}
	for !p.isOp("}") {
		if len(d.Keys) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		if p.isOp("}") {
			break
		}
		k, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		v, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		d.Keys = append(d.Keys, k)
		d.Vals = append(d.Vals, v)
	}
	p.next()
	return d, nil
}

func (p *Parser) parsePostfix(x Expr) (Expr, error) {
	for {
		t := p.cur()
		if t.typ != tOp {
			return x, nil
		}
		var err error
		switch t.val {
		case ".", "[":
			x, err = p.parseSubscript(x)
		case "(":
			x, err = p.parseCall(x)
		default:
			return x, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *Parser) parseFilterExpr(x Expr) (Expr, error) {
	for {
		t := p.cur()
		var err error
		switch {
		case t.typ == tOp && t.val == "|":
			x, err = p.parseFilter(x, false)
		case t.typ == tName && t.val == "is":
			x, err = p.parseTest(x)
		case t.typ == tOp && t.val == "(":
			x, err = p.parseCall(x)
		default:
			return x, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *Parser) parseSubscript(x Expr) (Expr, error) {
	t := p.next()
	if t.val == "." {
		a := p.cur()
		p.next()
		switch a.typ {
		case tName:
			return &getattrExpr{posn{t.pos}, x, a.val}, nil
		case tInt:
			return &getitemExpr{posn{t.pos}, x, &constExpr{posn{a.pos}, a.num}}, nil
		}
		return nil, p.failAt(a.pos, "expected name or number")
	}
	var args []Expr
	for !p.isOp("]") {
		if len(args) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
			if p.isOp("]") {
				break
			}
		}
		a, err := p.parseSubscribed()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	if err := p.expectOp("]"); err != nil {
		return nil, err
	}
	if len(args) == 1 {
		return &getitemExpr{posn{t.pos}, x, args[0]}, nil
	}
	return &getitemExpr{posn{t.pos}, x, &tupleExpr{posn{t.pos}, args}}, nil
}

func (p *Parser) parseSubscribed() (Expr, error) {
	start := p.cur().pos
	var args [3]Expr
	if p.isOp(":") {
		p.next()
	} else {
		x, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		if !p.isOp(":") {
			return x, nil
		}
		p.next()
		args[0] = x
	}
	if !p.isOp("]") && !p.isOp(",") && !p.isOp(":") {
		x, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		args[1] = x
	}
	if p.skipOp(":") {
		if !p.isOp("]") && !p.isOp(",") {
			x, err := p.ParseExpression()
			if err != nil {
				return nil, err
			}
			args[2] = x
		}
	}
	return &sliceExpr{posn{start}, args[0], args[1], args[2]}, nil
}

func (p *Parser) parseCallArgs() (callArgs, error) {
	var c callArgs
	t := p.next() // (
	require := func(ok bool) error {
		if !ok {
			return p.failAt(t.pos, "invalid syntax for function call expression")
		}
		return nil
	}
	first := true
	for !p.isOp(")") {
		if !first {
			if err := p.expectOp(","); err != nil {
				return c, err
			}
			if p.isOp(")") {
				break
			}
		}
		first = false
		switch {
		case p.isOp("*"):
			if err := require(c.DynArgs == nil && c.DynKwargs == nil); err != nil {
				return c, err
			}
			p.next()
			x, err := p.ParseExpression()
			if err != nil {
				return c, err
			}
			c.DynArgs = x
		case p.isOp("**"):
			if err := require(c.DynKwargs == nil); err != nil {
				return c, err
			}
			p.next()
			x, err := p.ParseExpression()
			if err != nil {
				return c, err
			}
			c.DynKwargs = x
		default:
			if p.cur().typ == tName && p.look().typ == tOp && p.look().val == "=" {
				if err := require(c.DynKwargs == nil); err != nil {
					return c, err
				}
				key := p.next().val
				p.next()
				x, err := p.ParseExpression()
				if err != nil {
					return c, err
				}
				c.KwNames = append(c.KwNames, key)
				c.KwVals = append(c.KwVals, x)
			} else {
				if err := require(c.DynArgs == nil && c.DynKwargs == nil && len(c.KwNames) == 0); err != nil {
					return c, err
				}
				x, err := p.ParseExpression()
				if err != nil {
					return c, err
				}
				c.Args = append(c.Args, x)
			}
		}
	}
	p.next()
	return c, nil
}

func (p *Parser) parseCall(x Expr) (Expr, error) {
	pos := p.cur().pos
	args, err := p.parseCallArgs()
	if err != nil {
		return nil, err
	}
	return &callExpr{posn{pos}, x, args}, nil
}

// parseFilter parses "|name(args)|name2..." (startInline: the first pipe
// is absent, as in filter blocks).
func (p *Parser) parseFilter(x Expr, startInline bool) (*filterExpr, error) {
	var out *filterExpr
	for p.isOp("|") || startInline {
		if !startInline {
			p.next()
		}
		startInline = false
		t := p.cur()
		name, err := p.Name()
		if err != nil {
			return nil, err
		}
		for p.isOp(".") {
			p.next()
			n2, err := p.Name()
			if err != nil {
				return nil, err
			}
			name += "." + n2
		}
		f := &filterExpr{posn: posn{t.pos}, X: x, Name: name}
		if p.isOp("(") {
			if f.callArgs, err = p.parseCallArgs(); err != nil {
				return nil, err
			}
		}
		out = f
		x = f
	}
	return out, nil
}

func (p *Parser) parseTest(x Expr) (Expr, error) {
	t := p.next() // is
	negated := p.skipName("not")
	name, err := p.Name()
	if err != nil {
		return nil, err
	}
	for p.isOp(".") {
		p.next()
		n2, err := p.Name()
		if err != nil {
			return nil, err
		}
		name += "." + n2
	}
	n := &testExpr{posn: posn{t.pos}, X: x, Name: name}
	c := p.cur()
	switch {
	case c.typ == tOp && c.val == "(":
		if n.callArgs, err = p.parseCallArgs(); err != nil {
			return nil, err
		}
	case (c.typ == tName || c.typ == tString || c.typ == tInt || c.typ == tFloat || c.typ == tOp && (c.val == "[" || c.val == "{")) &&
		!(c.typ == tName && (c.val == "else" || c.val == "or" || c.val == "and")):
		if c.typ == tName && c.val == "is" {
			return nil, p.Fail("You cannot chain multiple tests with is")
		}
		a, err := p.parsePrimary()
		if err != nil {
			return nil, err
		}
		if a, err = p.parsePostfix(a); err != nil {
			return nil, err
		}
		n.Args = []Expr{a}
	}
	if negated {
		return &unaryExpr{posn{t.pos}, "not", n}, nil
	}
	return n, nil
}

// checkCallerArg refuses an explicit "caller" parameter without default
// (its last occurrence) when the body uses caller, as Jinja's compiler
// does.
func (p *Parser) checkCallerArg(pos int, args []string, defs []Expr, body Body) error {
	last := -1
	for i, a := range args {
		if a == "caller" {
			last = i
		}
	}
	if last < 0 || last >= len(args)-len(defs) {
		return nil
	}
	used := false
	walkNames(body, func(n string) { used = used || n == "caller" })
	if !used {
		return nil
	}
	e := p.failAt(pos, `When defining macros or call blocks the special "caller" argument must be omitted or be given a default.`)
	e.Type = "TemplateAssertionError"
	return e
}

// analyzeMacro records whether a macro body refers to caller, varargs or
// kwargs, as Jinja decides which of them a macro accepts.
func analyzeMacro(m *macroNode) {
	declared := map[string]bool{}
	for _, a := range m.Args {
		declared[a] = true
	}
	walkNames(m.Body, func(n string) {
		switch n {
		case "caller":
			m.usesCaller = m.usesCaller || !declared[n]
		case "varargs":
			m.usesVarargs = m.usesVarargs || !declared[n]
		case "kwargs":
			m.usesKwargs = m.usesKwargs || !declared[n]
		}
	})
	for _, d := range m.Defaults {
		walkExprNames(d, func(n string) {
			switch n {
			case "caller":
				m.usesCaller = m.usesCaller || !declared[n]
			case "varargs":
				m.usesVarargs = m.usesVarargs || !declared[n]
			case "kwargs":
				m.usesKwargs = m.usesKwargs || !declared[n]
			}
		})
	}
}
