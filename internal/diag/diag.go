// Package diag describes mistakes in users' files: a position range in a
// named file, a summary and detail, the chain of includes that led there,
// and a printer that shows the offending source line with a marker under
// the range (in the manner of HCL's diagnostics).
//
// Diagnostics are for errors in input; failures of the system itself are
// ordinary wrapped Go errors.
package diag

import (
	"fmt"
	"strings"
)

// Pos is a position in a file: 1-based line and column (in characters);
// a zero Line means unknown.
type Pos struct {
	Line, Col int
}

// Range is a span of a file, End exclusive; End may be zero for a single
// point.
type Range struct {
	File       string
	Start, End Pos
}

// String prints "file:line:col".
func (r Range) String() string {
	switch {
	case r.Start.Line == 0:
		return r.File
	case r.Start.Col == 0:
		return fmt.Sprintf("%s:%d", r.File, r.Start.Line)
	}
	return fmt.Sprintf("%s:%d:%d", r.File, r.Start.Line, r.Start.Col)
}

// Severity of a diagnostic.
type Severity int

// Severities.
const (
	Error Severity = iota
	Warning
)

// String returns the severity's lower-case name.
func (s Severity) String() string {
	if s == Warning {
		return "Warning"
	}
	return "Error"
}

// Diagnostic is one problem found in the user's files.
type Diagnostic struct {
	Severity Severity
	Summary  string
	Detail   string
	Subject  *Range
	// Chain lists where the file was included or imported from, outermost
	// first.
	Chain []Range
	// Related are the other places the problem involves (the first
	// declaration of a conflicting ID, each edge of a requisite cycle),
	// each with a note saying what is there.
	Related []Related
}

// Related is another place a diagnostic involves.
type Related struct {
	Note  string
	Range Range
}

// Error makes a Diagnostic usable as an error: "file:line:col: summary".
func (d *Diagnostic) Error() string {
	if d.Subject == nil {
		return d.Summary
	}
	return d.Subject.String() + ": " + d.Summary
}

// Diagnostics is a list of diagnostics, itself an error when non-empty.
type Diagnostics []*Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Error joins the diagnostics' messages, one per line.
func (ds Diagnostics) Error() string {
	msgs := make([]string, len(ds))
	for i, d := range ds {
		msgs[i] = d.Error()
	}
	return strings.Join(msgs, "\n")
}

// Sources finds the text of files to quote; nil or a missing file means
// no snippet is shown.
type Sources func(file string) (string, bool)

// Format prints d for a terminal:
//
//	Error: summary
//
//	  on web/init.sls line 3:
//	   3:     - name: {{ nope }}
//	                  ^^^^^^^^^^
//
//	detail
//	  included from top.sls line 4
func Format(d *Diagnostic, src Sources) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", d.Severity, d.Summary)
	if r := d.Subject; r != nil && r.Start.Line > 0 {
		fmt.Fprintf(&b, "\n  on %s line %d:\n", r.File, r.Start.Line)
		if src != nil {
			if text, ok := src(r.File); ok {
				if line, ok := lineOf(text, r.Start.Line); ok {
					prefix := fmt.Sprintf("%4d: ", r.Start.Line)
					fmt.Fprintf(&b, "%s%s\n", prefix, line)
					if r.Start.Col > 0 {
						width := 1
						if r.End.Line == r.Start.Line && r.End.Col > r.Start.Col {
							width = r.End.Col - r.Start.Col
						}
						pad := strings.Repeat(" ", len(prefix)) + indentLike(line, r.Start.Col-1)
						fmt.Fprintf(&b, "%s%s\n", pad, strings.Repeat("^", width))
					}
				}
			}
		}
	}
	if d.Detail != "" {
		fmt.Fprintf(&b, "\n%s\n", d.Detail)
	}
	for i := len(d.Chain) - 1; i >= 0; i-- {
		c := d.Chain[i]
		if c.Start.Line > 0 {
			fmt.Fprintf(&b, "  included from %s line %d\n", c.File, c.Start.Line)
		} else {
			fmt.Fprintf(&b, "  included from %s\n", c.File)
		}
	}
	return b.String()
}

// lineOf returns line n (1-based) of text.
func lineOf(text string, n int) (string, bool) {
	for i := 1; ; i++ {
		line, rest, found := strings.Cut(text, "\n")
		if i == n {
			return strings.TrimSuffix(line, "\r"), true
		}
		if !found {
			return "", false
		}
		text = rest
	}
}

// indentLike returns n characters of blank space matching line's first n
// characters (tabs kept as tabs so the marker lines up).
func indentLike(line string, n int) string {
	var b strings.Builder
	i := 0
	for _, r := range line {
		if i >= n {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		i++
	}
	for ; i < n; i++ {
		b.WriteByte(' ')
	}
	return b.String()
}
