package pyops

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"brine/internal/value"
)

// strMethod adapts a method on a string receiver.
func strMethod(name string, f func(s string, args []any, kw *value.Map) (any, error)) {
	register("str", name, func(recv any, args []any, kw *value.Map) (any, error) {
		return f(recv.(string), args, kw)
	})
}

// strNoArgs registers a method without arguments.
func strNoArgs(name string, f func(s string) any) {
	strMethod(name, func(s string, args []any, kw *value.Map) (any, error) {
		if err := noArgs("str."+name, args, kw); err != nil {
			return nil, err
		}
		return f(s), nil
	})
}

// PyIsSpace is Python's str.isspace for one character.
func PyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

func argStr(method string, v any, noneOK bool) (string, bool, error) {
	if v == absent || (noneOK && v == nil) {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		if noneOK {
			return "", false, typeErr("must be str or None, not %s", TypeName(v))
		}
		return "", false, typeErr("must be str, not %s", TypeName(v))
	}
	return s, true, nil
}

func init() {
	strMethod("split", func(s string, args []any, kw *value.Map) (any, error) {
		return splitMethod("split", s, args, kw, false)
	})
	strMethod("rsplit", func(s string, args []any, kw *value.Map) (any, error) {
		return splitMethod("rsplit", s, args, kw, true)
	})
	strMethod("splitlines", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.splitlines", names: []string{"keepends"}, kwNames: 0}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		keep := a[0] != absent && value.Truthy(a[0])
		return strList(SplitLines(s, keep)), nil
	})
	for _, name := range []string{"strip", "lstrip", "rstrip"} {
		strMethod(name, func(s string, args []any, kw *value.Map) (any, error) {
			a, err := params{name: "str." + name, names: []string{"chars"}, kwNames: -1}.bind(args, kw)
			if err != nil {
				return nil, err
			}
			chars, has, err := argStr(name, a[0], true)
			if err != nil {
				return nil, typeErr("%s arg must be None or str", name)
			}
			return Strip(s, chars, has, name != "rstrip", name != "lstrip"), nil
		})
	}
	strMethod("startswith", func(s string, args []any, kw *value.Map) (any, error) {
		return affixMethod("startswith", s, args, kw)
	})
	strMethod("endswith", func(s string, args []any, kw *value.Map) (any, error) {
		return affixMethod("endswith", s, args, kw)
	})
	strMethod("replace", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.replace", names: []string{"old", "new", "count"}, required: 2, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		old, _, err := argStr("replace", a[0], false)
		if err != nil {
			return nil, typeErr("replace() argument 1 must be str, not %s", TypeName(a[0]))
		}
		repl, _, err := argStr("replace", a[1], false)
		if err != nil {
			return nil, typeErr("replace() argument 2 must be str, not %s", TypeName(a[1]))
		}
		n, err := argInt(a[2], -1, false)
		if err != nil {
			return nil, err
		}
		if err := CheckSize(replacedSize(s, old, repl, n), 0); err != nil {
			return nil, err
		}
		return strings.Replace(s, old, repl, n), nil
	})
	strMethod("format", func(s string, args []any, kw *value.Map) (any, error) {
		return FormatString(s, args, kw, nil)
	})
	strMethod("format_map", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.format_map", names: []string{"mapping"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		m, ok := a[0].(*value.Map)
		if !ok {
			return nil, typeErr("'%s' object is not subscriptable", TypeName(a[0]))
		}
		return FormatString(s, nil, m, nil)
	})
	strMethod("join", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.join", names: []string{"iterable"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		items, err := Iterate(a[0])
		if err != nil {
			return nil, typeErr("can only join an iterable")
		}
		size := sizeOf(int64(max(len(items)-1, 0)), int64(len(s)))
		for i, it := range items {
			t, ok := it.(string)
			if !ok {
				return nil, typeErr("sequence item %d: expected str instance, %s found", i, TypeName(it))
			}
			size += int64(len(t))
		}
		if err := CheckSize(size, 0); err != nil {
			return nil, err
		}
		var b strings.Builder
		b.Grow(int(size))
		for i, it := range items {
			if i > 0 {
				b.WriteString(s)
			}
			b.WriteString(it.(string))
		}
		return b.String(), nil
	})
	strNoArgs("lower", func(s string) any { return Lower(s) })
	strNoArgs("upper", func(s string) any { return Upper(s) })
	strNoArgs("title", func(s string) any { return Title(s) })
	strNoArgs("capitalize", func(s string) any { return Capitalize(s) })
	strNoArgs("swapcase", func(s string) any { return swapCase(s) })
	strNoArgs("casefold", func(s string) any { return Casefold(s) })
	strMethod("center", func(s string, args []any, kw *value.Map) (any, error) {
		return justify("center", s, args, kw)
	})
	strMethod("ljust", func(s string, args []any, kw *value.Map) (any, error) {
		return justify("ljust", s, args, kw)
	})
	strMethod("rjust", func(s string, args []any, kw *value.Map) (any, error) {
		return justify("rjust", s, args, kw)
	})
	strMethod("zfill", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.zfill", names: []string{"width"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		w, err := argInt(a[0], 0, false)
		if err != nil {
			return nil, err
		}
		return Zfill(s, w)
	})
	for _, name := range []string{"find", "rfind", "index", "rindex", "count"} {
		strMethod(name, func(s string, args []any, kw *value.Map) (any, error) {
			return findMethod(name, s, args, kw)
		})
	}
	strPred := func(name string, f func(string) bool) {
		strNoArgs(name, func(s string) any { return f(s) })
	}
	strPred("isdigit", func(s string) bool { return allRunes(s, isPyDigit) })
	strPred("isdecimal", func(s string) bool { return allRunes(s, isPyDecimal) })
	strPred("isnumeric", func(s string) bool { return allRunes(s, isPyNumeric) })
	strPred("isalpha", func(s string) bool { return allRunes(s, unicode.IsLetter) })
	strPred("isalnum", func(s string) bool {
		return allRunes(s, func(r rune) bool { return unicode.IsLetter(r) || isPyNumeric(r) })
	})
	strPred("isspace", func(s string) bool { return allRunes(s, PyIsSpace) })
	strPred("isascii", isASCII)
	strPred("isprintable", func(s string) bool {
		for _, r := range s {
			if r != ' ' && !(unicode.IsGraphic(r) && !unicode.Is(unicode.Zs, r) && !unicode.Is(unicode.Cf, r)) {
				return false
			}
		}
		return true
	})
	strPred("isidentifier", func(s string) bool {
		for i, r := range s {
			if !(r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || (i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)))) {
				return false
			}
		}
		return s != ""
	})
	strPred("islower", func(s string) bool { return caseCheck(s, pyIsLower, isUpperOrTitle) })
	strPred("isupper", func(s string) bool { return caseCheck(s, unicode.IsUpper, isLowerOrTitle) })
	strPred("istitle", isTitle)
	strMethod("partition", func(s string, args []any, kw *value.Map) (any, error) {
		return partition("partition", s, args, kw)
	})
	strMethod("rpartition", func(s string, args []any, kw *value.Map) (any, error) {
		return partition("rpartition", s, args, kw)
	})
	strMethod("expandtabs", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.expandtabs", names: []string{"tabsize"}, kwNames: 0}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		n, err := argInt(a[0], 8, false)
		if err != nil {
			return nil, err
		}
		return ExpandTabs(s, n)
	})
	strMethod("encode", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.encode", names: []string{"encoding", "errors"}, kwNames: 0}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		enc, _, err := argStr("encode", a[0], false)
		if err != nil {
			return nil, typeErr("encode() argument 'encoding' must be str, not %s", TypeName(a[0]))
		}
		errs, _, err := argStr("encode", a[1], false)
		if err != nil {
			return nil, typeErr("encode() argument 'errors' must be str, not %s", TypeName(a[1]))
		}
		return Encode(s, enc, errs)
	})
	strMethod("removeprefix", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.removeprefix", names: []string{"prefix"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		p, _, err := argStr("removeprefix", a[0], false)
		if err != nil {
			return nil, typeErr("removeprefix() argument must be str, not %s", TypeName(a[0]))
		}
		return strings.TrimPrefix(s, p), nil
	})
	strMethod("removesuffix", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.removesuffix", names: []string{"suffix"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		p, _, err := argStr("removesuffix", a[0], false)
		if err != nil {
			return nil, typeErr("removesuffix() argument must be str, not %s", TypeName(a[0]))
		}
		return strings.TrimSuffix(s, p), nil
	})
	strMethod("translate", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.translate", names: []string{"table"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		return translate(s, a[0])
	})
	strMethod("maketrans", func(s string, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "str.maketrans", names: []string{"x", "y", "z"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		return makeTrans(a[0], a[1], a[2])
	})
	register("bytes", "decode", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "bytes.decode", names: []string{"encoding", "errors"}, kwNames: 0}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		enc, _, err := argStr("decode", a[0], false)
		if err != nil {
			return nil, typeErr("decode() argument 'encoding' must be str, not %s", TypeName(a[0]))
		}
		errs, _, err := argStr("decode", a[1], false)
		if err != nil {
			return nil, typeErr("decode() argument 'errors' must be str, not %s", TypeName(a[1]))
		}
		return Decode(recv.([]byte), enc, errs)
	})
	register("bytes", "hex", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("bytes.hex", args, kw); err != nil {
			return nil, err
		}
		const digits = "0123456789abcdef"
		b := recv.([]byte)
		out := make([]byte, 0, 2*len(b))
		for _, c := range b {
			out = append(out, digits[c>>4], digits[c&15])
		}
		return string(out), nil
	})
}

