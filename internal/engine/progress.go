package engine

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// TerminalProgress returns a RunOptions.Progress callback that shows
// "[N/M] id" on one line of w (a terminal's stderr), redrawn in place and
// at most every interval, and a function that erases the line at the end
// of the run. It writes nothing for runs shorter than delay, so quick runs
// leave the terminal untouched.
func TerminalProgress(w io.Writer, delay, interval time.Duration) (progress func(done, total int, id string), finish func()) {
	var mu sync.Mutex
	start := time.Now()
	var last time.Time
	shown := false
	progress = func(done, total int, id string) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if now.Sub(start) < delay || now.Sub(last) < interval {
			return
		}
		last = now
		line := fmt.Sprintf("[%d/%d] %s", done+1, total, id)
		if len(line) > 78 {
			line = line[:77] + "…"
		}
		fmt.Fprintf(w, "\r\x1b[K%s", line)
		shown = true
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		if shown {
			fmt.Fprint(w, "\r\x1b[K")
		}
	}
	return progress, finish
}
