package highstate

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// gcPercent is the garbage collector's target for a compile: rendering and
// compiling allocate many short-lived values while the live heap stays
// small, so with Go's default of 100 the collector runs often and costs
// about a third of the CPU time (10,000 states: 0.66 s CPU at 100, 0.34 s
// at 400, for 30 MB more peak memory).
const gcPercent = 400

// gcMemoryFloor is the least soft memory limit set with the larger target;
// the limit keeps the heap from growing five-fold on very large trees: past
// it the collector runs as often as it needs to (100,000 states: 4.9 s CPU
// and 537 MB peak at 512 MiB, against 6.8 s and 445 MB at GOGC=100 and
// 4.1 s and 830 MB at 400 without a limit). On machines with more memory
// the limit is a quarter of it, so that a tree whose live data nears the
// floor does not make the collector run continuously.
const gcMemoryFloor = 512 << 20

// gcMemoryLimit returns max(gcMemoryFloor, MemTotal/4).
func gcMemoryLimit() int64 {
	limit := int64(gcMemoryFloor)
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return limit
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb*1024/4 > limit {
					limit = kb * 1024 / 4
				}
			}
			break
		}
	}
	return limit
}

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
		debug.SetMemoryLimit(gcMemoryLimit())
	})
}
