package yamlload

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"brine/internal/value"
)

// The YAML 1.1 tags PyYAML's SafeLoader knows, in their long form.
const (
	tagPrefix    = "tag:yaml.org,2002:"
	tagNull      = tagPrefix + "null"
	tagBool      = tagPrefix + "bool"
	tagInt       = tagPrefix + "int"
	tagFloat     = tagPrefix + "float"
	tagStr       = tagPrefix + "str"
	tagBinary    = tagPrefix + "binary"
	tagTimestamp = tagPrefix + "timestamp"
	tagMerge     = tagPrefix + "merge"
	tagValue     = tagPrefix + "value"
	tagMap       = tagPrefix + "map"
	tagOmap      = tagPrefix + "omap"
	tagPairs     = tagPrefix + "pairs"
	tagSet       = tagPrefix + "set"
	tagSeq       = tagPrefix + "seq"
	tagUnicode   = tagPrefix + "python/unicode"
)

// Resolve returns the tag PyYAML's SafeLoader resolver gives a plain
// (unquoted, untagged) scalar: null, bool, int, float, timestamp, merge,
// value or str.
func Resolve(s string) string {
	if s == "" {
		return tagNull
	}
	switch c := s[0]; {
	case c == '~' || c == 'n' || c == 'N':
		if isNull(s) {
			return tagNull
		}
		if isBool(s) {
			return tagBool
		}
	case c == 'y' || c == 'Y' || c == 't' || c == 'T' || c == 'f' || c == 'F' || c == 'o' || c == 'O':
		if isBool(s) {
			return tagBool
		}
	case c == '<':
		if s == "<<" {
			return tagMerge
		}
	case c == '=':
		if s == "=" {
			return tagValue
		}
	case c == '.':
		if isFloat(s) {
			return tagFloat
		}
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		if isFloat(s) {
			return tagFloat
		}
		if isInt(s) {
			return tagInt
		}
		if isTimestamp(s) {
			return tagTimestamp
		}
	}
	return tagStr
}

