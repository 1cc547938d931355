// Package jinjasalt is everything Salt adds to Jinja: the filters, tests and
// globals Salt 3006 registers (the jinja_filter, jinja_test and jinja_global
// functions across salt/utils), the SerializerExtension tags (import_yaml,
// load_json, profile, ...), the template context Salt builds (salt, grains,
// pillar, opts, sls, tpldir, ...), Salt's template loader, and the way Salt
// words Jinja failures.
//
// The filters are plain Go functions over package value's types, grouped in
// files after the Salt modules they come from (strings.go for
// salt/utils/stringutils.py, data.go for salt/utils/data.py, network.go,
// hashes.go, paths.go, dates.go, dictupdate.go, regex.go and sets.go for
// salt/utils/jinja.py, serializers.go and xml.go for SerializerExtension,
// itertools.go). They register themselves in init; Entries and Lookup list
// them, Install plugs them into a jinja.Environment, and Render is the
// entry point of the jinja renderer:
//
//	out, err := jinjasalt.Render(src, &jinjasalt.Context{
//		Path: cachedPath, Saltenv: "base", SLS: "web.site",
//		Salt: lookup, Grains: grains, Pillar: pillar, Opts: opts,
//		Files: fileTree,
//	})
//
// A template failure is an *Error whose text is Salt's ("Jinja variable
// 'x' is undefined; line 4\n\n---\n...\n---").
//
// Known differences from Salt, on purpose or for now:
//   - Regular expressions run on Go's RE2 after translating Python syntax
//     (regex.go): no lookaround or backreferences in patterns.
//   - Python sets keep insertion order (small ints sort, as CPython's do).
//   - json_query is brine's own JMESPath (jmespath.go), following
//     jmespath.py; its error messages are close to, not always exactly,
//     jmespath.py's.
//   - The itertools filters return lists, not lazy iterators; results
//     beyond a million items, and network_hosts beyond 2^20 hosts, fail.
//   - A template name may not leave the file roots: absolute names are
//     taken as root-relative (Salt would read the absolute path).
//   - The yaml filter writes a set as NULL (PyYAML writes !!set).
//   - http_query only answers test=True; dns_check does not test
//     connectivity.
package jinjasalt
