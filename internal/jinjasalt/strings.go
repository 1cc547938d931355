package jinjasalt

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"math/big"
	"regexp"
	"strings"
	"unicode"

	"brine/internal/pyops"
	"brine/internal/value"
)

// Filters of salt/utils/stringutils.py and the string filters of
// salt/utils/jinja.py.

// toNum is salt.utils.stringutils.to_num: int(text), else float(text), else
// the text unchanged.
func toNum(v any) (any, error) {
	n, err := pyInt(v)
	if err == nil {
		return n, nil
	}
	if !isExc(err, excValueError) {
		return nil, err
	}
	if f, err := pyFloat(v); err == nil {
		return f, nil
	}
	return v, nil
}

// isHex is salt.utils.stringutils.is_hex: int(value, 16) succeeds.
func isHex(v any) bool {
	s, ok := asString(v)
	if !ok {
		if b, isB := v.([]byte); isB {
			s, ok = string(b), true
		}
	}
	if !ok {
		return false
	}
	_, ok = parsePyInt(s, 16)
	return ok
}

func containsWhitespace(v any) (bool, error) {
	items, err := iterate(v)
	if err != nil {
		return false, err
	}
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return false, pyErr(excAttributeError, "'%s' object has no attribute 'isspace'", typeName(it))
		}
		if s != "" && strings.IndexFunc(s, pyIsSpace) >= 0 {
			return true, nil
		}
	}
	return false, nil
}

// pyIsSpace is str.isspace for one rune.
func pyIsSpace(r rune) bool {
	switch r {
	case '\x1c', '\x1d', '\x1e', '\x1f', '\x85':
		return true
	}
	return unicode.IsSpace(r)
}

var humanRE = regexp.MustCompile(`^([0-9.]*)\s*(.*)$`)

// humanToBytes is salt.utils.stringutils.human_to_bytes.
func humanToBytes(size any, defaultUnit string, handleMetric bool) (any, error) {
	text := strings.TrimFunc(pyStr(size), pyIsSpace)
	m := humanRE.FindStringSubmatch(text)
	if m == nil {
		return int64(0), nil
	}
	unit := strings.ToLower(m[2])
	if unit == "" {
		unit = strings.ToLower(defaultUnit)
	}
	var val any
	if n, ok := parsePyInt(m[1], 10); ok {
		val = n
	} else if f, ok := parsePyFloat(m[1]); ok {
		val = f
	} else {
		return int64(0), nil
	}
	dec := false
	if len(unit) == 2 && strings.ContainsRune("kmgtpezy", rune(unit[0])) && unit[1] == 'b' {
		dec = handleMetric
	} else if !(unit == "b" || (len(unit) == 1 && strings.ContainsRune("kmgtpezy", rune(unit[0]))) ||
		(len(unit) == 3 && strings.ContainsRune("kmgtpezy", rune(unit[0])) && unit[1:] == "ib")) {
		return int64(0), nil
	}
	p := strings.IndexByte("bkmgtpezy", unit[0])
	mult := new(big.Int).Lsh(big.NewInt(1), uint(p*10))
	if dec {
		mult = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p*3)), nil)
	}
	switch x := val.(type) {
	case float64:
		return pyInt(x * float64FromBig(mult))
	default:
		b, _ := value.AsBig(x)
		return value.NormInt(new(big.Int).Mul(b, mult)), nil
	}
}

func float64FromBig(b *big.Int) float64 {
	f, _ := new(big.Float).SetInt(b).Float64()
	return f
}

// exprMatch is salt.utils.stringutils.expr_match: a glob, else a regex
// that must match the whole line.
func exprMatch(line, expr any) bool {
	l, ok1 := asString(line)
	e, ok2 := asString(expr)
	if !ok1 || !ok2 {
		return false
	}
	if fnmatch(l, e, true) {
		return true
	}
	re, err := compilePy(`\A(?:`+e+`)\Z`, 0)
	if err != nil {
		return false
	}
	return re.MatchString(l)
}

