package jinja

import (
	"strings"
	"sync"
	"testing"

	"brine/internal/value"
)

// loadTextTag is an example block tag: {% load_text as x %}...{% endload %}
// sets x to the rendered body, upper-cased (a stand-in for Salt's
// load_yaml).
type loadTextTag struct {
	target string
	body   Body
}

func (n *loadTextTag) Execute(ctx *Context) error {
	s, err := ctx.RenderBody(n.body)
	if err != nil {
		return err
	}
	ctx.Set(n.target, strings.ToUpper(s))
	return nil
}

func parseLoadText(p *Parser) (TagNode, error) {
	if err := p.Keyword("as"); err != nil {
		return nil, err
	}
	name, err := p.Name()
	if err != nil {
		return nil, err
	}
	body, _, err := p.ParseBody("endload")
	if err != nil {
		return nil, err
	}
	return &loadTextTag{target: name, body: body}, nil
}

// importTextTag is an example statement tag: {% import_text "f" as x %}.
type importTextTag struct {
	name   Expr
	target string
}

func (n *importTextTag) Execute(ctx *Context) error {
	v, err := ctx.Eval(n.name)
	if err != nil {
		return err
	}
	s, err := ctx.RenderTemplate(pyStrOf(v), true)
	if err != nil {
		return err
	}
	ctx.Set(n.target, strings.TrimSpace(s))
	return nil
}

func parseImportText(p *Parser) (TagNode, error) {
	x, err := p.ParseExpression()
	if err != nil {
		return nil, err
	}
	if err := p.Keyword("as"); err != nil {
		return nil, err
	}
	name, err := p.Name()
	if err != nil {
		return nil, err
	}
	return &importTextTag{name: x, target: name}, nil
}

// inlineTag is an example tag whose body runs in the current scope:
// {% inline %}...{% endinline %} (Salt's profile block).
type inlineTag struct{ body Body }

func (n *inlineTag) Execute(ctx *Context) error {
	if err := ctx.ExecBody(n.body); err != nil || ctx.Stopped() {
		return err
	}
	return ctx.Write("|")
}

func parseInline(p *Parser) (TagNode, error) {
	body, _, err := p.ParseBody("endinline")
	if err != nil {
		return nil, err
	}
	return &inlineTag{body: body}, nil
}

// dispatcher is a caller object like Salt's `salt`: salt['mod.fn'](...)
// and salt.mod.fn(...).
type dispatcher struct{}

func (dispatcher) Getitem(key any) (any, bool, error) {
	name, _ := key.(string)
	if name != "test.echo" {
		return nil, false, nil
	}
	return value.Func(func(args []any, kw *value.Map) (any, error) { return args[0], nil }), true, nil
}

func (d dispatcher) Getattr(name string) (any, bool) {
	if name == "test" {
		return modObj{}, true
	}
	return nil, false
}

type modObj struct{}

func (modObj) Getattr(name string) (any, bool) {
	if name == "echo" {
		return value.Func(func(args []any, kw *value.Map) (any, error) { return args[0], nil }), true
	}
	return nil, false
}

func extEnv() *Environment {
	env := New()
	env.AddTag("load_text", parseLoadText)
	env.AddTag("import_text", parseImportText)
	env.AddTag("inline", parseInline)
	env.AddRawFilter("isdef", func(ctx *Context, v any, args []any, kw *value.Map) (any, error) {
		if ctx.IsStrictUndefined(v) {
			return "strict", nil
		}
		if IsUndefined(v) {
			return "lenient", nil
		}
		return "defined", nil
	})
	env.AddRawTest("undef", func(ctx *Context, v any, args []any, kw *value.Map) (bool, error) {
		return IsUndefined(v), nil
	})
	env.AddFilter("twice", func(v any, args []any, kw *value.Map) (any, error) {
		return pyStrOf(v) + pyStrOf(v), nil
	})
	env.AddTest("short", func(v any, args []any, kw *value.Map) (bool, error) {
		return len(pyStrOf(v)) < 3, nil
	})
	env.AddGlobal("salt", dispatcher{})
	env.Loader = MapLoader{"f.txt": "text {{ who }}\n"}
	return env
}

