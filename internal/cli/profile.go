package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the profiles the environment asks for:
// BRINE_CPUPROFILE=FILE (CPU, for the whole command) and
// BRINE_MEMPROFILE=FILE (heap allocations, written at the end). Read them
// with `go tool pprof brine FILE`. The returned function stops and writes
// them.
func startProfiles(stderr io.Writer) func() {
	var stops []func()
	if path := os.Getenv("BRINE_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(stderr, "BRINE_CPUPROFILE:", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "BRINE_CPUPROFILE:", err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("BRINE_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			f, err := os.Create(path)
			if err != nil {
				fmt.Fprintln(stderr, "BRINE_MEMPROFILE:", err)
				return
			}
			defer f.Close()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintln(stderr, "BRINE_MEMPROFILE:", err)
			}
		})
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
