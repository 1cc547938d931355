package integration

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// mineRequest sends a mine request body (any JSON) from nc on minion
// id's request subject and returns the master's reply.
func mineRequest(t *testing.T, nc *nats.Conn, id string, body any) (proto.Reply, error) {
	t.Helper()
	_, data, err := proto.NewRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := nc.Request(proto.ReqSubject(id, proto.ReqMine), data, 2*time.Second)
	if err != nil {
		return proto.Reply{}, err
	}
	var rep proto.Reply
	if _, err := proto.Open(msg.Data, "", &rep); err != nil {
		t.Fatalf("reply: %v", err)
	}
	return rep, nil
}

// TestMaliciousMineClient has a client holding web1's key (a real NATS
// connection, no brine minion code) try to write, delete and flush db1's
// mine data, reach the mine's bucket directly, and read data whose
// allow_tgt excludes web1. db1's data must come through unchanged, and
// web1 must read nothing it is not allowed to.
func TestMaliciousMineClient(t *testing.T) {
	c := acceptedCluster(t, nil, map[string]string{"web1": "", "web2": "", "db1": ""})
	if got := c.callJSON("db1", "mine.send", "ident", "mine_function=test.echo", "db1-ident"); got != true {
		t.Fatalf("mine.send: %v", got)
	}
	if got := c.callJSON("db1", "mine.send", "secret", "mine_function=test.echo", "s3cr3t", "allow_tgt=web2"); got != true {
		t.Fatalf("mine.send: %v", got)
	}
	js, err := jetstream.New(masterConn(t, c))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, proto.MineBucket)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := kv.Get(ctx, proto.Token("db1"))
	if err != nil {
		t.Fatal(err)
	}
	before := string(entry.Value())
	if !strings.Contains(before, "s3cr3t") || !strings.Contains(before, "db1-ident") {
		t.Fatalf("db1's mine data: %s", before)
	}

	var mu sync.Mutex
	var violations []string
	atk := dialAs(t, c, "web1", nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		mu.Lock()
		violations = append(violations, err.Error())
		mu.Unlock()
	}))

	t.Run("requests on db1's subject are refused by the server", func(t *testing.T) {
		for _, body := range []any{
			proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf("ident", "forged")}},
			proto.MineRequest{Op: proto.MineDelete, Fun: proto.ValueJSON{V: "ident"}},
			proto.MineRequest{Op: proto.MineFlush},
			proto.MineRequest{Op: proto.MineGet, Tgt: "*", Fun: proto.ValueJSON{V: "secret"}},
		} {
			if rep, err := mineRequest(t, atk, "db1", body); err == nil {
				t.Errorf("request %+v as db1 answered: %+v", body, rep)
			}
		}
	})

	t.Run("a body naming db1 writes web1's own data", func(t *testing.T) {
		forged := map[string]any{"op": "store", "id": "db1", "minion": "db1", "data": map[string]any{"ident": "forged"}}
		rep, err := mineRequest(t, atk, "web1", forged)
		if err != nil || rep.Error != "" {
			t.Fatalf("web1's store: %v %+v", err, rep)
		}
		for _, body := range []any{
			map[string]any{"op": "delete", "id": "db1", "fun": "ident"},
			map[string]any{"op": "flush", "id": "db1"},
		} {
			if rep, err := mineRequest(t, atk, "web1", body); err != nil || rep.Error != "" || string(rep.Body) != `{"result":true}` {
				t.Errorf("web1's %v: %v %+v", body, err, rep)
			}
		}
	})

	t.Run("the bucket cannot be reached directly", func(t *testing.T) {
		bucket := "KV_" + proto.MineBucket
		for _, subj := range []string{
			"$KV." + proto.MineBucket + "." + proto.Token("db1"),
			"$JS.API.STREAM.PURGE." + bucket,
			"$JS.API.STREAM.DELETE." + bucket,
			"$JS.API.STREAM.MSG.DELETE." + bucket,
			"$JS.API.DIRECT.GET." + bucket + ".$KV." + proto.MineBucket + "." + proto.Token("db1"),
			"$JS.API.STREAM.MSG.GET." + bucket,
		} {
			if msg, err := atk.Request(subj, []byte(`{"last_by_subj":"$KV.BRINE_MINE.db1","seq":1}`), 2*time.Second); err == nil {
				t.Errorf("%s answered: %s", subj, msg.Data)
			}
		}
		if _, err := atk.SubscribeSync("$KV." + proto.MineBucket + ".>"); err != nil {
			t.Fatal(err)
		}
		if err := atk.Flush(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("allow_tgt keeps db1's secret from web1", func(t *testing.T) {
		for _, tgt := range []struct{ tgt, typ string }{{"db1", "glob"}, {"*", "glob"}, {"db1", "list"}, {"G@id:db1 or db1", "compound"}} {
			rep, err := mineRequest(t, atk, "web1", proto.MineRequest{Op: proto.MineGet, Tgt: tgt.tgt, TgtType: tgt.typ, Fun: proto.ValueJSON{V: value.NewList("secret", "ident")}})
			if err != nil || rep.Error != "" {
				t.Fatalf("web1's get: %v %+v", err, rep)
			}
			if strings.Contains(string(rep.Body), "s3cr3t") || !strings.Contains(string(rep.Body), "db1-ident") {
				t.Errorf("web1's get of %v: %s", tgt, rep.Body)
			}
		}
		// web2, which allow_tgt names, reads it.
		if got := asJSONString(c.callJSON("web2", "mine.get", "db1", "secret")); got != `{"db1":"s3cr3t"}` {
			t.Errorf("web2 reads %s", got)
		}
	})

	entry, err = kv.Get(ctx, proto.Token("db1"))
	if err != nil {
		t.Fatal(err)
	}
	if after := string(entry.Value()); after != before {
		t.Errorf("db1's mine data changed:\nbefore %s\nafter  %s", before, after)
	}
	if e, err := kv.Get(ctx, proto.Token("web1")); err == nil {
		t.Errorf("web1's flush left data: %s", e.Value())
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(violations, "\n"), "Permissions Violation") {
		t.Errorf("the server reported no permission violation: %v", violations)
	}
	var dec map[string]any
	if err := json.Unmarshal(entry.Value(), &dec); err != nil || dec["ident"] != "db1-ident" {
		t.Errorf("db1's entry: %v %v", dec, err)
	}
}
