package jinja

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"brine/internal/value"
)

// FuzzRender feeds random templates to the parser and renderer: no panic,
// no hang, bounded output; every failure must be an *Error.
func FuzzRender(f *testing.F) {
	paths, _ := filepath.Glob("testdata/golden/*.txtar")
	for i, p := range paths {
		if i%3 != 0 {
			continue
		}
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(parseTxtar(string(data))["template"])
		}
	}
	f.Add("{% for i in range(10) recursive %}{{ loop(range(i)) }}{% endfor %}")
	f.Add("{% macro m(a) %}{{ m(a) }}{% endmacro %}{{ m(1) }}")
	f.Add("{{ 'x' * 1000000 * 1000 }}")
	f.Add("{% set l = [] %}{% do l.append(l) %}{{ l }}")
	f.Add("{% block one %}{{ self.one() }}{% endblock %}")
	f.Add("{% set ns = namespace(x=[]) %}{% for i in range(300) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x|length }}")
	f.Add("{% include 'inc' %}{% import 'inc' as m %}{% extends 'base' %}")
	f.Fuzz(func(t *testing.T, src string) {
		env := New()
		env.MaxOutput = 1 << 20
		env.MaxDepth = 50
		env.MaxSteps = 200000
		env.Loader = MapLoader{
			"inc":  "{{ x|default(1) }}{% macro f() %}{{ caller() if caller is defined }}{% endmacro %}",
			"base": "{% block b %}base{% endblock %}",
			"self": src,
		}
		vars := value.MapOf("x", int64(1), "l", value.NewList("a", int64(2)), "d", value.MapOf("k", "v"))
		done := make(chan struct{})
		go func() {
			defer close(done)
			out, err := env.RenderString("fuzz", src, vars)
			if err != nil {
				var je *Error
				if !errors.As(err, &je) {
					t.Errorf("error is %T, not *Error: %v", err, err)
				} else if je.Type == "InternalError" {
					t.Errorf("panic: %v", err)
				}
				return
			}
			if len(out) > 2<<20 {
				t.Errorf("output too large: %d", len(out))
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("render of %q hangs", src)
		}
	})
}
