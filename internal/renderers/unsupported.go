package renderers

import "brine/internal/render"

// Salt renderers brine does not implement: naming one in a pipeline fails
// with a clear error rather than an unknown-renderer empty result.
func init() {
	for name, why := range map[string]string{
		"mako":      "Mako templates need a Python runtime; use jinja",
		"wempy":     "Wempy templates need a Python runtime; use jinja",
		"cheetah":   "Cheetah templates need a Python runtime; use jinja",
		"genshi":    "Genshi templates need a Python runtime; use jinja",
		"pyobjects": "Python SLS files need a Python runtime",
		"pydsl":     "Python SLS files need a Python runtime",
		"stateconf": "not implemented",
		"yamlex":    "not implemented",
		"hjson":     "not implemented",
		"json5":     "not implemented",
		"dson":      "not implemented",
		"msgpack":   "not implemented",
		"toml":      "not implemented",
		"aws_kms":   "not implemented",
		"nacl":      "not implemented",
		"pass":      "not implemented",
	} {
		render.RegisterUnsupported(name, why)
	}
}