func strList(parts []string) *value.List {
	items := make([]any, len(parts))
	for i, p := range parts {
		items[i] = p
	}
	return value.NewList(items...)
}

func splitMethod(name, s string, args []any, kw *value.Map, right bool) (any, error) {
	a, err := params{name: "str." + name, names: []string{"sep", "maxsplit"}, kwNames: 0}.bind(args, kw)
	if err != nil {
		return nil, err
	}
	sep, hasSep, err := argStr(name, a[0], true)
	if err != nil {
		return nil, err
	}
	n, err := argInt(a[1], -1, false)
	if err != nil {
		return nil, err
	}
	if hasSep && sep == "" {
		return nil, valueErr("empty separator")
	}
	var parts []string
	switch {
	case right && hasSep:
		parts = RSplitSep(s, sep, n)
	case right:
		parts = RSplitWhitespace(s, n)
	case hasSep:
		if n < 0 {
			n = -2
		}
		parts = strings.SplitN(s, sep, n+1)
	default:
		parts = SplitWhitespace(s, n)
	}
	return strList(parts), nil
}

// SplitWhitespace is Python's s.split(None, maxsplit) (maxsplit < 0: all).
func SplitWhitespace(s string, maxsplit int) []string {
	var out []string
	i := 0
	for maxsplit != 0 {
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !PyIsSpace(r) {
				break
			}
			i += size
		}
		if i == len(s) {
			return out
		}
		j := i
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if PyIsSpace(r) {
				break
			}
			i += size
		}
		out = append(out, s[j:i])
		maxsplit--
	}
	rest := strings.TrimLeftFunc(s[i:], PyIsSpace)
	if rest != "" {
		out = append(out, rest)
	}
	return out
}

