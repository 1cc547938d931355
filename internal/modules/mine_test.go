package modules

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func mineCtx(t *testing.T, opts, pillar string) *execmod.Context {
	t.Helper()
	ctx := execmod.NewContext()
	o, err := yamlload.Load([]byte(opts), "opts")
	if err != nil {
		t.Fatal(err)
	}
	ctx.Opts = o.(*value.Map)
	ctx.Opts.Set("cachedir", t.TempDir())
	ctx.Opts.Set("id", "m1")
	ctx.Grains = value.MapOf("id", "m1", "os", "Debian")
	p, err := yamlload.Load([]byte(pillar), "pillar")
	if err != nil {
		t.Fatal(err)
	}
	ctx.Pillar = p.(*value.Map)
	return ctx
}

func mineCall(t *testing.T, ctx *execmod.Context, fun string, args []any, kw *value.Map) string {
	t.Helper()
	v, err := ctx.Call(fun, args, kw)
	if err != nil {
		t.Fatalf("%s: %v", fun, err)
	}
	return value.ToJSON(v, value.JSONOptions{Indent: -1})
}

// The local mine (file_client: local) is the mine_cache of the minion's
// data store, as salt-call --local's.
func TestMineLocal(t *testing.T) {
	ctx := mineCtx(t, `{file_client: local, mine_functions: {ident: {mine_function: test.echo, text: hello}, test.ping: []}}`,
		`{mine_functions: {role: [{mine_function: test.echo}, web]}}`)
	for _, step := range []struct {
		fun  string
		args []any
		kw   *value.Map
		want string
	}{
		{"mine.get", []any{"*", "ident"}, nil, `{}`},
		{"mine.update", nil, nil, `true`},
		{"mine.get", []any{"*", "ident"}, nil, `{"m1": "hello"}`},
		{"mine.get", []any{"m1", "ident,test.ping,role"}, nil, `{"ident": {"m1": "hello"}, "test.ping": {"m1": true}, "role": {"m1": "web"}}`},
		{"mine.get", []any{"other", "ident"}, nil, `{}`},
		{"mine.get", []any{"os:Debian", "ident"}, value.MapOf("tgt_type", "grain"), `{"m1": "hello"}`},
		{"mine.send", []any{"secret", "s"}, value.MapOf("mine_function", "test.echo", "allow_tgt", "web*", "__pub_jid", "1"), `true`},
		// The local mine ignores allow_tgt, unwrapping the data.
		{"mine.get", []any{"*", value.NewList("secret")}, nil, `{"secret": {"m1": "s"}}`},
		{"mine.delete", []any{"ident"}, nil, `true`},
		{"mine.get", []any{"*", "ident"}, nil, `{}`},
		{"mine.valid", nil, nil, `{"role": {"test.echo": ["web"]}, "ident": {"test.echo": [{"text": "hello"}]}, "test.ping": []}`},
		{"mine.update", nil, value.MapOf("clear", true, "mine_functions", value.NewList("test.ping")), `true`},
		{"mine.get", []any{"*", "role,test.ping"}, nil, `{"test.ping": {"m1": true}}`},
		{"mine.flush", nil, nil, `true`},
		{"mine.get", []any{"*", "test.ping"}, nil, `{}`},
	} {
		kw := step.kw
		if kw == nil {
			kw = value.NewMap(0)
		}
		if got := mineCall(t, ctx, step.fun, step.args, kw.Copy()); got != step.want {
			t.Errorf("%s %v %v = %s, want %s", step.fun, step.args, kw, got, step.want)
		}
	}
	// The store is msgpack, readable by Salt's data module.
	b, err := os.ReadFile(filepath.Join(execmod.String(mustOpt(ctx, "cachedir")), "datastore"))
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := msgpackDecode(b, 0)
	if err != nil || value.ToJSON(v, value.JSONOptions{Indent: -1}) != `{"mine_cache": {}}` {
		t.Errorf("datastore %v %v", v, err)
	}
}

