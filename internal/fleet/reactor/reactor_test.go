package reactor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"brine/internal/fleet/events"
	"brine/internal/fleet/keys"
	"brine/internal/value"
	"brine/internal/yamlload"

	_ "brine/internal/modules"
	_ "brine/internal/renderers"
)

// published records the jobs a reactor publishes.
type published struct {
	mu   sync.Mutex
	jobs []string
	ch   chan string
}

func (p *published) PublishJob(tgt, tgtType, fun string, arg []any, kwarg *value.Map, user string) (string, []string, error) {
	s := tgtType + " " + tgt + " " + fun + " " + value.ToJSON(value.NewList(arg...), value.JSONOptions{Indent: -1}) + " " + value.ToJSON(kwarg, value.JSONOptions{Indent: -1})
	p.mu.Lock()
	p.jobs = append(p.jobs, s)
	p.mu.Unlock()
	if p.ch != nil {
		p.ch <- s
	}
	return "20261125195807123456", []string{tgt}, nil
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func opts(t *testing.T, yaml string) *value.Map {
	t.Helper()
	v, err := yamlload.SafeLoad([]byte(yaml), "master")
	if err != nil {
		t.Fatal(err)
	}
	return v.(*value.Map)
}

func TestReactors(t *testing.T) {
	dir := t.TempDir()
	mapFile := write(t, dir, "reactor.yaml", "- 'salt/key': [/srv/reactor/key.sls]\n")
	r := New(Config{Opts: opts(t, `
reactor:
  - 'salt/minion/*/start':
    - /srv/reactor/start.sls
    - /srv/reactor/sync.sls
  - 'salt/job/*/ret/*': /srv/reactor/ret.sls
  - 'salt/minion/web*/start': [/srv/reactor/web.sls]
  - {not: a, single: key}
  - just a string
`)})
	for _, tc := range []struct {
		tag  string
		want string
	}{
		{"salt/minion/web1/start", "/srv/reactor/start.sls /srv/reactor/sync.sls /srv/reactor/web.sls"},
		{"salt/minion/db1/start", "/srv/reactor/start.sls /srv/reactor/sync.sls"},
		{"salt/job/1/ret/web1", "/srv/reactor/ret.sls"},
		{"salt/key", ""},
	} {
		if got := strings.Join(r.Reactors(tc.tag), " "); got != tc.want {
			t.Errorf("Reactors(%q) = %q, want %q", tc.tag, got, tc.want)
		}
	}
	r = New(Config{Opts: value.MapOf("reactor", mapFile)})
	if got := strings.Join(r.Reactors("salt/key"), " "); got != "/srv/reactor/key.sls" {
		t.Errorf("reactor map file: got %q", got)
	}
	if New(Config{Opts: value.MapOf("reactor", value.NewList())}).Enabled() {
		t.Error("an empty reactor option is enabled")
	}
}

func TestCompile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.sls", `{% if data['id'] == 'web1' %}
highstate:
  local.state.apply:
    - tgt: {{ data['id'] }}
    - args:
      - mods: web
      - test: True
{% endif %}
accept:
  wheel.key.accept:
    - match: {{ data['id'] }}
early:
  runner.jobs.list_jobs:
    - order: 1
old_style:
  cmd:
    - cmd.run
    - tgt: '*'
    - arg: ['echo {{ tag }}']
`)
	write(t, dir, "b.sls", `last:
  caller.test.ping:
    - order: last
`)
	r := New(Config{Opts: value.NewMap(0)})
	chunks, errs := r.Compile("salt/minion/web1/start", value.MapOf("id", "web1"), []string{filepath.Join(dir, "*.sls")})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, c := range chunks {
		got = append(got, c.ID+" "+c.State+"."+c.Fun+" "+filepath.Base(c.File)+":"+itoa(c.Line)+" "+value.ToJSON(c.Args, value.JSONOptions{Indent: -1}))
	}
	want := []string{
		`early runner.jobs.list_jobs a.sls:12 {"order": 1}`,
		`highstate local.state.apply a.sls:2 {"tgt": "web1", "args": [{"mods": "web"}, {"test": true}]}`,
		`old_style local.cmd.run a.sls:15 {"tgt": "*", "arg": ["echo salt/minion/web1/start"]}`,
		`accept wheel.key.accept a.sls:9 {"match": "web1"}`,
		`last caller.test.ping b.sls:1 {"order": "last"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chunks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(n int) string {
	return strings.TrimSpace(value.Str(int64(n)))
}

func TestCompileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		want      string
	}{
		{"nofun.sls", "x:\n  local:\n    - tgt: a\n", "nofun.sls:1: No function declared in state 'local'"},
		{"twofuns.sls", "\n\nx:\n  local:\n    - test.ping\n    - test.echo\n", "twofuns.sls:3: Too many functions declared in state 'local'"},
		{"notdict.sls", "x: 1\n", "notdict.sls:1: ID 'x' in SLS"},
		{"notlist.sls", "x:\n  local.test.ping: 1\n", "notlist.sls:1: The type local.test.ping in x is not formatted as a list"},
		{"badyaml.sls", "x:\n  - a\n b: c\n", "badyaml.sls:"},
		{"badjinja.sls", "x:\n  local.test.ping:\n    - tgt: {{ nope( }}\n", "badjinja.sls:3:"},
	} {
		p := write(t, dir, tc.name, tc.src)
		r := New(Config{Opts: value.NewMap(0)})
		chunks, errs := r.Compile("t", value.NewMap(0), []string{p})
		if len(errs) != 1 || chunks != nil {
			t.Errorf("%s: chunks %v, errors %v", tc.name, chunks, errs)
			continue
		}
		if got := errs[0].Error(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: error %q does not contain %q", tc.name, got, tc.want)
		}
	}
	r := New(Config{Opts: value.NewMap(0)})
	if _, errs := r.Compile("t", value.NewMap(0), []string{filepath.Join(dir, "missing.sls")}); len(errs) != 1 || !strings.Contains(errs[0].Error(), "File missing or not found") {
		t.Errorf("missing file: %v", errs)
	}
}

