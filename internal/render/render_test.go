package render

import (
	"errors"
	"strings"
	"testing"

	"brine/internal/value"
)

// testRegistry has an upper-casing text renderer, a "kv" data renderer
// (one "k=v" per line) and an unsupported one.
func testRegistry() *Registry {
	r := NewRegistry()
	r.Register(&Entry{Name: "upper", Text: func(src string, _ *Context, arg string) (string, error) {
		if arg != "" && arg != "-s" {
			return "", &Error{Msg: "Unknown renderer option: " + arg}
		}
		return strings.ToUpper(src), nil
	}})
	r.Register(&Entry{Name: "kv", Data: func(src string, _ *Context, _ string) (any, error) {
		m := value.NewMap(0)
		for _, line := range strings.Split(src, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				m.Set(k, v)
			}
		}
		return m, nil
	}})
	r.Register(&Entry{Name: "jinja", Text: func(src string, _ *Context, _ string) (string, error) { return src, nil }})
	r.Register(&Entry{Name: "yaml", Data: func(string, *Context, string) (any, error) { return value.NewMap(0), nil }})
	r.Register(&Entry{Name: "mako", Unsupported: "needs Python"})
	r.Register(&Entry{Name: "lf", Text: func(src string, _ *Context, _ string) (string, error) {
		return strings.ReplaceAll(src, "\r", ""), nil
	}})
	r.Register(&Entry{Name: "rot", WalkData: true, Data: func(src string, _ *Context, _ string) (any, error) {
		return strings.ToUpper(src), nil
	}})
	return r
}

func TestParse(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		pipe, want, err string
	}{
		{"jinja|yaml", "jinja|yaml", ""},
		{" jinja | yaml ", "jinja|yaml", ""},
		{"upper -s|kv", "upper -s|kv", ""},
		{"upper  foo bar |kv", "upper foo bar|kv", ""},
		{"yaml_jinja", "jinja|yaml", ""},
		{"yaml_jinja|kv", "", `The renderer "yaml_jinja" is not available`},
		{"nosuch|yaml", "", `The renderer "nosuch" is not available`},
		{"", "", `The renderer "" is not available`},
	}
	for _, tt := range tests {
		p, err := r.Parse(tt.pipe, nil, nil)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Parse(%q) err = %v, want %q", tt.pipe, err, tt.err)
			}
			continue
		}
		if err != nil || p.String() != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.pipe, p.String(), err, tt.want)
		}
	}
}

func TestParseWhitelistBlacklist(t *testing.T) {
	r := testRegistry()
	p, err := r.Parse("upper|kv", []string{"kv"}, nil)
	if err != nil || p.String() != "kv" {
		t.Errorf("whitelist: %q %v", p.String(), err)
	}
	p, err = r.Parse("upper|kv", nil, []string{"upper"})
	if err != nil || p.String() != "kv" {
		t.Errorf("blacklist: %q %v", p.String(), err)
	}
}

func TestShebang(t *testing.T) {
	tests := []struct {
		src, pipe string
		ok        bool
	}{
		{"#!jinja|yaml\na: 1\n", "jinja|yaml", true},
		{"#! yaml \n", " yaml", true},
		{"#!/usr/bin/env python\n", "", false},
		{"# comment\n", "", false},
		{"a: 1\n#!yaml\n", "", false},
		{"#!jinja foo|yaml", "jinja foo|yaml", true},
	}
	for _, tt := range tests {
		pipe, ok := Shebang(tt.src)
		if pipe != tt.pipe || ok != tt.ok {
			t.Errorf("Shebang(%q) = %q, %v; want %q, %v", tt.src, pipe, ok, tt.pipe, tt.ok)
		}
	}
	if pipe, ok := StringShebang("#!jinja foo|yaml\n"); !ok || pipe != "jinja" {
		t.Errorf("StringShebang keeps the first word only: got %q %v", pipe, ok)
	}
}

func TestRender(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		name, src, def string
		fromString     bool
		want, err      string
	}{
		{"default pipe", "a=b\n", "upper|kv", false, "{'A': 'B'}", ""},
		{"shebang overrides", "#!kv\na=b\n", "upper|kv", false, "{'a': 'b'}", ""},
		{"spaces in shebang", "#! upper | kv\na=b\n", "kv", false, "{'A': 'B'}", ""},
		{"text only pipe", "x\n", "upper", false, "'X\\n'", ""},
		{"empty file", "", "upper|kv", false, "{}", ""},
		{"whitespace file", " \n\t\n", "upper|kv", false, "{}", ""},
		{"unknown renderer is empty", "#!nosuch|kv\na=b\n", "kv", false, "{}", `The renderer "nosuch" is not available`},
		{"renderer option", "#!upper foo|kv\na=b\n", "kv", false, "", "Unknown renderer option: foo"},
		{"data renderer not last", "#!kv|upper\na=b\n", "kv", false, "", `'dict' object has no attribute 'read'`},
		{"unsupported", "#!mako|kv\n", "kv", false, "", `The "mako" renderer is not supported by brine: needs Python`},
		{"walking data renderer", "#!kv|rot\na=b\n", "kv", false, "{'a': 'B'}", ""},
		{"crlf template keeps crlf", "#!lf\r\na\r\nb\n", "kv", false, "'#!lf\\r\\na\\r\\nb\\r\\n'", ""},
		{"crlf kept as rendered", "#!upper\r\na\nb\n", "kv", false, "'#!UPPER\\r\\nA\\nB\\n'", ""},
		{"string shebang first word", "#!upper foo\na=b", "kv", true, "'#!UPPER FOO\\nA=B'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render([]byte(tt.src), &Context{Registry: r}, Options{Default: tt.def, FromString: tt.fromString})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
			} else if err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.want != "" && value.Repr(got) != tt.want {
				t.Errorf("got %s, want %s", value.Repr(got), tt.want)
			}
		})
	}
}

