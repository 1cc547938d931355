package states

// disk.go is salt/states/disk.py: disk.status, a monitoring state that
// checks the used (or, with free, the available) space of a mount point
// from disk.usage, or of a directory from status.diskusage, against a
// minimum and a maximum, in percent or (absolute) in KB.

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "disk.status",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("maximum", nil), statemod.Opt("minimum", nil),
			statemod.Opt("absolute", false), statemod.Opt("free", false)},
		Doc: "Check that the used or free space of a mount point or directory is within a range.", Run: diskStatus})
}

// diskLimit is Salt's _validate_int: the value as an integer (strings
// lose surrounding spaces and the unit first) and the complaint, if any.
// A value that is not an integer stays as it was (a string without the
// unit) with the complaint.
func diskLimit(name string, v any, ranged bool, unit string) (any, string) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case bool:
		if x {
			n = 1
		}
	case float64:
		n = int64(x)
	case string:
		s := strings.Trim(x, " "+unit)
		i, err := strconv.ParseInt(strings.TrimSpace(strings.ReplaceAll(s, "_", "")), 10, 64)
		if err != nil {
			return s, name + " must be an integer "
		}
		n = i
	default:
		return v, name + " must be an integer "
	}
	if ranged && (n < 0 || n > 100) {
		return n, name + " must be in the range [0, 100] "
	}
	return n, ""
}

func diskStatus(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "result", false, "comment", "", "changes", value.NewMap(0), "data", value.NewMap(0))
	absolute, free := c.Bool("absolute"), c.Bool("free")
	unit := "%"
	if absolute {
		unit = "KB"
	}
	var comment strings.Builder
	var limits [2]any               // minimum, maximum
	for _, i := range []int{1, 0} { // Salt validates maximum first
		k := [2]string{"minimum", "maximum"}[i]
		if v := c.Get(k); v != nil {
			n, cm := diskLimit(k, v, !absolute, unit)
			limits[i] = n
			comment.WriteString(cm)
		}
	}
	if limits[0] != nil && limits[1] != nil {
		lo, lok := limits[0].(int64)
		hi, hok := limits[1].(int64)
		switch {
		case lok && hok:
			if lo >= hi {
				comment.WriteString("minimum must be less than maximum ")
			}
		case !lok && !hok:
			if value.Str(limits[0]) >= value.Str(limits[1]) {
				comment.WriteString("minimum must be less than maximum ")
			}
		default:
			return nil, fmt.Errorf("TypeError: '>=' not supported between instances of '%s' and '%s'", pyTypeName(limits[0]), pyTypeName(limits[1]))
		}
	}
	if comment.Len() > 0 {
		ret.Set("comment", comment.String())
		return ret, nil
	}
	out, err := c.Salt("disk.usage", nil, nil)
	if err != nil {
		return nil, err
	}
	usage, _ := out.(*value.Map)
	var used, avail float64
	var isFloat bool
	if e, ok := usage.GetString(name); ok {
		m, _ := e.(*value.Map)
		if absolute {
			used, avail = diskNum(getv(m, "used")), diskNum(getv(m, "available"))
		} else {
			used = diskNum(strings.Trim(value.Str(getv(m, "capacity")), "%"))
			avail = 100 - used
		}
		ret.Set("data", e)
	} else {
		ret.Set("comment", "Disk mount "+name+" not present. ")
		if st, err := os.Stat(name); err != nil || !st.IsDir() {
			ret.Set("comment", value.Str(getv(ret, "comment"))+"Directory "+name+" does not exist or is not a directory")
			return ret, nil
		}
		out, err := c.Salt("status.diskusage", []any{name}, nil)
		if err != nil {
			return nil, err
		}
		data, _ := out.(*value.Map)
		e, _ := data.GetString(name)
		m, _ := e.(*value.Map)
		total, av := diskNum(getv(m, "total")), diskNum(getv(m, "available"))
		switch {
		case absolute:
			used, avail = total-av, av
		case total == 0:
		default:
			isFloat = true
			used = math.Round((total-av)/total*100*10) / 10
			avail = math.Round(av/total*100*10) / 10
		}
		ret.Set("data", data)
	}
	show := func(f float64) string {
		if isFloat {
			return value.Str(f)
		}
		return strconv.FormatInt(int64(f), 10)
	}
	check := func(limit any, below bool) bool {
		n, ok := limit.(int64)
		if !ok {
			return false
		}
		what, got := "used", used
		if free {
			what, got = "available", avail
		}
		bound, word := "minimum", "below"
		if !below {
			bound, word = "maximum", "above"
		}
		if (below && got < float64(n)) || (!below && got > float64(n)) {
			ret.Set("comment", fmt.Sprintf("Disk %s space is %s %s of %d %s at %s %s", what, word, bound, n, unit, show(got), unit))
			return true
		}
		return false
	}
	if check(limits[0], true) || check(limits[1], false) {
		return ret, nil
	}
	ret.Set("comment", "Disk used space in acceptable range")
	ret.Set("result", true)
	return ret, nil
}

func diskNum(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	f, _ := strconv.ParseFloat(strings.TrimSpace(value.Str(v)), 64)
	return f
}

func pyTypeName(v any) string {
	switch v.(type) {
	case int64:
		return "int"
	case string:
		return "str"
	case float64:
		return "float"
	case bool:
		return "bool"
	case *value.Map:
		return "dict"
	case *value.List:
		return "list"
	}
	return "NoneType"
}