// RSplitWhitespace is Python's s.rsplit(None, maxsplit).
func RSplitWhitespace(s string, maxsplit int) []string {
	var out []string
	i := len(s)
	for maxsplit != 0 {
		for i > 0 {
			r, size := utf8.DecodeLastRuneInString(s[:i])
			if !PyIsSpace(r) {
				break
			}
			i -= size
		}
		if i == 0 {
			break
		}
		j := i
		for i > 0 {
			r, size := utf8.DecodeLastRuneInString(s[:i])
			if PyIsSpace(r) {
				break
			}
			i -= size
		}
		out = append(out, s[i:j])
		maxsplit--
	}
	if maxsplit == 0 {
		if rest := strings.TrimRightFunc(s[:i], PyIsSpace); rest != "" {
			out = append(out, rest)
		}
	}
	reverseStrings(out)
	return out
}

// RSplitSep is Python's s.rsplit(sep, maxsplit) for a non-empty sep.
func RSplitSep(s, sep string, maxsplit int) []string {
	var out []string
	for maxsplit != 0 {
		k := strings.LastIndex(s, sep)
		if k < 0 {
			break
		}
		out = append(out, s[k+len(sep):])
		s = s[:k]
		maxsplit--
	}
	out = append(out, s)
	reverseStrings(out)
	return out
}

