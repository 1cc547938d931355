package renderers

import (
	"errors"

	"brine/internal/render"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	render.RegisterData("yaml", renderYAML, "YAML with Salt's loader rules (salt/renderers/yaml.py).")
}

// renderYAML mirrors salt/renderers/yaml.py: scanner errors report the
// problem and its line, parser and constructor errors the whole message;
// other loader failures escape as plain errors. Falsy data is an empty
// mapping, and a mapping used as a key is "possible double curly-brace".
func renderYAML(src string, rc *render.Context, _ string) (any, error) {
	name := ""
	if rc != nil {
		name = rc.Path
	}
	data, err := yamlload.Load([]byte(src), name)
	if err != nil {
		var ye *yamlload.Error
		if errors.As(err, &ye) {
			switch ye.Kind {
			case yamlload.ScannerError:
				return nil, &render.Error{Msg: ye.Problem, Line: ye.Line(), File: name, Col: ye.Column(), Err: err}
			case yamlload.ParserError, yamlload.ConstructorError:
				return nil, &render.Error{Msg: ye.Error(), File: name, Line: ye.Line(), Col: ye.Column(), Err: err}
			}
		}
		return nil, err
	}
	if !value.Truthy(data) {
		return value.NewMap(0), nil
	}
	if yamlload.HasMapKey(data) {
		return nil, &render.Error{Msg: "Invalid YAML, possible double curly-brace", File: name}
	}
	return data, nil
}
