// Package yamlload reads YAML into brine values with the semantics of Salt
// 3006's SaltYamlSafeLoader, and writes values back as YAML text exactly as
// PyYAML's C safe dumper does.
//
// Loading (Load, SafeLoad) first tries a fast path (fast.go) that reads the
// plain block subset rendered SLS and pillar files are written in straight
// into values, and gives up on anything else, or anything that would be an
// error; then it builds on go.yaml.in/yaml/v4's node tree and does its own
// resolution and construction. Both give the same values (FuzzFastPath
// checks it): YAML 1.1 implicit types as PyYAML's
// resolver sees plain scalars (yes/no/on/off, base 60, `1e3` a string),
// Salt's integer rule (`0644` is 644), timestamps as strings, !!binary as
// bytes, Salt's merge-key flattening and duplicate-key error ("found
// conflicting ID"), one document only. Mappings are *value.Map in document
// order, sequences *value.List. Errors are *Error, shaped like PyYAML's
// MarkedYAMLError and printed the same way (RendererMessage gives the text
// Salt's yaml renderer shows).
//
// LoadArg, ParseKwarg and ParseInput type command-line words the way
// salt-call does (salt.utils.args).
//
// Dump is yaml.dump with Salt's SafeOrderedDumper and libyaml 0.2.5's
// emitter: PyYAML's quoting, flow/block choices, line folding, anchors for
// shared collections. DoubleQuote, SingleQuote, EncodeScalar and FormatYAML
// are the yaml_dquote, yaml_squote, yaml_encode and yaml Jinja filters.
//
// Known differences from Salt, all in malformed input: go-yaml's scanner
// reports some syntax errors with other words or at other places than
// libyaml (it scans further ahead before the parser complains, and does not
// check multi-line simple keys); it accepts a few things libyaml refuses
// (tabs on blank or comment lines and after "- ", anchors containing '.',
// an empty key written as ": x", "?x" and ":x" as plain scalars in flow
// collections), and brine refuses a self-containing structure built with
// aliases, which PyYAML would build. brine also bounds what a document
// may cost where Salt does not (limits.go): nesting deeper than
// value.MaxDepth (aliases included) is a ParserError at the collection
// that crosses it, and merge keys may copy at most about a million pairs;
// aliases are never expanded (an anchored collection is one shared value). Two go-yaml rules libyaml lacks are
// undone: a flow continuation line left of the block indentation, and a
// '#' comment right after a quoted scalar or a flow collection.
package yamlload
