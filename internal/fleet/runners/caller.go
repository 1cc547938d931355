package runners

import (
	"context"

	"brine/internal/value"
)

// Caller runs runner functions for the master's reactor (runner.*
// reactions): each call gets a context of its own, with the master's
// options, whose connection is closed when the call ends.
type Caller struct {
	Opts *value.Map
}

// CallRunner runs the runner function fun.
func (c Caller) CallRunner(ctx context.Context, fun string, args []any, kwargs *value.Map) (any, error) {
	rc := NewContext(ctx, c.Opts)
	rc.User = "Reactor"
	defer rc.Close()
	return rc.Call(fun, args, kwargs)
}
