package modules

// serializers.go is salt/serializers/*: the serializers slsutil.serialize
// and slsutil.deserialize reach by name (json, yaml, python).

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// serializer is one of Salt's serializers: either function may be nil when
// Salt's module does not implement it.
type serializer struct {
	serialize   func(obj any, opts *value.Map) (any, error)
	deserialize func(in any, opts *value.Map) (any, error)
}

// serializers are the serializers brine implements.
var serializers = map[string]serializer{
	"json":   {serialize: serializeJSON, deserialize: deserializeJSON},
	"yaml":   {serialize: serializeYAML, deserialize: deserializeYAML},
	"python": {serialize: serializePython},
}

// unsupportedSerializers are serializers Salt has and brine does not.
var unsupportedSerializers = map[string]bool{
	"configparser": true, "keyvalue": true, "msgpack": true, "plist": true, "toml": true, "yamlex": true,
}

// serializerError is Salt's SerializationError or DeserializationError.
type serializerError struct {
	class, msg string
}

func (e *serializerError) Error() string { return e.msg }

// SaltExceptionClass names the Salt exception this error stands for.
func (e *serializerError) SaltExceptionClass() string { return "salt.serializers." + e.class }

func serializationError(format string, a ...any) error {
	return &serializerError{class: "SerializationError", msg: fmt.Sprintf(format, a...)}
}

func deserializationError(format string, a ...any) error {
	return &serializerError{class: "DeserializationError", msg: fmt.Sprintf(format, a...)}
}

// serializerFunc finds the serialize or deserialize function of name with
// Salt's errors.
func serializerFunc(name, fn string) (func(any, *value.Map) (any, error), error) {
	s, ok := serializers[name]
	if !ok {
		if unsupportedSerializers[name] {
			return nil, execmod.Errorf("Serializer '%s' is not supported by brine (json, python, yaml are).", name)
		}
		return nil, execmod.Errorf("Serializer '%s' not found.", name)
	}
	f := s.serialize
	if fn == "deserialize" {
		f = s.deserialize
	}
	if f == nil {
		return nil, execmod.Errorf("Serializer '%s' does not implement %s.", name, fn)
	}
	return f, nil
}

// unexpectedOption is the TypeError Python raises for an option the
// underlying library does not take.
func unexpectedOption(fun string, opts *value.Map, known ...string) error {
	var bad string
	opts.Range(func(k, _ any) bool {
		ks := execmod.String(k)
		for _, n := range known {
			if ks == n {
				return true
			}
		}
		bad = ks
		return false
	})
	if bad == "" {
		return nil
	}
	return serializationError("%s() got an unexpected keyword argument '%s'", fun, bad)
}

func serializeJSON(obj any, opts *value.Map) (any, error) {
	if err := unexpectedOption("__init__", opts, "indent", "sort_keys", "ensure_ascii", "separators"); err != nil {
		return nil, err
	}
	o := value.JSONOptions{Indent: -1}
	if v, ok := opts.Get("indent"); ok && v != nil {
		n, isInt := v.(int64)
		if !isInt {
			return nil, serializationError("indent must be an integer, not %s", value.TypeName(v))
		}
		o.Indent = max(int(n), 0)
	}
	if v, ok := opts.Get("sort_keys"); ok {
		o.SortKeys = value.Truthy(v)
	}
	if v, ok := opts.Get("ensure_ascii"); ok {
		o.EnsureASCII = value.Truthy(v)
	}
	if v, ok := opts.Get("separators"); ok && v != nil {
		var items []any
		switch s := v.(type) {
		case *value.List:
			items = s.Items
		case value.Tuple:
			items = s
		}
		if len(items) != 2 {
			return nil, serializationError("separators must be a pair of strings")
		}
		o.ItemSep, o.KeySep = execmod.String(items[0]), execmod.String(items[1])
	}
	return value.ToJSON(obj, o), nil
}

// streamText is the text of a deserializer's input (str or bytes).
func streamText(in any) (string, error) {
	switch x := in.(type) {
	case string:
		return x, nil
	case []byte:
		if !utf8.Valid(x) {
			return "", deserializationError("'utf-8' codec can't decode the input")
		}
		return string(x), nil
	}
	return "", deserializationError("'%s' object has no attribute 'read'", value.TypeName(in))
}

