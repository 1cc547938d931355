package integration

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"brine/internal/fleet/proto"
)

// TestMinionFlood has an accepted minion (web1, its own key only) send
// requests as fast as its connection allows: large pillar requests, and
// requests the master refuses (a reply subject outside its inbox). The
// master's memory must stay bounded, its log must not grow with the
// flood, and the other minions must still be served.
func TestMinionFlood(t *testing.T) {
	c := fleet(t)
	atk := dialAs(t, c, "web1")
	grains := map[string]any{"id": "web1", "pad": strings.Repeat("x", 600<<10)}
	before := masterRSS(t, c)
	logBefore := len(strings.Split(c.log("master"), "\n"))
	deadline := time.Now().Add(4 * time.Second)
	sent := 0
	for time.Now().Before(deadline) && sent < 2000 {
		// Valid requests (fresh nonces), each a pillar compilation.
		_, big, err := proto.NewRequest(proto.PillarRequest{Grains: proto.ValueJSON{V: grains}})
		if err != nil {
			t.Fatal(err)
		}
		if err := atk.PublishRequest(proto.ReqSubject("web1", proto.ReqPillar), proto.InboxPrefix("web1")+".x", big); err != nil {
			t.Fatal(err)
		}
		_, small, _ := proto.NewRequest(proto.FilesRequest{})
		if err := atk.PublishRequest(proto.ReqSubject("web1", proto.ReqFiles), "_INBOX_web1x."+strings.Repeat("A", 3000), small); err != nil {
			t.Fatal(err)
		}
		sent++
	}
	_ = atk.Flush()
	// The others are served meanwhile.
	if res, rc := c.run("-L", "db1,web2", "test.ping"); rc != 0 || res["db1"] != true || res["web2"] != true {
		t.Errorf("ping during the flood: rc %d, %v", rc, res)
	}
	after := masterRSS(t, c)
	t.Logf("sent %d large and %d refused requests; master RSS %d KiB before, %d KiB after", sent, sent, before, after)
	if after-before > 400<<10 {
		t.Errorf("master RSS grew by %d KiB under the flood", after-before)
	}
	time.Sleep(200 * time.Millisecond)
	lines := len(strings.Split(c.log("master"), "\n")) - logBefore
	if lines > 200 {
		t.Errorf("master log grew by %d lines under the flood", lines)
	}
}

// masterRSS is the master process's resident memory in KiB.
func masterRSS(t *testing.T, c *cluster) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(c.master.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
