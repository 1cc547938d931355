package integration

import (
	"testing"
)

// TestPresenceEvents runs a master with presence_events on: each
// loop_interval it fires salt/presence/present, preceded by
// salt/presence/change when minions came or went.
func TestPresenceEvents(t *testing.T) {
	c := newCluster(t, "presence_events: True\nloop_interval: 1\n")
	c.startMaster()
	l := busListener(t, c)
	c.startMinion("web1", "", true)
	c.acceptAll("web1")
	for {
		ev := waitEvent(t, l, "salt/presence/*")
		if ev.Tag == "salt/presence/change" {
			if asJSON(get(ev.Data, "new")) != `["web1"]` || asJSON(get(ev.Data, "lost")) != `[]` {
				t.Errorf("change: %s", asJSON(ev.Data))
			}
			break
		}
		if asJSON(get(ev.Data, "present")) != `[]` {
			t.Fatalf("present before the change: %s", asJSON(ev.Data))
		}
	}
	if ev := waitEvent(t, l, "salt/presence/*"); ev.Tag != "salt/presence/present" || asJSON(get(ev.Data, "present")) != `["web1"]` {
		t.Errorf("%s: %s", ev.Tag, asJSON(ev.Data))
	}
	c.stopMinion("web1")
	for {
		ev := waitEvent(t, l, "salt/presence/change")
		if asJSON(get(ev.Data, "lost")) == `["web1"]` && asJSON(get(ev.Data, "new")) == `[]` {
			break
		}
		t.Errorf("change: %s", asJSON(ev.Data))
	}
}
