package pyops

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"brine/internal/value"
)

// percentArgs walks the arguments of a printf-style format as CPython does:
// a tuple supplies positional arguments, anything else is one argument, and
// a mapping (anything subscriptable but a tuple or a string) also serves
// %(key) lookups.
type percentArgs struct {
	args   any
	tuple  value.Tuple
	arglen int
	argidx int
	dict   any
}

func (p *percentArgs) next() (any, error) {
	if p.argidx < p.arglen {
		i := p.argidx
		p.argidx++
		if p.arglen < 0 {
			return p.args, nil
		}
		return p.tuple[i], nil
	}
	return nil, typeErr("not enough arguments for format string")
}

// PercentFormat is Python's format % args (printf-style formatting).
func PercentFormat(format string, args any) (string, error) {
	p := &percentArgs{args: args, arglen: -1, argidx: -2}
	if t, ok := args.(value.Tuple); ok {
		p.tuple, p.arglen, p.argidx = t, len(t), 0
	}
	switch args.(type) {
	case *value.Map, *value.List, []byte:
		p.dict = args
	}
	var b strings.Builder
	b.Grow(len(format) + 16)
	i := 0
	for i < len(format) {
		j := strings.IndexByte(format[i:], '%')
		if j < 0 {
			b.WriteString(format[i:])
			break
		}
		b.WriteString(format[i : i+j])
		i += j + 1
		var err error
		i, err = p.convert(&b, format, i)
		if err != nil {
			return "", err
		}
		if err := CheckSize(int64(b.Len()), 0); err != nil {
			return "", err
		}
	}
	if p.argidx < p.arglen && p.dict == nil {
		return "", typeErr("not all arguments converted during string formatting")
	}
	return b.String(), nil
}

// convert handles one conversion starting just after its '%' and returns
// the index after it.
func (p *percentArgs) convert(b *strings.Builder, f string, i int) (int, error) {
	if i >= len(f) {
		return i, valueErr("incomplete format")
	}
	if f[i] == '%' {
		b.WriteByte('%')
		return i + 1, nil
	}
	if f[i] == '(' {
		if p.dict == nil {
			return i, typeErr("format requires a mapping")
		}
		depth, k := 1, i+1
		for k < len(f) && depth > 0 {
			switch f[k] {
			case '(':
				depth++
			case ')':
				depth--
			}
			k++
		}
		if depth > 0 {
			return i, valueErr("incomplete format key")
		}
		key := f[i+1 : k-1]
		v, err := GetItem(p.dict, key)
		if err != nil {
			return i, err
		}
		p.args, p.arglen, p.argidx = v, -1, -2
		i = k
	}
	var s fmtSpec
	s.fill, s.precision = ' ', -1
flags:
	for ; i < len(f); i++ {
		switch f[i] {
		case '-':
			s.align = '<'
		case '+':
			s.sign = '+'
		case ' ':
			if s.sign == 0 {
				s.sign = ' '
			}
		case '#':
			s.alt = true
		case '0':
			s.zero = true
		default:
			break flags
		}
	}
	var err error
	if i < len(f) && f[i] == '*' {
		if s.width, err = p.starArg(); err != nil {
			return i, err
		}
		if s.width < 0 {
			s.align, s.width = '<', -s.width
		}
		i++
	} else {
		if s.width, i, err = atoiAt(f, i); err != nil {
			return i, err
		}
	}
	if i < len(f) && f[i] == '.' {
		i++
		if i < len(f) && f[i] == '*' {
			if s.precision, err = p.starArg(); err != nil {
				return i, err
			}
			s.precision = max(s.precision, 0)
			i++
		} else if s.precision, i, err = atoiAt(f, i); err != nil {
			return i, err
		}
	}
	for i < len(f) && (f[i] == 'h' || f[i] == 'l' || f[i] == 'L') {
		i++
	}
	if i >= len(f) {
		return i, valueErr("incomplete format")
	}
	c, size := utf8.DecodeRuneInString(f[i:])
	if c == '%' {
		if _, err := p.next(); err != nil {
			return i, err
		}
		b.WriteByte('%')
		return i + 1, nil
	}
	if !strings.ContainsRune("sradiuoxXeEfFgGc", c) {
		return i, valueErr("unsupported format character '%c' (0x%x) at index %d", c, c, utf8.RuneCountInString(f[:i]))
	}
	v, err := p.next()
	if err != nil {
		return i, err
	}
	out, err := percentOne(byte(c), v, s)
	if err != nil {
		return i, err
	}
	b.WriteString(out)
	return i + size, nil
}

func (p *percentArgs) starArg() (int, error) {
	v, err := p.next()
	if err != nil {
		return 0, err
	}
	n := toNum(v)
	if n.kind != smallInt {
		return 0, typeErr("* wants int")
	}
	if n.i > 1<<31-1 || n.i < -1<<31 {
		return 0, newErr("OverflowError", "Python int too large to convert to C int")
	}
	if n.i > maxWidth || n.i < -maxWidth {
		return 0, errTooWide
	}
	return int(n.i), nil
}

