package pkgmgr

import (
	"strings"
)

// CompareDebian compares two Debian version strings with dpkg's algorithm
// ([epoch:]upstream[-revision]): negative, zero or positive as a is lower,
// equal or higher than b.
func CompareDebian(a, b string) int {
	ea, ua, ra := splitDebian(a)
	eb, ub, rb := splitDebian(b)
	if c := compareInts(ea, eb); c != 0 {
		return c
	}
	if c := debianPart(ua, ub); c != 0 {
		return c
	}
	return debianPart(ra, rb)
}

func splitDebian(v string) (epoch, upstream, revision string) {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, ':'); i >= 0 {
		epoch, v = v[:i], v[i+1:]
	}
	if i := strings.LastIndexByte(v, '-'); i >= 0 {
		v, revision = v[:i], v[i+1:]
	}
	return epoch, v, revision
}

// compareInts compares two digit strings numerically (empty is 0).
func compareInts(a, b string) int {
	a = strings.TrimLeft(a, "0")
	b = strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// debOrder is dpkg's character weight: '~' sorts before everything (even
// the end of the string), letters before non-letters.
func debOrder(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return 0
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return int(c)
	case c == '~':
		return -1
	case c != 0:
		return int(c) + 256
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// debianPart is dpkg's verrevcmp.
func debianPart(a, b string) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		firstDiff := 0
		for (i < len(a) && !isDigit(a[i])) || (j < len(b) && !isDigit(b[j])) {
			var ca, cb byte
			if i < len(a) {
				ca = a[i]
			}
			if j < len(b) {
				cb = b[j]
			}
			oa, ob := debOrder(ca), debOrder(cb)
			if i >= len(a) {
				oa = 0
			}
			if j >= len(b) {
				ob = 0
			}
			if oa != ob {
				return oa - ob
			}
			i++
			j++
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		for i < len(a) && isDigit(a[i]) && j < len(b) && isDigit(b[j]) {
			if firstDiff == 0 {
				firstDiff = int(a[i]) - int(b[j])
			}
			i++
			j++
		}
		if i < len(a) && isDigit(a[i]) {
			return 1
		}
		if j < len(b) && isDigit(b[j]) {
			return -1
		}
		if firstDiff != 0 {
			return firstDiff
		}
	}
	return 0
}

// CompareRPM compares two RPM versions ([epoch:]version[-release]) with
// rpm's rpmvercmp on each part.
func CompareRPM(a, b string) int {
	ea, va, ra := splitRPM(a)
	eb, vb, rb := splitRPM(b)
	if c := compareInts(ea, eb); c != 0 {
		return c
	}
	if c := RPMVerCmp(va, vb); c != 0 {
		return c
	}
	if ra == "" || rb == "" {
		return 0
	}
	return RPMVerCmp(ra, rb)
}

func splitRPM(v string) (epoch, version, release string) {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, ':'); i >= 0 {
		epoch, v = v[:i], v[i+1:]
	}
	if i := strings.LastIndexByte(v, '-'); i >= 0 {
		v, release = v[:i], v[i+1:]
	}
	return epoch, v, release
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// RPMVerCmp is rpm's rpmvercmp: segments of digits or letters compared in
// turn, '~' sorting before anything and '^' after the end.
func RPMVerCmp(a, b string) int {
	if a == b {
		return 0
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		for i < len(a) && !isAlnum(a[i]) && a[i] != '~' && a[i] != '^' {
			i++
		}
		for j < len(b) && !isAlnum(b[j]) && b[j] != '~' && b[j] != '^' {
			j++
		}
		// Tilde sorts before everything else.
		ta, tb := i < len(a) && a[i] == '~', j < len(b) && b[j] == '~'
		if ta || tb {
			if !ta {
				return 1
			}
			if !tb {
				return -1
			}
			i++
			j++
			continue
		}
		// Caret sorts after the end but before anything else.
		ca, cb := i < len(a) && a[i] == '^', j < len(b) && b[j] == '^'
		if ca || cb {
			if i >= len(a) {
				return -1
			}
			if j >= len(b) {
				return 1
			}
			if !ca {
				return 1
			}
			if !cb {
				return -1
			}
			i++
			j++
			continue
		}
		if i >= len(a) || j >= len(b) {
			break
		}
		si, sj := i, j
		numeric := isDigit(a[i])
		if numeric {
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
		} else {
			for i < len(a) && isAlpha(a[i]) {
				i++
			}
			for j < len(b) && isAlpha(b[j]) {
				j++
			}
		}
		sa, sb := a[si:i], b[sj:j]
		if sb == "" {
			// Segments of different kinds: numeric is newer.
			if numeric {
				return 1
			}
			return -1
		}
		var c int
		if numeric {
			c = compareInts(sa, sb)
		} else {
			c = strings.Compare(sa, sb)
		}
		if c != 0 {
			return c
		}
	}
	ra, rb := len(a)-i, len(b)-j
	switch {
	case ra == 0 && rb == 0:
		return 0
	case ra == 0:
		return -1
	}
	return 1
}

// apkSuffixes orders Alpine's version suffixes.
var apkSuffixes = map[string]int{"alpha": -4, "beta": -3, "pre": -2, "rc": -1, "": 0, "cvs": 1, "svn": 2, "git": 3, "hg": 4, "p": 5}

// CompareAPK compares two Alpine package versions
// (digits[.digits]...[letter][_suffix[N]]...[-rN]).
func CompareAPK(a, b string) int {
	va, ra := splitAPK(a)
	vb, rb := splitAPK(b)
	if c := apkVersion(va, vb); c != 0 {
		return c
	}
	return compareInts(ra, rb)
}

func splitAPK(v string) (string, string) {
	if i := strings.LastIndex(v, "-r"); i >= 0 && isAllDigits(v[i+2:]) {
		return v[:i], v[i+2:]
	}
	return v, ""
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

type apkTok struct {
	num    string
	letter string
	suffix string
	sufNum string
}

func apkTokens(v string) []apkTok {
	main, sufs, _ := strings.Cut(v, "_")
	var out []apkTok
	for _, p := range strings.Split(main, ".") {
		t := apkTok{}
		k := 0
		for k < len(p) && isDigit(p[k]) {
			k++
		}
		t.num, t.letter = p[:k], p[k:]
		out = append(out, t)
	}
	if sufs != "" {
		for _, s := range strings.Split(sufs, "_") {
			k := 0
			for k < len(s) && isAlpha(s[k]) {
				k++
			}
			out = append(out, apkTok{suffix: s[:k], sufNum: s[k:]})
		}
	}
	return out
}

func apkVersion(a, b string) int {
	ta, tb := apkTokens(a), apkTokens(b)
	for k := 0; k < len(ta) || k < len(tb); k++ {
		var x, y apkTok
		if k < len(ta) {
			x = ta[k]
		}
		if k < len(tb) {
			y = tb[k]
		}
		if k >= len(ta) {
			if y.suffix != "" {
				return -apkSuffixes[y.suffix]
			}
			return -1
		}
		if k >= len(tb) {
			if x.suffix != "" {
				return apkSuffixes[x.suffix]
			}
			return 1
		}
		if x.suffix != "" || y.suffix != "" {
			if c := apkSuffixes[x.suffix] - apkSuffixes[y.suffix]; c != 0 {
				return c
			}
			if c := compareInts(x.sufNum, y.sufNum); c != 0 {
				return c
			}
			continue
		}
		if c := compareInts(x.num, y.num); c != 0 {
			return c
		}
		if c := strings.Compare(x.letter, y.letter); c != 0 {
			return c
		}
	}
	return 0
}

// sign maps a comparison result to -1, 0 or 1.
func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// Satisfies reports whether a comparison result cmp (negative, zero or
// positive, as CompareDebian returns) meets the operator op of a version
// condition: ==, !=, <, <=, > or >=. An unknown operator is never met.
func Satisfies(op string, cmp int) bool {
	switch op {
	case "==":
		return cmp == 0
	case "!=":
		return cmp != 0
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	case ">=":
		return cmp >= 0
	}
	return false
}
