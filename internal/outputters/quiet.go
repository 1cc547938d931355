package outputters

import "brine/internal/output"

func init() {
	output.Register("quiet", quietOut, "Prints nothing (salt/output/no_out.py).")
}

func quietOut(any, *output.Options) (string, error) { return "", nil }
