package jinja

// walkNodes visits every statement and expression under body, depth first.
// f returns false to skip a node's children.
func walkNodes(body Body, f func(n any) bool) {
	for _, n := range body {
		walkAny(n, f)
	}
}

func walkExprs(xs []Expr, f func(any) bool) {
	for _, x := range xs {
		walkAny(x, f)
	}
}

func walkCallArgs(c *callArgs, f func(any) bool) {
	walkExprs(c.Args, f)
	walkExprs(c.KwVals, f)
	walkAny(c.DynArgs, f)
	walkAny(c.DynKwargs, f)
}

func walkAny(n any, f func(any) bool) {
	if n == nil {
		return
	}
	switch x := n.(type) {
	case Expr:
		if isNilExpr(x) {
			return
		}
	case Node:
		if isNilNode(x) {
			return
		}
	}
	if !f(n) {
		return
	}
	switch x := n.(type) {
	case *printNode:
		walkAny(x.X, f)
	case *forNode:
		walkAny(x.Target, f)
		walkAny(x.Iter, f)
		walkAny(x.Cond, f)
		walkNodes(x.Body, f)
		walkNodes(x.Else, f)
	case *ifNode:
		walkExprs(x.Tests, f)
		for _, b := range x.Bodies {
			walkNodes(b, f)
		}
		walkNodes(x.Else, f)
	case *macroNode:
		walkExprs(x.Defaults, f)
		walkNodes(x.Body, f)
	case *callBlockNode:
		walkAny(x.Call, f)
		walkAny(x.Macro, f)
	case *filterBlockNode:
		walkAny(x.Filter, f)
		walkNodes(x.Body, f)
	case *withNode:
		walkExprs(x.Targets, f)
		walkExprs(x.Values, f)
		walkNodes(x.Body, f)
	case *setNode:
		walkAny(x.Target, f)
		walkAny(x.X, f)
	case *setBlockNode:
		walkAny(x.Target, f)
		if x.Filter != nil {
			walkAny(x.Filter, f)
		}
		walkNodes(x.Body, f)
	case *includeNode:
		walkAny(x.Template, f)
	case *importNode:
		walkAny(x.Template, f)
	case *fromImportNode:
		walkAny(x.Template, f)
	case *extendsNode:
		walkAny(x.Template, f)
	case *blockNode:
		walkNodes(x.Body, f)
	case *seqNode:
		walkNodes(x.Body, f)
	case *doNode:
		walkAny(x.X, f)
	case *autoescNode:
		walkAny(x.X, f)
		walkNodes(x.Body, f)
	case *listExpr:
		walkExprs(x.Items, f)
	case *tupleExpr:
		walkExprs(x.Items, f)
	case *dictExpr:
		walkExprs(x.Keys, f)
		walkExprs(x.Vals, f)
	case *getattrExpr:
		walkAny(x.Obj, f)
	case *getitemExpr:
		walkAny(x.Obj, f)
		walkAny(x.Key, f)
	case *sliceExpr:
		walkAny(x.Start, f)
		walkAny(x.Stop, f)
		walkAny(x.Step, f)
	case *callExpr:
		walkAny(x.Fn, f)
		walkCallArgs(&x.callArgs, f)
	case *filterExpr:
		walkAny(x.X, f)
		walkCallArgs(&x.callArgs, f)
	case *testExpr:
		walkAny(x.X, f)
		walkCallArgs(&x.callArgs, f)
	case *binExpr:
		walkAny(x.L, f)
		walkAny(x.R, f)
	case *unaryExpr:
		walkAny(x.X, f)
	case *compareExpr:
		walkAny(x.X, f)
		for _, o := range x.Ops {
			walkAny(o.X, f)
		}
	case *condExpr:
		walkAny(x.Test, f)
		walkAny(x.Then, f)
		walkAny(x.Else, f)
	}
}

func isNilExpr(x Expr) bool {
	switch v := x.(type) {
	case *filterExpr:
		return v == nil
	case *callExpr:
		return v == nil
	}
	return false
}

func isNilNode(x Node) bool {
	switch v := x.(type) {
	case *macroNode:
		return v == nil
	}
	return false
}

// walkNames calls f for every name loaded in body, not descending into
// blocks (as Jinja's undeclared-name visitor does).
func walkNames(body Body, f func(string)) {
	walkNodes(body, func(n any) bool {
		switch x := n.(type) {
		case *blockNode:
			return false
		case *nameExpr:
			f(x.Name)
		}
		return true
	})
}

func walkExprNames(x Expr, f func(string)) {
	walkAny(x, func(n any) bool {
		if ne, ok := n.(*nameExpr); ok {
			f(ne.Name)
		}
		return true
	})
}
