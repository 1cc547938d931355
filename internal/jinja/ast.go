package jinja

// Expr is a parsed expression. Callers writing tag extensions obtain
// expressions from Parser.ParseExpression and evaluate them with
// Context.Eval.
type Expr interface{ exprPos() int }

// Node is a parsed statement or output node.
type Node interface{ nodePos() int }

// Body is a parsed list of statements, e.g. the body of a custom block tag.
type Body []Node

type posn struct{ P int }

func (p posn) exprPos() int { return p.P }
func (p posn) nodePos() int { return p.P }

// Expressions.
type (
	constExpr struct {
		posn
		Val any
	}
	nameExpr struct {
		posn
		Name string
	}
	listExpr struct {
		posn
		Items []Expr
	}
	tupleExpr struct {
		posn
		Items []Expr
	}
	dictExpr struct {
		posn
		Keys, Vals []Expr
	}
	getattrExpr struct {
		posn
		Obj  Expr
		Attr string
	}
	getitemExpr struct {
		posn
		Obj, Key Expr
	}
	sliceExpr struct {
		posn
		Start, Stop, Step Expr // nil when absent
	}
	callArgs struct {
		Args      []Expr
		KwNames   []string
		KwVals    []Expr
		DynArgs   Expr
		DynKwargs Expr
	}
	callExpr struct {
		posn
		Fn Expr
		callArgs
	}
	filterExpr struct {
		posn
		X    Expr // nil inside filter blocks and block sets
		Name string
		callArgs
	}
	testExpr struct {
		posn
		X    Expr
		Name string
		callArgs
	}
	binExpr struct {
		posn
		Op   string // + - * / // % ** ~ and or
		L, R Expr
	}
	unaryExpr struct {
		posn
		Op string // not - +
		X  Expr
	}
	compareOp struct {
		Op string // == != < <= > >= in notin
		X  Expr
	}
	compareExpr struct {
		posn
		X   Expr
		Ops []compareOp
	}
	condExpr struct {
		posn
		Test, Then, Else Expr // Else may be nil
	}
	// nsRefExpr is the `ns.attr` target of a set statement.
	nsRefExpr struct {
		posn
		NS, Attr string
	}
)

// Statements.
type (
	dataNode struct {
		posn
		Text string
	}
	printNode struct {
		posn
		X Expr
	}
	forNode struct {
		posn
		Target    Expr
		Iter      Expr
		Body      Body
		Else      Body
		Cond      Expr
		Recursive bool
	}
	ifNode struct {
		posn
		Tests  []Expr
		Bodies []Body
		Else   Body
	}
	macroNode struct {
		posn
		Name                                string
		Args                                []string
		Defaults                            []Expr // aligned to the last len(Defaults) args
		Body                                Body
		usesCaller, usesVarargs, usesKwargs bool
	}
	callBlockNode struct {
		posn
		Call  *callExpr
		Macro *macroNode // the caller
	}
	filterBlockNode struct {
		posn
		Filter *filterExpr // chain with X nil at the innermost
		Body   Body
	}
	withNode struct {
		posn
		Targets []Expr
		Values  []Expr
		Body    Body
		// markPos is where Jinja reports an error in Values: the last
		// statement before that its code generator marked (see markWith).
		markPos int
	}
	setNode struct {
		posn
		Target Expr
		X      Expr
	}
	setBlockNode struct {
		posn
		Target Expr
		Filter *filterExpr // may be nil
		Body   Body
	}
	includeNode struct {
		posn
		Template      Expr
		IgnoreMissing bool
		WithContext   bool
	}
	importNode struct {
		posn
		Template    Expr
		Target      string
		WithContext bool
	}
	fromImportNode struct {
		posn
		Template    Expr
		Names       []string
		Aliases     []string
		WithContext bool
	}
	extendsNode struct {
		posn
		Template Expr
	}
	blockNode struct {
		posn
		Name     string
		Scoped   bool
		Required bool
		Body     Body
	}
	doNode struct {
		posn
		X Expr
	}
	seqNode struct {
		posn
		Body Body
	}
	breakNode    struct{ posn }
	continueNode struct{ posn }
	autoescNode  struct {
		posn
		X    Expr
		Body Body
	}
	extNode struct {
		posn
		Tag TagNode
	}
)
