package returners

import (
	"strings"

	"brine/internal/catalog"
)

// The returners as sys.list_returners and sys.returner_doc list them
// (the execution modules cannot import this package): each has its
// returner function, and event_return when it takes events.
func init() { catalog.Register(catalog.Returners, docCatalog{Default}) }

// docCatalog is a Registry seen as a catalog.Catalog.
type docCatalog struct{ g *Registry }

func (d docCatalog) Names() []string {
	var out []string
	for _, n := range d.g.Names() {
		r, _ := d.g.Lookup(n)
		if r.EventReturn != nil {
			out = append(out, n+".event_return")
		}
		out = append(out, n+".returner")
	}
	return out
}

func (d docCatalog) Doc(name string) string {
	mod, fun, _ := strings.Cut(name, ".")
	r, ok := d.g.Lookup(mod)
	switch {
	case !ok:
		return ""
	case fun == "event_return" && r.EventReturn != nil:
		return "Send a batch of events to " + mod + "."
	case fun == "returner":
		return r.Doc
	}
	return ""
}
