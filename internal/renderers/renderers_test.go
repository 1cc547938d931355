package renderers

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"brine/internal/render"
	"brine/internal/value"
)

// memFiles is a render.Loader over an in-memory tree.
type memFiles map[string]string

func (m memFiles) ReadFile(saltenv, path string) ([]byte, string, error) {
	s, ok := m[path]
	if !ok {
		return nil, "", fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	return []byte(s), "/cache/files/" + saltenv + "/" + path, nil
}

func testRC() *render.Context {
	return &render.Context{
		Path: "/cache/files/base/x.sls", SLS: "x", HasSLS: true, Saltenv: "base",
		Grains: value.MapOf("os", "Debian"),
		Pillar: value.MapOf("app", value.MapOf("port", int64(80))),
		Opts:   value.MapOf("renderer", "jinja|yaml"),
		Loader: memFiles{
			"map.jinja":  "{% set port = 8080 %}",
			"bad.jinja":  "{{ nope }}",
			"data.yaml":  "a: 1\n",
			"inc/x.sls":  "included: {{ grains.os }}",
			"other.sls":  "x: 1",
			"macro.sls":  "{% macro m(v) %}m={{ v }}{% endmacro %}",
			"spaced.txt": "text\n",
		},
	}
}

func TestRenderPipelines(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"jinja|yaml", "os: {{ grains.os }}\nport: {{ pillar.app.port }}\n", "{'os': 'Debian', 'port': 80}"},
		{"yaml types", "#!yaml\nmode: 0644\non: yes\nt: 2001-01-01\n", "{'mode': 644, True: True, 't': '2001-01-01'}"},
		{"json", "#!json\n{\"a\": [1, 2.0, null]}", "{'a': [1, 2.0, None]}"},
		{"jinja|json", "#!jinja|json\n{\"os\": \"{{ grains.os }}\"}", "{'os': 'Debian'}"},
		{"legacy yaml_jinja", "#!yaml_jinja\nos: {{ grains.os }}\n", "{'os': 'Debian'}"},
		{"legacy json_jinja", "#!json_jinja\n{\"os\": \"{{ grains.os }}\"}", "{'os': 'Debian'}"},
		{"spaces around pipe", "#! jinja | yaml\nos: {{ grains.os }}\n", "{'os': 'Debian'}"},
		{"jinja -s", "#!jinja -s|yaml\nos: {{ grains.os }}\n", "{'os': 'Debian'}"},
		{"comment only", "# nothing here\n", "{}"},
		{"empty", "", "{}"},
		{"import", "{% from 'map.jinja' import port %}port: {{ port }}\n", "{'port': 8080}"},
		{"import_yaml", "{% import_yaml 'data.yaml' as d %}a: {{ d.a }}\n", "{'a': 1}"},
		{"unknown renderer", "#!nosuch|yaml\na: 1\n", "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := render.Render([]byte(tt.src), testRC(), render.Options{Default: "jinja|yaml"})
			var ue *render.UnknownRendererError
			if err != nil && !errors.As(err, &ue) {
				t.Fatal(err)
			}
			if value.Repr(got) != tt.want {
				t.Errorf("got %s, want %s", value.Repr(got), tt.want)
			}
		})
	}
}

// TestRenderErrors pins the text users see for bad input (the compiler
// prefixes it with "Rendering SLS 'base:x' failed: ").
func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
		salt            bool // a SaltRenderError (*render.Error), not an internal failure
	}{
		{"yaml tab", "a:\n\tb: 1\n", "found character that cannot start any token", true},
		{"yaml unknown tag", "a: !foo 1\n", "could not determine a constructor for the tag '!foo'\n  in \"<unicode string>\", line 1, column 4", true},
		{"yaml double curly", "#!yaml\na: {{ x }}\n", "Invalid YAML, possible double curly-brace", true},
		{"yaml two documents", "a: 1\n---\nb: 2\n", "expected a single document in the stream\n  in \"<unicode string>\", line 1, column 1\nbut found another document\n  in \"<unicode string>\", line 2, column 1", false},
		{"yaml duplicate key", "a: 1\na: 2\n", "while constructing a mapping\n  in \"<unicode string>\", line 1, column 1\nfound conflicting ID 'a'\n  in \"<unicode string>\", line 2, column 1", true},
		{"renderer option", "#!jinja foo|yaml\na: 1\n", "Unknown renderer option: foo", true},
		{"bad order", "#!yaml|jinja\na: 1\n", `'OrderedDict' object has no attribute 'read'`, false},
		{"unsupported", "#!mako|yaml\n", `The "mako" renderer is not supported by brine: Mako templates need a Python runtime; use jinja`, true},
		{"jinja undefined", "a:\n  b: {{ nope }}\n", "Jinja variable 'nope' is undefined; line 2\n\n---\na:\n  b: {{ nope }}    <======================\n---", true},
		{"jinja undefined attribute", "a: {{ grains.nope.x }}\n", "Jinja variable 'dict object' has no attribute 'nope'; line 1\n\n---\na: {{ grains.nope.x }}    <======================\n---", true},
		{"jinja syntax", "{% if x %}\na: 1\n", "Jinja syntax error: Unexpected end of template. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'.", true},
		{"jinja missing import", "{% from 'nothere.jinja' import x %}\n", "Jinja error: nothere.jinja\nTraceback (most recent call last):\n  File \"<template>\", line 1, in top-level template code\njinja2.exceptions.TemplateNotFound: nothere.jinja\n\n; line 1\n\n---\n{% from 'nothere.jinja' import x %}    <======================\n", true},
		{"json broken", "#!json\n{\"a\": }", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render.Render([]byte(tt.src), testRC(), render.Options{Default: "jinja|yaml"})
			if err == nil {
				t.Fatal("no error")
			}
			var re *render.Error
			if errors.As(err, &re) != tt.salt {
				t.Errorf("*render.Error = %v, want %v (%T)", !tt.salt, tt.salt, err)
			}
			if tt.want != "" && len(err.Error()) >= len(tt.want) && err.Error()[:len(tt.want)] != tt.want {
				t.Errorf("error:\n%q\nwant prefix:\n%q", err.Error(), tt.want)
			} else if tt.want != "" && len(err.Error()) < len(tt.want) {
				t.Errorf("error:\n%q\nwant prefix:\n%q", err.Error(), tt.want)
			}
		})
	}
}
