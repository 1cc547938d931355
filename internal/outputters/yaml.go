package outputters

import (
	"fmt"

	"brine/internal/output"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	output.Register("yaml", yamlOut, "YAML in block style, keys sorted, as salt.utils.yaml.safe_dump writes it (salt/output/yaml_out.py).")
}

// yamlOut mirrors yaml_out.output: block style by default, output_indent
// setting the indentation, a negative indent giving flow style. An
// output_indent that is not a number cannot be compared with 0 in Salt, so
// the output falls back to nested.
func yamlOut(data any, o *output.Options) (string, error) {
	opts := yamlload.SaltDumpOptions()
	opts.DefaultFlowStyle = yamlload.FlowStyle(false)
	if v, ok := indentOpt(o); ok {
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case bool:
			if x {
				n = 1
			}
		default:
			return "", fmt.Errorf("TypeError: '>=' not supported between instances of %s and 'int'", value.Repr(value.TypeName(v)))
		}
		if n >= 0 {
			opts.Indent = int(n)
		} else {
			opts.DefaultFlowStyle = yamlload.FlowStyle(true)
			opts.Indent = 0
		}
	}
	return yamlload.Dump(data, opts)
}