func atoiAt(f string, i int) (int, int, error) {
	start := i
	for i < len(f) && isDigit(f[i]) {
		i++
	}
	if i == start {
		return -1, i, nil
	}
	n, err := strconv.Atoi(f[start:i])
	if err != nil || n > 1<<31-1 {
		return 0, i, valueErr("width too big")
	}
	if n > maxWidth {
		return 0, i, errTooWide
	}
	return n, i, nil
}

// percentOne formats one argument for conversion c.
func percentOne(c byte, v any, s fmtSpec) (string, error) {
	if s.width < 0 {
		s.width = 0
	}
	switch c {
	case 's', 'r', 'a':
		var (
			t   string
			err error
		)
		switch c {
		case 's':
			t, err = StrChecked(v)
		case 'r':
			t, err = ReprChecked(v)
		default:
			t, err = ReprChecked(v)
			t = asciiRepr(t)
		}
		if err != nil {
			return "", err
		}
		if s.precision >= 0 {
			t = truncRunes(t, s.precision)
		}
		return padPercent(t, s), nil
	case 'c':
		var r rune
		switch x := v.(type) {
		case string:
			if utf8.RuneCountInString(x) != 1 {
				return "", &Error{Type: "TypeError", Msg: "%c requires int or char"}
			}
			r, _ = utf8.DecodeRuneInString(x)
		default:
			n := toNum(v)
			if !n.isInt() {
				return "", &Error{Type: "TypeError", Msg: "%c requires int or char"}
			}
			if n.kind != smallInt || n.i < 0 || n.i > 0x10ffff {
				return "", &Error{Type: "OverflowError", Msg: "%c arg not in range(0x110000)"}
			}
			r = rune(n.i)
		}
		return padPercent(string(r), s), nil
	case 'd', 'i', 'u', 'o', 'x', 'X':
		n := toNum(v)
		switch {
		case n.kind == notNum && (c == 'd' || c == 'i' || c == 'u'):
			return "", typeErr("%%%c format: a real number is required, not %s", c, TypeName(v))
		case n.kind == notNum || (n.kind == floatNum && c != 'd' && c != 'i' && c != 'u'):
			return "", typeErr("%%%c format: an integer is required, not %s", c, TypeName(v))
		case n.kind == floatNum:
			iv, err := floatToInt(n.f)
			if err != nil {
				return "", err
			}
			n = toNum(iv)
		}
		base, prefix := 10, ""
		switch c {
		case 'o':
			base, prefix = 8, "0o"
		case 'x':
			base, prefix = 16, "0x"
		case 'X':
			base, prefix = 16, "0X"
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
		if c == 'X' {
			digits = strings.ToUpper(digits)
		}
		if s.precision > len(digits) {
			digits = strings.Repeat("0", s.precision-len(digits)) + digits
		}
		return padNumber(neg, prefix, digits, s), nil
	default: // e E f F g G
		n := toNum(v)
		if n.kind == notNum {
			return "", typeErr("must be real number, not %s", TypeName(v))
		}
		f, ok := n.float()
		if !ok {
			return "", errIntTooLarge
		}
		neg := math.Signbit(f) && !math.IsNaN(f)
		if neg {
			f = -f
		}
		var body string
		switch {
		case math.IsInf(f, 0):
			body = "inf"
		case math.IsNaN(f):
			body = "nan"
		default:
			fs := s
			fs.typ = c | 0x20
			if fs.typ == 'g' && fs.precision < 0 {
				fs.precision = 6
			}
			body = floatBody(f, fs)
		}
		if c == 'E' || c == 'F' || c == 'G' {
			body = strings.ToUpper(body)
		}
		return padNumber(neg, "", body, s), nil
	}
}

// padNumber lays out sign, prefix and digits with printf flags: '-' pads
// on the right, '0' pads with zeros after the sign, else spaces on the left.
func padNumber(neg bool, prefix, digits string, s fmtSpec) string {
	sign := ""
	switch {
	case neg:
		sign = "-"
	case s.sign == '+':
		sign = "+"
	case s.sign == ' ':
		sign = " "
	}
	n := len(sign) + len(prefix) + len(digits)
	if n >= s.width {
		return sign + prefix + digits
	}
	fill := s.width - n
	switch {
	case s.align == '<':
		return sign + prefix + digits + strings.Repeat(" ", fill)
	case s.zero:
		return sign + prefix + strings.Repeat("0", fill) + digits
	}
	return strings.Repeat(" ", fill) + sign + prefix + digits
}

func padPercent(t string, s fmtSpec) string {
	n := utf8.RuneCountInString(t)
	if n >= s.width {
		return t
	}
	if s.align == '<' {
		return t + strings.Repeat(" ", s.width-n)
	}
	return strings.Repeat(" ", s.width-n) + t
}

// asciiRepr escapes the non-ASCII characters of a repr as Python's ascii()
// does.
func asciiRepr(r string) string {
	if isASCII(r) {
		return r
	}
	var b strings.Builder
	for _, c := range r {
		switch {
		case c < 0x80:
			b.WriteRune(c)
		case c <= 0xff:
			b.WriteString(`\x`)
			b.WriteString(hexPad(int(c), 2))
		case c <= 0xffff:
			b.WriteString(`\u`)
			b.WriteString(hexPad(int(c), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hexPad(int(c), 8))
		}
	}
	return b.String()
}

func hexPad(n, width int) string {
	s := strconv.FormatInt(int64(n), 16)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}
