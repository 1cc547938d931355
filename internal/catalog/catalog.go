// Package catalog lets the execution modules list functions of registries
// they may not import: the runner and returner registries of
// internal/fleet sit above the plugin packages, so they register a
// Catalog here in init() and sys.list_runners and friends read it.
package catalog

import (
	"fmt"
	"sort"
	"sync"
)

// Catalog is a read-only view of a function registry.
type Catalog interface {
	// Names returns the full names ("mod.fun") of the functions, sorted.
	Names() []string
	// Doc returns the documentation of the function name.
	Doc(name string) string
}

// The kinds of catalog brine has.
const (
	Runners   = "runner"
	Returners = "returner"
)

var (
	mu       sync.RWMutex
	catalogs = map[string]Catalog{}
)

// Register makes c the catalog of kind. It panics when kind has one.
func Register(kind string, c Catalog) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := catalogs[kind]; dup {
		panic(fmt.Sprintf("catalog: duplicate catalog %q", kind))
	}
	catalogs[kind] = c
}

// Lookup returns the catalog of kind, or an empty one when no package of
// that kind is linked in.
func Lookup(kind string) Catalog {
	mu.RLock()
	defer mu.RUnlock()
	if c, ok := catalogs[kind]; ok {
		return c
	}
	return Static(nil)
}

// Static is a catalog of fixed names and docs (for tests).
type Static map[string]string

// Names returns the names, sorted.
func (s Static) Names() []string {
	out := make([]string, 0, len(s))
	for n := range s {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Doc returns the doc of name.
func (s Static) Doc(name string) string { return s[name] }