func TestMsgpack(t *testing.T) {
	// {"mine_cache": {"a": 1, "b": [-1, 1.5, null, true, "x"]}} as Python's msgpack packs it.
	py := []byte{0x81, 0xaa, 'm', 'i', 'n', 'e', '_', 'c', 'a', 'c', 'h', 'e', 0x82, 0xa1, 'a', 0x01, 0xa1, 'b',
		0x95, 0xff, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xc0, 0xc3, 0xa1, 'x'}
	v, n, err := msgpackDecode(py, 0)
	if err != nil || n != len(py) {
		t.Fatalf("decode: %v at %d", err, n)
	}
	want := `{"mine_cache": {"a": 1, "b": [-1, 1.5, null, true, "x"]}}`
	if got := value.ToJSON(v, value.JSONOptions{Indent: -1}); got != want {
		t.Errorf("decoded %s", got)
	}
	enc, err := msgpackEncode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := msgpackDecode(enc, 0)
	if err != nil || value.ToJSON(back, value.JSONOptions{Indent: -1}) != want {
		t.Errorf("round trip %v %v", back, err)
	}
	for _, bad := range [][]byte{{}, {0x92, 0x01}, {0xdb, 0, 0, 0, 9, 'x'}, {0xc1}} {
		if _, _, err := msgpackDecode(bad, 0); err == nil {
			t.Errorf("% x decoded", bad)
		}
	}
}

// mineRecorder is a master's mine as a minion run sees it.
type mineRecorder struct{ calls []string }

func (r *mineRecorder) MineStore(data *value.Map, clear bool) (any, error) {
	r.calls = append(r.calls, "store "+value.ToJSON(data, value.JSONOptions{Indent: -1})+" "+value.Repr(clear))
	return true, nil
}
func (r *mineRecorder) MineDelete(fun string) (any, error) {
	r.calls = append(r.calls, "delete "+fun)
	return true, nil
}
func (r *mineRecorder) MineFlush() (any, error) { r.calls = append(r.calls, "flush"); return true, nil }
func (r *mineRecorder) MineGet(tgt string, fun any, tgtType string) (any, error) {
	r.calls = append(r.calls, "get "+tgt+" "+value.Repr(fun)+" "+tgtType)
	return value.MapOf("m1", "mine", "m2", "theirs"), nil
}

// With a master, the functions hand Salt's loads to the mine service;
// allow_tgt entries are wrapped as salt/utils/mine.py wraps them.
func TestMineRemote(t *testing.T) {
	ctx := mineCtx(t, `{mine_functions: {ident: [{mine_function: test.echo}, hi, {allow_tgt: 'G@role:web', allow_tgt_type: compound}]}}`, `{}`)
	rec := &mineRecorder{}
	ctx.SetService("mine", rec)
	mineCall(t, ctx, "mine.update", nil, value.NewMap(0))
	mineCall(t, ctx, "mine.send", []any{"x", int64(3)}, value.MapOf("mine_function", "test.echo"))
	if got := mineCall(t, ctx, "mine.get", []any{"*", "x"}, value.MapOf("exclude_minion", true)); got != `{"m2": "theirs"}` {
		t.Errorf("exclude_minion: %s", got)
	}
	mineCall(t, ctx, "mine.delete", []any{"x"}, value.NewMap(0))
	mineCall(t, ctx, "mine.flush", nil, value.NewMap(0))
	want := []string{
		`store {"ident": {"__data__": "hi", "__saltmine_acl__": 1, "allow_tgt": "G@role:web", "allow_tgt_type": "compound"}} False`,
		`store {"x": 3} False`,
		`get * 'x' glob`,
		`delete x`,
		`flush`,
	}
	if len(rec.calls) != len(want) {
		t.Fatalf("calls %q", rec.calls)
	}
	for i := range want {
		if rec.calls[i] != want[i] {
			t.Errorf("call %d = %s, want %s", i, rec.calls[i], want[i])
		}
	}
	// Without a master connection the functions say so.
	bare := mineCtx(t, `{}`, `{}`)
	if _, err := bare.Call("mine.get", []any{"*", "x"}, value.NewMap(0)); err == nil {
		t.Error("mine.get without a master succeeded")
	}
}