func checkWhitelistBlacklist(v, white, black any) (bool, error) {
	norm := func(l any, what string) ([]any, error) {
		if !truthy(l) {
			return nil, nil
		}
		if s, ok := asString(l); ok {
			return []any{s}, nil
		}
		items, err := iterate(l)
		if err != nil {
			return nil, pyErr(excTypeError, "Expecting iterable %s, but got %s (%s)", what, typeName(l), pyStr(l))
		}
		return items, nil
	}
	bl, err := norm(black, "blacklist")
	if err != nil {
		return false, err
	}
	wl, err := norm(white, "whitelist")
	if err != nil {
		return false, err
	}
	anyMatch := func(list []any) bool {
		for _, e := range list {
			if exprMatch(v, e) {
				return true
			}
		}
		return false
	}
	switch {
	case len(bl) > 0 && len(wl) == 0:
		return !anyMatch(bl), nil
	case len(wl) > 0 && len(bl) == 0:
		return anyMatch(wl), nil
	case len(bl) > 0 && len(wl) > 0:
		return !anyMatch(bl) && anyMatch(wl), nil
	}
	return true, nil
}

func camelToSnake(v any) (any, error) {
	s, ok := asString(v)
	if !ok {
		return nil, pyErr(excTypeError, "'%s' object is not subscriptable", typeName(v))
	}
	rs := []rune(s)
	if len(rs) == 0 {
		return nil, pyErr(excIndexError, "string index out of range")
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(string(rs[0])))
	for i := 1; i < len(rs); i++ {
		r := rs[i]
		if unicode.IsUpper(r) {
			if unicode.IsLower(rs[i-1]) || (i != len(rs)-1 && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
		}
		b.WriteString(strings.ToLower(string(r)))
	}
	return b.String(), nil
}

// pyCapitalize is str.capitalize.
func pyCapitalize(s string) string {
	if s == "" {
		return s
	}
	rs := []rune(strings.ToLower(s))
	return strings.ToUpper(string(rs[0])) + string(rs[1:])
}

func snakeToCamel(v any, upper bool) (any, error) {
	s, ok := asString(v)
	if !ok {
		return nil, pyErr(excAttributeError, "'%s' object has no attribute 'split'", typeName(v))
	}
	words := strings.Split(s, "_")
	if upper {
		words[0] = pyCapitalize(words[0])
	}
	var b strings.Builder
	b.WriteString(words[0])
	for _, w := range words[1:] {
		b.WriteString(pyCapitalize(w))
	}
	return b.String(), nil
}

var unsafeShell = regexp.MustCompile(`[^\w@%+=:,./-]`)

// shellQuote is shlex.quote.
func shellQuote(v any) (any, error) {
	s, ok := asString(v)
	if !ok {
		return nil, pyErr(excTypeError, "expected string or bytes-like object, got '%s'", typeName(v))
	}
	if s == "" {
		return "''", nil
	}
	if !unsafeShell.MatchString(s) {
		return s, nil
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'", nil
}

// toBool is Salt's to_bool filter.
func toBool(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(x) {
		case "yes", "1", "true":
			return true, nil
		}
		return false, nil
	case int64:
		return x > 0, nil
	case int:
		return x > 0, nil
	case *big.Int:
		return x.Sign() > 0, nil
	}
	if s, ok := asString(v); ok {
		return toBool(s)
	}
	if !hashable(v) {
		items, err := iterate(v)
		if err != nil {
			return nil, err
		}
		return len(items) > 0, nil
	}
	return false, nil
}

// sequence is Salt's sequence filter.
func sequence(v any) any {
	switch v.(type) {
	case *value.List, value.Tuple, *value.Map, *Set:
		return v
	}
	return newList([]any{v})
}

// globalUUID is the namespace of Salt's uuid filter.
var globalUUID = [16]byte{0x91, 0x63, 0x3e, 0xbf, 0x1c, 0x86, 0x5e, 0x33, 0x93, 0x5a, 0x28, 0x06, 0x1f, 0x4b, 0x48, 0x0e}

// uuid5 is Python's uuid.uuid5(namespace, name), printed.
func uuid5(ns [16]byte, name string) string {
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	sum := h.Sum(nil)
	var u [16]byte
	copy(u[:], sum[:16])
	u[6] = (u[6] & 0x0f) | 0x50
	u[8] = (u[8] & 0x3f) | 0x80
	const hexd = "0123456789abcdef"
	var b strings.Builder
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b.WriteByte('-')
		}
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

// randomStr is salt.utils.stringutils.random: base64 of random bytes, cut.
func randomStr(size int) (any, error) {
	if size < 0 {
		return nil, pyErr(excValueError, "negative argument not allowed")
	}
	buf := make([]byte, size)
	if _, err := rand.Read(buf); err != nil {
		return nil, err
	}
	enc := base64.StdEncoding.EncodeToString(buf)
	if len(enc) > size {
		enc = enc[:size]
	}
	return enc, nil
}

func isExc(err error, typ string) bool {
	e, ok := err.(interface{ Error() string })
	if !ok {
		return false
	}
	pe, ok := e.(*pyops.Error)
	return ok && pe.Type == typ
}

func init() {
	const su = "salt/utils/stringutils.py"
	const sj = "salt/utils/jinja.py"
	filter("to_bytes", su, newSig("to_bytes", "s", required, "encoding", nil, "errors", "strict"), func(b *bound) (any, error) {
		return toBytes(b.vals[0])
	})
	for _, name := range []string{"to_num", "str_to_num"} {
		filter(name, su, newSig("to_num", "text", required), func(b *bound) (any, error) {
			return toNum(b.vals[0])
		})
	}
	filter("is_hex", su, newSig("is_hex", "value", required), func(b *bound) (any, error) {
		return isHex(b.vals[0]), nil
	})
	filter("random_str", su, newSig("random", "size", int64(32)), func(b *bound) (any, error) {
		n, err := asInt(b.vals[0])
		if err != nil {
			return nil, err
		}
		return randomStr(n)
	})
	filter("contains_whitespace", su, newSig("contains_whitespace", "text", required), func(b *bound) (any, error) {
		return containsWhitespace(b.vals[0])
	})
	filter("human_to_bytes", su, newSig("human_to_bytes", "size", required, "default_unit", "B", "handle_metric", false), func(b *bound) (any, error) {
		return humanToBytes(b.vals[0], pyStr(b.vals[1]), truthy(b.vals[2]))
	})
	filter("check_whitelist_blacklist", su, newSig("check_whitelist_blacklist", "value", required, "whitelist", nil, "blacklist", nil), func(b *bound) (any, error) {
		return checkWhitelistBlacklist(b.vals[0], b.vals[1], b.vals[2])
	})
	filter("to_snake_case", su, newSig("camel_to_snake_case", "camel_input", required), func(b *bound) (any, error) {
		return camelToSnake(b.vals[0])
	})
	filter("to_camelcase", su, newSig("snake_to_camel_case", "snake_input", required, "uppercamel", false), func(b *bound) (any, error) {
		return snakeToCamel(b.vals[0], truthy(b.vals[1]))
	})

	filter("skip", sj, newSig("skip_filter", "data", required), func(b *bound) (any, error) {
		return "", nil
	})
	filter("sequence", sj, newSig("ensure_sequence_filter", "data", required), func(b *bound) (any, error) {
		return sequence(b.vals[0]), nil
	})
	filter("to_bool", sj, newSig("to_bool", "val", required), func(b *bound) (any, error) {
		return toBool(b.vals[0])
	})
	filter("quote", sj, newSig("quote", "txt", required), func(b *bound) (any, error) {
		return shellQuote(b.vals[0])
	})
	filter("uuid", sj, newSig("uuid_", "val", required), func(b *bound) (any, error) {
		s, err := toText(b.vals[0])
		if err != nil {
			return nil, err
		}
		return uuid5(globalUUID, s), nil
	})
}
