package jinjasalt

import (
	"strings"

	"brine/internal/value"
)

// SLSVars computes the template variables Salt derives from the template
// path and the SLS name (salt/utils/templates.py generate_sls_context):
// tplpath, tplfile, tpldir, tpldot (only when tplpath is set), slspath,
// sls_path, slsdotpath and slscolonpath.
func SLSVars(tplpath, sls string) *value.Map {
	m := value.NewMap(8)
	slspath := strings.TrimRight(strings.ReplaceAll(sls, ".", "/"), "/")
	if tplpath != "" {
		template := strings.ReplaceAll(tplpath, "\\", "/")
		if len(template) > 1 {
			template = strings.TrimRight(template, "/")
		}
		switch {
		case sls == "":
			if i := strings.LastIndexByte(template, '/'); i >= 0 {
				template = template[i+1:]
			}
		case strings.HasSuffix(template, slspath+".sls"):
			template = template[len(template)-(4+len(slspath)):]
		case strings.HasSuffix(template, slspath+"/init.sls"):
			template = template[len(template)-(9+len(slspath)):]
		}
		slspath = ""
		if i := strings.LastIndexByte(template, '/'); i >= 0 {
			slspath = template[:i]
		}
		tpldir := slspath
		if tpldir == "" {
			tpldir = "."
		}
		m.Set("tplpath", tplpath)
		m.Set("tplfile", template)
		m.Set("tpldir", tpldir)
		m.Set("tpldot", strings.ReplaceAll(slspath, "/", "."))
	}
	m.Set("slspath", slspath)
	m.Set("slsdotpath", strings.ReplaceAll(slspath, "/", "."))
	m.Set("slscolonpath", strings.ReplaceAll(slspath, "/", ":"))
	m.Set("sls_path", strings.ReplaceAll(slspath, "/", "_"))
	return m
}

// Options are the Jinja environment settings Salt takes from the minion
// config.
type Options struct {
	TrimBlocks          bool
	LstripBlocks        bool
	KeepTrailingNewline bool
	// AllowUndefined selects Jinja's lenient Undefined (allow_undefined).
	AllowUndefined bool
}

// OptionsFromOpts reads jinja_sls_env (when sls is set and not empty) or
// jinja_env, the deprecated jinja_trim_blocks and jinja_lstrip_blocks, and
// allow_undefined, as render_jinja_tmpl does. Keys Jinja knows but brine
// does not support (custom delimiters, line statements) are ignored.
func OptionsFromOpts(opts *value.Map, sls string, hasSLS bool) Options {
	var o Options
	get := func(k string) any { v, _ := opts.Get(k); return v }
	key := "jinja_env"
	if hasSLS && sls != "" {
		key = "jinja_sls_env"
	}
	if m, ok := get(key).(*value.Map); ok {
		m.Range(func(k, v any) bool {
			switch strings.ToLower(pyStr(k)) {
			case "trim_blocks":
				o.TrimBlocks = truthy(v)
			case "lstrip_blocks":
				o.LstripBlocks = truthy(v)
			case "keep_trailing_newline":
				o.KeepTrailingNewline = truthy(v)
			}
			return true
		})
	}
	if truthy(get("jinja_trim_blocks")) {
		o.TrimBlocks = true
	}
	if truthy(get("jinja_lstrip_blocks")) {
		o.LstripBlocks = true
	}
	o.AllowUndefined = truthy(get("allow_undefined"))
	return o
}