func isNull(s string) bool {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

func isBool(s string) bool {
	_, ok := boolValue(s)
	return ok
}

// boolValue reads an implicit YAML 1.1 boolean in one of its three casings.
func boolValue(s string) (v, ok bool) {
	switch s {
	case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, true
	case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, true
	}
	return false, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// span returns the length of the prefix of s made of bytes for which ok
// holds.
func span(s string, ok func(byte) bool) int {
	i := 0
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func digitOrUnderscore(c byte) bool { return isDigit(c) || c == '_' }

// sexagesimal matches (:[0-5]?[0-9])+ at the start of s and returns its
// length, 0 if there is none.
func sexagesimal(s string) int {
	i := 0
	for i < len(s) && s[i] == ':' {
		j := i + 1
		switch {
		case j+1 < len(s) && s[j] >= '0' && s[j] <= '5' && isDigit(s[j+1]):
			j += 2
		case j < len(s) && isDigit(s[j]):
			j++
		default:
			return i
		}
		i = j
	}
	return i
}

func trimSign(s string) string {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		return s[1:]
	}
	return s
}

// isInt is PyYAML's int resolver:
// [-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(?:0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+ | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
func isInt(s string) bool {
	s = trimSign(s)
	if s == "" {
		return false
	}
	if s[0] == '0' {
		if s == "0" {
			return true
		}
		switch s[1] {
		case 'b':
			r := s[2:]
			return r != "" && span(r, func(c byte) bool { return c == '0' || c == '1' || c == '_' }) == len(r)
		case 'x':
			r := s[2:]
			return r != "" && span(r, func(c byte) bool { return isHex(c) || c == '_' }) == len(r)
		}
		r := s[1:]
		return span(r, func(c byte) bool { return (c >= '0' && c <= '7') || c == '_' }) == len(r)
	}
	if s[0] < '1' || s[0] > '9' {
		return false
	}
	n := 1 + span(s[1:], digitOrUnderscore)
	if n == len(s) {
		return true
	}
	return n+sexagesimal(s[n:]) == len(s)
}

// exponent matches [eE][-+][0-9]+ at the start of s, returning its length.
func exponent(s string) int {
	if len(s) < 3 || (s[0] != 'e' && s[0] != 'E') || (s[1] != '-' && s[1] != '+') {
		return 0
	}
	n := span(s[2:], isDigit)
	if n == 0 {
		return 0
	}
	return 2 + n
}

// isFloat is PyYAML's float resolver:
// [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)? | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
// | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
func isFloat(s string) bool {
	switch s {
	case ".nan", ".NaN", ".NAN":
		return true
	}
	if s != "" && s[0] == '.' && len(s) > 1 && isDigit(s[1]) {
		n := 1 + span(s[1:], digitOrUnderscore)
		return n+exponent(s[n:]) == len(s)
	}
	u := trimSign(s)
	switch u {
	case ".inf", ".Inf", ".INF":
		return true
	}
	if u == "" || !isDigit(u[0]) {
		return false
	}
	n := 1 + span(u[1:], digitOrUnderscore)
	if n < len(u) && u[n] == '.' {
		n++
		n += span(u[n:], digitOrUnderscore)
		return n+exponent(u[n:]) == len(u)
	}
	m := sexagesimal(u[n:])
	if m == 0 {
		return false
	}
	n += m
	if n >= len(u) || u[n] != '.' {
		return false
	}
	n++
	return n+span(u[n:], digitOrUnderscore) == len(u)
}

// isTimestamp is PyYAML's timestamp resolver.
func isTimestamp(s string) bool {
	// [0-9]{4}-
	if len(s) < 8 || span(s[:4], isDigit) != 4 || s[4] != '-' {
		return false
	}
	if len(s) == 10 && isDigit(s[5]) && isDigit(s[6]) && s[7] == '-' && isDigit(s[8]) && isDigit(s[9]) {
		return true
	}
	i := 5
	// [0-9][0-9]?-[0-9][0-9]?
	d12 := func() bool {
		n := span(s[i:], isDigit)
		if n < 1 || n > 2 {
			return false
		}
		i += n
		return true
	}
	if !d12() || i >= len(s) || s[i] != '-' {
		return false
	}
	i++
	if !d12() || i >= len(s) {
		return false
	}
	// (?:[Tt]|[ \t]+)
	if s[i] == 'T' || s[i] == 't' {
		i++
	} else {
		n := span(s[i:], func(c byte) bool { return c == ' ' || c == '\t' })
		if n == 0 {
			return false
		}
		i += n
	}
	// [0-9][0-9]?:[0-9][0-9]:[0-9][0-9]
	if !d12() || i+6 > len(s) || s[i] != ':' || !isDigit(s[i+1]) || !isDigit(s[i+2]) ||
		s[i+3] != ':' || !isDigit(s[i+4]) || !isDigit(s[i+5]) {
		return false
	}
	i += 6
	// (?:\.[0-9]*)?
	if i < len(s) && s[i] == '.' {
		i++
		i += span(s[i:], isDigit)
	}
	if i == len(s) {
		return true
	}
	// (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
	i += span(s[i:], func(c byte) bool { return c == ' ' || c == '\t' })
	if i >= len(s) {
		return false
	}
	if s[i] == 'Z' {
		return i+1 == len(s)
	}
	if s[i] != '-' && s[i] != '+' {
		return false
	}
	i++
	if !d12() {
		return false
	}
	if i == len(s) {
		return true
	}
	return i+3 == len(s) && s[i] == ':' && isDigit(s[i+1]) && isDigit(s[i+2])
}

// saltInt applies Salt's construct_scalar rule for int nodes: leading zeros
// are stripped unless the text starts with 0b or 0x.
func saltInt(s string) string {
	if s == "0" || !strings.HasPrefix(s, "0") || strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0x") {
		return s
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return "0"
	}
	return s
}

// pyValueError is a Python ValueError or similar raised by a constructor.
type pyValueError string

func (e pyValueError) Error() string { return string(e) }

// constructInt is PyYAML's construct_yaml_int on text already passed
// through saltInt.
func constructInt(s string) (any, error) {
	s = strings.ReplaceAll(s, "_", "")
	if s == "" {
		return nil, pyValueError("IndexError: string index out of range")
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	var (
		digits string
		base   int
	)
	switch {
	case s == "0":
		return int64(0), nil
	case strings.HasPrefix(s, "0b"):
		digits, base = s[2:], 2
	case strings.HasPrefix(s, "0x"):
		digits, base = s[2:], 16
	case strings.HasPrefix(s, "0"):
		digits, base = s, 8
	case strings.Contains(s, ":"):
		total := new(big.Int)
		b60 := big.NewInt(60)
		for _, part := range strings.Split(s, ":") {
			p, err := pyInt(part, 10)
			if err != nil {
				return nil, err
			}
			total.Mul(total, b60)
			total.Add(total, p)
		}
		if neg {
			total.Neg(total)
		}
		return value.NormInt(total), nil
	default:
		digits, base = s, 10
	}
	if base == 10 && len(digits) < 19 {
		if n, err := strconv.ParseInt(digits, 10, 64); err == nil {
			if neg {
				n = -n
			}
			return n, nil
		}
	}
	n, err := pyInt(digits, base)
	if err != nil {
		return nil, err
	}
	if neg {
		n.Neg(n)
	}
	return value.NormInt(n), nil
}

// pyInt is Python's int(s, base) for unsigned digit strings.
func pyInt(s string, base int) (*big.Int, error) {
	n, ok := new(big.Int).SetString(s, base)
	if !ok || s == "" || s[0] == '+' || s[0] == '-' {
		return nil, pyValueError("ValueError: invalid literal for int() with base " + strconv.Itoa(base) + ": " + value.Repr(s))
	}
	return n, nil
}

// constructFloat is PyYAML's construct_yaml_float.
func constructFloat(s string) (any, error) {
	s = strings.ToLower(strings.ReplaceAll(s, "_", ""))
	if s == "" {
		return nil, pyValueError("IndexError: string index out of range")
	}
	sign := 1.0
	if s[0] == '-' {
		sign = -1
	}
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	switch {
	case s == ".inf":
		return sign * math.Inf(1), nil
	case s == ".nan":
		return math.NaN(), nil
	case strings.Contains(s, ":"):
		parts := strings.Split(s, ":")
		total, base := 0.0, 1.0
		for i := len(parts) - 1; i >= 0; i-- {
			f, err := pyFloat(parts[i])
			if err != nil {
				return nil, err
			}
			total += f * base
			base *= 60
		}
		return sign * total, nil
	}
	f, err := pyFloat(s)
	if err != nil {
		return nil, err
	}
	return sign * f, nil
}

// pyFloat is Python's float(s) for the forms YAML text can hold.
func pyFloat(s string) (float64, error) {
	t := strings.TrimSpace(s)
	bad := t == "" || strings.ContainsAny(t, "xXpP_") // Go-only syntax
	if !bad {
		f, err := strconv.ParseFloat(t, 64)
		if err == nil || isRangeErr(err) {
			return f, nil
		}
		switch strings.ToLower(strings.TrimLeft(t, "+-")) {
		case "inf", "infinity", "nan":
			return f, nil
		}
	}
	return 0, pyValueError("ValueError: could not convert string to float: " + value.Repr(s))
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
