package runners

import "brine/internal/catalog"

// The runner functions as sys.list_runners and sys.runner_doc list them
// (the execution modules cannot import this package).
func init() { catalog.Register(catalog.Runners, docCatalog{Default}) }

// docCatalog is a Registry seen as a catalog.Catalog.
type docCatalog struct{ r *Registry }

func (d docCatalog) Names() []string { return d.r.Names() }

func (d docCatalog) Doc(name string) string {
	if e, ok := d.r.Lookup(name); ok {
		return e.Doc
	}
	return ""
}
