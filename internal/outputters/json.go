package outputters

import (
	"fmt"

	"brine/internal/output"
	"brine/internal/value"
)

func init() {
	output.Register("json", jsonOut, "JSON, indented by 4 (--out-indent), key order kept, non-ASCII unescaped (salt/output/json_out.py).")
}

// indentOpt is the output_indent option (--out-indent or the config
// file), and whether it is set at all.
func indentOpt(o *output.Options) (any, bool) {
	if o.Opts != nil {
		if v, ok := o.Opts.Get("output_indent"); ok {
			return v, true
		}
	}
	if o.HasIndent {
		return int64(o.Indent), true
	}
	return nil, false
}

// jsonOut mirrors json_out.output: salt.utils.json.dumps with default=repr
// and ensure_ascii=False. Without output_indent it indents by 4; None or a
// negative number gives one line, "pretty" indents by 4 with keys sorted.
func jsonOut(data any, o *output.Options) (string, error) {
	opts := value.JSONOptions{Indent: 4}
	if v, ok := indentOpt(o); ok {
		switch x := v.(type) {
		case nil:
			opts.Indent = -1
		case string:
			if x != "pretty" {
				// json.dumps would indent by this literal string.
				return "", fmt.Errorf("unsupported output_indent %s", value.Repr(x))
			}
			opts.SortKeys = true
		case bool:
			opts.Indent = 0
			if x {
				opts.Indent = 1
			}
		case int64:
			opts.Indent = int(x)
			if x < 0 {
				opts.Indent = -1
			}
		default:
			return "", fmt.Errorf("unsupported output_indent %s", value.Repr(x))
		}
	}
	return value.ToJSON(data, opts), nil
}
