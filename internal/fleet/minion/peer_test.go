package minion_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/minion"
	"brine/internal/fleet/proto"
	"brine/internal/fleet/runners"
	"brine/internal/value"
)

// TestPeerRules checks the master's peer and peer_run rules on requests
// sent with the minions' own connections: function regexes, target
// entries ({target: [functions]}, allowing only jobs whose minions the
// target covers), no publish.* loops, and allow_minion_key_revoke off.
func TestPeerRules(t *testing.T) {
	m, dir := startMaster(t, map[string]any{
		"peer": value.MapOf(
			"pub.*", value.NewList(value.MapOf("tgt*", value.NewList("test\\..*"))),
			"pub2", value.NewList("grains\\.get"),
			"other", value.NewList(".*"),
		),
		"peer_run":                value.MapOf("pub1", value.NewList("test\\.arg")),
		"allow_minion_key_revoke": false,
	})
	m.Runner = runners.Caller{Opts: m.Opts}
	for name, text := range map[string]string{
		"top.sls":   "base:\n  tgt1: [web]\n  tgt2: [webdb]\n",
		"web.sls":   "role: web\n",
		"webdb.sls": "role: webdb\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, "srv", "pillar", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := startMinions(t, m, dir, []string{"pub1", "pub2", "tgt1", "tgt2"}, nil)
	conn := func(id string) *minion.Conn {
		kp, err := minion.LoadKey(opts[id])
		if err != nil {
			t.Fatal(err)
		}
		c, err := minion.Dial(opts[id], id, kp, minion.DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	pub1, pub2 := conn("pub1"), conn("pub2")
	for _, tc := range []struct {
		c       *minion.Conn
		tgt     string
		tgtType string
		fun     string
		allowed bool
	}{
		{pub1, "tgt1", "", "test.ping", true},
		{pub1, "tgt*", "glob", "test.echo", true},
		{pub1, "tgt1,tgt2", "list", "test.ping", true},
		{pub1, "*", "glob", "test.ping", false},          // pub1 and pub2 are not under tgt*
		{pub1, "tgt1", "", "cmd.run", false},             // not a test function
		{pub1, "tgt1", "", "publish.publish", false},     // no publication loops
		{pub2, "tgt1", "", "grains.get", true},           // a function entry: any target
		{pub2, "*", "glob", "grains.get", true},          //
		{pub2, "tgt1", "", "test.ping,test.echo", false}, // compound functions are refused
		// pillar globbing may not select more than exact matching would
		{pub1, "role:web", "pillar", "test.ping", true},
		{pub1, "role:web*", "pillar", "test.ping", false},
		{pub1, "role:w.*", "pillar_pcre", "test.ping", false},
		{pub1, "I@role:web and tgt*", "compound", "test.ping", true},
		{pub1, "( I@role:web* ) and tgt*", "compound", "test.ping", false},
		{pub1, "G@nosuch:x or I@role:webdb", "compound", "test.ping", true},
	} {
		var rep proto.PeerPubReply
		err := tc.c.Request(proto.ReqPeerPub, proto.PeerPubRequest{Tgt: tc.tgt, TgtType: tc.tgtType, Fun: tc.fun}, &rep, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.JID != ""; got != tc.allowed {
			t.Errorf("%s to %s (%s): published = %v, want %v", tc.fun, tc.tgt, tc.tgtType, got, tc.allowed)
		}
	}
	for _, tc := range []struct {
		c    *minion.Conn
		fun  string
		want string
	}{
		{pub1, "test.arg", `{"args": ["x"], "kwargs": {"k": 1}}`},
		{pub1, "test.raw_arg", `{}`},
		{pub2, "test.arg", `{}`},
	} {
		var rep proto.PeerRunReply
		req := proto.PeerRunRequest{Fun: tc.fun, Arg: proto.ValueJSON{V: value.NewList("x")}, Kwarg: proto.ValueJSON{V: value.MapOf("k", int64(1))}}
		if err := tc.c.Request(proto.ReqPeerRun, req, &rep, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		ret := rep.Return.V
		if got := value.ToJSON(ret, value.JSONOptions{Indent: -1}); got != tc.want {
			t.Errorf("peer runner %s: %s, want %s", tc.fun, got, tc.want)
		}
	}
	// With allow_minion_key_revoke off, a revoke leaves the key.
	if err := pub2.Request(proto.ReqRevokeAuth, proto.RevokeAuthRequest{}, nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	st, err := keys.OpenStore(execmod.String(mustOpt(m.Opts, "pki_dir")))
	if err != nil {
		t.Fatal(err)
	}
	if acc, _ := st.Accepted(); acc["pub2"] == "" {
		t.Errorf("pub2's key was deleted with allow_minion_key_revoke: False")
	}
}

// TestSaltutilCmdIter publishes through the master beside a minion's
// config as saltutil.cmd does (a published job merges what Salt's
// generator yields); under salt-call the generator itself is the return.
func TestSaltutilCmdIter(t *testing.T) {
	m, dir := startMaster(t, nil)
	startMinions(t, m, dir, []string{"i1", "i2"}, nil)
	conf := t.TempDir()
	masterConf := "pki_dir: " + execmod.String(mustOpt(m.Opts, "pki_dir")) + "\ncachedir: " + execmod.String(mustOpt(m.Opts, "cachedir")) + "\n"
	for name, text := range map[string]string{"minion": "file_client: local\n", "master": masterConf} {
		if err := os.WriteFile(filepath.Join(conf, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := execmod.NewContext()
	ctx.Opts = value.MapOf("conf_file", filepath.Join(conf, "minion"), "__role", "minion")
	got, err := ctx.Call("saltutil.cmd_iter", []any{"i*", "test.echo"}, value.MapOf("arg", value.NewList("hi"), "__pub_tgt", "i1"))
	if err != nil {
		t.Fatal(err)
	}
	ret, _ := got.(*value.Map)
	for _, id := range []string{"i1", "i2"} {
		r, _ := ret.Get(id)
		rm, _ := r.(*value.Map)
		if out, _ := rm.Get("ret"); out != "hi" {
			t.Errorf("%s: %s", id, value.Repr(got))
		}
	}
	got, err = ctx.Call("saltutil.cmd_iter", []any{"i*", "test.ping"}, value.MapOf("__pub_tgt", "salt-call"))
	if s, _ := got.(string); err != nil || !strings.HasPrefix(s, "<generator object cmd_iter at 0x") {
		t.Errorf("under salt-call: %v, %v", got, err)
	}
	if _, err := ctx.Call("saltutil.cmd_iter", []any{"i*"}, value.NewMap(0)); err == nil || err.Error() != "cmd_iter() missing 1 required positional argument: 'fun'" {
		t.Errorf("missing fun: %v", err)
	}
}
