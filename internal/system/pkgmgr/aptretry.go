package pkgmgr

import (
	"context"
	"strings"
	"time"

	"brine/internal/system"
)

// lockRetry runs apt commands again while they fail only because another
// process holds the dpkg lock, as Salt's aptpkg does: up to 10 more
// tries, waiting 2, 4, 8, ... seconds before each.
type lockRetry struct {
	system.Runner
	sleep func(context.Context, time.Duration) error
}

// aptLockRetries is how many times a locked command is run again.
const aptLockRetries = 10

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Run runs c, again after a pause while its stderr says the lock is held.
func (l lockRetry) Run(ctx context.Context, c system.Cmd) (system.Result, error) {
	sleep := l.sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	res, err := l.Runner.Run(ctx, c)
	for n := 1; n <= aptLockRetries && err == nil && strings.Contains(res.Stderr, "Could not get lock"); n++ {
		if serr := sleep(ctx, time.Duration(1<<n)*time.Second); serr != nil {
			return res, nil
		}
		res, err = l.Runner.Run(ctx, c)
	}
	return res, err
}
