package jinjasalt

import "testing"

func TestSetInTemplates(t *testing.T) {
	tests := []struct{ src, want string }{
		{"{{ 'aab' | unique | length }}", "2"},
		{"{{ 'a' in ('a', 'a') | unique }}", "True"},
		{"{% for x in (3, 1, 3) | unique %}{{ x }}{% endfor %}", "13"},
		{"{{ (1, 2) | unique | list }}", "[1, 2]"},
		{"{{ (1, 2) | unique | tojson }}", ""},
	}
	for _, tt := range tests {
		got, err := render(t, tt.src, nil)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: want an error, got %q", tt.src, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.src, got, err, tt.want)
		}
	}
}
