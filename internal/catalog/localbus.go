package catalog

// localbus.go lets state.event watch the minion daemon's own event bus
// from a run that has no session with it (brine call --local, as
// salt-call --local does): internal/fleet/minion plugs in its client.

import (
	"sync"

	"brine/internal/value"
)

// LocalBus subscribes to node's bus for the minion of opts (sockDir,
// when set, overrides its sock_dir): next blocks for the next event
// (tag, data); stop ends the subscription.
type LocalBus func(opts *value.Map, node, sockDir string) (next func() (string, any, error), stop func(), err error)

var (
	busMu    sync.RWMutex
	localBus LocalBus
)

// SetLocalBus plugs in the bus client (once, from an init()).
func SetLocalBus(f LocalBus) {
	busMu.Lock()
	defer busMu.Unlock()
	if localBus != nil {
		panic("catalog: duplicate local bus")
	}
	localBus = f
}

// LocalBusClient returns the bus client, nil when the program has none.
func LocalBusClient() LocalBus {
	busMu.RLock()
	defer busMu.RUnlock()
	return localBus
}
