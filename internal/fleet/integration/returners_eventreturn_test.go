package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jsonLines reads a file of one JSON object per line.
func jsonLines(t *testing.T, p string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: bad line %q: %v", p, l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestEventReturnRawfileJSON has the master hand every event of the bus
// to rawfile_json (event_return, with a blacklist), catching a job's
// events, and a minion send a job's return to rawfile_json and
// local_cache (--return), with the returner's filename from its pillar.
func TestEventReturnRawfileJSON(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "events.jsonl")
	returns := filepath.Join(dir, "returns.jsonl")
	c := newCluster(t, "event_return: [rawfile_json]\nrawfile_json.filename: "+events+"\nevent_return_blacklist: ['salt/auth', 'salt/key', 'salt/presence/*']\n")
	c.write("srv/pillar/top.sls", "base:\n  '*': [returners]\n")
	c.write("srv/pillar/returners.sls", "rawfile_json:\n  filename: "+returns+"\n")
	c.startMaster()
	c.startMinion("web1", "", true)
	c.acceptAll("web1")

	out, errs, rc := runText(t, c, "--async", "--return", "rawfile_json,local_cache", "web1", "test.echo", "caught")
	jid := strings.TrimSpace(strings.TrimPrefix(out, "Executed command with job ID:"))
	if rc != 0 || len(jid) != 20 {
		t.Fatalf("brine run --async: rc %d, %q %q", rc, out, errs)
	}
	tags := func() map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, ev := range jsonLines(t, events) {
			tag, _ := ev["tag"].(string)
			data, _ := ev["data"].(map[string]any)
			m[tag] = data
		}
		return m
	}
	eventually(t, "the job's events in "+events, func() bool {
		m := tags()
		return m["salt/job/"+jid+"/new"] != nil && m["salt/job/"+jid+"/ret/web1"] != nil
	})
	m := tags()
	if n := m["salt/job/"+jid+"/new"]; n["fun"] != "test.echo" || n["jid"] != jid || jsonText(n["minions"]) != `["web1"]` {
		t.Errorf("new event: %v", n)
	}
	if r := m["salt/job/"+jid+"/ret/web1"]; r["return"] != "caught" || r["id"] != "web1" || r["success"] != true {
		t.Errorf("ret event: %v", r)
	}
	for tag := range m {
		if tag == "salt/auth" || tag == "salt/key" {
			t.Errorf("blacklisted tag %s was stored", tag)
		}
	}
	for _, ev := range jsonLines(t, events) {
		if len(ev) != 2 || ev["data"] == nil || ev["tag"] == nil {
			t.Errorf("an event is not {data, tag}: %v", ev)
		}
	}

	// The minion's own returner wrote the return where its pillar says.
	var rets []map[string]any
	eventually(t, "the return in "+returns, func() bool {
		rets = jsonLines(t, returns)
		return len(rets) == 1
	})
	r := rets[0]
	if r["id"] != "web1" || r["jid"] != jid || r["fun"] != "test.echo" || r["return"] != "caught" || r["success"] != true || jsonText(r["fun_args"]) != `["caught"]` {
		t.Errorf("rawfile_json return: %v", r)
	}
	if got := c.lookup(jid); got["web1"] != "caught" {
		t.Errorf("jobs lookup: %v", got)
	}
}
