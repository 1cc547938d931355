package pyops

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"brine/internal/value"
)

// fmtSpec is a parsed format specification (Python's format-spec
// mini-language):
//
//	[[fill]align][sign][z][#][0][width][grouping][.precision][type]
type fmtSpec struct {
	fill      rune
	fillSet   bool // the spec names a fill character
	align     byte // 0, '<', '>', '^', '='
	sign      byte // 0, '+', '-', ' '
	z         bool
	alt       bool
	zero      bool
	width     int
	grouping  byte // 0, ',', '_'
	precision int  // -1 when absent
	typ       byte // 0 when absent
}

func isAlign(c byte) bool { return c == '<' || c == '>' || c == '^' || c == '=' }

// parseSpec parses spec for a value of type typeName whose default
// presentation type is dfltType and whose default alignment is dfltAlign
// ('<' for str, '>' for numbers).
func parseSpec(spec, typeName string, dfltType, dfltAlign byte) (fmtSpec, error) {
	s := fmtSpec{fill: ' ', precision: -1, typ: dfltType}
	i := 0
	if r, size := utf8.DecodeRuneInString(spec); size > 0 && size < len(spec) && isAlign(spec[size]) {
		s.fill, s.fillSet, s.align = r, true, spec[size]
		i = size + 1
	} else if len(spec) > 0 && isAlign(spec[0]) {
		s.align = spec[0]
		i = 1
	}
	if i < len(spec) && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ') {
		s.sign = spec[i]
		i++
	}
	if i < len(spec) && spec[i] == 'z' {
		s.z = true
		i++
	}
	if i < len(spec) && spec[i] == '#' {
		s.alt = true
		i++
	}
	if i < len(spec) && spec[i] == '0' {
		s.zero = true
		i++
	}
	start := i
	for i < len(spec) && isDigit(spec[i]) {
		i++
	}
	if i > start {
		w, err := strconv.Atoi(spec[start:i])
		if err != nil || w > maxWidth {
			if err == nil {
				return s, errTooWide
			}
			return s, valueErr("Too many decimal digits in format string")
		}
		s.width = w
	}
	if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
		s.grouping = spec[i]
		i++
		if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
			if s.grouping == spec[i] && spec[i] == ',' {
				return s, valueErr("Cannot specify ',' with ','.")
			}
			if spec[i] == '_' && s.grouping == '_' {
				return s, valueErr("Cannot specify '_' with '_'.")
			}
			return s, valueErr("Cannot specify both ',' and '_'.")
		}
	}
	if i < len(spec) && spec[i] == '.' {
		i++
		start = i
		for i < len(spec) && isDigit(spec[i]) {
			i++
		}
		if i == start {
			return s, valueErr("Format specifier missing precision")
		}
		p, err := strconv.Atoi(spec[start:i])
		if err != nil || p > maxWidth {
			if err == nil {
				return s, errTooWide
			}
			return s, valueErr("Too many decimal digits in format string")
		}
		s.precision = p
	}
	if len(spec)-i > 1 {
		return s, valueErr("Invalid format specifier '%s' for object of type '%s'", spec, typeName)
	}
	if i < len(spec) {
		s.typ = spec[i]
	}
	if s.grouping != 0 {
		switch s.typ {
		case 0, 'd', 'e', 'f', 'g', 'E', 'G', '%', 'F':
		case 'b', 'o', 'x', 'X':
			if s.grouping != '_' {
				return s, valueErr("Cannot specify ',' with '%c'.", s.typ)
			}
		default:
			if s.typ < 0x20 || s.typ >= 0x7f {
				return s, valueErr("Cannot specify '%c' with '\\x%x'.", s.grouping, s.typ)
			}
			return s, valueErr("Cannot specify '%c' with '%c'.", s.grouping, s.typ)
		}
	}
	if s.zero {
		if !s.fillSet {
			s.fill = '0'
		}
		if s.align == 0 && dfltAlign == '>' {
			s.align = '='
		}
	}
	return s, nil
}

// FormatValue is Python's format(v, spec) for brine's value types.
func FormatValue(v any, spec string) (string, error) {
	switch x := v.(type) {
	case string:
		return formatStr(x, spec)
	case bool:
		if spec == "" {
			return value.Str(v), nil
		}
		return formatNumber(v, spec)
	case int64, int, *big.Int, float64:
		if spec == "" { // str(v)
			if err := CheckIntStr(v); err != nil {
				return "", err
			}
		}
		return formatNumber(v, spec)
	}
	if f, ok := v.(Formatter); ok {
		return f.PyFormat(spec)
	}
	if spec == "" {
		return StrChecked(v)
	}
	return "", typeErr("unsupported format string passed to %s.__format__", TypeName(v))
}

// Formatter lets a foreign type implement its own __format__.
type Formatter interface {
	PyFormat(spec string) (string, error)
}

