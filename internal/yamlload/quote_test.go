package yamlload

import (
	"testing"

	"brine/internal/value"
)

// Expected texts from PyYAML's Python emitter, as Salt's yaml_dquote and
// yaml_squote use it.
func TestQuote(t *testing.T) {
	tests := []struct{ in, dq, sq string }{
		{"A double-quoted string in YAML", `"A double-quoted string in YAML"`, `'A double-quoted string in YAML'`},
		{"yes", `"yes"`, `'yes'`},
		{"say \"hi\"", `"say \"hi\""`, `'say "hi"'`},
		{"it's", `"it's"`, `'it''s'`},
		{"café", `"caf\xE9"`, `'café'`},
		{"", `""`, `''`},
		{"tab\there\\", `"tab\there\\"`, "'tab\there\\'"},
		{"\x00\x7f\u0085\u00a0\u2028\ufeff😀", `"\0\x7F\N\_\L\uFEFF\U0001F600"`, "'\x00\x7f\u0085\u00a0\u2028\ufeff😀'"},
		{"a  b ", `"a  b "`, `'a  b '`},
		{"a\nb", `"a\nb"`, "'a\n\nb'"},
		{"a \n b", `"a \n b"`, "'a \n\n b'"},
	}
	for _, tt := range tests {
		if got := DoubleQuote(tt.in); got != tt.dq {
			t.Errorf("DoubleQuote(%q) = %s, want %s", tt.in, got, tt.dq)
		}
		if got := SingleQuote(tt.in); got != tt.sq {
			t.Errorf("SingleQuote(%q) = %s, want %s", tt.in, got, tt.sq)
		}
	}
}

func TestEncodeScalar(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"a: b", `"a: b"`}, {true, "true"}, {nil, "null"}, {int64(10), "10"}, {1.5, "1.5"}, {1e16, "1.0e+16"},
	}
	for _, tt := range tests {
		got, err := EncodeScalar(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("EncodeScalar(%v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := EncodeScalar(MustLoad(t, "[1]")); err == nil || err.Error() != "yaml_encode() only works with YAML scalar data; failed for <class 'list'>" {
		t.Errorf("EncodeScalar(list) error = %v", err)
	}
}

func MustLoad(t *testing.T, s string) any {
	t.Helper()
	v, err := Load([]byte(s), "t")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestFormatYAML(t *testing.T) {
	v := MustLoad(t, "{b: ['yes', '0644', null, 1.0], a: {c: true}}")
	// loaded by the renderer: OrderedDicts keep their order
	if got, want := FormatYAML(v, true, nil), "{b: ['yes', '0644', null, 1.0], a: {c: true}}"; got != want {
		t.Errorf("FormatYAML flow = %q, want %q", got, want)
	}
	// plain dicts are sorted
	plain, err := SafeLoad([]byte("{b: ['yes', '0644', null, 1.0], a: {c: true}}"), "t")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := FormatYAML(plain, true, nil), "{a: {c: true}, b: ['yes', '0644', null, 1.0]}"; got != want {
		t.Errorf("FormatYAML plain = %q, want %q", got, want)
	}
	if got, want := FormatYAML(v, false, func(*value.Map) bool { return false }), "b:\n- 'yes'\n- '0644'\n- null\n- 1.0\na:\n  c: true"; got != want {
		t.Errorf("FormatYAML block = %q, want %q", got, want)
	}
	if got := FormatYAML("text", true, nil); got != "text" {
		t.Errorf("FormatYAML scalar = %q", got)
	}
}
