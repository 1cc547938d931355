// Package e2e_test applies the bundled example trees to the real machine
// with a freshly built brine binary and checks what they did. The tests
// install packages, start services and create users, so they run only
// when BRINE_E2E=1 is set, as root, on a throwaway Debian or Ubuntu
// machine; they undo everything they did when they finish.
package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// What examples/server (conf, states and pillar) sets up.
const (
	serverPkg   = "lighttpd"
	serverUser  = "brinedemo"
	serverPort  = "8088"
	watchPort   = "8089" // the port the pillar override of the watch run sets
	serverDoc   = "Served by lighttpd, configured by brine"
	serverTag   = "brine-example"
	cronLine    = "*/15 * * * * date > /home/brinedemo/heartbeat"
	serverConf  = "examples/server/conf"
	serverCache = "/tmp/brine-server-example"
	serverState = 8 // states in the tree
)

// leftovers are paths the package or the tree create that a purge and
// userdel may leave behind; cleanup removes those that did not exist
// before the test.
var leftovers = []string{
	"/etc/lighttpd", "/var/www", "/var/log/lighttpd", "/var/cache/lighttpd",
	"/run/lighttpd", "/run/lighttpd.pid", "/srv/brine-example", "/home/brinedemo",
	serverCache,
}

// stateRet is one entry of state.apply's return.
type stateRet struct {
	Name    string         `json:"name"`
	Result  *bool          `json:"result"`
	Comment string         `json:"comment"`
	Changes map[string]any `json:"changes"`
	RunNum  int            `json:"__run_num__"`
}

