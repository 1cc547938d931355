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

// gcMemoryLimit is the soft memory limit set with the larger target: it
// keeps the heap from growing five-fold on very large trees; past it the
// collector runs as often as it needs to. Measured on the generated mix
// tree of 100,000 states (show_lowstate, 2 cores): 1.1-1.4 s wall and
// 490-500 MB peak RSS with a limit of a quarter of the machine's memory,
// 1.2-1.3 s and 415 MB at 400 MiB, 1.3-1.4 s and 337 MB at 300 MiB. A
// tree whose live data passes the limit still compiles, with the collector
// taking up to half of the CPU.
const gcMemoryLimit = 400 << 20

var tuneGCOnce sync.Once

// TuneGC raises the collector's target for the rest of the process, unless
// the user set GOGC or GOMEMLIMIT. NewRun calls it; a command that compiles
// pillar or renders before its first Run may call it earlier.
func TuneGC() {
	tuneGCOnce.Do(func() {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
			return
		}
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(gcMemoryLimit)
	})
}
