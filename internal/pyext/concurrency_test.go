package pyext

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestConcurrentRequests calls Python from several goroutines at once, as
// states with parallel: True do, each call making nested requests back
// into Go and into Python again (probe.via_salt calls the Go test.echo and
// the Python probe.list): frames must not interleave and every goroutine
// must get its own answer. Run it with -race.
func TestConcurrentRequests(t *testing.T) {
	needPython(t)
	ctx, _ := tree(t, map[string]string{"_modules/probe.py": probeModule})
	syncAndLoad(t, ctx)
	// a call back that takes a while widens the window in which another
	// goroutine could write its frame between a call and its reply
	ctx.Registry.Replace("test.echo", func(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
		time.Sleep(time.Millisecond)
		return args[0], nil
	}, "")
	const goroutines, calls = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*calls)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// the engine gives a parallel state a copy of the run's context
			ex := *ctx
			ex.NewCache()
			for i := range calls {
				word := fmt.Sprintf("g%d-%d", g, i)
				got, err := ex.Call("probe.via_salt", []any{word}, nil)
				if err != nil {
					errs <- err
					return
				}
				if got != word+"/a" {
					errs <- fmt.Errorf("probe.via_salt(%s) = %v", word, got)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestNestedHandlerContext checks that the calls back of a request are
// served in the context of the function that made it.
func TestNestedHandlerContext(t *testing.T) {
	needPython(t)
	ctx, _ := tree(t, map[string]string{"_modules/probe.py": probeModule})
	syncAndLoad(t, ctx)
	ex := *ctx
	ex.Registry = ctx.Registry.Clone()
	ex.Registry.Replace("test.echo", func(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
		return "copy", nil
	}, "")
	got, err := ex.Call("probe.via_salt", []any{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != "copy/a" {
		t.Errorf("probe.via_salt in a copied context = %v, want copy/a (served by the copy's registry)", got)
	}
}