func reverseStrings(s []string) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// SplitLines is Python's s.splitlines(keepends).
func SplitLines(s string, keepends bool) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isLineBreak(r) {
			i += size
			continue
		}
		end := i + size
		if r == '\r' && end < len(s) && s[end] == '\n' {
			end++
		}
		if keepends {
			out = append(out, s[start:end])
		} else {
			out = append(out, s[start:i])
		}
		start, i = end, end
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Strip is Python's strip/lstrip/rstrip; without chars it strips
// whitespace.
func Strip(s, chars string, hasChars, left, right bool) string {
	f := PyIsSpace
	if hasChars {
		f = func(r rune) bool { return strings.ContainsRune(chars, r) }
	}
	if left {
		s = strings.TrimLeftFunc(s, f)
	}
	if right {
		s = strings.TrimRightFunc(s, f)
	}
	return s
}

// runeRange resolves optional start and end (code point indices) of s into
// byte offsets. ok is false when start lies beyond the end.
func runeRange(s string, start, end any) (lo, hi, loRunes int, ok bool, err error) {
	n := utf8.RuneCountInString(s)
	a, err := argInt(start, 0, true)
	if err != nil {
		return 0, 0, 0, false, err
	}
	b, err := argInt(end, n, true)
	if err != nil {
		return 0, 0, 0, false, err
	}
	if b > n {
		b = n
	} else if b < 0 {
		b = max(b+n, 0)
	}
	if a < 0 {
		a = max(a+n, 0)
	}
	if a > n || a > b {
		return 0, 0, 0, false, nil
	}
	if len(s) == n {
		return a, b, a, true, nil
	}
	return runeOffset(s, a), runeOffset(s, b), a, true, nil
}

func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func affixMethod(name, s string, args []any, kw *value.Map) (any, error) {
	a, err := params{name: "str." + name, names: []string{"prefix", "start", "end"}, required: 1, kwNames: -1}.bind(args, kw)
	if err != nil {
		return nil, err
	}
	var cands []string
	switch x := a[0].(type) {
	case string:
		cands = []string{x}
	case value.Tuple:
		for _, e := range x {
			t, ok := e.(string)
			if !ok {
				return nil, typeErr("tuple for %s must only contain str, not %s", name, TypeName(e))
			}
			cands = append(cands, t)
		}
	default:
		return nil, typeErr("%s first arg must be str or a tuple of str, not %s", name, TypeName(a[0]))
	}
	lo, hi, _, ok, err := runeRange(s, a[1], a[2])
	if err != nil || !ok {
		return false, err
	}
	sub := s[lo:hi]
	for _, c := range cands {
		if name == "startswith" && strings.HasPrefix(sub, c) || name == "endswith" && strings.HasSuffix(sub, c) {
			return true, nil
		}
	}
	return false, nil
}

func findMethod(name, s string, args []any, kw *value.Map) (any, error) {
	a, err := params{name: "str." + name, names: []string{"sub", "start", "end"}, required: 1, kwNames: -1}.bind(args, kw)
	if err != nil {
		return nil, err
	}
	sub, ok := a[0].(string)
	if !ok {
		return nil, typeErr("must be str, not %s", TypeName(a[0]))
	}
	lo, hi, loRunes, ok, err := runeRange(s, a[1], a[2])
	if err != nil {
		return nil, err
	}
	notFound := func() (any, error) {
		switch name {
		case "count":
			return int64(0), nil
		case "index", "rindex":
			return nil, valueErr("substring not found")
		}
		return int64(-1), nil
	}
	if !ok {
		return notFound()
	}
	hay := s[lo:hi]
	if name == "count" {
		if sub == "" {
			return int64(utf8.RuneCountInString(hay) + 1), nil
		}
		return int64(strings.Count(hay, sub)), nil
	}
	var k int
	if name == "find" || name == "index" {
		k = strings.Index(hay, sub)
	} else {
		k = strings.LastIndex(hay, sub)
	}
	if k < 0 {
		return notFound()
	}
	return int64(loRunes + utf8.RuneCountInString(hay[:k])), nil
}

