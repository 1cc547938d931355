package modules

// serializers.go is salt/serializers/*: the serializers slsutil.serialize
// and slsutil.deserialize reach by name (json, yaml, python).

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"brine/internal/execmod"
	"brine/internal/pyops"
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
	var p pyops.PrettyPrinter
	if v, ok := opts.Get("width"); ok {
		if n, isInt := v.(int64); isInt && n > 0 {
			p.Width = int(n)
		}
	}
	if v, ok := opts.Get("indent"); ok {
		if n, isInt := v.(int64); isInt && n > 0 {
			p.Indent = int(n)
		}
	}
	if v, ok := opts.Get("sort_dicts"); ok {
		p.Unsorted = !value.Truthy(v)
	}
	return p.Format(data), nil
}
