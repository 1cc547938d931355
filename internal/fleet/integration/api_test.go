package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestAPI drives the REST API of a master with three minions: logins,
// the four lowstate clients in JSON, YAML and form bodies, the ACL of a
// user allowed only test.* on web*, the convenience URLs, the event
// stream and webhooks.
func TestAPI(t *testing.T) {
	a := newAPICluster(t, "")
	for _, id := range []string{"web1", "web2", "db1"} {
		a.startMinion(id, "{role: "+id[:len(id)-1]+"}", true)
	}
	a.acceptAll("web1", "web2", "db1")
	admin := a.login(t, "admin", "s3cret")
	webdev := a.login(t, "webdev", "webpass")

	t.Run("login", func(t *testing.T) {
		for _, tc := range []struct {
			name, body string
			status     int
		}{
			{"ok", `{"username": "admin", "password": "s3cret", "eauth": "file"}`, 200},
			{"bad password", `{"username": "admin", "password": "nope", "eauth": "file"}`, 401},
			{"unknown user", `{"username": "eve", "password": "s3cret", "eauth": "file"}`, 401},
			{"eauth not enabled", `{"username": "admin", "password": "s3cret", "eauth": "ldap"}`, 401},
		} {
			st, out := a.call(t, "POST", "/login", "", "application/json", tc.body)
			if st != tc.status {
				t.Errorf("%s: status %d, want %d (%v)", tc.name, st, tc.status, out)
			}
			if st == 200 {
				ret := out["return"].([]any)[0].(map[string]any)
				if ret["user"] != "admin" || ret["eauth"] != "file" || ret["expire"].(float64)-ret["start"].(float64) != 43200 {
					t.Errorf("login answer %v", ret)
				}
				if perms := fmt.Sprint(ret["perms"]); perms != "[.* @runner @wheel]" {
					t.Errorf("perms %s", perms)
				}
			}
		}
		// A form login works too, and a bad token is refused.
		st, _ := a.call(t, "POST", "/login", "", "application/x-www-form-urlencoded", "username=webdev&password=webpass&eauth=file")
		if st != 200 {
			t.Errorf("form login: %d", st)
		}
		if st, _ := a.call(t, "GET", "/minions", "abcdef0123456789abcdef", "", ""); st != 401 {
			t.Errorf("unknown token: %d", st)
		}
		if st, _ := a.call(t, "GET", "/minions", "", "", ""); st != 401 {
			t.Errorf("no token: %d", st)
		}
	})

	t.Run("local", func(t *testing.T) {
		for _, tc := range []struct {
			name, ctype, body string
		}{
			{"json", "application/json", `[{"client": "local", "tgt": "*", "fun": "test.ping"}]`},
			{"yaml", "application/x-yaml", "- client: local\n  tgt: '*'\n  fun: test.ping\n"},
			{"form", "application/x-www-form-urlencoded", "client=local&tgt=*&fun=test.ping"},
		} {
			st, out := a.call(t, "POST", "/", admin, tc.ctype, tc.body)
			if st != 200 {
				t.Fatalf("%s: %d %v", tc.name, st, out)
			}
			want := map[string]any{"web1": true, "web2": true, "db1": true}
			if got := out["return"].([]any)[0]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %v", tc.name, got)
			}
		}
		// Arguments, key=value arguments and kwarg.
		st, out := a.call(t, "POST", "/", admin, "application/json",
			`{"client": "local", "tgt": "db1", "fun": "test.arg", "arg": ["one", "two=2"], "kwarg": {"three": 3}}`)
		ret, _ := out["return"].([]any)
		if st != 200 || len(ret) != 1 {
			t.Fatalf("test.arg: %d %v", st, out)
		}
		db1 := ret[0].(map[string]any)["db1"].(map[string]any)
		if !reflect.DeepEqual(db1["args"], []any{"one"}) || db1["kwargs"].(map[string]any)["two"] != float64(2) || db1["kwargs"].(map[string]any)["three"] != float64(3) {
			t.Errorf("test.arg: %v", db1)
		}
	})

	t.Run("acl", func(t *testing.T) {
		for _, tc := range []struct {
			name, body string
			status     int
			want       []string
		}{
			{"test.ping on web*", `{"client": "local", "tgt": "web*", "fun": "test.ping"}`, 200, []string{"web1", "web2"}},
			{"test.ping on a web list", `{"client": "local", "tgt": "web1,web2", "tgt_type": "list", "fun": "test.ping"}`, 200, []string{"web1", "web2"}},
			{"cmd.run on web*", `{"client": "local", "tgt": "web*", "fun": "cmd.run", "arg": ["id"]}`, 401, nil},
			{"test.ping on db1", `{"client": "local", "tgt": "db1", "fun": "test.ping"}`, 401, nil},
			{"test.ping on all", `{"client": "local", "tgt": "*", "fun": "test.ping"}`, 401, nil},
			{"grain target reaching db1", `{"client": "local", "tgt": "role:db", "tgt_type": "grain", "fun": "test.ping"}`, 401, nil},
			{"runner", `{"client": "runner", "fun": "jobs.list_jobs"}`, 401, nil},
			{"wheel", `{"client": "wheel", "fun": "key.list_all"}`, 401, nil},
		} {
			st, out := a.call(t, "POST", "/", webdev, "application/json", tc.body)
			if st != tc.status {
				t.Errorf("%s: status %d, want %d (%v)", tc.name, st, tc.status, out)
				continue
			}
			if tc.want != nil {
				got := keysOf(out["return"].([]any)[0].(map[string]any))
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: minions %v, want %v", tc.name, got, tc.want)
				}
			}
		}
		if st, out := a.call(t, "GET", "/minions", webdev, "", ""); st != 401 {
			t.Errorf("webdev GET /minions (grains.items on *): %d %v", st, out)
		}
		if st, _ := a.call(t, "GET", "/minions/web1", webdev, "", ""); st != 401 {
			t.Errorf("webdev GET /minions/web1 (grains.items is not test.*): %d", st)
		}
	})

	var asyncJID string
	t.Run("local_async and jobs", func(t *testing.T) {
		st, out := a.call(t, "POST", "/", admin, "application/json", `{"client": "local_async", "tgt": "*", "fun": "test.echo", "arg": ["hello"]}`)
		if st != 200 {
			t.Fatalf("local_async: %d %v", st, out)
		}
		ret := out["return"].([]any)[0].(map[string]any)
		asyncJID, _ = ret["jid"].(string)
		if ms := fmt.Sprint(ret["minions"]); asyncJID == "" || ms != "[db1 web1 web2]" {
			t.Fatalf("local_async: %v", ret)
		}
		// The runner waits for the returns as jobs.lookup_jid would.
		st, out = a.call(t, "POST", "/", admin, "application/json", jsonBody(map[string]any{"client": "runner", "fun": "jobs.lookup_jid", "jid": asyncJID}))
		if st != 200 {
			t.Fatalf("runner: %d %v", st, out)
		}
		st, out = a.call(t, "GET", "/jobs/"+asyncJID, admin, "", "")
		if st != 200 {
			t.Fatalf("GET /jobs/jid: %d %v", st, out)
		}
		info := out["info"].([]any)[0].(map[string]any)
		if info["Function"] != "test.echo" || info["jid"] != asyncJID {
			t.Errorf("job info %v", info)
		}
		st, out = a.call(t, "GET", "/jobs", admin, "", "")
		if st != 200 {
			t.Fatalf("GET /jobs: %d", st)
		}
		if _, ok := out["return"].([]any)[0].(map[string]any)[asyncJID]; !ok {
			t.Errorf("GET /jobs lacks %s", asyncJID)
		}
		// POST /minions is local_async, answered 202 with a link to the job.
		st, out = a.call(t, "POST", "/minions", admin, "application/json", `[{"tgt": "web1", "fun": "test.ping"}]`)
		links := fmt.Sprint(out["_links"])
		if st != http.StatusAccepted || !strings.Contains(links, "/jobs/") {
			t.Errorf("POST /minions: %d %v", st, out)
		}
	})

	t.Run("minions and keys", func(t *testing.T) {
		st, out := a.call(t, "GET", "/minions/web1", admin, "", "")
		if st != 200 {
			t.Fatalf("GET /minions/web1: %d %v", st, out)
		}
		grains := out["return"].([]any)[0].(map[string]any)["web1"].(map[string]any)
		if grains["id"] != "web1" || grains["role"] != "web" {
			t.Errorf("grains of web1: id %v role %v", grains["id"], grains["role"])
		}
		st, out = a.call(t, "GET", "/keys", admin, "", "")
		if st != 200 {
			t.Fatalf("GET /keys: %d %v", st, out)
		}
		ms := []string{}
		for _, m := range out["return"].(map[string]any)["minions"].([]any) {
			ms = append(ms, m.(string))
		}
		sort.Strings(ms)
		if !reflect.DeepEqual(ms, []string{"db1", "web1", "web2"}) {
			t.Errorf("GET /keys: %v", out)
		}
		st, out = a.call(t, "GET", "/keys/web1", admin, "", "")
		fp, _ := out["return"].(map[string]any)["minions"].(map[string]any)["web1"].(string)
		if st != 200 || len(fp) < 32 {
			t.Errorf("GET /keys/web1: %d %v", st, out)
		}
		// The wheel client's answer carries the data as Salt's WheelClient.
		st, out = a.call(t, "POST", "/", admin, "application/json", `{"client": "wheel", "fun": "key.list_all"}`)
		w := out["return"].([]any)[0].(map[string]any)
		data, _ := w["data"].(map[string]any)
		if st != 200 || !strings.HasPrefix(fmt.Sprint(w["tag"]), "salt/wheel/") || data["success"] != true || data["fun"] != "wheel.key.list_all" {
			t.Errorf("wheel: %d %v", st, out)
		}
	})

	t.Run("clients", func(t *testing.T) {
		for _, tc := range []struct{ body, msg string }{
			{`{"client": "nope", "fun": "test.ping"}`, "Invalid client specified: 'nope'"},
			{`{"client": "ssh", "fun": "test.ping", "tgt": "*"}`, "Client not available in brine: 'ssh'"},
		} {
			st, out := a.call(t, "POST", "/", admin, "application/json", tc.body)
			if st != 400 || out["return"] != tc.msg {
				t.Errorf("%s: %d %v", tc.body, st, out)
			}
		}
		if st, out := a.call(t, "POST", "/", admin, "application/json", `{not json`); st != 400 || out["return"] != "Invalid JSON document" {
			t.Errorf("bad JSON: %d %v", st, out)
		}
	})

	t.Run("events and hooks", func(t *testing.T) {
		req, _ := http.NewRequest("GET", a.base+"/events?token="+admin, nil)
		resp, err := a.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("GET /events: %d %s", resp.StatusCode, ct)
		}
		rd := bufio.NewReader(resp.Body)
		if first, _ := rd.ReadString('\n'); first != "retry: 400\n" {
			t.Errorf("first line %q", first)
		}
		st, out := a.call(t, "POST", "/hook/deploy/app", admin, "application/json", `{"revision": "abc"}`)
		if st != 200 || out["success"] != true {
			t.Fatalf("hook: %d %v", st, out)
		}
		// A job's events come through as well.
		a.call(t, "POST", "/", admin, "application/json", `{"client": "local", "tgt": "web2", "fun": "test.ping"}`)
		seenHook, seenRet := false, false
		for !seenHook || !seenRet {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("event stream ended: %v", err)
			}
			data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
			if !ok {
				continue
			}
			var ev struct {
				Tag  string         `json:"tag"`
				Data map[string]any `json:"data"`
			}
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatalf("bad data line %q", line)
			}
			switch {
			case ev.Tag == "salt/netapi/hook/deploy/app":
				seenHook = true
				if post := fmt.Sprint(ev.Data["post"]); post != "map[revision:abc]" || ev.Data["body"] != `{"revision": "abc"}` {
					t.Errorf("hook event %v", ev.Data)
				}
				h, _ := ev.Data["headers"].(map[string]any)
				if h["Content-Type"] != "application/json" || h["X-Auth-Token"] != nil {
					t.Errorf("hook event headers %v", h)
				}
			case strings.HasPrefix(ev.Tag, "salt/job/") && strings.HasSuffix(ev.Tag, "/ret/web2"):
				seenRet = ev.Data["return"] == true
			}
		}
		// A user whose ACL reaches web* only is not shown db1's events.
		req, _ = http.NewRequest("GET", a.base+"/events?tag=salt/job/*/ret/*", nil)
		req.Header.Set("X-Auth-Token", webdev)
		wresp, err := a.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer wresp.Body.Close()
		wrd := bufio.NewReader(wresp.Body)
		if first, _ := wrd.ReadString('\n'); first != "retry: 400\n" {
			t.Fatalf("webdev stream: %q", first)
		}
		// db1 returns (and its event is published) before web1's job
		// starts, so a db1 event let through would come first.
		a.call(t, "POST", "/", admin, "application/json", `{"client": "local", "tgt": "db1", "fun": "test.ping"}`)
		a.call(t, "POST", "/", admin, "application/json", `{"client": "local", "tgt": "web1", "fun": "test.ping"}`)
		for {
			line, err := wrd.ReadString('\n')
			if err != nil {
				t.Fatalf("webdev's event stream ended: %v", err)
			}
			if strings.HasPrefix(line, "tag: ") && strings.HasSuffix(line, "/ret/db1\n") {
				t.Fatalf("webdev was shown %s", line)
			}
			if strings.HasPrefix(line, "tag: ") && strings.HasSuffix(line, "/ret/web1\n") {
				break
			}
		}
		// A hook without a token is refused.
		if st, _ := a.call(t, "POST", "/hook/x", "", "application/json", `{}`); st != 401 {
			t.Errorf("hook without token: %d", st)
		}
		if st, _ := a.call(t, "GET", "/events", "", "", ""); st != 401 {
			t.Errorf("events without token: %d", st)
		}
	})

	t.Run("logout", func(t *testing.T) {
		tok := a.login(t, "admin", "s3cret")
		if st, _ := a.call(t, "POST", "/logout", tok, "", ""); st != 200 {
			t.Fatalf("logout: %d", st)
		}
		if st, _ := a.call(t, "GET", "/keys", tok, "", ""); st != 401 {
			t.Errorf("a cleared token still works: %d", st)
		}
	})

	// Every call is logged with its user.
	log := a.log("master")
	if !strings.Contains(log, "user=file:webdev") || !strings.Contains(log, "path=/hook/deploy/app") {
		t.Errorf("the master log lacks the API calls:\n%s", tail(log, 20))
	}
}
