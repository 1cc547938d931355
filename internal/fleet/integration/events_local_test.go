package integration

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMinionLocalBus runs a minion daemon, which serves its own event
// bus in sock_dir, and watches it with `brine call --local state.event`
// (salt-call --local state.event watches the minion daemon's bus the
// same way) while published event.fire jobs fire on it from the
// minion's job processes.
func TestMinionLocalBus(t *testing.T) {
	c := newCluster(t, "")
	c.startMaster()
	c.startMinion("web1", "", true)
	c.acceptAll("web1")
	c.waitPing("web1")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	watch := exec.CommandContext(ctx, brineBin, "call", "-c", c.minionDir("web1"), "--local", "--out", "json",
		"state.event", "tagmatch=app/*", "count=1")
	var out, errb bytes.Buffer
	watch.Stdout, watch.Stderr = &out, &errb
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- watch.Wait() }()
	// the watcher may subscribe after the first events: fire until it
	// has seen one
	for i := 0; ; i++ {
		c.run("web1", "event.fire", `{"k": "v"}`, "other/tag")
		c.run("web1", "event.fire", `{"k": "v"}`, "app/x")
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("state.event: %v\n%s", err, errb.String())
			}
			lines := strings.Split(out.String(), "\n")
			if !strings.HasPrefix(lines[0], "app/x\t{\"k\": \"v\", \"_stamp\": \"") {
				t.Errorf("event line %q", lines[0])
			}
			if rest := strings.Join(lines[1:], "\n"); !strings.Contains(rest, `"local": null`) {
				t.Errorf("return %q", rest)
			}
			return
		case <-ctx.Done():
			t.Fatalf("state.event saw nothing: %s", errb.String())
		default:
		}
	}
}
