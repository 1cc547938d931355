package returners_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/fleet/proto"
	"brine/internal/fleet/returners"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func yamlMap(t *testing.T, src string) *value.Map {
	t.Helper()
	v, err := yamlload.Load([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return value.NewMap(0)
	}
	return v.(*value.Map)
}

func TestOptions(t *testing.T) {
	attrs := [][2]string{{"host", "host"}, {"port", "port"}, {"db", "db"}}
	defaults := map[string]any{"host": "localhost", "port": int64(5432)}
	for _, tc := range []struct {
		name, opts, pillar, ret string
		want                    string
	}{
		{"defaults", ``, ``, ``, `{"host": "localhost", "port": 5432}`},
		{"dotted keys", `{"r.host": "h1", "r.db": "d1"}`, ``, ``, `{"host": "h1", "port": 5432, "db": "d1"}`},
		{"a mapping wins over dotted keys", `{"r": {"host": "m"}, "r.host": "d"}`, ``, ``, `{"host": "m", "port": 5432}`},
		{"pillar when the options lack it", ``, `{"r.host": "p"}`, ``, `{"host": "p", "port": 5432}`},
		{"pillar master mapping", ``, `{"master": {"r.db": "pm"}}`, ``, `{"host": "localhost", "port": 5432, "db": "pm"}`},
		{"ret_config alternative", `{"r.host": "h1", "alt.r.host": "h2", "alt.r": {"db": "d2"}}`, ``, `{"ret_config": "alt"}`, `{"host": "h2", "port": 5432, "db": "d2"}`},
		{"ret_config falls back to the plain keys", `{"r.host": "h1"}`, ``, `{"ret_config": "alt"}`, `{"host": "h1", "port": 5432}`},
		{"false values take the default", `{"r.host": ""}`, ``, ``, `{"host": "localhost", "port": 5432}`},
		{"ret_kwargs override", `{"r.host": "h1"}`, ``, `{"ret_kwargs": {"host": "kw", "extra": 1}}`, `{"host": "kw", "port": 5432, "extra": 1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := returners.Config{Opts: yamlMap(t, tc.opts), Pillar: yamlMap(t, tc.pillar)}
			var ret *value.Map
			if tc.ret != "" {
				ret = yamlMap(t, tc.ret)
			}
			got := value.ToJSON(returners.Options(cfg, "r", ret, attrs, defaults), value.JSONOptions{Indent: -1})
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	want := []string{"local_cache", "pgjsonb", "rawfile_json", "syslog"}
	if got := returners.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	err := returners.Run("nosuch", value.NewMap(0), returners.Config{})
	if !errors.Is(err, returners.ErrUnknown) {
		t.Errorf("unknown returner: %v", err)
	}
	if got := returners.SplitNames(" a,b,,a ,c"); strings.Join(got, ",") != "a,b,c" {
		t.Errorf("SplitNames = %v", got)
	}
	if got := returners.NamesOf(value.NewList("x", "y,z")); strings.Join(got, ",") != "x,y,z" {
		t.Errorf("NamesOf = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a duplicate registration did not panic")
		}
	}()
	returners.Register(&returners.Returner{Name: "syslog", Return: func(returners.Config, *value.Map) error { return nil }})
}

func sampleRet() *value.Map {
	r := proto.Return{JID: "20261125203000123456", ID: "web1", Fun: "test.echo",
		FunArgs: proto.ValueJSON{V: value.NewList("héllo")}, Return: proto.ValueJSON{V: "héllo"}, Success: true}
	return returners.Load(r, proto.ReturnSpec{}, "root")
}

func TestLoad(t *testing.T) {
	got := value.ToJSON(sampleRet(), value.JSONOptions{Indent: -1})
	want := `{"success": true, "return": "héllo", "retcode": 0, "jid": "20261125203000123456", "fun": "test.echo", "fun_args": ["héllo"], "user": "root", "id": "web1"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	kw := proto.ValueJSON{V: value.MapOf("db", "x")}
	r := returners.Load(proto.Return{JID: "1", ID: "a", Fun: "f"}, proto.ReturnSpec{Ret: "pgjsonb", RetConfig: "alt", RetKwargs: &kw}, "")
	if got := value.ToJSON(r, value.JSONOptions{Indent: -1}); got != `{"success": false, "return": null, "retcode": 0, "jid": "1", "fun": "f", "fun_args": [], "ret_config": "alt", "ret_kwargs": {"db": "x"}, "id": "a"}` {
		t.Errorf("with ret_config: %s", got)
	}
}

func TestRawfileJSON(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "returns")
	cfg := returners.Config{Opts: value.MapOf("rawfile_json.filename", file)}
	if err := returners.Run("rawfile_json", sampleRet(), cfg); err != nil {
		t.Fatal(err)
	}
	if err := returners.Run("rawfile_json", sampleRet(), cfg); err != nil {
		t.Fatal(err)
	}
	r, _ := returners.Lookup("rawfile_json")
	evs := []*value.Map{
		value.MapOf("data", value.MapOf("jid", "1", "_stamp", "2026-11-25T20:30:00.000001"), "tag", "salt/job/1/new"),
		value.MapOf("data", value.MapOf("a", int64(1)), "tag", "custom"),
	}
	if err := r.EventReturn(cfg, evs); err != nil {
		t.Fatal(err)
	}
	if err := r.EventReturn(returners.Config{Opts: value.MapOf("rawfile_json.filename", filepath.Join(dir, "none"))}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("an empty batch of events created the file")
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"success": true, "return": "héllo", "retcode": 0, "jid": "20261125203000123456", "fun": "test.echo", "fun_args": ["héllo"], "user": "root", "id": "web1"}`
	want := line + "\n" + line + "\n" +
		`{"data": {"jid": "1", "_stamp": "2026-11-25T20:30:00.000001"}, "tag": "salt/job/1/new"}` + "\n" +
		`{"data": {"a": 1}, "tag": "custom"}` + "\n"
	if string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	bad := returners.Config{Opts: value.MapOf("rawfile_json.filename", filepath.Join(dir, "missing", "f"))}
	if err := returners.Run("rawfile_json", sampleRet(), bad); err == nil || !strings.Contains(err.Error(), "could not write to rawdata_json file") {
		t.Errorf("unwritable file: %v", err)
	}
}

func TestSyslog(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "log")
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	old := returners.SyslogSocket
	returners.SyslogSocket = sock
	defer func() { returners.SyslogSocket = old }()
	ret := sampleRet()
	payload := regexp.QuoteMeta(value.ToJSON(ret, value.JSONOptions{Indent: -1}))
	stamp := `[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d`
	for _, tc := range []struct {
		name, opts string
		want       string // a regexp of the datagram
		err        string
	}{
		{"defaults: LOG_USER|LOG_INFO, ident from the program name", ``,
			`^<14>` + stamp + ` ` + regexp.QuoteMeta(filepath.Base(os.Args[0])) + `: ` + payload + `$`, ""},
		{"level, facility, tag and LOG_PID", `{"syslog.level": "LOG_ERR", "syslog.facility": "LOG_LOCAL3", "syslog.tag": "salt-ret", "syslog.options": ["LOG_PID"]}`,
			`^<155>` + stamp + ` salt-ret\[\d+\]: ` + payload + `$`, ""},
		{"a mapping", `{"syslog": {"level": "LOG_DEBUG", "facility": "LOG_DAEMON"}}`,
			`^<31>` + stamp + ` \S+: ` + payload + `$`, ""},
		{"unknown level", `{"syslog.level": "LOG_LOUD"}`, ``, "syslog has no attribute LOG_LOUD"},
		{"unknown option", `{"syslog.options": ["LOG_PID", "LOG_FOO"]}`, ``, "syslog has no attribute LOG_FOO"},
		{"tag too long", `{"syslog.tag": "abcdefghijklmnopqrstuvwxyz0123456"}`, ``, "tag size is limited to 32 characters"},
		{"tag not a string", `{"syslog.tag": 12}`, ``, "tag must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := returners.Run("syslog", ret, returners.Config{Opts: yamlMap(t, tc.opts)})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 1<<16)
			n, _, err := l.ReadFrom(buf)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(tc.want).Match(buf[:n]) {
				t.Errorf("datagram %q does not match %s", buf[:n], tc.want)
			}
		})
	}
}

func TestJIDInstance(t *testing.T) {
	load := yamlMap(t, `{"fun": "test.ping", "arg": [1], "tgt": "*", "tgt_type": "glob", "user": "root", "kwargs": {"metadata": {"a": 1}}}`)
	got := value.ToJSON(returners.JIDInstance("20261125203000123456", load), value.JSONOptions{Indent: -1})
	want := `{"Function": "test.ping", "Arguments": [1], "Target": "*", "Target-type": "glob", "User": "root", "Metadata": {"a": 1}, "StartTime": "2026, Nov 25 20:30:00.123456"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := returners.JIDTime("123"); got != "" {
		t.Errorf("bad jid: %q", got)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