func formatStr(x, spec string) (string, error) {
	if spec == "" {
		return x, nil
	}
	s, err := parseSpec(spec, "str", 's', '<')
	if err != nil {
		return "", err
	}
	if s.typ != 's' {
		return "", unknownCode(s.typ, "str")
	}
	switch {
	case s.sign == ' ':
		return "", valueErr("Space not allowed in string format specifier")
	case s.sign != 0:
		return "", valueErr("Sign not allowed in string format specifier")
	case s.z:
		return "", valueErr("Negative zero coercion (z) not allowed in string format specifier")
	case s.alt:
		return "", valueErr("Alternate form (#) not allowed in string format specifier")
	case s.align == '=':
		return "", valueErr("'=' alignment not allowed in string format specifier")
	}
	if s.precision >= 0 {
		x = truncRunes(x, s.precision)
	}
	return pad(x, s, '<'), nil
}

func unknownCode(c byte, typ string) error {
	if c >= 0x80 || c < 0x20 {
		return valueErr("Unknown format code '\\x%x' for object of type '%s'", c, typ)
	}
	return valueErr("Unknown format code '%c' for object of type '%s'", c, typ)
}

func truncRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// pad aligns s within s.width using s.fill.
func pad(s string, sp fmtSpec, dflt byte) string {
	n := utf8.RuneCountInString(s)
	if n >= sp.width {
		return s
	}
	align := sp.align
	if align == 0 || align == '=' {
		align = dflt
	}
	total := sp.width - n
	left, right := 0, 0
	switch align {
	case '<':
		right = total
	case '>':
		left = total
	case '^':
		left = total / 2
		right = total - left
	}
	fill := string(sp.fill)
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, right)
}

func formatNumber(v any, spec string) (string, error) {
	n := toNum(v)
	if spec == "" {
		if n.kind == floatNum {
			return value.FormatFloat(n.f), nil
		}
		return value.Str(n.big()), nil
	}
	var dflt byte
	if n.isInt() {
		dflt = 'd'
	}
	s, err := parseSpec(spec, TypeName(v), dflt, '>')
	if err != nil {
		return "", err
	}
	if n.isInt() {
		switch s.typ {
		case 'e', 'E', 'f', 'F', 'g', 'G', '%':
			f, ok := n.float()
			if !ok {
				return "", errIntTooLarge
			}
			return formatFloat(f, s)
		case 'd', 'n', 'b', 'o', 'x', 'X', 'c':
			return formatInt(n, s)
		}
		return "", unknownCode(s.typ, TypeName(v))
	}
	switch s.typ {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', '%', 'n':
		return formatFloat(n.f, s)
	}
	return "", unknownCode(s.typ, "float")
}

func formatInt(n num, s fmtSpec) (string, error) {
	if s.precision >= 0 {
		return "", valueErr("Precision not allowed in integer format specifier")
	}
	if s.z {
		return "", valueErr("Negative zero coercion (z) not allowed in integer format specifier")
	}
	base, prefix := 10, ""
	switch s.typ {
	case 'b':
		base, prefix = 2, "0b"
	case 'o':
		base, prefix = 8, "0o"
	case 'x':
		base, prefix = 16, "0x"
	case 'X':
		base, prefix = 16, "0X"
	case 'c':
		if s.sign != 0 {
			return "", valueErr("Sign not allowed with integer format specifier 'c'")
		}
		if s.alt {
			return "", valueErr("Alternate form (#) not allowed with integer format specifier 'c'")
		}
		if n.kind == bigInt {
			return "", newErr("OverflowError", "Python int too large to convert to C long")
		}
		if n.i < 0 || n.i > 0x10ffff {
			return "", &Error{Type: "OverflowError", Msg: "%c arg not in range(0x110000)"}
		}
		return pad(string(rune(n.i)), s, '>'), nil
	}
	if !s.alt {
		prefix = ""
	}
	neg := n.sign() < 0
	var digits string
	if n.kind == smallInt {
		digits = strconv.FormatUint(absU(n.i), base)
	} else {
		if base == 10 {
			if err := CheckIntStr(n.b); err != nil {
				return "", err
			}
		}
		digits = new(big.Int).Abs(n.b).Text(base)
	}
	if s.typ == 'X' {
		digits = strings.ToUpper(digits)
	}
	group := 3
	if base != 10 {
		group = 4
	}
	return layoutNumber(neg, prefix, digits, "", group, s), nil
}