func TestExtensions(t *testing.T) {
	tests := []struct{ src, want string }{
		{"{% load_text as x %}hi {{ 1 + 1 }}{% endload %}[{{ x }}]", "[HI 2]"},
		{"{% set who = 'me' %}{% import_text 'f.txt' as t %}{{ t }}", "text me"},
		{"{{ 'ab'|twice }} {{ 'ab' is short }} {{ 'abcd' is short }}", "abab True False"},
		{"{{ salt['test.echo']('x') }} {{ salt.test.echo(1) }} {{ salt.nope is defined }}", "x 1 False"},
		{"{{ salt.__class__ is defined }} {{ salt._x is defined }}", "False False"},
		{"{% load_text as x %}{% set y = 1 %}{% endload %}{{ y is defined }}", "False"},
		{"{% inline %}{% set y = 1 %}a{% endinline %}{{ y }}", "a|1"},
		{"{% for i in [1, 2, 3] %}{% inline %}{{ i }}{% if i == 2 %}{% break %}{% endif %}{% endinline %}{% endfor %}", "1|2"},
		{"{% for i in [1, 2] %}{% inline %}{% continue %}{% endinline %}x{% endfor %}", ""},
		{"{% macro m() %}{% inline %}{% set z = 2 %}{% endinline %}{{ z }}{% endmacro %}{{ m() }}{{ z is defined }}", "|2False"},
		{"{{ nope|isdef }} {{ 1|isdef }} {{ (nope if false)|isdef }} {{ nope is undef }} {{ 1 is undef }}", "strict defined lenient True False"},
	}
	env := extEnv()
	for _, tt := range tests {
		got, err := env.RenderString("t", tt.src, nil)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %q want %q", tt.src, got, tt.want)
		}
	}
	for _, src := range []string{
		"a\n{% inline %}{% break %}{% endinline %}",
		"{% for i in [1] %}{% macro m() %}\n{% inline %}{% continue %}{% endinline %}{% endmacro %}{{ m() }}{% endfor %}",
		"{% for i in [1] %}{% load_text as x %}\n{% inline %}{% break %}{% endinline %}{% endload %}{% endfor %}",
	} {
		_, err := env.RenderString("t", src, nil)
		if e, ok := err.(*Error); !ok || e.Type != "SyntaxError" || e.Line != 2 {
			t.Errorf("%q: got %v, want a SyntaxError on line 2", src, err)
		}
	}
	if _, err := env.RenderString("t", "{% load_text as x %}unclosed", nil); err == nil || !strings.Contains(err.Error(), "endload") {
		t.Errorf("unclosed tag: %v", err)
	}
}

func TestErrorPosition(t *testing.T) {
	env := New()
	env.Loader = MapLoader{"inner": "a\n{{ 1/0 }}\n", "outer": "x\n\n{% include 'inner' %}"}
	_, err := env.RenderString("main", "{% include 'outer' %}", nil)
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("%T %v", err, err)
	}
	if e.Name != "inner" || e.Line != 2 || e.Col != 4 || e.Type != "ZeroDivisionError" || e.Source != "{{ 1/0 }}" {
		t.Errorf("got %+v", e)
	}
	if len(e.Chain) != 2 || e.Chain[0] != (Frame{"outer", 3}) || e.Chain[1] != (Frame{"main", 1}) {
		t.Errorf("chain %+v", e.Chain)
	}
}

// TestConcurrentRender renders one parsed template from many goroutines
// (run with -race).
func TestConcurrentRender(t *testing.T) {
	env := extEnv()
	tpl, err := env.Parse("c", "{% set l = [] %}{% for i in range(50) %}{% do l.append(i) %}{% endfor %}{{ l|sum }} {% load_text as x %}{{ v }}{% endload %}{{ x }}")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				out, err := tpl.Render(value.MapOf("v", "v"))
				if err != nil || out != "1225 V" {
					t.Errorf("got %q %v", out, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// globalsLoader is a per-render loader that, like Salt's, sets a global
// when it loads a template.
type globalsLoader struct {
	globals map[string]any
	files   map[string]string
}

func (l *globalsLoader) Load(name, parent string) (string, string, error) {
	l.globals["last"] = name
	return MapLoader(l.files).Load(name, parent)
}

// TestRenderWith renders one parsed template concurrently with per-render
// globals and loaders (run with -race).
func TestRenderWith(t *testing.T) {
	env := New()
	tpl, err := env.Parse("m", "{% import 'lib' as lib %}{{ who }}:{{ lib.greet() }}:{{ last }}:{% include 'inc' %}:{{ range(2)|list }}")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				who := string(rune('a' + (i+j)%26))
				files := map[string]string{"lib": "{% macro greet() %}hi {{ who }}{% endmacro %}", "inc": "{{ who }}{{ last }}"}
				globals := map[string]any{"who": who}
				out, err := tpl.RenderWith(nil, RenderConfig{Globals: globals, Loader: &globalsLoader{globals, files}})
				want := who + ":hi " + who + ":lib:" + who + "inc:[0, 1]"
				if err != nil || out != want {
					t.Errorf("got %q %v, want %q", out, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, err := tpl.Render(nil); err == nil {
		t.Error("render without loader: want TemplateNotFound")
	}
}
