package client

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// event is something that happens to a waiter at a time, in tenths of a
// second after publication.
type event struct {
	at      int
	ret     string   // a minion returns
	pres    []string // the master's presence answer: these are absent ("-" for none)
	ans     string   // a minion answers find_job
	running bool     // ... saying it runs the job
}

// TestWaiter plays events against a waiter on a fake clock ticking every
// tenth of a second and checks what it asks and gives up on, and when.
func TestWaiter(t *testing.T) {
	const timeout, gather = 5 * time.Second, 10 * time.Second
	cases := []struct {
		name   string
		ids    []string
		events []event
		want   []string // "T ask a,b" or "T fail a why"; T in tenths
		end    int      // when the waiter is done
	}{{
		name:   "every minion returns before the timeout",
		ids:    []string{"a", "b"},
		events: []event{{at: 3, ret: "a"}, {at: 12, ret: "b"}},
		end:    12,
	}, {
		name: "a long job: asked each timeout, waited for while it runs",
		ids:  []string{"a"},
		events: []event{
			{at: 55, ans: "a", running: true}, // round ends a second later (65)
			{at: 120, ans: "a", running: true},
			{at: 200, ret: "a"},
		},
		want: []string{"50 ask a", "115 ask a", "180 ask a"},
		end:  200,
	}, {
		name: "a later return still counts when the minion said it runs the job",
		ids:  []string{"a"},
		events: []event{
			{at: 51, ans: "a", running: true},
			{at: 113, ret: "a"},
		},
		want: []string{"50 ask a", "111 ask a"},
		end:  113,
	}, {
		name:   "no answer: given up on after gather_job_timeout",
		ids:    []string{"a", "b"},
		events: []event{{at: 1, ret: "b"}},
		want:   []string{"50 ask a", "150 fail a no response"},
		end:    150,
	}, {
		name:   "an empty answer: given up on once the round settles",
		ids:    []string{"a"},
		events: []event{{at: 53, ans: "a"}},
		want:   []string{"50 ask a", "63 fail a no response"},
		end:    63,
	}, {
		name: "the return in flight behind an empty answer is not missed",
		ids:  []string{"a"},
		events: []event{
			{at: 53, ans: "a"},
			{at: 58, ret: "a"},
		},
		want: []string{"50 ask a"},
		end:  58,
	}, {
		name: "a connection dropped during the job: reported after three answers saying so",
		ids:  []string{"a", "b"},
		events: []event{
			{at: 0, pres: []string{"-"}},
			{at: 30, pres: []string{"a"}},
			{at: 31, pres: []string{"a"}},
			{at: 32, pres: []string{"a"}},
			{at: 40, ret: "b"},
		},
		want: []string{"32 fail a not connected"},
		end:  40,
	}, {
		name: "a blip: absent once or twice, then back, is waited for",
		ids:  []string{"a"},
		events: []event{
			{at: 0, pres: []string{"-"}},
			{at: 10, pres: []string{"a"}},
			{at: 20, pres: []string{"a"}},
			{at: 30, pres: []string{"-"}},
			{at: 40, pres: []string{"a"}},
			{at: 45, ret: "a"},
		},
		end: 45,
	}, {
		name: "not connected at publication: reported at the timeout, not asked",
		ids:  []string{"a", "b"},
		events: []event{
			{at: 0, pres: []string{"a"}},
			{at: 30, pres: []string{"a"}},
			{at: 52, ans: "b", running: true},
			{at: 70, ret: "b"},
		},
		want: []string{"50 fail a not connected", "50 ask b"},
		end:  70,
	}, {
		name: "connecting after publication: waited for like the others",
		ids:  []string{"a"},
		events: []event{
			{at: 0, pres: []string{"a"}},
			{at: 20, pres: []string{"-"}},
			{at: 80, ret: "a"},
		},
		want: []string{"50 ask a"},
		end:  80,
	}, {
		name: "one runs, one does not: the other is asked again, and reported when none runs",
		ids:  []string{"a", "b"},
		events: []event{
			{at: 52, ans: "a", running: true},
			{at: 53, ans: "b"},
			{at: 115, ans: "b"},
			{at: 120, ret: "a"},
		},
		want: []string{"50 ask a,b", "113 ask a,b", "125 fail b no response"},
		end:  125,
	}, {
		name: "running, then its connection drops",
		ids:  []string{"a"},
		events: []event{
			{at: 0, pres: []string{"-"}},
			{at: 51, ans: "a", running: true},
			{at: 90, pres: []string{"a"}},
			{at: 100, pres: []string{"a"}},
			{at: 105, pres: []string{"a"}},
		},
		want: []string{"50 ask a", "105 fail a not connected"},
		end:  105,
	}, {
		name: "given up on at a round's end: not connected if the master last said so",
		ids:  []string{"a"},
		events: []event{
			{at: 0, pres: []string{"-"}},
			{at: 51, ans: "a", running: true},
			{at: 70, pres: []string{"a"}},
		},
		want: []string{"50 ask a", "111 ask a", "211 fail a not connected"},
		end:  211,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Unix(1000, 0)
			at := func(n int) time.Time { return t0.Add(time.Duration(n) * 100 * time.Millisecond) }
			w := newWaiter(tc.ids, t0, timeout, gather)
			var got []string
			fails := func(n int, fs []Failed) {
				for _, f := range fs {
					why := map[Failure]string{NoResponse: "no response", NotConnected: "not connected"}[f.Why]
					got = append(got, fmt.Sprintf("%d fail %s %s", n, f.ID, why))
				}
			}
			end := -1
			for n := 0; n <= 1000 && end < 0; n++ {
				for _, e := range tc.events {
					if e.at != n {
						continue
					}
					switch {
					case e.ret != "":
						w.returned(e.ret)
					case e.ans != "":
						w.answered(e.ans, e.running, at(n))
					case e.pres != nil:
						absent := map[string]bool{}
						for _, id := range e.pres {
							absent[id] = true
						}
						fails(n, w.presence(absent))
					}
				}
				ask, fs := w.tick(at(n))
				fails(n, fs)
				if len(ask) > 0 {
					got = append(got, fmt.Sprintf("%d ask %s", n, strings.Join(ask, ",")))
				}
				if !w.done() && w.wake().Before(at(n)) {
					t.Fatalf("at %d: wake %v is past", n, w.wake().Sub(t0))
				}
				if w.done() {
					end = n
				}
			}
			if !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if end != tc.end {
				t.Errorf("done at %d, want %d", end, tc.end)
			}
		})
	}
}

// TestWaiterIgnoresStrays: answers from minions not asked, and returns of
// minions given up on, change nothing.
func TestWaiterIgnoresStrays(t *testing.T) {
	t0 := time.Unix(0, 0)
	w := newWaiter([]string{"a"}, t0, time.Second, time.Second)
	w.answered("a", true, t0) // not asked yet
	if w.returned("zz") {
		t.Error("a return of a minion never waited for counted")
	}
	ask, _ := w.tick(t0.Add(time.Second))
	if len(ask) != 1 {
		t.Fatalf("ask %v", ask)
	}
	w.answered("zz", true, t0.Add(time.Second))
	_, fs := w.tick(t0.Add(2 * time.Second))
	if len(fs) != 1 || fs[0].Why != NoResponse {
		t.Fatalf("failed %v", fs)
	}
	if w.returned("a") {
		t.Error("a return after giving up counted")
	}
}
