package outputters

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"brine/internal/pyops"
	"brine/internal/value"
)

// pformat is Python's pprint.pformat(v) with its defaults: width 80,
// indent 1, dict keys sorted, long strings split into adjacent literals.
func pformat(v any) string {
	var b strings.Builder
	ppFormat(&b, v, 0, 0, 0)
	return b.String()
}

// ppRepr is pprint's one-line repr: like repr, with dict keys sorted.
func ppRepr(v any) string {
	switch x := v.(type) {
	case *value.Map:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			e, _ := x.Get(k)
			parts[i] = ppRepr(k) + ": " + ppRepr(e)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *value.List:
		return "[" + ppJoin(x.Items) + "]"
	case value.Tuple:
		if len(x) == 1 {
			return "(" + ppRepr(x[0]) + ",)"
		}
		return "(" + ppJoin(x) + ")"
	}
	return value.Repr(v)
}

func ppJoin(items []any) string {
	parts := make([]string, len(items))
	for i, e := range items {
		parts[i] = ppRepr(e)
	}
	return strings.Join(parts, ", ")
}

const ppWidth = 80

// ppFormat is PrettyPrinter._format.
func ppFormat(b *strings.Builder, v any, indent, allowance, level int) {
	rep := ppRepr(v)
	if utf8.RuneCountInString(rep) <= ppWidth-indent-allowance {
		b.WriteString(rep)
		return
	}
	level++
	switch x := v.(type) {
	case *value.Map:
		b.WriteByte('{')
		keys := sortedKeys(x)
		indent++
		for i, k := range keys {
			kr := ppRepr(k)
			b.WriteString(kr + ": ")
			e, _ := x.Get(k)
			last := i == len(keys)-1
			a := 1
			if last {
				a = allowance + 1
			}
			ppFormat(b, e, indent+utf8.RuneCountInString(kr)+2, a, level)
			if !last {
				b.WriteString(",\n" + strings.Repeat(" ", indent))
			}
		}
		b.WriteByte('}')
	case *value.List:
		b.WriteByte('[')
		ppItems(b, x.Items, indent, allowance+1, level)
		b.WriteByte(']')
	case value.Tuple:
		closing := ")"
		if len(x) == 1 {
			closing = ",)"
		}
		b.WriteByte('(')
		ppItems(b, x, indent, allowance+len(closing), level)
		b.WriteString(closing)
	case string:
		ppString(b, x, indent, allowance, level)
	default:
		b.WriteString(rep)
	}
}

func ppItems(b *strings.Builder, items []any, indent, allowance, level int) {
	indent++
	for i, e := range items {
		if i > 0 {
			b.WriteString(",\n" + strings.Repeat(" ", indent))
		}
		a := 1
		if i == len(items)-1 {
			a = allowance
		}
		ppFormat(b, e, indent, a, level)
	}
}

var ppWords = regexp.MustCompile(`\S*\s*`)

// ppString is PrettyPrinter._pprint_str: the string as adjacent literals,
// split after line ends and between words so each fits.
func ppString(b *strings.Builder, s string, indent, allowance, level int) {
	if s == "" {
		b.WriteString(value.Repr(s))
		return
	}
	lines := pyops.SplitLines(s, true)
	if level == 1 {
		indent++
		allowance++
	}
	maxWidth := ppWidth - indent
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
		parts := ppWords.FindAllString(line, -1)
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
