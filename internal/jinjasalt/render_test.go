package jinjasalt

import (
	"io/fs"
	"strings"
	"testing"

	"brine/internal/pyops"
	"brine/internal/value"
)

func TestSLSVars(t *testing.T) {
	tests := []struct {
		path, sls string
		want      string
	}{
		{"/c/files/base/a/b/leaf.sls", "a.b.leaf", `{'tplpath': '/c/files/base/a/b/leaf.sls', 'tplfile': 'a/b/leaf.sls', 'tpldir': 'a/b', 'tpldot': 'a.b', 'slspath': 'a/b', 'slsdotpath': 'a.b', 'slscolonpath': 'a:b', 'sls_path': 'a_b'}`},
		{"/c/files/base/web/init.sls", "web", `{'tplpath': '/c/files/base/web/init.sls', 'tplfile': 'web/init.sls', 'tpldir': 'web', 'tpldot': 'web', 'slspath': 'web', 'slsdotpath': 'web', 'slscolonpath': 'web', 'sls_path': 'web'}`},
		{"/c/files/base/top.sls", "top", `{'tplpath': '/c/files/base/top.sls', 'tplfile': 'top.sls', 'tpldir': '.', 'tpldot': '', 'slspath': '', 'slsdotpath': '', 'slscolonpath': '', 'sls_path': ''}`},
		{"/c/files/base/data/conf.sls", "", `{'tplpath': '/c/files/base/data/conf.sls', 'tplfile': 'conf.sls', 'tpldir': '.', 'tpldot': '', 'slspath': '', 'slsdotpath': '', 'slscolonpath': '', 'sls_path': ''}`},
		{"", "a.b", `{'slspath': 'a/b', 'slsdotpath': 'a.b', 'slscolonpath': 'a:b', 'sls_path': 'a_b'}`},
	}
	for _, tt := range tests {
		if got := value.Repr(SLSVars(tt.path, tt.sls)); got != tt.want {
			t.Errorf("SLSVars(%q, %q) = %s\nwant %s", tt.path, tt.sls, got, tt.want)
		}
	}
}

func render(t *testing.T, src string, ctx *Context) (string, error) {
	t.Helper()
	if ctx == nil {
		ctx = &Context{SLS: "x"}
	}
	return Render([]byte(src), ctx)
}

