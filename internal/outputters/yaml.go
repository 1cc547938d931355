package outputters

import (
	"brine/internal/output"
	"brine/internal/yamlload"
)

func init() {
	output.Register("yaml", yamlOut, "YAML in block style, keys sorted, as salt.utils.yaml.safe_dump writes it (salt/output/yaml_out.py).")
}

// yamlOut mirrors yaml_out.output: block style by default, --out-indent
// setting the indentation, a negative indent giving flow style.
func yamlOut(data any, o *output.Options) (string, error) {
	opts := yamlload.SaltDumpOptions()
	opts.DefaultFlowStyle = yamlload.FlowStyle(false)
	if o.HasIndent {
		if o.Indent >= 0 {
			opts.Indent = o.Indent
		} else {
			opts.DefaultFlowStyle = yamlload.FlowStyle(true)
			opts.Indent = 0
		}
	}
	return yamlload.Dump(data, opts)
}
