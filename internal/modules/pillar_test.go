package modules

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// fakePillar records how it was asked to compile and returns a fixed pillar.
type fakePillar struct {
	pillarenv string
	override  *value.Map
	decrypted bool
}

func (f *fakePillar) Compile(opts, grains *value.Map, id, saltenv, pillarenv string, override, previous *value.Map) (*value.Map, error) {
	f.pillarenv, f.override = pillarenv, override
	out := value.MapOf("fresh", true)
	if override != nil {
		out.Update(override)
	}
	return out, nil
}

func (f *fakePillar) Decrypt(opts *value.Map, data any, renderer string, nl bool) (any, error) {
	if renderer != "gpg" || !nl {
		return nil, errors.New("'" + renderer + "' is not a valid decryption renderer. Valid choices are: gpg")
	}
	f.decrypted = true
	return value.MapOf("secret", "plain"), nil
}

func pillarCtx(t *testing.T, cfg string) (*execmod.Context, *fakePillar) {
	t.Helper()
	ctx := execmod.NewContext()
	v, err := value.FromJSON([]byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	ctx.Opts = v.(*value.Map)
	p, _ := value.FromJSON([]byte(`{"app": {"db": {"host": "h", "port": 1}, "list": [1, 2], "colon:key": "c"}, "users": [{"name": "a"}, {"name": "b"}], "n": null, "f": 0.5}`))
	ctx.Pillar = p.(*value.Map)
	f := &fakePillar{}
	ctx.SetService(PillarServiceName, f)
	return ctx, f
}

func TestPillarFunctions(t *testing.T) {
	tests := []struct {
		name   string
		cfg    string
		fun    string
		args   []any
		kwargs string
		want   string
		err    string
	}{
		{name: "get nested", fun: "pillar.get", args: []any{"app:db:host"}, want: `"h"`},
		{name: "get list index", fun: "pillar.get", args: []any{"users:1:name"}, want: `"b"`},
		{name: "get missing", fun: "pillar.get", args: []any{"nope"}, want: `""`},
		{name: "get default", fun: "pillar.get", args: []any{"nope"}, kwargs: `{"default": 5}`, want: `5`},
		{name: "get delimiter", fun: "pillar.get", args: []any{"app|colon:key"}, kwargs: `{"delimiter": "|"}`, want: `"c"`},
		{name: "get raise on missing", cfg: `{"pillar_raise_on_missing": true}`, fun: "pillar.get", args: []any{"nope"}, err: "'Pillar key not found: nope'"},
		{name: "get merge dict", fun: "pillar.get", args: []any{"app:db"}, kwargs: `{"merge": true, "default": {"host": "d", "pool": 5}}`, want: `{"host": "h", "pool": 5, "port": 1}`},
		{name: "get merge missing", fun: "pillar.get", args: []any{"nope"}, kwargs: `{"merge": true, "default": {"x": 1}}`, want: `{"x": 1}`},
		{name: "get merge list", fun: "pillar.get", args: []any{"app:list"}, kwargs: `{"merge": true, "default": [2, 3]}`, want: `[2, 3, 1]`},
		{name: "get merge type mismatch", fun: "pillar.get", args: []any{"app:list"}, kwargs: `{"merge": true, "default": {"x": 1}}`, want: `[1, 2]`},
		{name: "get with pillarenv compiles", fun: "pillar.get", args: []any{"fresh"}, kwargs: `{"pillarenv": "qa"}`, want: `true`},
		{name: "item", fun: "pillar.item", args: []any{"app:db:port", "nope"}, want: `{"app:db:port": 1, "nope": ""}`},
		{name: "item default", fun: "pillar.item", args: []any{"nope"}, kwargs: `{"default": "d"}`, want: `{"nope": "d"}`},
		{name: "raw key", fun: "pillar.raw", kwargs: `{"key": "f"}`, want: `0.5`},
		{name: "raw missing key", fun: "pillar.raw", kwargs: `{"key": "zz"}`, want: `{}`},
		{name: "keys", fun: "pillar.keys", args: []any{"app:db"}, want: `["host", "port"]`},
		{name: "keys not dict", fun: "pillar.keys", args: []any{"app:list"}, err: "Pillar value in key app:list is not a dict"},
		{name: "keys missing", fun: "pillar.keys", args: []any{"zz"}, err: "'Pillar key not found: zz'"},
		{name: "items fresh", fun: "pillar.items", want: `{"fresh": true}`},
		{name: "items with keys", fun: "pillar.items", args: []any{"app:db:host"}, want: `{"app:db:host": "h"}`},
		{name: "items override", fun: "pillar.items", kwargs: `{"pillar": {"o": 1}}`, want: `{"fresh": true, "o": 1}`},
		{name: "items non-dict override ignored", fun: "pillar.items", kwargs: `{"pillar": [1, 2]}`, want: `{"fresh": true}`},
		{name: "items pillar_enc", fun: "pillar.items", kwargs: `{"pillar": "cipher", "pillar_enc": "gpg"}`, want: `{"fresh": true, "secret": "plain"}`},
		{name: "items bad pillar_enc", fun: "pillar.items", kwargs: `{"pillar": "cipher", "pillar_enc": "yaml"}`, err: "Failed to decrypt pillar override: 'yaml' is not a valid decryption renderer. Valid choices are: gpg"},
		{name: "ls", fun: "pillar.ls", want: `["fresh"]`},
		{name: "obfuscate", fun: "pillar.obfuscate", kwargs: `{"pillar": {"a": [1, "x", null, 1.5, true]}}`, want: `{"fresh": "<bool>", "a": ["<int>", "<str>", "<NoneType>", "<float>", "<bool>"]}`},
		{name: "file_exists no roots", fun: "pillar.file_exists", args: []any{"x.sls"}, err: "No pillar_roots found. Are you running this on the master?"},
		{name: "filter_by", fun: "pillar.filter_by", args: []any{value.MapOf("h*", "yes", "default", "no"), "app:db:host"}, want: `"yes"`},
		{name: "filter_by default", fun: "pillar.filter_by", args: []any{value.MapOf("x", "yes", "default", "no"), "app:db:host"}, want: `"no"`},
		{name: "refresh_pillar", fun: "saltutil.refresh_pillar", want: `false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if cfg == "" {
				cfg = `{}`
			}
			ctx, _ := pillarCtx(t, cfg)
			kw := value.NewMap(0)
			if tt.kwargs != "" {
				v, _ := value.FromJSON([]byte(tt.kwargs))
				kw = v.(*value.Map)
			}
			got, err := ctx.Call(tt.fun, tt.args, kw)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, _ := value.FromJSON([]byte(tt.want))
			if g, w := value.ToJSON(got, value.JSONOptions{}), value.ToJSON(want, value.JSONOptions{}); g != w {
				t.Errorf("got %s, want %s", g, w)
			}
		})
	}
}

func TestPillarItemsPillarenv(t *testing.T) {
	for _, tt := range []struct{ cfg, kwargs, want string }{
		{`{"pillarenv": "dev"}`, `{}`, "dev"},
		{`{"pillarenv": "dev"}`, `{"pillarenv": "qa"}`, "qa"},
		{`{"pillarenv_from_saltenv": true, "saltenv": "dev"}`, `{}`, "dev"},
		{`{"pillarenv_from_saltenv": true, "saltenv": "dev"}`, `{"saltenv": "prod"}`, "prod"},
	} {
		ctx, f := pillarCtx(t, tt.cfg)
		v, _ := value.FromJSON([]byte(tt.kwargs))
		if _, err := ctx.Call("pillar.items", nil, v.(*value.Map)); err != nil {
			t.Fatal(err)
		}
		if f.pillarenv != tt.want {
			t.Errorf("%s %s: pillarenv %q, want %q", tt.cfg, tt.kwargs, f.pillarenv, tt.want)
		}
	}
}

func TestPillarFileExists(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "dev", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "dev", "sub", "x.sls"), nil, 0o644)
	cfg := `{"pillar_roots": {"base": ["` + filepath.Join(dir, "base") + `"], "dev": ["` + filepath.Join(dir, "dev") + `"]}}`
	for _, tt := range []struct {
		args []any
		kw   string
		want bool
	}{
		{[]any{"sub/x.sls"}, `{}`, true},
		{[]any{"sub/x.sls"}, `{"saltenv": "base"}`, false},
		{[]any{"sub/x.sls"}, `{"saltenv": "dev"}`, true},
		{[]any{"sub/x.sls"}, `{"saltenv": "nope"}`, false},
		{[]any{"sub"}, `{}`, false},
	} {
		ctx, _ := pillarCtx(t, cfg)
		v, _ := value.FromJSON([]byte(tt.kw))
		got, err := ctx.Call("pillar.file_exists", tt.args, v.(*value.Map))
		if err != nil || got != tt.want {
			t.Errorf("%v %s: %v %v, want %v", tt.args, tt.kw, got, err, tt.want)
		}
	}
}

func TestPillarUnavailable(t *testing.T) {
	ctx := execmod.NewContext()
	if _, err := ctx.Call("pillar.items", nil, nil); err == nil {
		t.Fatal("pillar.items without a pillar service succeeded")
	}
}
