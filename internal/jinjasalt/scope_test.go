package jinjasalt

import "testing"

// TestTagScopes checks where the variables of Salt's tags live: profile
// runs its body in place, load_* bodies are macros (inner scope), import_*
// assign in the current scope and render the file with only the globals
// (Salt's context) unless "with context".
func TestTagScopes(t *testing.T) {
	files := mapFiles{"a.yaml": "v: {{ v|default('none') }}\ns: {{ sls }}\n"}
	tests := []struct{ src, want string }{
		{"{% profile as 'p' %}{% set x = 1 %}{% endprofile %}{{ x }}", "1"},
		{"{% for i in [1, 2, 3] %}{% profile as 'p' %}{{ i }}{% if i == 2 %}{% break %}{% endif %}{% endprofile %}{% endfor %}", "12"},
		{"{% load_text as t %}{% set y = 2 %}x{% endload %}{{ t }}{{ y is defined }}", "xFalse"},
		{"{% set v = 1 %}{% import_yaml 'a.yaml' as d %}{{ d.v }} {{ d.s }}", "none x"},
		{"{% set v = 1 %}{% import_yaml 'a.yaml' as d with context %}{{ d.v }}", "1"},
		{"{% for i in [1] %}{% import_yaml 'a.yaml' as d %}{% endfor %}{{ d is defined }}", "False"},
		{"{% profile as 'p' %}{% import_yaml 'a.yaml' as d %}{% endprofile %}{{ d.v }}", "none"},
		{"{{ nope|to_bool }} [{{ nope|skip }}] {{ nope is list }}", "False [] False"},
	}
	for _, tt := range tests {
		got, err := Render([]byte(tt.src), &Context{SLS: "x", Files: files})
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.src, got, tt.want)
		}
	}
}
