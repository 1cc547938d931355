package integration

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReactorRunner: a custom event sent by a minion triggers a runner.*
// reaction (state.orchestrate), whose salt.function step runs on that
// minion and leaves a file there.
func TestReactorRunner(t *testing.T) {
	dir := t.TempDir()
	c := newCluster(t, `reactor:
  - 'myco/deploy':
    - `+dir+`/reactor/deploy.sls
`)
	if err := os.MkdirAll(filepath.Join(dir, "reactor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reactor", "deploy.sls"), []byte(`orchestrate_deploy:
  runner.state.orchestrate:
    - args:
      - mods: orch.deploy
      - pillar: {target: '{{ data['id'] }}', marker: '{{ data['data']['marker'] }}'}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	c.write("srv/salt/orch/deploy.sls", `touch_marker:
  salt.function:
    - name: cmd.run
    - tgt: {{ pillar['target'] }}
    - arg:
      - touch {{ pillar['marker'] }}
`)
	c.startMaster()
	c.startMinion("web1", "", true)
	c.acceptAll("web1")
	c.waitPing("web1")
	marker := filepath.Join(dir, "deployed")
	if res, _ := c.run("web1", "event.send", "myco/deploy", `{"marker": "`+marker+`"}`); res["web1"] != true {
		t.Fatalf("event.send returned %v", res)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orchestration did not run; master log:\n%s", c.log("master"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
