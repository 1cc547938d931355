package pkgmgr

import (
	"context"
	"testing"
	"time"

	"brine/internal/system"
)

// lockedRunner fails with apt's lock message the first locked runs.
type lockedRunner struct {
	locked, runs int
}

func (r *lockedRunner) Run(context.Context, system.Cmd) (system.Result, error) {
	r.runs++
	if r.runs <= r.locked {
		return system.Result{Code: 100, Stderr: "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 1 (apt-get)"}, nil
	}
	return system.Result{Stdout: "done"}, nil
}

func TestLockRetry(t *testing.T) {
	for _, tc := range []struct {
		name         string
		locked       int
		wantRuns     int
		wantWaits    []time.Duration
		wantUnlocked bool
	}{
		{"free", 0, 1, nil, true},
		{"locked twice", 2, 3, []time.Duration{2 * time.Second, 4 * time.Second}, true},
		{"always locked", 99, 11, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &lockedRunner{locked: tc.locked}
			var waits []time.Duration
			l := lockRetry{Runner: r, sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			res, err := l.Run(context.Background(), system.Cmd{Name: "apt-get"})
			if err != nil {
				t.Fatal(err)
			}
			if r.runs != tc.wantRuns {
				t.Errorf("runs = %d, want %d", r.runs, tc.wantRuns)
			}
			if (res.Code == 0) != tc.wantUnlocked {
				t.Errorf("result %+v", res)
			}
			if tc.wantWaits != nil && len(waits) != len(tc.wantWaits) {
				t.Fatalf("waits %v, want %v", waits, tc.wantWaits)
			}
			for i, w := range tc.wantWaits {
				if waits[i] != w {
					t.Errorf("wait %d = %v, want %v", i, waits[i], w)
				}
			}
			if tc.locked == 99 && waits[len(waits)-1] != 1024*time.Second {
				t.Errorf("last wait %v", waits[len(waits)-1])
			}
		})
	}
}