func justify(name, s string, args []any, kw *value.Map) (any, error) {
	a, err := params{name: "str." + name, names: []string{"width", "fillchar"}, required: 1, kwNames: -1}.bind(args, kw)
	if err != nil {
		return nil, err
	}
	w, err := argInt(a[0], 0, false)
	if err != nil {
		return nil, err
	}
	fill := " "
	if a[1] != absent {
		f, ok := a[1].(string)
		if !ok {
			return nil, typeErr("%s() argument 2 must be a unicode character, not %s", name, TypeName(a[1]))
		}
		if utf8.RuneCountInString(f) != 1 {
			return nil, typeErr("The fill character must be exactly one character long")
		}
		fill = f
	}
	n := utf8.RuneCountInString(s)
	if w <= n {
		return s, nil
	}
	if w > maxWidth {
		return nil, errTooWide
	}
	marg := w - n
	var left int
	switch name {
	case "ljust":
		left = 0
	case "rjust":
		left = marg
	default:
		left = marg/2 + (marg & w & 1)
	}
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, marg-left), nil
}

// Zfill is Python's s.zfill(width).
func Zfill(s string, w int) (string, error) {
	n := utf8.RuneCountInString(s)
	if w <= n {
		return s, nil
	}
	if w > maxWidth {
		return "", errTooWide
	}
	zeros := strings.Repeat("0", w-n)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[:1] + zeros + s[1:], nil
	}
	return zeros + s, nil
}

func allRunes(s string, f func(rune) bool) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !f(r) {
			return false
		}
	}
	return true
}

func isPyDecimal(r rune) bool { return unicode.Is(unicode.Nd, r) }

// isPyDigit approximates Python's str.isdigit: decimal digits plus the
// superscript, subscript and circled digits that carry a digit value.
func isPyDigit(r rune) bool {
	switch {
	case unicode.Is(unicode.Nd, r):
		return true
	case r == 0xb2 || r == 0xb3 || r == 0xb9:
		return true
	case r >= 0x2070 && r <= 0x2079 && r != 0x2071 && r != 0x2072 && r != 0x2073:
		return true
	case r >= 0x2080 && r <= 0x2089:
		return true
	case r >= 0x2460 && r <= 0x2468, r >= 0x2474 && r <= 0x247c, r >= 0x2488 && r <= 0x2490:
		return true
	case r >= 0x24f5 && r <= 0x24fd, r == 0x24ea, r == 0x24ff:
		return true
	case r >= 0x2776 && r <= 0x277e, r >= 0x2780 && r <= 0x2788, r >= 0x278a && r <= 0x2792:
		return true
	}
	return false
}

// isPyNumeric approximates Python's str.isnumeric: any Unicode number, plus
// the Han numerals.
func isPyNumeric(r rune) bool {
	if unicode.IsNumber(r) {
		return true
	}
	return strings.ContainsRune("〇一二三四五六七八九十百千万億兆零壹贰貳叁參肆伍陆陸柒捌玖拾佰仟", r)
}

func isUpperOrTitle(r rune) bool { return unicode.IsUpper(r) || unicode.IsTitle(r) }
func isLowerOrTitle(r rune) bool { return pyIsLower(r) || unicode.IsTitle(r) }

func isCased(r rune) bool {
	return unicode.IsUpper(r) || pyIsLower(r) || unicode.IsTitle(r) || unicode.Is(unicode.Other_Uppercase, r)
}

// pyIsLower is Python's lowercase property: Ll plus Other_Lowercase.
func pyIsLower(r rune) bool {
	return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)
}

// casefoldSpecial holds the full case foldings that differ from lower().
var casefoldSpecial = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'ς': "σ", 'ŉ': "ʼn", 'ǰ': "ǰ", 'ΐ': "ΐ", 'ΰ': "ΰ", 'և': "եւ",
	'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st",
	'İ': "i̇", 'ſ': "s", 'µ': "μ", 'ͅ': "ι", 'ϐ': "β", 'ϑ': "θ", 'ϕ': "φ", 'ϖ': "π",
	'ϰ': "κ", 'ϱ': "ρ", 'ϵ': "ε", 'ẛ': "ṡ", 'ι': "ι",
}

