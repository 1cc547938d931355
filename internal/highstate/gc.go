package highstate

import (
	"os"
	"runtime/debug"
	"sync"
)

// gcPercent is the garbage collector's target for a compile: rendering and
// compiling allocate many short-lived values while the live heap stays
// small, so with Go's default of 100 the collector runs often and costs
// about a third of the CPU time (10,000 states: 0.66 s CPU at 100, 0.34 s
// at 400, for 30 MB more peak memory).
const gcPercent = 400

// gcMemoryLimit keeps the larger target from growing the heap on very
// large trees: past it the collector runs as often as it needs to (100,000
// states: 4.9 s CPU and 537 MB peak, against 6.8 s and 445 MB at GOGC=100
// and 4.1 s and 830 MB at 400 without a limit).
const gcMemoryLimit = 512 << 20

var tuneGCOnce sync.Once

// tuneGC raises the collector's target for the rest of the process, unless
// the user set GOGC or GOMEMLIMIT.
func tuneGC() {
	tuneGCOnce.Do(func() {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
			return
		}
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(gcMemoryLimit)
	})
}