func deserializeJSON(in any, _ *value.Map) (any, error) {
	s, err := streamText(in)
	if err != nil {
		return nil, err
	}
	v, err := value.FromJSON([]byte(s))
	if err != nil {
		if msg := pyJSONSyntaxError(s); msg != "" {
			return nil, deserializationError("%s", msg)
		}
		return nil, deserializationError("%s", err.Error())
	}
	return v, nil
}

func serializeYAML(obj any, opts *value.Map) (any, error) {
	if err := unexpectedOption("dump_all", opts, "default_flow_style", "indent", "width", "allow_unicode",
		"explicit_start", "explicit_end", "sort_keys", "line_break", "Dumper"); err != nil {
		return nil, err
	}
	o := yamlload.DumpOptions{SortKeys: true}
	if v, ok := opts.Get("default_flow_style"); ok && v != nil {
		o.DefaultFlowStyle = yamlload.FlowStyle(value.Truthy(v))
	}
	if v, ok := opts.Get("indent"); ok {
		n, _ := v.(int64)
		o.Indent = int(n)
	}
	if v, ok := opts.Get("width"); ok {
		n, _ := v.(int64)
		o.Width = int(n)
	}
	if v, ok := opts.Get("allow_unicode"); ok {
		o.AllowUnicode = value.Truthy(v)
	}
	if v, ok := opts.Get("explicit_start"); ok {
		o.ExplicitStart = value.Truthy(v)
	}
	if v, ok := opts.Get("explicit_end"); ok {
		o.ExplicitEnd = value.Truthy(v)
	}
	if v, ok := opts.Get("sort_keys"); ok {
		o.SortKeys = value.Truthy(v)
	}
	if v, ok := opts.Get("line_break"); ok && v != nil {
		o.LineBreak = execmod.String(v)
	}
	// Salt's serializer Dumper writes an OrderedDict as a plain dict.
	sortKeys := o.SortKeys
	o.SortMap = func(*value.Map) bool { return sortKeys }
	out, err := yamlload.Dump(obj, o)
	if err != nil {
		return nil, serializationError("%s", err.Error())
	}
	if s, ok := strings.CutSuffix(out, "\n...\n"); ok {
		return s, nil
	}
	return strings.TrimSuffix(out, "\n"), nil
}

func deserializeYAML(in any, _ *value.Map) (any, error) {
	s, err := streamText(in)
	if err != nil {
		return nil, err
	}
	v, err := yamlload.SafeLoad([]byte(s), yamlload.StreamName)
	if err != nil {
		// A scanner error from libyaml carries no buffer, and its wording is
		// not in Salt's ERROR_MAP: Salt reports only this.
		var ye *yamlload.Error
		if errors.As(err, &ye) && ye.Kind == yamlload.ScannerError {
			return nil, deserializationError("Unknown yaml render error")
		}
		return nil, deserializationError("%s", err.Error())
	}
	return v, nil
}

// serializePython is salt.serializers.python: pprint.pformat of the data
// after a JSON round trip (so tuples are lists and keys strings).
func serializePython(obj any, opts *value.Map) (any, error) {
	if err := unexpectedOption("pformat", opts, "width", "indent", "depth", "compact", "sort_dicts"); err != nil {
		return nil, err
	}
	data, err := value.FromJSON([]byte(value.ToJSON(obj, value.JSONOptions{Indent: -1})))
	if err != nil {
		return nil, serializationError("%s", err.Error())
	}
	p := pprinter{width: 80, indent: 1, sortDicts: true}
	if v, ok := opts.Get("width"); ok {
		if n, isInt := v.(int64); isInt && n > 0 {
			p.width = int(n)
		}
	}
	if v, ok := opts.Get("indent"); ok {
		if n, isInt := v.(int64); isInt && n >= 0 {
			p.indent = int(n)
		}
	}
	if v, ok := opts.Get("sort_dicts"); ok {
		p.sortDicts = value.Truthy(v)
	}
	if p.sortDicts {
		data = sortedDicts(data)
	}
	var b strings.Builder
	p.format(&b, data, 0, 0, 0)
	return b.String(), nil
}

