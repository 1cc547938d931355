package pyext

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"brine/internal/grains"
	"brine/internal/value"
)

func init() {
	grains.CustomHook = customGrains
	grains.ReleaseHook = func() {
		if w := takeEarly(); w != nil {
			_ = w.Close()
		}
	}
}

// early is a worker started for grain collection, before the run's
// execution context exists; the run adopts it (WorkerFor).
var (
	earlyMu sync.Mutex
	early   *Worker
)

func takeEarly() *Worker {
	earlyMu.Lock()
	defer earlyMu.Unlock()
	w := early
	early = nil
	return w
}

// customGrains runs the custom grain modules of the cache (none: no
// Python runs) and returns their merged grains.
func customGrains(opts, core *value.Map) *value.Map {
	if !hasPython(opts, "grains") {
		return nil
	}
	earlyMu.Lock()
	defer earlyMu.Unlock()
	w := early
	if w == nil {
		var err error
		w, err = Start(baseDir(opts), opts)
		if err != nil {
			slog.Error(fmt.Sprintf("The custom grains in %s need Python: %s", filepath.Join(ExtmodsDir(opts), "grains"), err))
			return nil
		}
		w.Timeout = timeoutOf(opts)
		early = w
	}
	g, err := runGrains(w, opts, core)
	if err != nil {
		slog.Error(fmt.Sprintf("Custom grains failed: %s", err))
		return nil
	}
	return g
}

// runGrains loads the grain modules into w and runs them (one round
// trip).
func runGrains(w *Worker, opts, core *value.Map) (*value.Map, error) {
	rets, err := w.Batch([]*value.Map{
		value.MapOf("op", "init", "opts", opts, "grains", core),
		value.MapOf("op", "load", "kind", "grains", "root", filepath.Join(ExtmodsDir(opts), "grains")),
		value.MapOf("op", "grains"),
	})
	if err != nil {
		return nil, err
	}
	for _, r := range rets {
		if r.Err != nil {
			return nil, r.Err
		}
	}
	if m, ok := rets[1].Value.(*value.Map); ok {
		logLoadErrors(m)
	}
	out := rets[2].Value
	m, _ := out.(*value.Map)
	if m == nil {
		return nil, nil
	}
	for _, e := range listOf(m, "errors") {
		if em, ok := e.(*value.Map); ok {
			// Salt logs it at CRITICAL (slog.LevelError+4) and goes on
			slog.Log(context.Background(), slog.LevelError+4, fmt.Sprintf("Failed to load grains defined in grain file %s in function %s, error:\n%s",
				str(em, "key"), str(em, "fn"), str(em, "tb")))
		}
	}
	g, _ := m.Get("grains")
	gm, _ := g.(*value.Map)
	return gm, nil
}
