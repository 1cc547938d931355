package jinjasalt

import (
	"fmt"
	"math"
	"strings"
	"time"

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

var weekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// strftime formats t as C's strftime does for the C locale.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'a':
			b.WriteString(weekdays[t.Weekday()][:3])
		case 'A':
			b.WriteString(weekdays[t.Weekday()])
		case 'w':
			fmt.Fprintf(&b, "%d", t.Weekday())
		case 'u':
			w := int(t.Weekday())
			if w == 0 {
				w = 7
			}
			fmt.Fprintf(&b, "%d", w)
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'k':
			fmt.Fprintf(&b, "%2d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'l':
			fmt.Fprintf(&b, "%2d", (t.Hour()+11)%12+1)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'P':
			if t.Hour() < 12 {
				b.WriteString("am")
			} else {
				b.WriteString("pm")
			}
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 's':
			fmt.Fprintf(&b, "%d", t.Unix())
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'U':
			fmt.Fprintf(&b, "%02d", (t.YearDay()+6-int(t.Weekday()))/7)
		case 'W':
			fmt.Fprintf(&b, "%02d", (t.YearDay()+6-(int(t.Weekday())+6)%7)/7)
		case 'G':
			y, _ := t.ISOWeek()
			fmt.Fprintf(&b, "%d", y)
		case 'g':
			y, _ := t.ISOWeek()
			fmt.Fprintf(&b, "%02d", y%100)
		case 'V':
			_, w := t.ISOWeek()
			fmt.Fprintf(&b, "%02d", w)
		case 'c':
			b.WriteString(strftime(t, "%a %b %e %H:%M:%S %Y"))
		case 'x', 'D':
			b.WriteString(strftime(t, "%m/%d/%y"))
		case 'X', 'T':
			b.WriteString(strftime(t, "%H:%M:%S"))
		case 'F':
			b.WriteString(strftime(t, "%Y-%m-%d"))
		case 'R':
			b.WriteString(strftime(t, "%H:%M"))
		case 'r':
			b.WriteString(strftime(t, "%I:%M:%S %p"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
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
			return strftime(t, f), nil
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
