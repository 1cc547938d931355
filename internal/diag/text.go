package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// TextOptions select how Print writes a diagnostic.
type TextOptions struct {
	// Color adds ANSI colours (for a terminal).
	Color bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
)

// Print writes d in the manner of Terraform's diagnostic printer: the
// severity and summary, the file and line, the source line with a ^~~~
// marker under the range, the detail, and the include chain:
//
//	Error: Unknown state function "pkg.instaled"
//
//	  on web/init.sls line 3:
//	     3:   pkg.instaled:
//	          ^~~~~~~~~~~~
//
//	Did you mean "pkg.installed"?
//
//	  included from top.sls line 2
func Print(w io.Writer, d *Diagnostic, src Sources, o TextOptions) error {
	var b strings.Builder
	sev, col := "Error", ansiRed
	if d.Severity == Warning {
		sev, col = "Warning", ansiYellow
	}
	paint := func(c, s string) string {
		if !o.Color || s == "" {
			return s
		}
		return c + s + ansiReset
	}
	fmt.Fprintf(&b, "%s %s\n", paint(col, sev+":"), paint(ansiBold, d.Summary))
	// place writes "on FILE line N:" (after lead) and the source line with
	// its marker.
	place := func(lead string, r *Range) {
		switch {
		case r.Start.Line > 0:
			fmt.Fprintf(&b, "\n  %son %s line %d:\n", lead, r.File, r.Start.Line)
			if sn := snippetOf(r, src); sn != nil {
				prefix := fmt.Sprintf("  %4d: ", r.Start.Line)
				fmt.Fprintf(&b, "%s%s\n", prefix, sn.Code)
				if r.Start.Col > 0 {
					pad := strings.Repeat(" ", len(prefix)) + indentLike(sn.Code, r.Start.Col-1)
					fmt.Fprintf(&b, "%s%s\n", pad, paint(col, marker(sn.HighlightEnd-sn.HighlightStart)))
				}
			}
		case r.File != "":
			fmt.Fprintf(&b, "\n  %sin %s\n", lead, r.File)
		}
	}
	if d.Subject != nil {
		place("", d.Subject)
	}
	for _, rel := range d.Related {
		place(rel.Note+", ", &rel.Range)
	}
	if d.Detail != "" {
		fmt.Fprintf(&b, "\n%s\n", d.Detail)
	}
	if len(d.Chain) > 0 {
		b.WriteString("\n")
		for i := len(d.Chain) - 1; i >= 0; i-- {
			c := d.Chain[i]
			if c.Start.Line > 0 {
				fmt.Fprintf(&b, "  included from %s line %d\n", c.File, c.Start.Line)
			} else {
				fmt.Fprintf(&b, "  included from %s\n", c.File)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// marker returns "^" followed by width-1 "~".
func marker(width int) string {
	if width < 1 {
		width = 1
	}
	return "^" + strings.Repeat("~", width-1)
}

// Snippet is the source line a diagnostic's range starts on, as the JSON
// form carries it. Highlight offsets are in characters within Code.
type Snippet struct {
	Code           string `json:"code"`
	StartLine      int    `json:"start_line"`
	HighlightStart int    `json:"highlight_start_offset"`
	HighlightEnd   int    `json:"highlight_end_offset"`
}

// snippetOf finds the line of r in its file's text.
func snippetOf(r *Range, src Sources) *Snippet {
	if src == nil || r.Start.Line <= 0 {
		return nil
	}
	text, ok := src(r.File)
	if !ok {
		return nil
	}
	line, ok := lineOf(text, r.Start.Line)
	if !ok {
		return nil
	}
	sn := &Snippet{Code: line, StartLine: r.Start.Line}
	if r.Start.Col > 0 {
		sn.HighlightStart = r.Start.Col - 1
		sn.HighlightEnd = sn.HighlightStart + 1
		if r.End.Line == r.Start.Line && r.End.Col > r.Start.Col {
			sn.HighlightEnd = r.End.Col - 1
		}
	}
	return sn
}

// JSONPos is a position in the JSON form.
type JSONPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// JSONRange is a range in the JSON form.
type JSONRange struct {
	Filename string  `json:"filename"`
	Start    JSONPos `json:"start"`
	End      JSONPos `json:"end"`
}

// JSONDiagnostic is the machine-readable form of a diagnostic, shaped like
// Terraform's `-json` diagnostics.
type JSONDiagnostic struct {
	Severity string        `json:"severity"`
	Summary  string        `json:"summary"`
	Detail   string        `json:"detail,omitempty"`
	Range    *JSONRange    `json:"range,omitempty"`
	Snippet  *Snippet      `json:"snippet,omitempty"`
	Chain    []JSONRange   `json:"chain,omitempty"`
	Related  []JSONRelated `json:"related,omitempty"`
}

// JSONRelated is another place a diagnostic involves, in the JSON form.
type JSONRelated struct {
	Note    string    `json:"note"`
	Range   JSONRange `json:"range"`
	Snippet *Snippet  `json:"snippet,omitempty"`
}

func jsonRange(r Range) JSONRange {
	jr := JSONRange{Filename: r.File, Start: JSONPos{r.Start.Line, r.Start.Col}, End: JSONPos{r.End.Line, r.End.Col}}
	if jr.End.Line == 0 {
		jr.End = jr.Start
	}
	return jr
}

// ToJSON converts d to its JSON form, quoting the source line when src
// has it.
func ToJSON(d *Diagnostic, src Sources) JSONDiagnostic {
	j := JSONDiagnostic{Severity: strings.ToLower(d.Severity.String()), Summary: d.Summary, Detail: d.Detail}
	if d.Subject != nil {
		r := jsonRange(*d.Subject)
		j.Range = &r
		j.Snippet = snippetOf(d.Subject, src)
	}
	for _, c := range d.Chain {
		j.Chain = append(j.Chain, jsonRange(c))
	}
	for _, rel := range d.Related {
		j.Related = append(j.Related, JSONRelated{Note: rel.Note, Range: jsonRange(rel.Range), Snippet: snippetOf(&rel.Range, src)})
	}
	return j
}

// WriteJSON writes ds as one JSON document: {"valid": bool, "error_count",
// "warning_count", "diagnostics": [...]}, as `terraform validate -json`.
func WriteJSON(w io.Writer, ds Diagnostics, src Sources) error {
	out := struct {
		Valid        bool             `json:"valid"`
		ErrorCount   int              `json:"error_count"`
		WarningCount int              `json:"warning_count"`
		Diagnostics  []JSONDiagnostic `json:"diagnostics"`
	}{Diagnostics: []JSONDiagnostic{}}
	for _, d := range ds {
		if d.Severity == Warning {
			out.WarningCount++
		} else {
			out.ErrorCount++
		}
		out.Diagnostics = append(out.Diagnostics, ToJSON(d, src))
	}
	out.Valid = out.ErrorCount == 0
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
