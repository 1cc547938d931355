package grains

import (
	"os"
	"testing"
	"time"

	"brine/internal/value"
)

func TestDumpCore(t *testing.T) {
	if os.Getenv("GRAINS_DUMP") == "" {
		t.Skip("set GRAINS_DUMP=1 to print the grains")
	}
	start := time.Now()
	g := Core("vm")
	t.Log(time.Since(start))
	s := value.ToJSON(g, value.JSONOptions{Indent: 1})
	t.Log(s)
}
