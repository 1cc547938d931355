package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/value"
)

// TestReactor configures two reactions on a real master: a minion's
// pending key whose id starts with "auto" is accepted by a
// wheel.key.accept reaction to salt/auth, and each minion start applies
// a state (local.state.apply) that writes a file on the minion. A minion
// started without anyone accepting its key must end up with the file.
func TestReactor(t *testing.T) {
	dir := t.TempDir()
	c := newCluster(t, `reactor:
  - 'salt/auth':
    - `+dir+`/reactor/auth.sls
  - 'salt/minion/*/start':
    - `+dir+`/reactor/start.sls
`)
	for name, text := range map[string]string{
		"auth.sls": `{% if data['act'] == 'pend' and data['id'].startswith('auto') %}
accept_auto:
  wheel.key.accept:
    - match: {{ data['id'] }}
{% endif %}
`,
		"start.sls": `apply_marker:
  local.state.apply:
    - tgt: {{ data['id'] }}
    - args:
      - mods: marker
      - pillar: {started_by: '{{ tag }}'}
`,
	} {
		if err := os.MkdirAll(filepath.Join(dir, "reactor"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "reactor", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.write("srv/salt/marker.sls", `{{ opts['cachedir'] }}/../marker.txt:
  file.managed:
    - contents: "{{ grains['id'] }} {{ pillar['started_by'] }}"
`)
	c.startMaster()
	l := busListener(t, c)
	c.startMinion("auto1", "", true)

	key := waitEvent(t, l, "salt/key")
	if get(key.Data, "act") != "accept" || get(key.Data, "id") != "auto1" {
		t.Errorf("salt/key: %s", asJSON(key.Data))
	}
	waitEvent(t, l, "salt/minion/auto1/start")
	nw := waitEvent(t, l, "salt/job/*/new")
	if get(nw.Data, "fun") != "state.apply" || get(nw.Data, "tgt") != "auto1" ||
		asJSON(get(nw.Data, "arg")) != `[{"__kwarg__": true, "mods": "marker", "pillar": {"started_by": "salt/minion/auto1/start"}}]` {
		t.Errorf("reaction job: %s", asJSON(nw.Data))
	}
	ret := waitEvent(t, l, "salt/job/"+value.Str(get(nw.Data, "jid"))+"/ret/auto1")
	if get(ret.Data, "success") != true {
		t.Errorf("state.apply return: %s", asJSON(ret.Data))
	}
	marker := filepath.Join(c.minionDir("auto1"), "marker.txt")
	data, err := os.ReadFile(marker)
	if err != nil || string(data) != "auto1 salt/minion/auto1/start\n" && string(data) != "auto1 salt/minion/auto1/start" {
		t.Errorf("marker file: %q, %v", data, err)
	}

	// A failing reaction is logged with its file and line.
	if err := os.WriteFile(filepath.Join(dir, "reactor", "start.sls"), []byte("\nbroken:\n  local.state.apply:\n    - args: [{mods: marker}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.stopMinion("auto1")
	c.startMinion("auto1", "", true)
	waitEvent(t, l, "salt/minion/auto1/start")
	want := filepath.Join(dir, "reactor", "start.sls") + ":2: Reactor 'broken' failed to execute local 'state.apply': no tgt given"
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(c.log("master"), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the master did not log %q", want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