// Casefold is Python's str.casefold.
func Casefold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if t, ok := casefoldSpecial[r]; ok {
			b.WriteString(t)
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// caseCheck is islower/isupper: at least one character of the wanted case
// and none of the excluded cases.
func caseCheck(s string, want, bad func(rune) bool) bool {
	found := false
	for _, r := range s {
		if bad(r) {
			return false
		}
		if want(r) {
			found = true
		}
	}
	return found
}

func isTitle(s string) bool {
	cased, prevCased := false, false
	for _, r := range s {
		switch {
		case isUpperOrTitle(r):
			if prevCased {
				return false
			}
			prevCased, cased = true, true
		case unicode.IsLower(r):
			if !prevCased {
				return false
			}
			prevCased, cased = true, true
		default:
			prevCased = false
		}
	}
	return cased
}

// upperSpecial holds Python's full uppercase mappings that expand one
// character into several.
var upperSpecial = map[rune]string{
	'ß': "SS", 'ŉ': "ʼN", 'ǰ': "J̌", 'ΐ': "Ϊ́", 'ΰ': "Ϋ́", 'և': "ԵՒ",
	'ﬀ': "FF", 'ﬁ': "FI", 'ﬂ': "FL", 'ﬃ': "FFI", 'ﬄ': "FFL", 'ﬅ': "ST", 'ﬆ': "ST",
}

// titleSpecial holds the full titlecase mappings that expand.
var titleSpecial = map[rune]string{
	'ß': "Ss", 'ŉ': "ʼN", 'ﬀ': "Ff", 'ﬁ': "Fi", 'ﬂ': "Fl", 'ﬃ': "Ffi", 'ﬄ': "Ffl", 'ﬅ': "St", 'ﬆ': "St", 'և': "Եւ",
}

// Upper is Python's str.upper (full case mapping).
func Upper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		if t, ok := upperSpecial[r]; ok {
			b.WriteString(t)
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// Lower is Python's str.lower (full case mapping, with final sigma).
func Lower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		b.WriteString(lowerRune(rs, i, r))
	}
	return b.String()
}

func lowerRune(rs []rune, i int, r rune) string {
	switch r {
	case 'İ':
		return "i̇"
	case 'Σ':
		if finalSigma(rs, i) {
			return "ς"
		}
		return "σ"
	}
	return string(unicode.ToLower(r))
}

// finalSigma reports whether the capital sigma at i ends a word: a cased
// letter precedes it and none follows (case-ignorable characters skipped).
func finalSigma(rs []rune, i int) bool {
	ignorable := func(r rune) bool {
		return unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Cf, r) ||
			unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Sk, r) || r == '\'' || r == '.' || r == ':' || r == 0xb7 || r == 0x2019
	}
	j := i - 1
	for j >= 0 && ignorable(rs[j]) {
		j--
	}
	if j < 0 || !isCased(rs[j]) {
		return false
	}
	k := i + 1
	for k < len(rs) && ignorable(rs[k]) {
		k++
	}
	return k == len(rs) || !isCased(rs[k])
}

func titleRune(r rune) string {
	if t, ok := titleSpecial[r]; ok {
		return t
	}
	return string(unicode.ToTitle(r))
}

// Title is Python's str.title: the first cased character after an uncased
// one is titlecased, the rest lowercased ("they're" becomes "They'Re").
func Title(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	prevCased := false
	for i, r := range rs {
		if prevCased {
			b.WriteString(lowerRune(rs, i, r))
		} else {
			b.WriteString(titleRune(r))
		}
		prevCased = isCased(r)
	}
	return b.String()
}