func TestOrderChunks(t *testing.T) {
	cs := []Chunk{
		{ID: "neg", State: "local", Name: "neg", Fun: "f", order: int64(-1)},
		{ID: "b", State: "local", Name: "b", Fun: "f"},
		{ID: "a", State: "local", Name: "a", Fun: "f"},
		{ID: "w", State: "wheel", Name: "0", Fun: "f"},
		{ID: "ten", State: "local", Name: "ten", Fun: "f", order: int64(10)},
		{ID: "first", State: "local", Name: "zz", Fun: "f", order: "first"},
		{ID: "last", State: "local", Name: "0", Fun: "f", order: "last"},
	}
	orderChunks(cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.ID)
	}
	if strings.Join(got, " ") != "first ten a b w neg last" {
		t.Errorf("order: %v", got)
	}
}

func TestCallArgs(t *testing.T) {
	for _, tc := range []struct {
		state, args string
		arg, kwarg  string
		err         bool
	}{
		{"local", `{tgt: x, args: [{mods: web}, {test: true}]}`, `[]`, `{"mods": "web", "test": true}`, false},
		{"local", `{tgt: x, arg: [a, 1], kwarg: {k: v}}`, `["a", 1]`, `{"k": "v"}`, false},
		{"local", `{tgt: x, args: [{mods: web}], arg: [ignored]}`, `[]`, `{"mods": "web"}`, false},
		{"local", `{tgt: x, args: [a, b]}`, ``, ``, true},
		{"local", `{tgt: x, arg: notalist}`, ``, ``, true},
		{"caller", `{args: [a, b]}`, `["a", "b"]`, `{}`, false},
		{"caller", `{args: [{a: 1}]}`, `[]`, `{"a": 1}`, false},
		{"wheel", `{match: web1, include_rejected: true, name: x, order: 1}`, `[]`, `{"match": "web1", "include_rejected": true}`, false},
		{"runner", `{mods: orch.deploy, pillar: {a: 1}}`, `[]`, `{"mods": "orch.deploy", "pillar": {"a": 1}}`, false},
		{"runner", `{arg: [x], other: y}`, `["x"]`, `{}`, false},
		{"local", `{tgt: x, other: y}`, `[]`, `{}`, false},
	} {
		v, err := yamlload.SafeLoad([]byte(tc.args), "t")
		if err != nil {
			t.Fatal(err)
		}
		arg, kwarg, err := callArgs(Chunk{State: tc.state, Args: v.(*value.Map)})
		if (err != nil) != tc.err {
			t.Errorf("%s %s: err %v", tc.state, tc.args, err)
			continue
		}
		if err != nil {
			continue
		}
		ga := value.ToJSON(value.NewList(arg...), value.JSONOptions{Indent: -1})
		gk := value.ToJSON(kwarg, value.JSONOptions{Indent: -1})
		if ga != tc.arg || gk != tc.kwarg {
			t.Errorf("%s %s: got %s %s, want %s %s", tc.state, tc.args, ga, gk, tc.arg, tc.kwarg)
		}
	}
}

