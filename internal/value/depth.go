package value

// MaxDepth bounds the nesting depth of the data brine's serialisers write
// (json, tojson, yaml, the YAML dumper) and its YAML loader reads. CPython
// stops such recursions with a RecursionError near its recursion limit
// (1000 frames, a few frames a level); brine stops at the same depth
// everywhere, before the cost of the output (quadratic in the depth for
// indented formats) or of the recursion grows.
const MaxDepth = 500

// DepthError is the error of data nested deeper than MaxDepth; callers
// that speak Python report it as a RecursionError.
type DepthError struct {
	// Doing is what was under way: "encoding a JSON object",
	// "representing a YAML object", "constructing a YAML node".
	Doing string
}

func (e *DepthError) Error() string {
	return "maximum recursion depth exceeded while " + e.Doing
}