// sortedDicts returns v with every mapping's keys sorted (after the JSON
// round trip they are all strings).
func sortedDicts(v any) any {
	switch x := v.(type) {
	case *value.Map:
		keys := append([]any(nil), x.Keys()...)
		sort.SliceStable(keys, func(i, j int) bool { return value.Str(keys[i]) < value.Str(keys[j]) })
		out := value.NewMap(len(keys))
		for _, k := range keys {
			val, _ := x.Get(k)
			out.Set(k, sortedDicts(val))
		}
		return out
	case *value.List:
		items := make([]any, len(x.Items))
		for i, it := range x.Items {
			items[i] = sortedDicts(it)
		}
		return value.NewList(items...)
	}
	return v
}

// pprinter is Python's pprint.PrettyPrinter for dicts, lists and strings.
type pprinter struct {
	width, indent int
	sortDicts     bool
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func (p *pprinter) format(b *strings.Builder, v any, indent, allowance, level int) {
	rep := value.Repr(v)
	if runeLen(rep) <= p.width-indent-allowance {
		b.WriteString(rep)
		return
	}
	level++
	switch x := v.(type) {
	case *value.Map:
		b.WriteByte('{')
		if p.indent > 1 {
			b.WriteString(strings.Repeat(" ", p.indent-1))
		}
		if x.Len() > 0 {
			p.dictItems(b, x, indent, allowance+1, level)
		}
		b.WriteByte('}')
	case *value.List:
		b.WriteByte('[')
		p.items(b, x.Items, indent, allowance+1, level)
		b.WriteByte(']')
	case string:
		p.str(b, x, rep, indent, allowance, level)
	default:
		b.WriteString(rep)
	}
}

func (p *pprinter) dictItems(b *strings.Builder, m *value.Map, indent, allowance, level int) {
	indent += p.indent
	delim := ",\n" + strings.Repeat(" ", indent)
	last := m.Len() - 1
	for i := 0; i <= last; i++ {
		k, v := m.At(i)
		rep := value.Repr(k)
		b.WriteString(rep)
		b.WriteString(": ")
		allow := 1
		if i == last {
			allow = allowance
		}
		p.format(b, v, indent+runeLen(rep)+2, allow, level)
		if i != last {
			b.WriteString(delim)
		}
	}
}

func (p *pprinter) items(b *strings.Builder, items []any, indent, allowance, level int) {
	indent += p.indent
	if p.indent > 1 {
		b.WriteString(strings.Repeat(" ", p.indent-1))
	}
	delim := ",\n" + strings.Repeat(" ", indent)
	for i, it := range items {
		if i > 0 {
			b.WriteString(delim)
		}
		allow := 1
		if i == len(items)-1 {
			allow = allowance
		}
		p.format(b, it, indent, allow, level)
	}
}

var pprintWordRe = regexp.MustCompile(`\S*\s*`)

// str splits a long string into adjacent literals at whitespace, one per
// line, in parentheses at the top level.
func (p *pprinter) str(b *strings.Builder, s, rep string, indent, allowance, level int) {
	if s == "" {
		b.WriteString(rep)
		return
	}
	lines := splitLinesKeep(s)
	if level == 1 {
		indent++
		allowance++
	}
	maxWidth := p.width - indent
	maxWidth1 := maxWidth
	var chunks []string
	for i, line := range lines {
		r := value.Repr(line)
		if i == len(lines)-1 {
			maxWidth1 -= allowance
		}
		if runeLen(r) <= maxWidth1 {
			chunks = append(chunks, r)
			continue
		}
		parts := pprintWordRe.FindAllString(line, -1)
		maxWidth2 := maxWidth
		current := ""
		for j, part := range parts {
			candidate := current + part
			if j == len(parts)-1 && i == len(lines)-1 {
				maxWidth2 -= allowance
			}
			if runeLen(value.Repr(candidate)) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, value.Repr(current))
				}
				current = part
			} else {
				current = candidate
			}
		}
		if current != "" {
			chunks = append(chunks, value.Repr(current))
		}
	}
	if len(chunks) == 1 {
		b.WriteString(rep)
		return
	}
	if level == 1 {
		b.WriteByte('(')
	}
	for i, c := range chunks {
		if i > 0 {
			b.WriteString("\n" + strings.Repeat(" ", indent))
		}
		b.WriteString(c)
	}
	if level == 1 {
		b.WriteByte(')')
	}
}

// splitLinesKeep is str.splitlines(True) for \n, \r\n and \r.
func splitLinesKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i + 1
		if s[i] == '\r' && j < len(s) && s[j] == '\n' {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}
