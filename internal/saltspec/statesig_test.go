package saltspec_test

import (
	"slices"
	"strings"
	"testing"

	"brine/internal/saltspec"
	"brine/internal/statemod"
)

// TestStateSignatures holds every state function brine registers to the
// signature of Salt 3006's: the same parameter names, and **kwargs
// exactly where Salt's takes it. A state given a keyword its Python
// function does not take stops the whole run in Salt (format_call raises
// before the state's try), so a brine function that took fewer or more
// keywords than Salt's would stop runs Salt completes, or the reverse.
func TestStateSignatures(t *testing.T) {
	for _, name := range statemod.Default.Names() {
		f, _ := statemod.Default.Lookup(name)
		sf, ok := saltspec.Lookup(saltspec.State, name)
		if !ok || strings.HasSuffix(name, ".mod_aggregate") || strings.HasSuffix(name, ".mod_init") {
			// brine's own, or called by the engine with fixed arguments
			// (Salt's mod_aggregate and mod_init skip format_call)
			continue
		}
		if f.Kwargs != sf.TakesKwargs() {
			t.Errorf("%s: brine takes **kwargs %v, Salt %v", name, f.Kwargs, sf.TakesKwargs())
		}
		if f.Kwargs {
			continue
		}
		var mine []string
		for _, p := range f.Params {
			mine = append(mine, p.Name)
		}
		for _, p := range sf.ParamNames() {
			if !slices.Contains(mine, p) {
				t.Errorf("%s: Salt's parameter %s is missing (brine: %s)", name, p, strings.Join(mine, ","))
			}
		}
		for _, p := range mine {
			if !sf.Accepts(p) {
				t.Errorf("%s: parameter %s is not Salt's (Salt: %s)", name, p, strings.Join(sf.ParamNames(), ","))
			}
		}
	}
}