// Capitalize is Python's str.capitalize: first character titlecased, the
// rest lowercased.
func Capitalize(s string) string {
	if s == "" {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(titleRune(rs[0]))
	for i := 1; i < len(rs); i++ {
		b.WriteString(lowerRune(rs, i, rs[i]))
	}
	return b.String()
}

func swapCase(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsUpper(r):
			b.WriteString(lowerRune(rs, i, r))
		case unicode.IsLower(r):
			if t, ok := upperSpecial[r]; ok {
				b.WriteString(t)
			} else {
				b.WriteRune(unicode.ToUpper(r))
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func partition(name, s string, args []any, kw *value.Map) (any, error) {
	a, err := params{name: "str." + name, names: []string{"sep"}, required: 1, kwNames: -1}.bind(args, kw)
	if err != nil {
		return nil, err
	}
	sep, ok := a[0].(string)
	if !ok {
		return nil, typeErr("must be str, not %s", TypeName(a[0]))
	}
	if sep == "" {
		return nil, valueErr("empty separator")
	}
	if name == "partition" {
		if k := strings.Index(s, sep); k >= 0 {
			return value.Tuple{s[:k], sep, s[k+len(sep):]}, nil
		}
		return value.Tuple{s, "", ""}, nil
	}
	if k := strings.LastIndex(s, sep); k >= 0 {
		return value.Tuple{s[:k], sep, s[k+len(sep):]}, nil
	}
	return value.Tuple{"", "", s}, nil
}

// ExpandTabs is Python's s.expandtabs(tabsize).
func ExpandTabs(s string, tab int) (string, error) {
	if strings.IndexByte(s, '\t') < 0 {
		return s, nil
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			if tab > 0 {
				n := tab - col%tab
				b.WriteString(strings.Repeat(" ", n))
				col += n
			}
		case '\n', '\r':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
		if err := CheckSize(int64(b.Len()), 0); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func translate(s string, table any) (any, error) {
	var b strings.Builder
	for _, r := range s {
		v, err := GetItem(table, int64(r))
		if err != nil {
			if e, ok := err.(*Error); ok && (e.Type == "KeyError" || e.Type == "IndexError") {
				b.WriteRune(r)
				continue
			}
			return nil, err
		}
		switch x := v.(type) {
		case nil:
		case string:
			b.WriteString(x)
		default:
			n := toNum(v)
			if n.kind == bigInt {
				return nil, valueErr("character mapping must be in range(0x110000)")
			}
			if n.kind != smallInt {
				return nil, typeErr("character mapping must return integer, None or str")
			}
			if n.i < 0 || n.i > 0x10ffff {
				return nil, valueErr("character mapping must be in range(0x110000)")
			}
			b.WriteRune(rune(n.i))
		}
	}
	return b.String(), nil
}

// makeTrans is str.maketrans(x[, y[, z]]).
func makeTrans(x, y, z any) (any, error) {
	out := value.NewMap(0)
	if y == absent {
		m, ok := x.(*value.Map)
		if !ok {
			return nil, typeErr("if you give only one argument to maketrans it must be a dict")
		}
		var err error
		m.Range(func(k, v any) bool {
			switch key := k.(type) {
			case string:
				if utf8.RuneCountInString(key) != 1 {
					err = valueErr("string keys in translate table must be of length 1")
					return false
				}
				r, _ := utf8.DecodeRuneInString(key)
				out.Set(int64(r), v)
			default:
				if n := toNum(k); n.kind == smallInt && !isBoolValue(k) || n.kind == bigInt {
					out.Set(k, v)
					return true
				}
				err = typeErr("keys in translate table must be strings or integers")
				return false
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	xs, ok1 := x.(string)
	ys, ok2 := y.(string)
	if !ok1 {
		return nil, typeErr("maketrans() argument 1 must be str, not %s", TypeName(x))
	}
	if !ok2 {
		return nil, typeErr("maketrans() argument 2 must be str, not %s", TypeName(y))
	}
	xr, yr := []rune(xs), []rune(ys)
	if len(xr) != len(yr) {
		return nil, valueErr("the first two maketrans arguments must have equal length")
	}
	for i, r := range xr {
		out.Set(int64(r), int64(yr[i]))
	}
	if z != absent {
		zs, ok := z.(string)
		if !ok {
			return nil, typeErr("maketrans() argument 3 must be str, not %s", TypeName(z))
		}
		for _, r := range zs {
			out.Set(int64(r), nil)
		}
	}
	return out, nil
}

func isBoolValue(v any) bool {
	_, ok := v.(bool)
	return ok
}

// replacedSize is the length in bytes of strings.Replace(s, old, repl, n),
// computed without building it.
func replacedSize(s, old, repl string, n int) int64 {
	var count int64
	if old == "" {
		count = int64(utf8.RuneCountInString(s)) + 1
	} else {
		count = int64(strings.Count(s, old))
	}
	if n >= 0 && int64(n) < count {
		count = int64(n)
	}
	grow := int64(len(repl)) - int64(len(old))
	if grow <= 0 {
		return int64(len(s))
	}
	return int64(len(s)) + sizeOf(count, grow)
}
