package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// startPyMinion starts minion id as startMinion does, with its own
// extension_modules: Salt's default (/var/cache/salt/minion/extmods) does
// not follow cachedir, and the test must leave the machine as it was.
func (c *cluster) startPyMinion(id string, extra string) {
	c.t.Helper()
	d := c.minionDir(id)
	conf := fmt.Sprintf(`id: %s
master: 127.0.0.1
master_port: %d
pki_dir: %s/pki
cachedir: %s/cache
sock_dir: %[4]s/sock
extension_modules: %s/cache/extmods
master_tls_ca: %s/master/pki/tls/ca.crt
acceptance_wait_time: 0.3
log_level: info
%s`, id, c.port, d, d, d, c.dir, extra)
	c.write(filepath.Join("minions", id, "minion"), conf)
	c.minions[id] = c.start("minion-"+id, "minion", "-c", d)
}

// pyextTree is a state tree with Python extensions, served by the master.
func pyextTree(c *cluster) {
	c.write("srv/salt/_modules/hello.py", "def there(who):\n    return 'hi ' + who\n")
	c.write("srv/salt/_grains/colour.py", "def colour():\n    return {'colour': 'blue'}\n")
	c.write("srv/salt/_states/gadget.py", `def present(name, size=1):
    return {"name": name, "changes": {"size": size}, "result": True,
            "comment": "gadget %s set to %s by %s" % (name, size, __salt__["hello.there"]("states"))}
`)
	c.write("srv/salt/top.sls", "base:\n  '*':\n    - main\n")
	c.write("srv/salt/main.sls", `g1:
  gadget.present:
    - size: 3
colour:
  test.nop:
    - name: colour is {{ grains.get('colour', 'unset') }}
greet:
  test.nop:
    - name: {{ salt['hello.there']('jinja') }}
`)
}

// stateComments maps the state IDs of one minion's state return to their
// name and comment.
func stateNames(t *testing.T, ret any) map[string]string {
	t.Helper()
	states, ok := ret.(map[string]any)
	if !ok {
		t.Fatalf("state return %v", ret)
	}
	out := map[string]string{}
	for _, st := range states {
		m := st.(map[string]any)
		if m["result"] != true {
			t.Errorf("state failed: %v", m)
		}
		id, _ := m["__id__"].(string)
		out[id] = m["name"].(string) + " | " + m["comment"].(string)
	}
	return out
}

// TestPyextFleet checks the Python extensions on a minion attached to a
// master: saltutil.sync_* copies them from the files the master serves
// (the minion's file cache), later jobs load them, and a highstate syncs
// by itself on a minion that never synced.
func TestPyextFleet(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	c := newCluster(t, "")
	pyextTree(c)
	c.startMaster()
	c.startPyMinion("m1", "")
	c.startPyMinion("m2", "")
	// a minion running its jobs in itself keeps one python worker per job
	// only for the job's length
	c.startPyMinion("m3", "multiprocessing: False\n")
	c.acceptAll("m1", "m2", "m3")

	t.Run("sync_all then the synced functions", func(t *testing.T) {
		res, rc := c.run("m1", "saltutil.sync_all")
		if rc != 0 {
			t.Fatalf("sync_all rc %d: %v", rc, res)
		}
		got, _ := res["m1"].(map[string]any)
		for kind, want := range map[string]string{"modules": "modules.hello", "grains": "grains.colour", "states": "states.gadget"} {
			l, _ := got[kind].([]any)
			if len(l) != 1 || l[0] != want {
				t.Errorf("sync_all %s = %v, want [%s]", kind, got[kind], want)
			}
		}
		res, rc = c.run("m1", "hello.there", "fleet")
		if rc != 0 || res["m1"] != "hi fleet" {
			t.Errorf("hello.there: rc %d %v", rc, res)
		}
	})

	t.Run("after sync_all the minion's grains hold the custom grain, on the master too", func(t *testing.T) {
		res, rc := c.run("m1", "grains.get", "colour")
		if rc != 0 || res["m1"] != "blue" {
			t.Errorf("grains.get colour after the sync: rc %d, %v", rc, res)
		}
		res, rc = c.run("-G", "colour:blue", "test.ping")
		if rc != 0 || res["m1"] != true {
			t.Errorf("grain target on the synced grain: rc %d, %v", rc, res)
		}
	})

	t.Run("highstate syncs by itself", func(t *testing.T) {
		res, rc := c.run("m2", "state.apply")
		if rc != 0 {
			t.Fatalf("state.apply rc %d: %v", rc, res)
		}
		got := stateNames(t, res["m2"])
		want := map[string]string{
			"g1":     "g1 | gadget g1 set to 3 by hi states",
			"colour": "colour is blue | Success!",
			"greet":  "hi jinja | Success!",
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: %q, want %q", id, got[id], w)
			}
		}
	})

	t.Run("a changed module on the master reaches the minion", func(t *testing.T) {
		c.write("srv/salt/_modules/hello.py", "def there(who):\n    return 'hello ' + who\n")
		res, rc := c.run("m1", "saltutil.sync_modules")
		if l, _ := res["m1"].([]any); rc != 0 || len(l) != 1 || l[0] != "modules.hello" {
			t.Errorf("sync_modules: rc %d %v", rc, res)
		}
		res, _ = c.run("m1", "hello.there", "again")
		if res["m1"] != "hello again" {
			t.Errorf("hello.there after the change: %v", res)
		}
	})

	t.Run("no python worker outlives its job", func(t *testing.T) {
		// m3 runs its jobs in the minion process itself
		for i := 0; i < 3; i++ {
			if res, _ := c.run("m3", "saltutil.sync_modules"); res["m3"] == nil {
				t.Fatalf("sync_modules: %v", res)
			}
			res, rc := c.run("m3", "hello.there", "m3")
			if rc != 0 || !strings.HasSuffix(fmt.Sprint(res["m3"]), " m3") {
				t.Fatalf("hello.there on m3: rc %d %v", rc, res)
			}
		}
		if n := pythonChildren(t, c.minions["m3"].Process.Pid); n != 0 {
			t.Errorf("%d python3 workers left under the minion after its jobs", n)
		}
	})

	t.Run("state.apply on a minion that synced before", func(t *testing.T) {
		res, rc := c.run("m1", "state.apply")
		if rc != 0 {
			t.Fatalf("state.apply rc %d: %v", rc, res)
		}
		got := stateNames(t, res["m1"])
		if !strings.HasPrefix(got["greet"], "hello jinja") {
			t.Errorf("greet: %q", got["greet"])
		}
	})
}

// pythonChildren counts the python3 processes whose parent is pid.
func pythonChildren(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	n := 0
	for _, e := range ents {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "(python3") {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			n++
		}
	}
	return n
}
