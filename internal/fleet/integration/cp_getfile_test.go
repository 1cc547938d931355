package integration

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCpFromMaster runs the cp functions on a minion of a real master:
// salt:// files come from the master's file server (through the minion's
// authorised file requests), to a destination or to the minion's cache.
func TestCpFromMaster(t *testing.T) {
	c := newCluster(t, "")
	c.write("srv/salt/files/app.conf", "from the master\n")
	c.write("srv/salt/files/sub/more.txt", "more\n")
	c.write("srv/salt/tpl/motd.j2", "Hello {{ grains['id'] }} ({{ who }})\n")
	c.startMaster()
	c.startMinion("web1", "", true)
	c.acceptAll("web1")
	dest := t.TempDir()
	cache := filepath.Join(c.minionDir("web1"), "cache")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cp.get_file", "salt://files/app.conf", dest + "/deep/app.conf", "makedirs=True"}, `"` + dest + `/deep/app.conf"`},
		{[]string{"cp.get_file", "salt://files/nope", dest + "/nope"}, `""`},
		{[]string{"cp.get_dir", "salt://files", dest + "/tree"}, `["` + dest + `/tree/files/app.conf","` + dest + `/tree/files/sub/more.txt"]`},
		{[]string{"cp.get_template", "salt://tpl/motd.j2", dest + "/motd", "who=ops"}, `"` + dest + `/motd"`},
		{[]string{"cp.cache_file", "salt://files/app.conf"}, `"` + cache + `/files/base/files/app.conf"`},
		{[]string{"cp.is_cached", "salt://files/app.conf"}, `"` + cache + `/files/base/files/app.conf"`},
		{[]string{"cp.list_master", "prefix=files/"}, `["files/app.conf","files/sub/more.txt"]`},
		{[]string{"cp.list_master_dirs"}, `["files","files/sub","tpl"]`},
		{[]string{"cp.hash_file", "salt://files/sub/more.txt"}, `{"hash_type":"sha256","hsum":"2396099c6c084fa4b9beac9f0d52cf3be9cf8d47040ef127883d532b5790cd74"}`},
		{[]string{"cp.get_url", "salt://files/sub/more.txt", "dest=None"}, `"more\n"`},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			res, rc := c.run(append([]string{"web1"}, tc.args...)...)
			if got := jsonText(res["web1"]); rc != 0 || got != tc.want {
				t.Errorf("rc %d\n got %s\nwant %s", rc, got, tc.want)
			}
		})
	}
	for p, want := range map[string]string{
		dest + "/deep/app.conf":           "from the master\n",
		dest + "/tree/files/sub/more.txt": "more\n",
		dest + "/motd":                    "Hello web1 (ops)\n",
	} {
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Errorf("%s: %q (%v), want %q", p, got, err, want)
		}
	}
}
