package jinjasalt

import (
	"errors"
	"fmt"
	"strings"

	"brine/internal/jinja"
	"brine/internal/pyops"
)

// Marker is the marker Salt puts after the failing line of a context
// block.
const Marker = "    <======================"

// GetContext is salt.utils.stringutils.get_context: numLines lines either
// side of line (1-based), "[...]" where the text was cut, marker after the
// line, the whole between "---" lines. A line beyond the text returns the
// text unchanged.
func GetContext(text string, line, numLines int, marker string) string {
	lines := pyops.SplitLines(text, false)
	n := len(lines)
	if line > n {
		return text
	}
	start := max(0, line-numLines-1)
	end := min(n, line+numLines)
	errIdx := line - start - 1
	buf := make([]string, 0, end-start+2)
	if start > 0 {
		buf = append(buf, "[...]")
		errIdx++
	}
	buf = append(buf, lines[start:end]...)
	if end < n {
		buf = append(buf, "[...]")
	}
	if marker != "" && errIdx >= 0 && errIdx < len(buf) {
		buf[errIdx] += marker
	}
	return "---\n" + strings.Join(buf, "\n") + "\n---"
}

// Error is a Jinja failure worded as Salt's SaltRenderError prints it:
// "Jinja variable 'x' is undefined; line 4\n\n---\n...\n---".
type Error struct {
	Message string
	// Line is the failing line of the rendered template; 0 when the
	// failure is in another file (an import) or has no position.
	Line int
	// File is the path (as Files showed it) of the imported or included
	// file the failure is in; "" when it is in the rendered template.
	File string
	// Err is the engine's error.
	Err *jinja.Error
}

// Error returns Salt's message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the engine's error.
func (e *Error) Unwrap() error { return e.Err }

// Salt exception classes that render_jinja_tmpl reports as "Problem
// running salt function".
func isSaltFunctionError(typ string) bool {
	return strings.HasSuffix(typ, "SaltInvocationError") || strings.HasSuffix(typ, "CommandExecutionError")
}

// SaltExceptioner is implemented by errors of execution functions that
// stand for a Salt exception class ("CommandExecutionError", ...).
type SaltExceptioner interface {
	error
	SaltExceptionClass() string
}

// qualifiedType is the exception class as a traceback's last line names
// it.
func qualifiedType(typ string) string {
	switch typ {
	case "TemplateNotFound", "TemplatesNotFound", "TemplateRuntimeError", "UndefinedError",
		"SecurityError", "TemplateSyntaxError", "TemplateAssertionError", "TemplateError":
		return "jinja2.exceptions." + typ
	case "", "Exception":
		return "Exception"
	}
	return typ
}

// saltError words an engine failure as render_jinja_tmpl does.
func saltError(err error, src string, ld *loader, hasSLS bool) error {
	var je *jinja.Error
	if !errors.As(err, &je) {
		je = &jinja.Error{Kind: jinja.KindRuntime, Type: "Exception", Msg: err.Error(), Err: err}
	}
	typ := je.Type
	var se SaltExceptioner
	if errors.As(je.Err, &se) {
		typ = se.SaltExceptionClass()
	}
	var label string
	generic := false
	switch {
	case je.Kind == jinja.KindUndefined:
		label = "Jinja variable "
	case je.Kind == jinja.KindSyntax, je.Kind == jinja.KindSecurity,
		strings.HasSuffix(typ, "TemplateRuntimeError"):
		label = "Jinja syntax error: "
	case isSaltFunctionError(typ):
		label = "Problem running salt function in Jinja template: "
	default:
		label = "Jinja error: "
		generic = true
	}
	msg := je.Msg
	line := 0
	out, file := "", ""
	switch {
	case je.Name == mainName:
		line = je.Line
	case je.Name != "" && je.Line > 0:
		shown, text := je.Name, ""
		if f, ok := ld.sources[je.Name]; ok {
			shown, text = f.shown, f.source
		}
		out = "\n" + shown + "(" + fmt.Sprint(je.Line) + "):\n" + GetContext(text, je.Line, 5, Marker)
		file = shown
	}
	var b strings.Builder
	b.WriteString(label)
	b.WriteString(msg)
	b.WriteString(out)
	buf := src
	if generic {
		trace := traceback(je, ld, typ)
		b.WriteString("\n" + trace + "\n")
		if line > 0 {
			buf += "\n" + trace
		}
	}
	if line > 0 && buf != "" {
		fmt.Fprintf(&b, "; line %d\n\n%s", line, GetContext(buf, line, 5, Marker))
	}
	return &Error{Message: b.String(), Line: line, File: file, Err: je}
}

// traceback is a Python-style traceback for a generic error: the template
// frames from the outermost to the failing one, then the exception.
func traceback(je *jinja.Error, ld *loader, typ string) string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	frame := func(name string, line int) {
		file := name
		if f, ok := ld.sources[name]; ok && name != mainName {
			file = f.shown
		}
		fmt.Fprintf(&b, "  File %q, line %d, in top-level template code\n", file, line)
	}
	for i := len(je.Chain) - 1; i >= 0; i-- {
		frame(je.Chain[i].Name, je.Chain[i].Line)
	}
	if je.Name != "" {
		frame(je.Name, je.Line)
	}
	b.WriteString(qualifiedType(typ))
	if je.Msg != "" {
		b.WriteString(": " + je.Msg)
	}
	b.WriteString("\n")
	return b.String()
}
