package api

import (
	"fmt"
	"strings"
	"testing"

	"brine/internal/match"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func mustYAML(t *testing.T, s string) any {
	t.Helper()
	v, err := yamlload.SafeLoad([]byte(s), "test")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fleet is the minions the resolver knows; compound targets here are
// globs, or "G@role:x" grain matches.
var fleet = map[string]string{"web1": "web", "web2": "web", "db1": "db"}

func resolve(tgt, _ string) ([]string, error) {
	var out []string
	for id, role := range fleet {
		if r, ok := strings.CutPrefix(tgt, "G@role:"); ok {
			if r == role {
				out = append(out, id)
			}
		} else if match.Fnmatch(id, tgt) {
			out = append(out, id)
		}
	}
	return out, nil
}

func TestAuthCheck(t *testing.T) {
	acl := `
- 'web*':
  - test.*
  - pkg.install:
      args: ['^nginx$']
      kwargs: {refresh: 'True'}
- 'G@role:db':
  - 'cmd.run':
      args: [null, 'ok.*']
- status.uptime
`
	list := items(mustYAML(t, acl))
	for _, tc := range []struct {
		fun     string
		args    []any
		kwargs  string
		minions []string
		ok      bool
	}{
		{"test.ping", nil, "", []string{"web1", "web2"}, true},
		{"test.ping", nil, "", []string{"web1", "db1"}, false},
		{"test.ping", nil, "", []string{"db1"}, false},
		{"cmd.run", []any{"id"}, "", []string{"web1"}, false},
		{"status.uptime", nil, "", []string{"web1", "db1"}, true}, // a plain entry: every minion
		{"status.uptimes", nil, "", []string{"db1"}, true},        // re.match: a prefix match
		{"xstatus.uptime", nil, "", []string{"db1"}, false},
		{"pkg.install", []any{"nginx"}, "{refresh: true}", []string{"web1"}, true},
		{"pkg.install", []any{"nginx"}, "{}", []string{"web1"}, false},
		{"pkg.install", []any{"apache"}, "{refresh: true}", []string{"web1"}, false},
		{"pkg.install", nil, "{refresh: true}", []string{"web1"}, false},
		{"cmd.run", []any{"anything", "okay"}, "", []string{"db1"}, true},
		{"cmd.run", []any{"anything", "no"}, "", []string{"db1"}, false},
		{"cmd.run", []any{"anything"}, "", []string{"db1"}, false},
		{"test.ping", nil, "", nil, true}, // no minion selected: nothing to refuse
	} {
		kw, _ := mustYAML(t, "{}").(*value.Map)
		if tc.kwargs != "" {
			kw = mustYAML(t, tc.kwargs).(*value.Map)
		}
		if got := authCheck(list, tc.fun, tc.args, kw, tc.minions, resolve); got != tc.ok {
			t.Errorf("%s %v %s on %v: %v, want %v", tc.fun, tc.args, tc.kwargs, tc.minions, got, tc.ok)
		}
	}
}

func TestSpecCheck(t *testing.T) {
	for _, tc := range []struct {
		acl, form, fun string
		ok             bool
	}{
		{"['@runner']", "runner", "jobs.list_jobs", true},
		{"['@runners']", "runner", "jobs.list_jobs", true},
		{"['@runner']", "wheel", "key.list_all", false},
		{"['@wheel']", "wheel", "key.accept", true},
		{"['@jobs']", "runner", "jobs.list_jobs", true},
		{"['@jobs']", "runner", "manage.up", false},
		{"[{'@runner': ['jobs.list_.*']}]", "runner", "jobs.list_jobs", true},
		{"[{'@runner': ['jobs.list_.*']}]", "runner", "jobs.lookup_jid", false},
		{"[{'@key': ['list_.*']}]", "wheel", "key.list_all", true},
		{"[{'@key': ['list_.*']}]", "wheel", "key.accept", false},
		{"['.*']", "runner", "jobs.list_jobs", false}, // execution ACLs do not reach runners
		{"['@runner']", "runner", "jobs", false},
		{"[]", "runner", "jobs.list_jobs", false},
	} {
		got := specCheck(items(mustYAML(t, tc.acl)), tc.fun, nil, value.NewMap(0), tc.form)
		if got != tc.ok {
			t.Errorf("%s %s with %s: %v, want %v", tc.form, tc.fun, tc.acl, got, tc.ok)
		}
	}
}

func TestFillAuthList(t *testing.T) {
	conf := mustYAML(t, `
^filename: /x
alice: [a.*]
'web_.*': [w.*]
'ops%': ['@runner']
'*': [test.ping]
`).(*value.Map)
	for _, tc := range []struct {
		name       string
		groups     []string
		permissive bool
		want       string
	}{
		{"alice", nil, false, "[a.*]"},
		{"web_bob", nil, false, "[w.*]"},
		{"carol", nil, false, "[test.ping]"},
		{"carol", []string{"ops"}, false, "[@runner test.ping]"},
		{"alice", []string{"ops"}, false, "[a.* @runner]"},
		{"alice", nil, true, "[a.* test.ping]"},
	} {
		if got := fmt.Sprint(fillAuthList(conf, tc.name, tc.groups, tc.permissive)); got != tc.want {
			t.Errorf("%s %v: %s, want %s", tc.name, tc.groups, got, tc.want)
		}
	}
	perms := sumPermissions(conf, "alice", []string{"ops"})
	if got := fmt.Sprint(perms); got != "[@runner a.* test.ping]" {
		t.Errorf("sumPermissions: %s", got)
	}
}

func TestReadConfig(t *testing.T) {
	for _, tc := range []struct {
		opts, want string
		ok         bool
		err        bool
	}{
		{"{}", "", false, false},
		{"{rest_cherrypy: {port: 8000}}", "rest_cherrypy 0.0.0.0:8000 ssl", true, false},
		{"{rest_brine: {port: '8001', host: 127.0.0.1, disable_ssl: true}, rest_cherrypy: {port: 8000}}", "rest_brine 127.0.0.1:8001 plain", true, false},
		{"{rest_brine: {host: 127.0.0.1}}", "", true, true},
		{"{rest_brine: {port: 99999}}", "", true, true},
		{"{rest_brine: 8000}", "", true, true},
	} {
		c, ok, err := ReadConfig(mustYAML(t, tc.opts).(*value.Map))
		if ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("%s: ok %v err %v", tc.opts, ok, err)
			continue
		}
		if tc.want != "" {
			mode := "ssl"
			if c.DisableSSL {
				mode = "plain"
			}
			if got := fmt.Sprintf("%s %s:%d %s", c.Section, c.Host, c.Port, mode); got != tc.want {
				t.Errorf("%s: %s, want %s", tc.opts, got, tc.want)
			}
		}
	}
}
