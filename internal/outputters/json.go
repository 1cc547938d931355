package outputters

import (
	"brine/internal/output"
	"brine/internal/value"
)

func init() {
	output.Register("json", jsonOut, "JSON, indented by 4 (--out-indent), key order kept, non-ASCII unescaped (salt/output/json_out.py).")
}

// jsonOut mirrors json_out.output: salt.utils.json.dumps with default=repr,
// ensure_ascii=False, indent 4 unless --out-indent says otherwise (negative
// means a single line).
func jsonOut(data any, o *output.Options) (string, error) {
	opts := value.JSONOptions{Indent: 4}
	if o.HasIndent {
		opts.Indent = o.Indent
		if o.Indent < 0 {
			opts.Indent = -1
		}
	}
	return value.ToJSON(data, opts), nil
}