func TestErrorsAreTyped(t *testing.T) {
	r := testRegistry()
	_, err := Render([]byte("#!nosuch\n"), &Context{Registry: r}, Options{})
	var ue *UnknownRendererError
	if !errors.As(err, &ue) || ue.Name != "nosuch" {
		t.Errorf("want *UnknownRendererError, got %#v", err)
	}
	_, err = Render([]byte("#!kv|upper\n"), &Context{Registry: r}, Options{})
	var pe *PipelineError
	if !errors.As(err, &pe) {
		t.Errorf("want *PipelineError, got %#v", err)
	}
}

func TestRegisterPanics(t *testing.T) {
	for _, e := range []*Entry{{Name: "upper"}, {Name: "a b"}, {Name: ""}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", e.Name)
				}
			}()
			testRegistry().Register(e)
		}()
	}
}

func TestErrorContext(t *testing.T) {
	src := "a:\n  test.nop:\n    - v: {{ x }}\n"
	e := &Error{Msg: "Jinja variable 'x' is undefined", Line: 3, Buf: src}
	want := "Jinja variable 'x' is undefined; line 3\n\n---\na:\n  test.nop:\n    - v: {{ x }}    <======================\n---"
	if e.Error() != want {
		t.Errorf("got %q\nwant %q", e.Error(), want)
	}
	long := strings.Repeat("l\n", 20)
	got := GetContext(long, 10, 5, Marker)
	want = "---\n[...]\nl\nl\nl\nl\nl\nl" + Marker + "\nl\nl\nl\nl\nl\n[...]\n---"
	if got != want {
		t.Errorf("GetContext long:\n%q\nwant\n%q", got, want)
	}
	if got := GetContext("one", 5, 5, Marker); got != "one" {
		t.Errorf("line past the end: %q", got)
	}
	if (&Error{Msg: "m", Line: 2}).Error() != "m" {
		t.Error("no buffer means no context")
	}
}

func TestErrorDiagnostic(t *testing.T) {
	e := &Error{Msg: "Jinja variable 'x' is undefined", File: "/srv/a.sls", Line: 3, Col: 7}
	d := e.Diagnostic()
	if d.Error() != "/srv/a.sls:3:7: Jinja variable 'x' is undefined" {
		t.Errorf("Diagnostic = %q", d.Error())
	}
}

func TestCheckDefault(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		pipe    string
		wl, bl  []string
		wantErr bool
	}{
		{"upper|kv", nil, nil, false},
		{"nosuch", nil, nil, true},
		{"upper|kv", nil, []string{"upper", "kv"}, true},
		{"upper|kv", []string{"kv"}, nil, false},
		{"", nil, nil, true},
	}
	for _, tt := range tests {
		err := r.CheckDefault(tt.pipe, tt.wl, tt.bl)
		if (err != nil) != tt.wantErr {
			t.Errorf("CheckDefault(%q, %v, %v) = %v", tt.pipe, tt.wl, tt.bl, err)
		}
	}
	if err := r.CheckDefault("nosuch", nil, nil); err == nil || err.Error() != "The renderer nosuch is unavailable, this error is often because the needed software is unavailable" {
		t.Errorf("text: %v", err)
	}
}

func TestDecodeUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ok é\xef\xbb\xbf", ""},
		{"a: caf\xe9\n", "'utf-8' codec can't decode byte 0xe9 in position 6: invalid continuation byte"},
		{"x\xff", "'utf-8' codec can't decode byte 0xff in position 1: invalid start byte"},
		{"\xe2\x82x", "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"},
		{"ab\xe2\x82", "'utf-8' codec can't decode bytes in position 2-3: unexpected end of data"},
		{"\xed\xa0\x80", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"},
		{"\xc0\xaf", "'utf-8' codec can't decode byte 0xc0 in position 0: invalid start byte"},
	}
	for _, tt := range tests {
		_, err := DecodeUTF8([]byte(tt.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%q: %q, want %q", tt.in, got, tt.want)
		}
	}
}
