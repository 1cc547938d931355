package yamlload

import (
	"errors"
	"math"
	"math/big"
	"strings"

	"brine/internal/value"
)

// scalarWriter is an emitter set up as Salt's yaml_dquote and yaml_squote
// set PyYAML's: unlimited width, ASCII only, nothing written before.
func scalarWriter() *emitter {
	e := newEmitter(&DumpOptions{})
	e.bestWidth = math.MaxInt
	e.pyBreaks = true
	return e
}

// DoubleQuote returns s as a YAML double-quoted scalar, the way Salt's
// yaml_dquote filter writes it: every character outside printable ASCII
// is escaped ("café" gives "caf\xE9").
func DoubleQuote(s string) string {
	e := scalarWriter()
	e.writeDouble(s, false)
	return e.out.String()
}

// SingleQuote returns s as a YAML single-quoted scalar, as Salt's
// yaml_squote filter writes it.
func SingleQuote(s string) string {
	e := scalarWriter()
	e.writeSingle(s, false)
	return e.out.String()
}

// EncodeScalar is Salt's yaml_encode filter: the YAML text of a scalar
// value, strings double-quoted, other scalars as PyYAML represents them
// (true, null, 10, 1.5). A list or mapping is an error with Salt's
// TypeError text.
func EncodeScalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return DoubleQuote(x), nil
	case nil, bool, int64, int, *big.Int, float64:
		r := representer{opts: &DumpOptions{}}
		return r.represent(x).value, nil
	case []byte:
		return encodeBytes(x), nil
	}
	return "", errors.New("yaml_encode() only works with YAML scalar data; failed for <class '" + value.TypeName(v) + "'>")
}

// FormatYAML is Salt's Jinja `yaml` filter (format_yaml): safe_dump with
// default_flow_style set to flowStyle, trimmed of surrounding whitespace
// and of a final "..." line. Plain dicts are sorted and OrderedDicts kept
// (value.Map.Ordered) unless sortMap, when not nil, says otherwise.
func FormatYAML(v any, flowStyle bool, sortMap func(*value.Map) bool) string {
	opts := SaltDumpOptions()
	opts.DefaultFlowStyle = FlowStyle(flowStyle)
	opts.SortMap = sortMap
	s, _ := Dump(v, opts)
	s = strings.TrimSpace(s)
	return strings.TrimSuffix(s, "\n...")
}
