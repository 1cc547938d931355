package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBeaconsFleet runs a minion with an inotify beacon (from
// minion.d/beacons.conf) and watches its events reach the master's bus;
// beacons.* run as jobs then change the beacons the minion runs: a ps
// beacon added live fires, and is listed, disabled and deleted.
func TestBeaconsFleet(t *testing.T) {
	c := newCluster(t, "")
	c.startMaster()
	l := busListener(t, c)
	watched := t.TempDir()
	c.write(filepath.Join("minions", "bcn1", "minion.d", "beacons.conf"), fmt.Sprintf(`beacons:
  inotify:
    - files:
        %s:
          mask: [create]
`, watched))
	c.startMinion("bcn1", "", true)
	c.acceptAll("bcn1")
	c.waitPing("bcn1")

	t.Run("inotify", func(t *testing.T) {
		// The beacon's first loop sets its watch up: create files until
		// one is reported.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for i := 0; ; i++ {
				_ = os.WriteFile(filepath.Join(watched, fmt.Sprintf("f%d", i)), nil, 0o644)
				select {
				case <-ctx.Done():
					return
				case <-time.After(300 * time.Millisecond):
				}
			}
		}()
		ev := waitEvent(t, l, "salt/beacon/bcn1/inotify/*")
		cancel()
		if ev.Tag != "salt/beacon/bcn1/inotify/"+watched {
			t.Errorf("tag %s", ev.Tag)
		}
		path, _ := get(ev.Data, "path").(string)
		if !strings.HasPrefix(path, watched+"/f") || get(ev.Data, "change") != "IN_CREATE" || get(ev.Data, "id") != "bcn1" {
			t.Errorf("data %s", asJSON(ev.Data))
		}
		if get(ev.Data, "_stamp") == nil {
			t.Errorf("no _stamp: %s", asJSON(ev.Data))
		}
	})

	t.Run("beacons.add live", func(t *testing.T) {
		res, _ := c.run("bcn1", "beacons.add", "gone", `[{"beacon_module": "ps"}, {"processes": {"bcn-no-such-process": "stopped"}}]`)
		if got := goJSON(res["bcn1"]); got != `{"comment":"Added beacon: gone.","result":true}` {
			t.Fatalf("beacons.add: %s", got)
		}
		ev := waitEvent(t, l, "salt/beacon/bcn1/gone/")
		if got := asJSON(ev.Data); !strings.Contains(got, `"bcn-no-such-process": "Stopped"`) || get(ev.Data, "id") != "bcn1" {
			t.Errorf("ps event %s", got)
		}
		res, _ = c.run("bcn1", "beacons.list", "return_yaml=False")
		if got := goJSON(res["bcn1"]); !strings.Contains(got, `"gone":[{"beacon_module":"ps"}`) || !strings.Contains(got, `"inotify"`) {
			t.Errorf("beacons.list: %s", got)
		}
		res, _ = c.run("bcn1", "beacons.disable_beacon", "gone")
		if got := goJSON(res["bcn1"]); got != `{"comment":"Disabled beacon gone on minion.","result":true}` {
			t.Errorf("beacons.disable_beacon: %s", got)
		}
		res, _ = c.run("bcn1", "beacons.delete", "gone")
		if got := goJSON(res["bcn1"]); got != `{"comment":"Deleted beacon: gone.","result":true}` {
			t.Errorf("beacons.delete: %s", got)
		}
	})
}

func goJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
