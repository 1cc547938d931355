package returners_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"brine/internal/fleet/returners"
	"brine/internal/value"
)

// TestEventReturner checks Salt's EventReturn rules: the white and black
// lists, batches of event_return_queue events, the age limit checked as
// events arrive, the flush at shutdown, and a returner without
// event_return reported.
func TestEventReturner(t *testing.T) {
	var batches [][]string
	reg := returners.NewRegistry()
	reg.Register(&returners.Returner{
		Name:   "rec",
		Return: func(returners.Config, *value.Map) error { return nil },
		EventReturn: func(_ returners.Config, evs []*value.Map) error {
			var tags []string
			for _, ev := range evs {
				tag, _ := ev.Get("tag")
				tags = append(tags, value.Str(tag))
			}
			batches = append(batches, tags)
			return nil
		},
	})
	reg.Register(&returners.Returner{Name: "noevents", Return: func(returners.Config, *value.Map) error { return nil }})
	var logged []string
	newER := func(opts string) *returners.EventReturner {
		er := returners.NewEventReturner(returners.Config{Opts: yamlMap(t, opts)}, func(msg string, args ...any) {
			logged = append(logged, msg+" "+fmt.Sprint(args...))
		})
		if er != nil {
			er.Reg = reg
		}
		return er
	}
	if newER(`{"event_return": ""}`) != nil {
		t.Fatal("an EventReturner without event_return")
	}
	t0 := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, opts string
		tags       []string
		at         []int // seconds after t0 of each event
		want       string
	}{
		{"each event at once", `{"event_return": "rec"}`, []string{"a", "b"}, nil, "a|b"},
		{"queue of 2, the rest at shutdown", `{"event_return": ["rec"], "event_return_queue": 2}`, []string{"a", "b", "c"}, nil, "a,b|c"},
		{"whitelist and blacklist", `{"event_return": "rec", "event_return_whitelist": ["salt/job/*"], "event_return_blacklist": ["salt/job/*/ret/db*"]}`,
			[]string{"salt/auth", "salt/job/1/new", "salt/job/1/ret/web1", "salt/job/1/ret/db1"}, nil, "salt/job/1/new|salt/job/1/ret/web1"},
		{"age limit", `{"event_return": "rec", "event_return_queue": 100, "event_return_queue_max_seconds": 5}`,
			[]string{"a", "b", "c", "d"}, []int{0, 2, 6, 7}, "a,b,c|d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batches = nil
			er := newER(tc.opts)
			for i, tag := range tc.tags {
				at := t0
				if tc.at != nil {
					at = t0.Add(time.Duration(tc.at[i]) * time.Second)
				}
				er.Add(tag, value.MapOf("n", int64(i)), at)
			}
			er.Flush()
			var got []string
			for _, b := range batches {
				got = append(got, strings.Join(b, ","))
			}
			if s := strings.Join(got, "|"); s != tc.want {
				t.Errorf("batches %s, want %s", s, tc.want)
			}
		})
	}
	er := newER(`{"event_return": "noevents,nosuch"}`)
	er.Add("x", value.NewMap(0), t0)
	if len(logged) != 2 || !strings.Contains(logged[0], "noevents.event_return") || !strings.Contains(logged[1], "nosuch.event_return") {
		t.Errorf("logged %q", logged)
	}
}
