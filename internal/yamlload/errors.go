package yamlload

import (
	"strconv"
	"strings"
)

// ErrorKind says which PyYAML exception class an error stands for. Salt's
// yaml renderer treats them differently: for a ScannerError it shows only
// Problem (libyaml gives no source snippet); a ParserError or
// ConstructorError is shown whole (Error()); the others (ReaderError,
// ComposerError, OtherError) are not caught by the renderer and reach
// salt.state's generic "Rendering SLS x failed, render error: ..." path.
type ErrorKind int

// The PyYAML error classes.
const (
	ReaderError ErrorKind = iota + 1
	ScannerError
	ParserError
	ComposerError
	ConstructorError
	// OtherError stands for a plain Python exception raised while
	// constructing a value (KeyError, ValueError, IndexError, ...).
	OtherError
)

var kindNames = [...]string{"", "ReaderError", "ScannerError", "ParserError", "ComposerError", "ConstructorError", "Exception"}

// String returns the Python class name of the error kind.
func (k ErrorKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "Error"
	}
	return kindNames[k]
}

// Mark is a position in the YAML text, 1-based; Line 0 means no position.
type Mark struct {
	Line   int
	Column int
}

// IsZero reports whether m carries no position.
func (m Mark) IsZero() bool { return m.Line == 0 }

// StreamName is the name PyYAML gives a stream read from a Python string;
// Salt's renderers always load strings, so their messages show it.
const StreamName = "<unicode string>"

// Error is a YAML load error with PyYAML's structure: an optional context
// with its mark, a problem with its mark.
type Error struct {
	Kind        ErrorKind
	Name        string // the name passed to Load (a file name), for diagnostics
	Context     string
	ContextMark Mark
	Problem     string
	ProblemMark Mark
	// Position is the byte offset a ReaderError reports.
	Position int
	// Err is the cause, when there is one to match with errors.As: a
	// *value.DepthError for a document nested deeper than value.MaxDepth.
	Err error
}

// Unwrap returns the cause of the error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Error returns the message as PyYAML's str() of the exception prints it,
// naming the stream "<unicode string>" as Salt's messages do.
func (e *Error) Error() string { return e.Format(StreamName) }

// Line returns the line of the problem (or of the context), 1-based.
func (e *Error) Line() int {
	if !e.ProblemMark.IsZero() {
		return e.ProblemMark.Line
	}
	return e.ContextMark.Line
}

// Column returns the column of the problem (or of the context), 1-based.
func (e *Error) Column() int {
	if !e.ProblemMark.IsZero() {
		return e.ProblemMark.Column
	}
	return e.ContextMark.Column
}

// Format prints the error as PyYAML's MarkedYAMLError.__str__ does, with
// stream as the stream name in the mark lines. Marks carry no snippet, as
// with the libyaml-based loader Salt uses. A plain Python exception
// (OtherError) prints as its message alone.
func (e *Error) Format(stream string) string {
	switch e.Kind {
	case OtherError:
		return e.Problem
	case ReaderError:
		return e.Problem + "\n  in \"" + stream + "\", position " + strconv.Itoa(e.Position)
	}
	var b strings.Builder
	line := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	mark := func(m Mark) {
		line(`  in "` + stream + `", line ` + strconv.Itoa(m.Line) + ", column " + strconv.Itoa(m.Column))
	}
	if e.Context != "" {
		line(e.Context)
	}
	if !e.ContextMark.IsZero() && (e.Problem == "" || e.ProblemMark.IsZero() || e.ContextMark != e.ProblemMark) {
		mark(e.ContextMark)
	}
	if e.Problem != "" {
		line(e.Problem)
	}
	if !e.ProblemMark.IsZero() {
		mark(e.ProblemMark)
	}
	return b.String()
}

// RendererMessage returns what Salt's yaml renderer makes of the error,
// the text after "Rendering SLS 'env:sls' failed: ": the problem alone for
// a ScannerError (libyaml marks carry no source buffer, so no context
// block), the whole message for a ParserError or ConstructorError. caught
// is false for the kinds the renderer does not catch; Salt then reports
// them as "Rendering SLS sls failed, render error: " + Error() and a
// traceback.
func (e *Error) RendererMessage() (msg string, caught bool) {
	switch e.Kind {
	case ScannerError:
		return e.Problem, true
	case ParserError, ConstructorError:
		return e.Error(), true
	}
	return e.Error(), false
}
