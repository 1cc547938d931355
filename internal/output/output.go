// Package output is the outputter contract: named functions that turn a
// command's return data into the text salt-call prints (--out json, yaml,
// nested, highstate, ...), a registry they join from init(), and Display,
// which picks one and formats its result the way salt.output.display_output
// does.
package output

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"brine/internal/value"
)

// Options are what an outputter may consult.
type Options struct {
	// Opts are the minion options (state_output, state_verbose,
	// nested_indent, ...). Never nil when called through Display.
	Opts *value.Map
	// Indent is --out-indent; HasIndent reports whether it was given.
	Indent    int
	HasIndent bool
	// Color selects ANSI colours (--force-color, or a terminal).
	Color bool
	// Retcode is the command's return code (Salt's _retcode kwarg).
	Retcode int
}

// Func formats data. An error makes Display fall back to nested, then raw.
type Func func(data any, o *Options) (string, error)

type entry struct {
	name string
	fn   Func
	doc  string
}

// Registry maps outputter names to functions.
type Registry struct{ entries map[string]*entry }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: map[string]*entry{}} }

// Default is the registry outputter packages fill from init().
var Default = NewRegistry()

// Register adds f to Default under name. It panics on a duplicate.
func Register(name string, f Func, doc string) { Default.Register(name, f, doc) }

// Register adds f under name. It panics on a malformed or duplicate name.
func (r *Registry) Register(name string, f Func, doc string) {
	if name == "" || strings.ContainsAny(name, " \t\n|.") {
		panic(fmt.Sprintf("output: malformed outputter name %q", name))
	}
	if _, dup := r.entries[name]; dup {
		panic(fmt.Sprintf("output: duplicate outputter %q", name))
	}
	r.entries[name] = &entry{name: name, fn: f, doc: doc}
}

// Lookup returns the outputter named name.
func (r *Registry) Lookup(name string) (Func, bool) {
	e, ok := r.entries[name]
	if !ok {
		return nil, false
	}
	return e.fn, true
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.entries))
	for n := range r.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Resolve maps an --out value to a registered outputter name as Salt's
// get_printout does: "" means nested, "text" means txt, and an unknown name
// falls back to nested (ok=false then, for a warning).
func (r *Registry) Resolve(out string) (name string, ok bool) {
	switch out {
	case "":
		return "nested", true
	case "text":
		out = "txt"
	}
	if _, found := r.entries[out]; !found {
		return "nested", false
	}
	return out, true
}

// Display formats data with the outputter out, as salt-call prints it:
// the outputter's text with trailing whitespace removed plus a newline, or
// nothing when the outputter produced nothing. When the outputter fails,
// nested is tried, then raw.
func (r *Registry) Display(data any, out string, o *Options) string {
	if o.Opts == nil {
		o.Opts = value.NewMap(0)
	}
	name, _ := r.Resolve(out)
	for _, n := range []string{name, "nested", "raw"} {
		f, ok := r.Lookup(n)
		if !ok {
			continue
		}
		s, err := f(data, o)
		if err != nil {
			continue
		}
		s = strings.TrimRightFunc(s, isPySpace)
		if s == "" {
			return ""
		}
		return s + "\n"
	}
	return ""
}

// isPySpace is Python's str.isspace for one character, which rstrip uses:
// Unicode white space plus the separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}
