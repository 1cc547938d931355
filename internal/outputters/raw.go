package outputters

import (
	"brine/internal/output"
	"brine/internal/value"
)

func init() {
	output.Register("raw", rawOut, "Python's str() of the data (salt/output/raw.py).")
}

func rawOut(data any, _ *output.Options) (string, error) {
	return value.Str(data), nil
}
