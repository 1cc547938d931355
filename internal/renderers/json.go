package renderers

import (
	"strings"

	"brine/internal/render"
	"brine/internal/value"
)

func init() {
	render.RegisterData("json", renderJSON, "JSON (salt/renderers/json.py): a first #! line is dropped, blank input is an empty mapping; errors are Python json.loads texts.")
}

func renderJSON(src string, _ *render.Context, _ string) (any, error) {
	if strings.HasPrefix(src, "#!") {
		// Python's find gives -1 without a newline: the text is kept.
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			src = src[i+1:]
		}
	}
	if strings.TrimSpace(src) == "" {
		return value.NewMap(0), nil
	}
	return loadsPyJSON(src)
}