// TestServerExample applies examples/server: a test=True run that changes
// nothing, a first run that installs lighttpd, writes its config, starts it
// and creates a user with a cron job, a second run that changes nothing,
// and a run with another port in the pillar that restarts the service
// through watch.
func TestServerExample(t *testing.T) {
	if os.Getenv("BRINE_E2E") != "1" {
		t.Skip("set BRINE_E2E=1 to run: it installs lighttpd, starts it and creates user brinedemo on this machine (root on a throwaway Debian/Ubuntu machine)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("BRINE_E2E=1 needs root: the example installs a package and creates a user")
	}
	for _, tool := range []string{"apt-get", "dpkg-query", "crontab", "useradd", "userdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("BRINE_E2E=1 needs %s (a Debian/Ubuntu machine with cron installed): %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// Refuse to touch a machine that already has what the test removes.
	if installed(serverPkg) {
		t.Fatalf("%s is already installed: the test would purge it; run on a machine without it", serverPkg)
	}
	if passwdHas(t, serverUser) || groupHas(t, serverUser) {
		t.Fatalf("user or group %s already exists: the test would remove it", serverUser)
	}
	for _, port := range []string{serverPort, watchPort} {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
			c.Close()
			t.Fatalf("127.0.0.1:%s is in use: the example serves on it", port)
		}
	}

	brine := buildBrine(t, root)
	pkgsBefore := dpkgPackages(t)
	existed := map[string]bool{}
	for _, p := range leftovers {
		if _, err := os.Lstat(p); err == nil {
			existed[p] = true
		}
	}
	t.Cleanup(func() { cleanup(t, pkgsBefore, existed) })

	// test=True: every state would change something, nothing changes.
	ret := apply(t, brine, root, "test=True")
	for tag, r := range ret {
		if r.Result != nil {
			t.Errorf("test=True: %s: result %v, want None (comment %q)", tag, *r.Result, r.Comment)
		}
	}
	if installed(serverPkg) || passwdHas(t, serverUser) || exists("/srv/brine-example") {
		t.Fatal("test=True changed the machine")
	}

	// First run: everything changes.
	ret = apply(t, brine, root)
	for tag, r := range ret {
		if r.Result == nil || !*r.Result {
			t.Errorf("first run: %s: result %v, want True (comment %q)", tag, r.Result, r.Comment)
		}
		if len(r.Changes) == 0 {
			t.Errorf("first run: %s: no changes (comment %q)", tag, r.Comment)
		}
	}
	wantChange(t, ret, "pkg_|-lighttpd_pkg_|-lighttpd_|-installed", serverPkg)
	wantChange(t, ret, "user_|-ops_user_brinedemo_|-brinedemo_|-present", "name")
	wantChange(t, ret, "cron_|-ops_cron_brinedemo_brine-example-heartbeat_|-date > /home/brinedemo/heartbeat_|-present", serverUser)
	wantChange(t, ret, "file_|-lighttpd_config_|-/etc/lighttpd/lighttpd.conf_|-managed", "diff")
	if t.Failed() {
		t.FailNow()
	}

	// Its effects on the machine.
	if !installed(serverPkg) {
		t.Errorf("dpkg-query: %s is not installed", serverPkg)
	}
	checkHTTP(t, serverPort)
	if !passwdHas(t, serverUser) {
		t.Errorf("/etc/passwd has no user %s", serverUser)
	}
	if st, err := os.Stat("/home/brinedemo/bin"); err != nil || !st.IsDir() {
		t.Errorf("/home/brinedemo/bin is not a directory: %v", err)
	}
	out, err := exec.Command("crontab", "-l", "-u", serverUser).CombinedOutput()
	if err != nil || !strings.Contains(string(out), cronLine) {
		t.Errorf("crontab -l -u %s: %v\n%s\nwant the line %q", serverUser, err, out, cronLine)
	}

	// Second run: nothing to do.
	ret = apply(t, brine, root)
	for tag, r := range ret {
		if r.Result == nil || !*r.Result || len(r.Changes) != 0 {
			t.Errorf("second run: %s: result %v, changes %v, want True and none (comment %q)", tag, r.Result, r.Changes, r.Comment)
		}
	}

	// Another port in the pillar: the config changes and the watch on it
	// restarts the running service.
	ret = apply(t, brine, root, `pillar={"lighttpd": {"settings": {"port": `+watchPort+`}}}`)
	svc, ok := ret["service_|-lighttpd_service_|-lighttpd_|-running"]
	switch {
	case !ok:
		t.Error("watch run: no lighttpd_service in the return")
	case svc.Result == nil || !*svc.Result || svc.Changes[serverPkg] != true || svc.Comment != "Service restarted":
		t.Errorf("watch run: lighttpd_service: result %v, changes %v, comment %q; want True, {lighttpd: True}, Service restarted", svc.Result, svc.Changes, svc.Comment)
	}
	checkHTTP(t, watchPort)
}

// buildBrine builds cmd/brine into the test's temporary directory, or
// returns BRINE_BIN when that names an already built binary (CI builds it
// as its user and runs the test as root).
func buildBrine(t *testing.T, root string) string {
	t.Helper()
	if bin := os.Getenv("BRINE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "brine")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/brine")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/brine: %v\n%s", err, out)
	}
	return bin
}

