// Package builtin links brine's standard plugins (renderers, outputters,
// execution and state modules, the state.* functions) into a binary by
// importing them for their init() registrations.
package builtin

import (
	_ "brine/internal/highstate"
	_ "brine/internal/modules"
	_ "brine/internal/outputters"
	_ "brine/internal/renderers"
	_ "brine/internal/states"
)
