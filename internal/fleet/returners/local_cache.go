package returners

// local_cache.go is salt/returners/local_cache.py. brine's job store is
// the master's JetStream buckets: every minion sends every return there
// and the master stores it (and its events) whatever returners a job
// names, so the returner has nothing left to send. It exists so that
// `--return local_cache`, a schedule's `returner: local_cache` and
// `event_return: local_cache` are accepted as Salt accepts them.

import "brine/internal/value"

func init() {
	Register(&Returner{
		Name: "local_cache",
		Doc:  "The master's job store (JetStream): every return and event is kept there already.",
		Return: func(Config, *value.Map) error {
			return nil
		},
		EventReturn: func(Config, []*value.Map) error {
			return nil
		},
	})
}
