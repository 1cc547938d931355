package pyops

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"brine/internal/value"
)

// PrettyPrinter is Python's pprint.PrettyPrinter for brine's values: dicts,
// lists and tuples broken over lines to fit Width, long strings split into
// adjacent literals.
type PrettyPrinter struct {
	Width    int  // line width; 80 when zero
	Indent   int  // indentation per nesting level; 1 when zero
	Unsorted bool // sort_dicts=False: keep mapping order
}

// PFormat is pprint.pformat(v) with Python's defaults.
func PFormat(v any) string { return PrettyPrinter{}.Format(v) }

// Format is PrettyPrinter.pformat.
func (p PrettyPrinter) Format(v any) string {
	if p.Width <= 0 {
		p.Width = 80
	}
	if p.Indent <= 0 {
		p.Indent = 1
	}
	var b strings.Builder
	p.format(&b, v, 0, 0, 0)
	return b.String()
}

// keys returns m's keys in the order pprint prints them.
func (p PrettyPrinter) keys(m *value.Map) []any {
	keys := append([]any(nil), m.Keys()...)
	if p.Unsorted {
		return keys
	}
	if sorted, err := SortValues(keys, nil, false); err == nil {
		return sorted
	}
	return keys
}

// repr is pprint's one-line repr: Python's repr with dict keys sorted.
func (p PrettyPrinter) repr(v any) string {
	switch x := v.(type) {
	case *value.Map:
		keys := p.keys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			e, _ := x.Get(k)
			parts[i] = p.repr(k) + ": " + p.repr(e)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *value.List:
		return "[" + p.join(x.Items) + "]"
	case value.Tuple:
		if len(x) == 1 {
			return "(" + p.repr(x[0]) + ",)"
		}
		return "(" + p.join(x) + ")"
	}
	return value.Repr(v)
}

func (p PrettyPrinter) join(items []any) string {
	parts := make([]string, len(items))
	for i, e := range items {
		parts[i] = p.repr(e)
	}
	return strings.Join(parts, ", ")
}

// format is PrettyPrinter._format.
func (p PrettyPrinter) format(b *strings.Builder, v any, indent, allowance, level int) {
	rep := p.repr(v)
	if utf8.RuneCountInString(rep) <= p.Width-indent-allowance {
		b.WriteString(rep)
		return
	}
	level++
	pad := strings.Repeat(" ", p.Indent-1)
	switch x := v.(type) {
	case *value.Map:
		b.WriteByte('{')
		b.WriteString(pad)
		keys := p.keys(x)
		indent += p.Indent
		for i, k := range keys {
			kr := p.repr(k)
			b.WriteString(kr + ": ")
			e, _ := x.Get(k)
			last := i == len(keys)-1
			a := 1
			if last {
				a = allowance + 1
			}
			p.format(b, e, indent+utf8.RuneCountInString(kr)+2, a, level)
			if !last {
				b.WriteString(",\n" + strings.Repeat(" ", indent))
			}
		}
		b.WriteByte('}')
	case *value.List:
		b.WriteByte('[')
		p.items(b, x.Items, indent, allowance+1, level)
		b.WriteByte(']')
	case value.Tuple:
		closing := ")"
		if len(x) == 1 {
			closing = ",)"
		}
		b.WriteByte('(')
		p.items(b, x, indent, allowance+len(closing), level)
		b.WriteString(closing)
	case string:
		p.str(b, x, indent, allowance, level)
	default:
		b.WriteString(rep)
	}
}

// items is PrettyPrinter._format_items.
func (p PrettyPrinter) items(b *strings.Builder, items []any, indent, allowance, level int) {
	b.WriteString(strings.Repeat(" ", p.Indent-1))
	indent += p.Indent
	for i, e := range items {
		if i > 0 {
			b.WriteString(",\n" + strings.Repeat(" ", indent))
		}
		a := 1
		if i == len(items)-1 {
			a = allowance
		}
		p.format(b, e, indent, a, level)
	}
}

var pprintWords = regexp.MustCompile(`\S*\s*`)

// str is PrettyPrinter._pprint_str: the string as adjacent literals, split
// after line ends and between words so each fits.
func (p PrettyPrinter) str(b *strings.Builder, s string, indent, allowance, level int) {
	if s == "" {
		b.WriteString(value.Repr(s))
		return
	}
	lines := SplitLines(s, true)
	if level == 1 {
		indent++
		allowance++
	}
	maxWidth := p.Width - indent
	maxWidth1 := maxWidth
	var chunks []string
	rlen := func(s string) int { return utf8.RuneCountInString(value.Repr(s)) }
	for i, line := range lines {
		lastLine := i == len(lines)-1
		if lastLine {
			maxWidth1 -= allowance
		}
		if rlen(line) <= maxWidth1 {
			chunks = append(chunks, value.Repr(line))
			continue
		}
		parts := pprintWords.FindAllString(line, -1)
		if n := len(parts); n > 0 && parts[n-1] == "" {
			parts = parts[:n-1]
		}
		maxWidth2 := maxWidth
		current := ""
		for j, part := range parts {
			candidate := current + part
			if j == len(parts)-1 && lastLine {
				maxWidth2 -= allowance
			}
			if rlen(candidate) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, value.Repr(current))
				}
				current = part
			} else {
				current = candidate
			}
		}
		if current != "" {
			chunks = append(chunks, value.Repr(current))
		}
	}
	if len(chunks) == 1 {
		b.WriteString(value.Repr(s))
		return
	}
	if level == 1 {
		b.WriteByte('(')
	}
	for i, c := range chunks {
		if i > 0 {
			b.WriteString("\n" + strings.Repeat(" ", indent))
		}
		b.WriteString(c)
	}
	if level == 1 {
		b.WriteByte(')')
	}
}
