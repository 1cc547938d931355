package jinjasalt

import (
	"fmt"
	"sort"

	"brine/internal/value"
)

// Kind says where an entry is registered in a Jinja environment.
type Kind int

// The kinds of entries.
const (
	Filter Kind = iota // used as {{ x | name }}
	Test               // used as {{ x is name }}
	Global             // used as {{ name(...) }}
)

// String returns "filter", "test" or "global".
func (k Kind) String() string {
	switch k {
	case Filter:
		return "filter"
	case Test:
		return "test"
	}
	return "global"
}

// Entry is one filter, test or global. For filters and tests the first
// positional argument is the value being filtered or tested.
type Entry struct {
	Name string
	Kind Kind
	Fn   value.Func
	// Salt is where Salt defines it ("salt/utils/data.py"), for docs.
	Salt string
}

var registry = [3]map[string]*Entry{{}, {}, {}}

// register adds an entry; a duplicate name panics (registration happens in
// init functions, so this is a programming error).
func register(kind Kind, name, salt string, fn value.Func) {
	if name == "" || fn == nil {
		panic("jinjasalt: malformed registration")
	}
	if _, dup := registry[kind][name]; dup {
		panic(fmt.Sprintf("jinjasalt: duplicate %s %q", kind, name))
	}
	registry[kind][name] = &Entry{Name: name, Kind: kind, Fn: fn, Salt: salt}
}

// Lookup returns the registered entry of the given kind.
func Lookup(kind Kind, name string) (*Entry, bool) {
	e, ok := registry[kind][name]
	return e, ok
}

// Entries returns every entry of a kind, sorted by name.
func Entries(kind Kind) []*Entry {
	out := make([]*Entry, 0, len(registry[kind]))
	for _, e := range registry[kind] {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
