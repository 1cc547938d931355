package jinjasalt

import (
	"math"
	"time"

	"brine/internal/pyops"
	"brine/internal/value"
)

// Filters of salt/utils/dateutils.py.

// dateCast is salt.utils.dateutils.date_cast without timelib: now, or a
// Unix timestamp (number or numeric string) in local time.
func dateCast(v any) (time.Time, error) {
	if v == nil {
		return time.Now(), nil
	}
	if t, ok := v.(time.Time); ok {
		return t, nil
	}
	fail := func() (time.Time, error) {
		return time.Time{}, pyErr(excRuntimeError, "Unable to parse %s. Consider installing timelib", pyStr(v))
	}
	var f float64
	switch x := v.(type) {
	case string:
		if isAllDigits(x) {
			n, ok := parsePyInt(x, 10)
			if !ok {
				return fail()
			}
			f = value.ToFloat(n)
		} else {
			g, ok := parsePyFloat(x)
			if !ok {
				return fail()
			}
			f = g
		}
	case bool, int64, int, float64:
		f = value.ToFloat(x)
	default:
		return fail()
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e13 {
		return fail()
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64((f-sec)*1e9)).Local(), nil
}

func init() {
	for _, name := range []string{"strftime", "date_format"} {
		filter(name, "salt/utils/dateutils.py", newSig("strftime", "date", nil, "format", "%Y-%m-%d"), func(b *bound) (any, error) {
			t, err := dateCast(b.vals[0])
			if err != nil {
				return nil, err
			}
			f, ok := asString(b.vals[1])
			if !ok {
				return nil, pyErr(excTypeError, "strftime() argument 1 must be str, not %s", typeName(b.vals[1]))
			}
			return pyops.Strftime(t, f), nil
		})
	}
	filter("http_query", "salt/utils/http.py", newSig("query", "url", required).withVarKw(), func(b *bound) (any, error) {
		if t, _ := b.extra.Get("test"); t == true {
			if u, _ := b.extra.Get("test_url"); u == nil {
				return value.NewMap(0), nil
			}
		}
		return nil, pyErr(excNotImplemented, "http_query is not supported by brine")
	})
}
