package render

import (
	"errors"
	"fmt"
	"strings"

	"brine/internal/diag"
	"brine/internal/pyops"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// Marker is the arrow Salt puts after the offending line of a context.
const Marker = "    <======================"

// Error is Salt's SaltRenderError: a message, and optionally the line of the
// template it concerns and the template text (Buf), from which the message
// gets "; line N" and the surrounding lines, exactly as Salt prints them.
type Error struct {
	Msg   string
	Line  int    // 1-based; 0 when unknown
	Buf   string // the template source the line refers to
	Trace string // Python traceback text Salt pastes in ("" normally)
	File  string // path of the template, for diagnostics
	Col   int    // 1-based column when known, for diagnostics
	Err   error  // underlying error, if any
}

// Error returns the message with the template trace and the source lines around Line.
func (e *Error) Error() string {
	s := e.Msg
	if e.Trace != "" {
		s += "\n" + e.Trace + "\n"
	}
	if e.Line > 0 && e.Buf != "" {
		s += fmt.Sprintf("; line %d\n\n%s", e.Line, GetContext(e.Buf, e.Line, 5, Marker))
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Diagnostic presents the error as a diagnostic on the template's file:
// the first line of the message as summary, the position when known.
func (e *Error) Diagnostic() *diag.Diagnostic {
	summary, detail, _ := strings.Cut(e.Msg, "\n")
	d := &diag.Diagnostic{Summary: summary, Detail: strings.TrimSpace(detail)}
	if e.File != "" {
		d.Subject = &diag.Range{File: e.File, Start: diag.Pos{Line: e.Line, Col: e.Col}}
	}
	return d
}

// GetContext returns the lines around line (1-based) of src as Salt's
// get_context does: up to n lines either side, "[...]" where lines were cut,
// marker appended to the line itself, all between "---" lines. A line past
// the end gives src unchanged.
func GetContext(src string, line, n int, marker string) string {
	lines := pyops.SplitLines(src, false)
	if line > len(lines) {
		return src
	}
	start := max(0, line-n-1)
	end := min(len(lines), line+n)
	at := line - start - 1
	buf := make([]string, 0, end-start+2)
	if start > 0 {
		buf = append(buf, "[...]")
		at++
	}
	buf = append(buf, lines[start:end]...)
	if end < len(lines) {
		buf = append(buf, "[...]")
	}
	if marker != "" && at >= 0 && at < len(buf) {
		buf[at] += marker
	}
	return "---\n" + strings.Join(buf, "\n") + "\n---"
}