// apply runs state.apply of examples/server with the extra arguments and
// returns its states by tag, failing the test unless it exits 0 with all
// the tree's states.
func apply(t *testing.T, brine, root string, args ...string) map[string]stateRet {
	t.Helper()
	argv := append([]string{"call", "--local", "-c", serverConf, "--out", "json", "state.apply"}, args...)
	cmd := exec.Command(brine, argv...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("brine %s: %v", strings.Join(argv, " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("brine %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	var doc struct {
		Local map[string]stateRet `json:"local"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("brine %s: output is not the JSON of a state run: %v\n%s", strings.Join(argv, " "), err, stdout.Bytes())
	}
	if len(doc.Local) != serverState {
		t.Fatalf("brine %s: %d states, want %d:\n%s", strings.Join(argv, " "), len(doc.Local), serverState, stdout.Bytes())
	}
	return doc.Local
}

// wantChange checks that the state tag changed key.
func wantChange(t *testing.T, ret map[string]stateRet, tag, key string) {
	t.Helper()
	r, ok := ret[tag]
	if !ok {
		t.Errorf("no state %s in the return", tag)
		return
	}
	if _, ok := r.Changes[key]; !ok {
		t.Errorf("%s: changes %v, want a %q key", tag, r.Changes, key)
	}
}

// checkHTTP fetches the example's page on the loopback port, allowing the
// service a few seconds to come up.
func checkHTTP(t *testing.T, port string) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	url := "http://127.0.0.1:" + port + "/"
	var lastErr error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := client.Get(url)
		if err != nil {
			lastErr = err
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			lastErr = err
			continue
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), serverDoc) || resp.Header.Get("Server") != serverTag {
			t.Errorf("GET %s: %s, Server %q:\n%s\nwant 200 from %s with %q", url, resp.Status, resp.Header.Get("Server"), body, serverTag, serverDoc)
		}
		return
	}
	t.Errorf("GET %s: %v", url, lastErr)
}

// installed reports whether dpkg has the package installed.
func installed(pkg string) bool {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Status}", pkg).Output()
	return err == nil && strings.TrimSpace(string(out)) == "install ok installed"
}

// dpkgPackages lists the packages dpkg knows in any state.
func dpkgPackages(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Package}\n").Output()
	if err != nil {
		t.Fatalf("dpkg-query -W: %v", err)
	}
	pkgs := strings.Fields(string(out))
	sort.Strings(pkgs)
	return pkgs
}

// passwdHas reports whether /etc/passwd has the user.
func passwdHas(t *testing.T, name string) bool {
	t.Helper()
	return dbHas(t, "/etc/passwd", name)
}

// groupHas reports whether /etc/group has the group.
func groupHas(t *testing.T, name string) bool {
	t.Helper()
	return dbHas(t, "/etc/group", name)
}

// dbHas reports whether the colon-separated database file has an entry
// named name.
func dbHas(t *testing.T, file, name string) bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if user, _, _ := strings.Cut(sc.Text(), ":"); user == name {
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// cleanup undoes the example: it stops the service, removes the user with
// their crontab and home, purges the packages the run installed and
// removes what the purge leaves, then checks the machine is as before.
func cleanup(t *testing.T, pkgsBefore []string, existed map[string]bool) {
	run := func(name string, args ...string) error {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return nil
	}
	if exists("/etc/init.d/lighttpd") {
		if err := run("/etc/init.d/lighttpd", "stop"); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	if passwdHas(t, serverUser) {
		_ = run("crontab", "-r", "-u", serverUser) // absent when the run failed early
		if err := run("userdel", "-r", serverUser); err != nil && passwdHas(t, serverUser) {
			t.Errorf("cleanup: %v", err)
		}
	}
	var added []string
	for _, p := range dpkgPackages(t) {
		if _, found := slices.BinarySearch(pkgsBefore, p); !found {
			added = append(added, p)
		}
	}
	if len(added) > 0 {
		if err := run("apt-get", append([]string{"purge", "-y", "-qq"}, added...)...); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	for _, p := range leftovers {
		if !existed[p] {
			if err := os.RemoveAll(p); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
	}
	// The machine as found.
	if after := dpkgPackages(t); !slices.Equal(after, pkgsBefore) {
		t.Errorf("cleanup: dpkg packages differ from before: %d before, %d after", len(pkgsBefore), len(after))
	}
	if passwdHas(t, serverUser) {
		t.Errorf("cleanup: user %s is still in /etc/passwd", serverUser)
	}
	if groupHas(t, serverUser) {
		t.Errorf("cleanup: group %s is still in /etc/group", serverUser)
	}
	if exists("/var/spool/cron/crontabs/" + serverUser) {
		t.Errorf("cleanup: the crontab of %s is still there", serverUser)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+serverPort, time.Second); err == nil {
		c.Close()
		t.Errorf("cleanup: 127.0.0.1:%s still answers", serverPort)
	}
}