// TestWheelKeys runs key.accept, key.reject and key.delete on a real key
// store and checks the store and the salt/key events.
func TestWheelKeys(t *testing.T) {
	store, err := keys.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"web1", "web2", "db1", "old"} {
		if _, err := store.Submit(id, "U"+strings.ToUpper(id), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Move("old", keys.Pending, keys.Rejected); err != nil {
		t.Fatal(err)
	}
	var fired []string
	reloads := 0
	r := New(Config{Opts: value.NewMap(0), Keys: store,
		Fire: func(tag string, d *value.Map) {
			if strings.HasPrefix(tag, "salt/wheel/") {
				tag = "salt/wheel/JID/" + tag[strings.LastIndex(tag, "/")+1:]
				d = d.Copy()
				d.Set("jid", "JID")
			}
			fired = append(fired, tag+" "+value.ToJSON(d, value.JSONOptions{Indent: -1}))
		},
		KeysChanged: func() error { reloads++; return nil },
	})
	run := func(fun, args string) string {
		t.Helper()
		v, err := yamlload.SafeLoad([]byte(args), "t")
		if err != nil {
			t.Fatal(err)
		}
		if d := r.Run(Chunk{ID: "k", State: "wheel", Fun: fun, Args: v.(*value.Map), File: "/srv/r.sls", Line: 3}); d != nil {
			return d.Error()
		}
		return ""
	}
	list := func(st keys.State) string {
		ids, _ := store.List(st)
		return strings.Join(ids, ",")
	}
	if e := run("key.accept", "{match: 'web*'}"); e != "" {
		t.Fatal(e)
	}
	if list(keys.Accepted) != "web1,web2" || list(keys.Pending) != "db1" {
		t.Errorf("after accept: accepted %q pending %q", list(keys.Accepted), list(keys.Pending))
	}
	if e := run("key.reject", "{args: [{match: db1}]}"); e != "" {
		t.Fatal(e)
	}
	if list(keys.Rejected) != "db1,old" {
		t.Errorf("after reject: rejected %q", list(keys.Rejected))
	}
	if e := run("key.accept", "{match: 'old,nothing', include_rejected: true}"); e != "" {
		t.Fatal(e)
	}
	if e := run("key.delete", "{match: [web2, db1]}"); e != "" {
		t.Fatal(e)
	}
	if list(keys.Accepted) != "old,web1" || list(keys.Rejected) != "" {
		t.Errorf("after delete: accepted %q rejected %q", list(keys.Accepted), list(keys.Rejected))
	}
	// Only changes outside the accepted set are fired here; the master
	// fires the others when it reloads the keys.
	want := []string{
		`salt/wheel/JID/new {"fun": "wheel.key.accept", "jid": "JID", "user": "Reactor", "fun_args": [{"match": "web*"}]}`,
		`salt/wheel/JID/ret {"fun": "wheel.key.accept", "jid": "JID", "user": "Reactor", "fun_args": [{"match": "web*"}], "return": {"minions": ["web1", "web2"]}, "success": true}`,
		`salt/wheel/JID/new {"fun": "wheel.key.reject", "jid": "JID", "user": "Reactor", "fun_args": [{"match": "db1"}]}`,
		`salt/key {"result": true, "act": "reject", "id": "db1"}`,
		`salt/wheel/JID/ret {"fun": "wheel.key.reject", "jid": "JID", "user": "Reactor", "fun_args": [{"match": "db1"}], "return": {"minions": ["db1"]}, "success": true}`,
		`salt/wheel/JID/new {"fun": "wheel.key.accept", "jid": "JID", "user": "Reactor", "fun_args": [{"match": "old,nothing", "include_rejected": true}]}`,
		`salt/wheel/JID/ret {"fun": "wheel.key.accept", "jid": "JID", "user": "Reactor", "fun_args": [{"match": "old,nothing", "include_rejected": true}], "return": {"minions": ["old"]}, "success": true}`,
		`salt/wheel/JID/new {"fun": "wheel.key.delete", "jid": "JID", "user": "Reactor", "fun_args": [{"match": ["web2", "db1"]}]}`,
		`salt/key {"result": true, "act": "delete", "id": "db1"}`,
		`salt/wheel/JID/ret {"fun": "wheel.key.delete", "jid": "JID", "user": "Reactor", "fun_args": [{"match": ["web2", "db1"]}], "return": {"minions": ["web2", "db1"]}, "success": true}`,
	}
	if got := strings.Join(fired, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("fired:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	fired = nil
	if reloads != 4 {
		t.Errorf("KeysChanged called %d times, want 4", reloads)
	}
	if e := run("key.accept", "{}"); !strings.Contains(e, "/srv/r.sls:3: Reactor 'k' failed to execute wheel 'key.accept': key.accept() missing 1 required positional argument: 'match'") {
		t.Errorf("no match: %q", e)
	}
	if e := run("key.finger", "{match: x}"); !strings.Contains(e, "'key.finger' is not available") {
		t.Errorf("unknown wheel function: %q", e)
	}
	if len(fired) != 4 || !strings.Contains(fired[1], `"return": "key.accept() missing 1 required positional argument: 'match'", "success": false`) {
		t.Errorf("failed wheel calls fired:\n%s", strings.Join(fired, "\n"))
	}
}

type runnerFunc func(ctx context.Context, fun string, args []any, kwargs *value.Map) (any, error)

func (f runnerFunc) CallRunner(ctx context.Context, fun string, args []any, kwargs *value.Map) (any, error) {
	return f(ctx, fun, args, kwargs)
}

func TestRunLocalRunnerCaller(t *testing.T) {
	pub := &published{}
	var runnerCalls []string
	r := New(Config{Opts: value.NewMap(0), Publisher: pub})
	chunk := func(state, fun, args string) Chunk {
		v, err := yamlload.SafeLoad([]byte(args), "t")
		if err != nil {
			t.Fatal(err)
		}
		return Chunk{ID: "id", State: state, Fun: fun, Args: v.(*value.Map), File: "/srv/r.sls", Line: 7}
	}
	if d := r.Run(chunk("local", "state.apply", "{tgt: 'G@os:Debian', tgt_type: compound, args: [{mods: web}]}")); d != nil {
		t.Fatal(d)
	}
	if d := r.Run(chunk("local", "test.ping", "{tgt: [a, b], expr_form: list}")); d != nil {
		t.Fatal(d)
	}
	if got := strings.Join(pub.jobs, "\n"); got != "compound G@os:Debian state.apply [] {\"mods\": \"web\"}\nlist a,b test.ping [] {}" {
		t.Errorf("published:\n%s", got)
	}
	if d := r.Run(chunk("local", "test.ping", "{}")); d == nil || d.Error() != "/srv/r.sls:7: Reactor 'id' failed to execute local 'test.ping': no tgt given" {
		t.Errorf("no tgt: %v", d)
	}
	if d := r.Run(chunk("runner", "jobs.list_jobs", "{}")); d == nil || !strings.Contains(d.Error(), "the runner system is unavailable") {
		t.Errorf("runner without a registry: %v", d)
	}
	r.cfg.Runner = runnerFunc(func(_ context.Context, fun string, args []any, kwargs *value.Map) (any, error) {
		runnerCalls = append(runnerCalls, fun+" "+value.ToJSON(kwargs, value.JSONOptions{Indent: -1}))
		if fun == "bad.fun" {
			return nil, errors.New("'bad.fun' is not available")
		}
		return true, nil
	})
	if d := r.Run(chunk("runner", "state.orchestrate", "{args: [{mods: orch.web}]}")); d != nil {
		t.Fatal(d)
	}
	if d := r.Run(chunk("runner", "bad.fun", "{}")); d == nil || !strings.Contains(d.Error(), "'bad.fun' is not available") {
		t.Errorf("failing runner: %v", d)
	}
	if got := strings.Join(runnerCalls, "\n"); got != "state.orchestrate {\"mods\": \"orch.web\", \"__user__\": \"Reactor\"}\nbad.fun {\"__user__\": \"Reactor\"}" {
		t.Errorf("runner calls:\n%s", got)
	}
	// caller runs the function on the master host.
	out := filepath.Join(t.TempDir(), "touched")
	if d := r.Run(chunk("caller", "cmd.run", "{args: [{cmd: 'touch "+out+"'}, {python_shell: true}]}")); d != nil {
		t.Fatal(d)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("caller cmd.run did not run: %v", err)
	}
	if d := r.Run(chunk("caller", "no.such", "{}")); d == nil {
		t.Error("caller of an unknown function succeeded")
	}
	if d := r.Run(chunk("mine", "x", "{}")); d == nil || !strings.Contains(d.Error(), "ReactWrap is missing a wrapper function for 'mine'") {
		t.Errorf("unknown state: %v", d)
	}
}

// TestHandle feeds events through the queue and the workers.
func TestHandle(t *testing.T) {
	dir := t.TempDir()
	sls := write(t, dir, "start.sls", "ping:\n  local.test.ping:\n    - tgt: {{ data['id'] }}\n")
	pub := &published{ch: make(chan string, 4)}
	r := New(Config{Opts: value.MapOf("reactor", value.NewList(value.MapOf("salt/minion/*/start", value.NewList(sls)))), Publisher: pub})
	r.Start()
	defer r.Close()
	r.Handle(events.Event{Tag: "salt/minion/m1/start", Data: value.MapOf("id", "m1")})
	r.Handle(events.Event{Tag: "salt/minion/m2/start", Data: value.MapOf("id", "m2", "user", EventUser)}) // the reactor's own
	r.Handle(events.Event{Tag: "salt/key", Data: value.MapOf("id", "m3")})                                // no reactor
	r.Handle(events.Event{Tag: "salt/minion/m4/start", Data: value.MapOf("id", "m4")})
	got := map[string]bool{}
	for range 2 {
		select {
		case s := <-pub.ch:
			got[s] = true
		case <-time.After(30 * time.Second):
			t.Fatalf("reactions did not run; got %v", got)
		}
	}
	if !got["glob m1 test.ping [] {}"] || !got["glob m4 test.ping [] {}"] {
		t.Errorf("reactions: %v", got)
	}
}