func TestRenderBasics(t *testing.T) {
	funcs := func(name string) (value.Callable, bool) {
		switch name {
		case "test.echo":
			return value.Func(func(args []any, kw *value.Map) (any, error) { return args[0], nil }), true
		case "cmd.fail":
			return value.Func(func(args []any, kw *value.Map) (any, error) {
				return nil, &pyops.Error{Type: "salt.exceptions.CommandExecutionError", Msg: "it broke"}
			}), true
		}
		return nil, false
	}
	tests := []struct {
		name, src, want string
		ctx             *Context
	}{
		{"trailing newline kept", "a: {{ 1 }}\n", "a: 1\n", nil},
		{"no trailing newline", "a: {{ 1 }}", "a: 1", nil},
		{"env undefined", "{{ env is defined }}", "False", nil},
		{"vars override", "{{ sls }} {{ extra }}", "over 1", &Context{SLS: "x", Vars: value.MapOf("sls", "over", "extra", int64(1))}},
		{"no sls", "{{ sls is defined }} {{ tpldir is defined }}", "False False", &Context{NoSLS: true}},
		{"salt item", "{{ salt['test.echo']('hi') }}", "hi", &Context{SLS: "x", Salt: funcs}},
		{"salt attr", "{{ salt.test.echo('hi') }}", "hi", &Context{SLS: "x", Salt: funcs}},
		{"salt module item", "{{ salt['test'].echo('hi') }}", "hi", &Context{SLS: "x", Salt: funcs}},
		{"printed dict", "{{ {'a': 1, 'b': [None, 'x']} }}", "{'a': 1, 'b': [None, 'x']}", nil},
		{"profile", "{% profile as 'p' %}in{% endprofile %}", "in", nil},
		{"load_text block", "{% load_text as t %}x{{ 1 }}{% endload %}{{ t }}", "x1", nil},
		// load_yaml is safe_load: plain dicts, which the yaml filter sorts
		// as PyYAML does (the yaml renderer's OrderedDicts keep their order)
		{"load_yaml dumps sorted", "{% load_yaml as d %}\nb: 1\na: {d: 1, c: 2}\n{% endload %}{{ d|yaml }}", "{a: {c: 2, d: 1}, b: 1}", nil},
		{"missing pillar key", "{{ pillar.nokey is defined }} {{ pillar.get('nokey', 1) }}", "False 1", &Context{SLS: "x", Pillar: value.MapOf("a", int64(1))}},
		{"load_yaml keeps insertion order", "{% load_yaml as d %}\nb: 1\na: 2\n{% endload %}{{ d|list }}", "['b', 'a']", nil},
		{"full context", "{{ show_full_context()['sls'] }}", "x", nil},
		{"lenient", "[{{ nope }}]", "[]", &Context{SLS: "x", Opts: value.MapOf("allow_undefined", true)}},
		{"trim blocks", "{% if 1 %}\nx\n{% endif %}\n", "x\n\n", &Context{SLS: "x", Opts: value.MapOf("jinja_sls_env", value.MapOf("trim_blocks", true))}},
		{"trim blocks only sls env", "{% if 1 %}\nx\n{% endif %}\n", "\nx\n\n", &Context{SLS: "", Opts: value.MapOf("jinja_sls_env", value.MapOf("trim_blocks", true))}},
	}
	for _, tt := range tests {
		got, err := render(t, tt.src, tt.ctx)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}

	errTests := []struct{ name, src, want string }{
		{"missing function", "{{ salt['nope.fn']() }}", "Jinja variable 'salt.utils.templates.AliasedLoader object' has no attribute 'nope.fn'; line 1\n\n---\n{{ salt['nope.fn']() }}    <======================\n---"},
		{"salt function error", "a\n{{ salt['cmd.fail']() }}", "Problem running salt function in Jinja template: it broke; line 2\n\n---\na\n{{ salt['cmd.fail']() }}    <======================\n---"},
		{"raise", "{{ raise('no') }}", "Jinja error: no\nTraceback (most recent call last):\n  File \"<template>\", line 1, in top-level template code\nsalt.exceptions.TemplateError: no\n\n; line 1\n\n---\n{{ raise('no') }}    <======================\nTraceback (most recent call last):\n  File \"<template>\", line 1, in top-level template code\nsalt.exceptions.TemplateError: no\n---"},
		{"load_json error is a syntax error", "{% set x = 'nope' | load_json %}", "Jinja syntax error: Unable to load json from nope; line 1\n\n---\n{% set x = 'nope' | load_json %}    <======================\n---"},
		{"unknown filter", "{{ 1 | nofilter }}", "Jinja syntax error: No filter named 'nofilter'.; line 1\n\n---\n{{ 1 | nofilter }}    <======================\n---"},
		{"missing include", "{% include 'nope.sls' %}", "Jinja error: nope.sls\nTraceback (most recent call last):\n"},
		{"relative escape", "{% include '../../etc/passwd' %}", "Jinja error: ../../etc/passwd\n"},
	}
	for _, tt := range errTests {
		_, err := render(t, tt.src, &Context{SLS: "x", Salt: funcs, Files: dirFiles{root: "testdata/imports", shown: "/c"}})
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		got := err.Error()
		if strings.HasSuffix(tt.want, "\n") {
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("%s:\n%s\nwant prefix:\n%s", tt.name, got, tt.want)
			}
		} else if got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

// The tpldir leak: a root-relative load moves the loader's tpldir, so a
// later "./" name resolves against the last loaded file's directory.
func TestLoaderTpldirLeak(t *testing.T) {
	files := mapFiles{
		"web/site.sls":          "{% from 'common/defaults.jinja' import c %}{% from './map.jinja' import which %}{{ which }} {{ tpldir }}",
		"web/map.jinja":         "{% set which = 'web' %}",
		"common/defaults.jinja": "{% set c = 1 %}",
		"common/map.jinja":      "{% set which = 'common' %}",
	}
	out, err := Render([]byte(files["web/site.sls"]), &Context{SLS: "web.site", Path: "/c/web/site.sls", Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if out != "common web" {
		t.Errorf("got %q", out)
	}
}

type mapFiles map[string]string

func (m mapFiles) ReadFile(saltenv, p string) ([]byte, string, error) {
	s, ok := m[p]
	if !ok {
		return nil, "", &notExist{p}
	}
	return []byte(s), "/cache/" + p, nil
}

type notExist struct{ p string }

func (e *notExist) Error() string { return e.p + ": not found" }
func (e *notExist) Unwrap() error { return fs.ErrNotExist }

// Environments are reused between renders: a variable of one render must
// not be visible in the next, whatever the context names.
func TestNoLeakBetweenRenders(t *testing.T) {
	files := mapFiles{"a/x.jinja": "{% set v = 1 %}"}
	first := &Context{SLS: "a.b", Path: "/c/a/b.sls", Files: files, Vars: value.MapOf("secret", "s1")}
	if out, err := Render([]byte("{{ secret }}{% from 'a/x.jinja' import v %}{{ v }}"), first); err != nil || out != "s11" {
		t.Fatalf("first: %q %v", out, err)
	}
	second := &Context{SLS: "a.b", Path: "/c/a/b.sls", Files: files}
	if out, err := Render([]byte("{{ secret is defined }}"), second); err != nil || out != "False" {
		t.Errorf("second: %q %v", out, err)
	}
	third := &Context{NoSLS: true, Files: files}
	if _, err := Render([]byte("{% include 'a/x.jinja' %}"), third); err != nil {
		t.Fatal(err)
	}
	if out, err := Render([]byte("{{ tpldir is defined }}"), &Context{NoSLS: true}); err != nil || out != "False" {
		t.Errorf("after a load without sls, tpldir leaked: %q %v", out, err)
	}
	// The same source with other values renders the new values.
	for _, os := range []string{"Debian", "RedHat"} {
		out, err := Render([]byte("{{ grains.os }}"), &Context{SLS: "x", Grains: value.MapOf("os", os)})
		if err != nil || out != os {
			t.Errorf("got %q %v, want %s", out, err, os)
		}
	}
}

// TestPillarUndefinedMessage: a missing pillar key is reported with the
// class Salt's loader wraps the pillar in; other mappings stay "dict
// object", and a pillar passed in by the caller is a plain dict.
func TestPillarUndefinedMessage(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		ctx       *Context
	}{
		{"{{ pillar.nokey }}", "'salt.utils.context.NamespacedDictWrapper object' has no attribute 'nokey'", &Context{SLS: "x", Pillar: value.MapOf("a", int64(1))}},
		{"{{ pillar['nokey'] }}", "'salt.utils.context.NamespacedDictWrapper object' has no attribute 'nokey'", &Context{SLS: "x", Pillar: value.MapOf("a", int64(1))}},
		{"{{ pillar.a.nokey }}", "'dict object' has no attribute 'nokey'", &Context{SLS: "x", Pillar: value.MapOf("a", value.MapOf("b", int64(1)))}},
		{"{{ grains.nokey }}", "'dict object' has no attribute 'nokey'", &Context{SLS: "x", Grains: value.MapOf("a", int64(1))}},
		{"{{ pillar.nokey }}", "'dict object' has no attribute 'nokey'", &Context{SLS: "x", Vars: value.MapOf("pillar", value.MapOf("a", int64(1)))}},
	} {
		_, err := render(t, tc.src, tc.ctx)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %s", tc.src, err, tc.want)
		}
	}
}