// layoutNumber assembles sign, prefix, integer digits (grouped as asked)
// and the rest (fraction, exponent, percent sign), then pads the result.
func layoutNumber(neg bool, prefix, intDigits, rest string, group int, s fmtSpec) string {
	sign := ""
	switch {
	case neg:
		sign = "-"
	case s.sign == '+':
		sign = "+"
	case s.sign == ' ':
		sign = " "
	}
	lead := sign + prefix
	if s.grouping != 0 || (s.align == '=' && s.fill == '0') {
		minWidth := 0
		if s.align == '=' && s.fill == '0' {
			minWidth = s.width - len(lead) - utf8.RuneCountInString(rest)
		}
		if s.grouping != 0 {
			intDigits = groupDigits(intDigits, s.grouping, group, minWidth)
		} else if len(intDigits) < minWidth {
			intDigits = strings.Repeat("0", minWidth-len(intDigits)) + intDigits
		}
	}
	body := intDigits + rest
	n := len(lead) + utf8.RuneCountInString(body)
	if n >= s.width {
		return lead + body
	}
	if s.align == '=' {
		return lead + strings.Repeat(string(s.fill), s.width-n) + body
	}
	return pad(lead+body, s, '>')
}

// groupDigits inserts sep every group digits from the right, padding with
// zeros up to minWidth characters as CPython does for zero-filled fields.
func groupDigits(d string, sep byte, group, minWidth int) string {
	var out []byte
	count := 0
	for i := len(d) - 1; i >= 0 || len(out) < minWidth; i-- {
		if count > 0 && count%group == 0 {
			out = append(out, sep)
		}
		if i >= 0 {
			out = append(out, d[i])
		} else {
			out = append(out, '0')
		}
		count++
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func formatFloat(f float64, s fmtSpec) (string, error) {
	neg := math.Signbit(f) && !math.IsNaN(f)
	if neg {
		f = -f
	}
	var body string
	upper := s.typ == 'E' || s.typ == 'F' || s.typ == 'G'
	switch {
	case math.IsInf(f, 0):
		body = "inf"
	case math.IsNaN(f):
		body = "nan"
	default:
		body = floatBody(f, s)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	if s.typ == '%' {
		body += "%"
	}
	finite := !math.IsInf(f, 0) && !math.IsNaN(f)
	if s.z && neg && finite && isZeroText(body) {
		neg = false
	}
	// Split the integer digits (which grouping applies to) from the rest.
	k := 0
	for k < len(body) && isDigit(body[k]) {
		k++
	}
	intPart, rest := body[:k], body[k:]
	if !finite {
		// inf and nan are not grouped (but still zero padded).
		s.grouping = 0
	}
	return layoutNumber(neg, "", intPart, rest, 3, s), nil
}

func isZeroText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '1' && c <= '9' {
			return false
		}
		if c := s[i]; c == 'e' || c == 'E' {
			break
		}
	}
	return true
}

// floatBody formats a finite non-negative float by type and precision.
func floatBody(f float64, s fmtSpec) string {
	p := s.precision
	switch s.typ {
	case 'f', 'F':
		if p < 0 {
			p = 6
		}
		r := strconv.FormatFloat(f, 'f', p, 64)
		if s.alt && p == 0 {
			r += "."
		}
		return r
	case '%':
		if p < 0 {
			p = 6
		}
		r := strconv.FormatFloat(f*100, 'f', p, 64)
		if s.alt && p == 0 {
			r += "."
		}
		return r
	case 'e', 'E':
		if p < 0 {
			p = 6
		}
		return expForm(f, p, s.alt)
	case 'g', 'G', 'n':
		if p < 0 {
			p = 6
		}
		if p == 0 {
			p = 1
		}
		return genForm(f, p, s.alt, false)
	}
	// No type: repr when no precision, else like 'g' keeping a ".0".
	if p < 0 {
		r := value.FormatFloat(f)
		if s.alt && !strings.Contains(r, ".") {
			if i := strings.IndexByte(r, 'e'); i >= 0 {
				r = r[:i] + "." + r[i:]
			} else {
				r += "."
			}
		}
		return r
	}
	if p == 0 {
		p = 1
	}
	return genForm(f, p, s.alt, true)
}

// expForm is C's %.*e with Python's two-digit minimum exponent.
func expForm(f float64, p int, alt bool) string {
	r := strconv.FormatFloat(f, 'e', p, 64)
	if alt && p == 0 {
		i := strings.IndexByte(r, 'e')
		r = r[:i] + "." + r[i:]
	}
	return r
}

// genForm is C's %.*g (alt keeps trailing zeros); keepPoint adds ".0" to
// an integral fixed-point result, as format() does with no type code.
func genForm(f float64, p int, alt, keepPoint bool) string {
	e := strconv.FormatFloat(f, 'e', p-1, 64)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	limit := p
	if keepPoint {
		limit = p - 1
	}
	if exp < -4 || exp >= limit {
		mant := e[:i]
		if !alt {
			mant = trimZeros(mant)
		} else if !strings.Contains(mant, ".") {
			mant += "."
		}
		return mant + e[i:]
	}
	r := strconv.FormatFloat(f, 'f', p-1-exp, 64)
	if alt {
		if !strings.Contains(r, ".") {
			r += "."
		}
		return r
	}
	r = trimZeros(r)
	if keepPoint && !strings.Contains(r, ".") {
		r += ".0"
	}
	return r
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
