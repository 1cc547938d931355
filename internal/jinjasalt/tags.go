package jinjasalt

import (
	"log/slog"
	"strings"
	"time"

	"brine/internal/jinja"
)

// SerializerExtension's tags: load_yaml/load_json/load_text blocks,
// import_yaml/import_json/import_text, and profile.

// loadTag is {% load_yaml as x %}...{% endload %}: the body is rendered,
// then parsed by the load_* filter, and assigned.
type loadTag struct {
	filter string
	target string
	body   jinja.Body
}

func (t *loadTag) Execute(ctx *jinja.Context) error {
	text, err := ctx.RenderBody(t.body)
	if err != nil {
		return err
	}
	v, err := ctx.ApplyFilter(t.filter, text, nil, nil)
	if err != nil {
		return err
	}
	ctx.Set(t.target, v)
	return nil
}

func parseLoad(filter string) jinja.TagParser {
	return func(p *jinja.Parser) (jinja.TagNode, error) {
		if err := p.Keyword("as"); err != nil {
			return nil, err
		}
		target, err := p.Name()
		if err != nil {
			return nil, err
		}
		body, _, err := p.ParseBody("endload")
		if err != nil {
			return nil, err
		}
		return &loadTag{filter: filter, target: target, body: body}, nil
	}
}

// importTag is {% import_yaml 'file' as x %}: the file is rendered as a
// template import (without context unless asked), its output parsed by
// the load_* filter.
type importTag struct {
	filter      string
	template    jinja.Expr
	target      string
	withContext bool
}

func (t *importTag) Execute(ctx *jinja.Context) error {
	start := time.Now()
	v, err := ctx.Eval(t.template)
	if err != nil {
		return err
	}
	name, err := ctx.Str(v)
	if err != nil {
		return err
	}
	text, err := ctx.RenderTemplate(name, t.withContext)
	if err != nil {
		return err
	}
	out, err := ctx.ApplyFilter(t.filter, text, nil, nil)
	if err != nil {
		return err
	}
	ctx.Set(t.target, out)
	slog.Debug("Time (in seconds) to render import_"+strings.TrimPrefix(t.filter, "load_"),
		"template", name, "seconds", time.Since(start).Seconds())
	return nil
}

func parseImport(filter string) jinja.TagParser {
	return func(p *jinja.Parser) (jinja.TagNode, error) {
		tmpl, err := p.ParseExpression()
		if err != nil {
			return nil, err
		}
		if err := p.Keyword("as"); err != nil {
			return nil, err
		}
		target, err := p.Name()
		if err != nil {
			return nil, err
		}
		withCtx := false
		switch p.PeekName() {
		case "with", "without":
			w := p.PeekName()
			p.SkipKeyword(w)
			if err := p.Keyword("context"); err != nil {
				return nil, err
			}
			withCtx = w == "with"
		}
		return &importTag{filter: filter, template: tmpl, target: target, withContext: withCtx}, nil
	}
}

// profileTag is {% profile as 'label' %}...{% endprofile %}: the body
// renders in place and its time is logged.
type profileTag struct {
	label jinja.Expr
	body  jinja.Body
}

func (t *profileTag) Execute(ctx *jinja.Context) error {
	label, err := ctx.Eval(t.label)
	if err != nil {
		return err
	}
	start := time.Now()
	// Salt inlines the body: its assignments stay visible after the block.
	if err := ctx.ExecBody(t.body); err != nil || ctx.Stopped() {
		return err
	}
	slog.Debug("Time (in seconds) to render profile block", "label", pyStr(label), "seconds", time.Since(start).Seconds())
	return nil
}

func parseProfile(p *jinja.Parser) (jinja.TagNode, error) {
	if err := p.Keyword("as"); err != nil {
		return nil, err
	}
	label, err := p.ParseExpression()
	if err != nil {
		return nil, err
	}
	body, _, err := p.ParseBody("endprofile")
	if err != nil {
		return nil, err
	}
	return &profileTag{label: label, body: body}, nil
}
