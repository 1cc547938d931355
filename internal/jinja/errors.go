package jinja

import (
	"errors"
	"fmt"
	"strings"

	"brine/internal/pyops"
)

// Kind classifies a template error.
type Kind int

// The kinds of template errors.
const (
	KindSyntax    Kind = iota + 1 // the template does not parse (TemplateSyntaxError)
	KindUndefined                 // an undefined value was used (UndefinedError)
	KindSecurity                  // the sandbox refused an operation (SecurityError)
	KindRuntime                   // any other failure while rendering (TypeError, ZeroDivisionError, ...)
	KindNotFound                  // a template could not be loaded (TemplateNotFound)
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindSyntax:
		return "syntax error"
	case KindUndefined:
		return "undefined error"
	case KindSecurity:
		return "security error"
	case KindRuntime:
		return "runtime error"
	case KindNotFound:
		return "template not found"
	}
	return "error"
}

// Frame is one step of the include/import chain: the template that
// included, imported or extended the next one, and the line where it did.
type Frame struct {
	Name string
	Line int
}

// Error is a template error. Msg is worded as Jinja2 words it; Type is the
// Python exception class Jinja2 would raise ("TemplateSyntaxError",
// "UndefinedError", "SecurityError", "TypeError", "ZeroDivisionError", ...).
type Error struct {
	Kind   Kind
	Type   string
	Msg    string
	Name   string // template name ("" for a string template)
	Line   int    // 1-based; 0 when unknown
	Col    int    // 1-based; 0 when unknown
	Source string // the text of the failing line
	Chain  []Frame
	Err    error // the underlying Go error from a caller-supplied function, if any

	epos int // byte offset+1 of the innermost failing expression; 0 if unknown
}

// Error formats the error as "name:line:col: message".
func (e *Error) Error() string {
	var b strings.Builder
	name := e.Name
	if name == "" {
		name = "<template>"
	}
	b.WriteString(name)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	for i := len(e.Chain) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "\n  from %s:%d", e.Chain[i].Name, e.Chain[i].Line)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// errUndefined and friends build positionless errors; the renderer adds the
// position of the node being evaluated.
func newError(kind Kind, typ, msg string) *Error {
	return &Error{Kind: kind, Type: typ, Msg: msg}
}

func errType(format string, args ...any) *Error {
	return newError(KindRuntime, "TypeError", fmt.Sprintf(format, args...))
}

func errValue(format string, args ...any) *Error {
	return newError(KindRuntime, "ValueError", fmt.Sprintf(format, args...))
}

func errRuntime(format string, args ...any) *Error {
	return newError(KindRuntime, "TemplateRuntimeError", fmt.Sprintf(format, args...))
}

// asError converts any error into *Error, keeping pyops exception types.
func asError(err error) *Error {
	var je *Error
	if errors.As(err, &je) {
		return je
	}
	var pe *pyops.Error
	if errors.As(err, &pe) {
		return &Error{Kind: KindRuntime, Type: pe.Type, Msg: pe.Msg, Err: err}
	}
	return &Error{Kind: KindRuntime, Type: "Exception", Msg: err.Error(), Err: err}
}

// ErrNotFound is returned (possibly wrapped) by a Loader when a template
// does not exist.
var ErrNotFound = errors.New("template not found")

// breakSignal and continueSignal unwind loops.
type loopSignal int

const (
	sigNone loopSignal = iota
	sigBreak
	sigContinue
)
