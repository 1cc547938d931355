// Package jinjasalt is everything Salt adds to Jinja: the filters, tests and
// globals Salt 3006 registers (the jinja_filter, jinja_test and jinja_global
// functions across salt/utils), the SerializerExtension tags (import_yaml,
// load_json, profile, ...), the template context Salt builds (salt, grains,
// pillar, opts, sls, tpldir, ...), Salt's template loader, and the way Salt
// words Jinja failures.
//
// The filters are plain Go functions over package value's types, grouped in
// files after the Salt modules they come from (strings.go for
// salt/utils/stringutils.py, data.go for salt/utils/data.py, ...). Install
// plugs them into an environment of package jinja; Render is the entry point
// the jinja renderer calls.
package jinjasalt
