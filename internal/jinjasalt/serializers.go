package jinjasalt

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"brine/internal/jinja"
	"brine/internal/pyops"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// The serializer filters: Salt's tojson, SerializerExtension's json, yaml,
// python and load_* filters, and salt/utils/yamlencoding.py.

// tojson is Salt's replacement of Jinja's tojson: json.dumps with
// ensure_ascii on by default, then <, >, & and ' escaped.
func tojson(v any, indent any, opts *value.Map) (any, error) {
	o := value.JSONOptions{Indent: -1, EnsureASCII: true}
	if indent != nil {
		n, err := asInt(indent)
		if err != nil {
			return nil, err
		}
		o.Indent = n
	}
	var err error
	opts.Range(func(k, val any) bool {
		switch k {
		case "ensure_ascii":
			o.EnsureASCII = truthy(val)
		case "sort_keys":
			o.SortKeys = truthy(val)
		case "indent":
			if val != nil {
				o.Indent, err = asInt(val)
			}
		case "separators":
			items, e := iterate(val)
			if e != nil || len(items) != 2 {
				err = pyErr(excValueError, "not enough values to unpack (expected 2)")
				return false
			}
			o.ItemSep, o.KeySep = pyStr(items[0]), pyStr(items[1])
		case "skipkeys", "check_circular", "allow_nan", "default", "cls":
		default:
			err = pyErr(excTypeError, "JSONEncoder.__init__() got an unexpected keyword argument '%s'", pyStr(k))
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	s, err := dumpJSON(v, o)
	if err != nil {
		return nil, err
	}
	s = strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "'", `\u0027`).Replace(s)
	return s, nil
}

// dumpJSON is json.dumps: like value.ToJSON but values JSON cannot hold are
// a TypeError, as without default=.
func dumpJSON(v any, o value.JSONOptions) (string, error) {
	if err := checkJSON(v, 0); err != nil {
		return "", err
	}
	return value.ToJSON(jsonable(v), o), nil
}

func checkJSON(v any, depth int) error {
	if depth > value.MaxDepth {
		return pyErr(excRecursion, "%s", (&value.DepthError{Doing: "encoding a JSON object"}).Error())
	}
	switch x := v.(type) {
	case nil, bool, int64, int, float64, string:
		return nil
	case *value.List:
		for _, e := range x.Items {
			if err := checkJSON(e, depth+1); err != nil {
				return err
			}
		}
		return nil
	case value.Tuple:
		for _, e := range x {
			if err := checkJSON(e, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *value.Map:
		var err error
		x.Range(func(k, e any) bool {
			switch k.(type) {
			case string, nil, bool, int64, int, float64:
			default:
				if !value.IsNumber(k) {
					err = pyErr(excTypeError, "keys must be str, int, float, bool or None, not %s", typeName(k))
					return false
				}
			}
			err = checkJSON(e, depth+1)
			return err == nil
		})
		return err
	}
	if value.IsNumber(v) || isMarkup(v) {
		return nil
	}
	return pyErr(excTypeError, "Object of type %s is not JSON serializable", typeName(v))
}

// jsonable turns engine string types into plain strings.
func jsonable(v any) any {
	switch x := v.(type) {
	case *value.List:
		out := make([]any, len(x.Items))
		for i, e := range x.Items {
			out[i] = jsonable(e)
		}
		return newList(out)
	case value.Tuple:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return newList(out)
	case *value.Map:
		m := value.NewMap(x.Len())
		x.Range(func(k, e any) bool { m.Set(k, jsonable(e)); return true })
		return m
	}
	if s, ok := asString(v); ok {
		return s
	}
	return v
}

// formatJSON is SerializerExtension.format_json.
func formatJSON(v, sortKeys, indent any) (any, error) {
	o := value.JSONOptions{Indent: -1, SortKeys: truthy(sortKeys)}
	if indent != nil {
		n, err := asInt(indent)
		if err != nil {
			return nil, err
		}
		o.Indent = n
	}
	s, err := dumpJSON(v, o)
	if err != nil {
		return nil, err
	}
	return markup(strings.TrimSpace(s)), nil
}

// markup marks text as safe; Install sets it to the engine's Markup.
var markup = func(s string) any { return s }

// yamlDquote is salt.utils.yamlencoding.yaml_dquote: PyYAML's double
// quoted style without allow_unicode and without line folding.
func yamlDquote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF ||
			!(r >= 0x20 && r <= 0x7E):
			if e, ok := yamlEscapes[r]; ok {
				b.WriteByte('\\')
				b.WriteByte(e)
			} else if r <= 0xFF {
				fmt.Fprintf(&b, `\x%02X`, r)
			} else if r <= 0xFFFF {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				fmt.Fprintf(&b, `\U%08X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var yamlEscapes = map[rune]byte{0: '0', 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 0x1B: 'e',
	'"': '"', '\\': '\\', 0x85: 'N', 0xA0: '_', 0x2028: 'L', 0x2029: 'P'}

// yamlSquote is salt.utils.yamlencoding.yaml_squote: PyYAML's single
// quoted style; a line break is written twice, as the emitter does.
func yamlSquote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch r {
		case '\'':
			b.WriteString("''")
		case '\n', 0x85, 0x2028, 0x2029:
			j := i
			for j < len(rs) && (rs[j] == '\n' || rs[j] == 0x85 || rs[j] == 0x2028 || rs[j] == 0x2029) {
				j++
			}
			if rs[i] == '\n' {
				b.WriteByte('\n')
			}
			for _, br := range rs[i:j] {
				b.WriteRune(br)
			}
			i = j - 1
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// yamlEncode is salt.utils.yamlencoding.yaml_encode: a YAML scalar.
func yamlEncode(v any) (any, error) {
	if m, ok := firstMarkup(v); ok {
		// PyYAML's SafeRepresenter has no representer for the str
		// subclass Markup, wherever it sits in the data.
		return nil, pyErr("RepresenterError", "('cannot represent an object', Markup(%s))", value.Repr(string(m)))
	}
	switch x := v.(type) {
	case nil:
		return "null", nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case int64, int:
		return pyStr(x), nil
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan", nil
		case math.IsInf(x, 1):
			return ".inf", nil
		case math.IsInf(x, -1):
			return "-.inf", nil
		}
		s := strings.ToLower(value.FormatFloat(x))
		if !strings.Contains(s, ".") && strings.Contains(s, "e") {
			s = strings.Replace(s, "e", ".0e", 1)
		}
		return s, nil
	case string:
		return yamlDquote(x), nil
	}
	if value.IsNumber(v) {
		return pyStr(v), nil
	}
	if s, ok := asString(v); ok {
		return yamlDquote(s), nil
	}
	return nil, pyErr(excTypeError, "yaml_encode() only works with YAML scalar data; failed for %s", pyClass(v))
}

// firstMarkup finds the first Markup in the order SafeRepresenter walks the
// data: items in order, mapping keys sorted (when all are strings), each
// key before its value.
func firstMarkup(v any) (jinja.Markup, bool) {
	switch x := v.(type) {
	case jinja.Markup:
		return x, true
	case *value.List:
		return firstMarkupIn(x.Items)
	case value.Tuple:
		return firstMarkupIn(x)
	case *value.Map:
		keys := x.Keys()
		sortable := true
		for _, k := range keys {
			switch k.(type) {
			case string, jinja.Markup:
			default:
				sortable = false
			}
		}
		if sortable {
			keys = slices.Clone(keys)
			sort.SliceStable(keys, func(i, j int) bool { return pyStr(keys[i]) < pyStr(keys[j]) })
		}
		for _, k := range keys {
			val, _ := x.Get(k)
			if m, ok := firstMarkupIn([]any{k, val}); ok {
				return m, true
			}
		}
	}
	return "", false
}

func firstMarkupIn(items []any) (jinja.Markup, bool) {
	for _, it := range items {
		if m, ok := firstMarkup(it); ok {
			return m, true
		}
	}
	return "", false
}

// loadYAML is SerializerExtension.load_yaml.
func loadYAML(v any) (any, error) {
	s, ok := loadSource(v)
	if !ok {
		return nil, pyErr(excRuntime, "Unable to load yaml from %s", pyStr(v))
	}
	out, err := yamlload.SafeLoad([]byte(s), "")
	if err != nil {
		if ye, ok := err.(*yamlload.Error); ok && ye.ProblemMark.IsZero() {
			return nil, pyErr(excRuntime, "Encountered error loading yaml: %s", ye.Error())
		}
		// Salt's libyaml marks carry no buffer, so building the context
		// fails inside its error handler.
		return nil, pyErr(excAttributeError, "'NoneType' object has no attribute 'splitlines'")
	}
	return out, nil
}

// loadSource is the text of a load_* argument: a string or an imported
// template's output.
func loadSource(v any) (string, bool) {
	if s, ok := asString(v); ok {
		return s, true
	}
	if m, ok := v.(interface{ PyTypeName() string }); ok && m.PyTypeName() == "TemplateModule" {
		return pyStr(v), true
	}
	if b, ok := v.([]byte); ok {
		return string(b), true
	}
	return "", false
}

func loadJSON(v any) (any, error) {
	s, ok := loadSource(v)
	if !ok {
		return nil, pyErr(excRuntime, "Unable to load json from %s", pyStr(v))
	}
	out, err := value.FromJSON([]byte(s))
	if err != nil {
		return nil, pyErr(excRuntime, "Unable to load json from %s", s)
	}
	return out, nil
}

func loadText(v any) any {
	if s, ok := loadSource(v); ok {
		return s
	}
	return v
}

func init() {
	const sj = "salt/utils/jinja.py"
	filter("tojson", sj, newSig("tojson", "val", required, "indent", nil).withVarKw(), func(b *bound) (any, error) {
		return tojson(b.vals[0], b.vals[1], b.extra)
	})
	filter("json", sj, newSig("format_json", "value", required, "sort_keys", true, "indent", nil), func(b *bound) (any, error) {
		return formatJSON(b.vals[0], b.vals[1], b.vals[2])
	})
	filter("python", sj, newSig("format_python", "value", required), func(b *bound) (any, error) {
		return markup(strings.TrimSpace(pyops.PFormat(b.vals[0]))), nil
	})
	filter("yaml", sj, newSig("format_yaml", "value", required, "flow_style", true), func(b *bound) (any, error) {
		s, err := formatYAML(b.vals[0], b.vals[1])
		if err != nil {
			return nil, err
		}
		return markup(s), nil
	})
	filter("dict_to_sls_yaml_params", sj, newSig("dict_to_sls_yaml_params", "value", required, "flow_style", false), func(b *bound) (any, error) {
		m, ok := b.vals[0].(*value.Map)
		if !ok {
			return nil, pyErr(excAttributeError, "'%s' object has no attribute 'items'", typeName(b.vals[0]))
		}
		items := make([]any, 0, m.Len())
		m.Range(func(k, v any) bool {
			items = append(items, value.MapOf(k, v))
			return true
		})
		s, err := formatYAML(newList(items), b.vals[1])
		if err != nil {
			return nil, err
		}
		return markup(s), nil
	})
	filter("load_yaml", sj, newSig("load_yaml", "value", required), func(b *bound) (any, error) {
		return loadYAML(b.vals[0])
	})
	filter("load_json", sj, newSig("load_json", "value", required), func(b *bound) (any, error) {
		return loadJSON(b.vals[0])
	})
	filter("load_text", sj, newSig("load_text", "value", required), func(b *bound) (any, error) {
		return loadText(b.vals[0]), nil
	})
	const ye = "salt/utils/yamlencoding.py"
	filter("yaml_dquote", ye, newSig("yaml_dquote", "text", required), func(b *bound) (any, error) {
		return yamlDquote(pyStr(b.vals[0])), nil
	})
	filter("yaml_squote", ye, newSig("yaml_squote", "text", required), func(b *bound) (any, error) {
		return yamlSquote(pyStr(b.vals[0])), nil
	})
	filter("yaml_encode", ye, newSig("yaml_encode", "data", required), func(b *bound) (any, error) {
		return yamlEncode(b.vals[0])
	})
}
