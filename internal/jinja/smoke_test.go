package jinja

import (
	"os"
	"testing"
)

func TestSmoke(t *testing.T) {
	src := os.Getenv("JT")
	if src == "" {
		t.Skip()
	}
	env := New()
	env.Loader = MapLoader{"m.jinja": "{% set CONST = 42 %}{% macro tag(t, body) %}<{{ t }}>{{ body }}</{{ t }}>{% endmacro %}"}
	out, err := env.RenderString("t", src, nil)
	t.Logf("out=%q err=%v", out, err)
}
