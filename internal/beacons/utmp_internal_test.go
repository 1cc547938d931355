package beacons

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// utmpRecord builds a glibc utmp record.
func utmpRecord(typ int16, pid int32, line, user, host string, sec int32) []byte {
	b := make([]byte, utmpSize)
	ne := binary.NativeEndian
	ne.PutUint16(b[0:], uint16(typ))
	ne.PutUint32(b[4:], uint32(pid))
	copy(b[8:40], line)
	copy(b[40:44], strings.TrimPrefix(line, "pts/"))
	copy(b[44:76], user)
	copy(b[76:332], host)
	ne.PutUint32(b[336:], 0)
	ne.PutUint32(b[340:], uint32(sec))
	return b
}

func appendFile(t *testing.T, path string, recs ...[]byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, err := f.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func yamlConf(t *testing.T, s string) any {
	t.Helper()
	v, err := yamlload.SafeLoad([]byte(s), "c")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func jsonLines(evs []*value.Map) string {
	var out []string
	for _, e := range evs {
		out = append(out, value.ToJSON(e, value.JSONOptions{Indent: -1, ItemSep: ",", KeySep: ":"}))
	}
	return strings.Join(out, "\n")
}

// TestUtmp reads records appended to a wtmp and a btmp file after the
// first run, with Salt's field names, logins and logouts (wtmp only),
// and the users and time_range filters.
func TestUtmp(t *testing.T) {
	login := utmpRecord(loginType, 4242, "pts/3", "alice", "10.0.0.7", 1700000000)
	logout := utmpRecord(logoutType, 4242, "pts/3", "", "", 1700000100)
	bob := utmpRecord(6, 77, "ssh:notty", "bob", "192.0.2.1", 1700000200)
	for _, tc := range []struct {
		name, conf string
		logins     bool
		want       string
	}{
		{"wtmp", `[]`, true,
			`{"type":7,"PID":4242,"line":"pts/3","inittab":"3","user":"alice","hostname":"10.0.0.7","exit_status":0,"session":0,"time":0,"addr":1700000000,"action":"login"}` + "\n" +
				`{"type":8,"PID":4242,"line":"pts/3","inittab":"3","user":"alice","hostname":"","exit_status":0,"session":0,"time":0,"addr":1700000100,"action":"logout"}` + "\n" +
				`{"type":6,"PID":77,"line":"ssh:notty","inittab":"ssh:","user":"bob","hostname":"192.0.2.1","exit_status":0,"session":0,"time":0,"addr":1700000200}`},
		{"btmp users", `[{users: {bob: {}}}]`, false,
			`{"type":6,"PID":77,"line":"ssh:notty","inittab":"ssh:","user":"bob","hostname":"192.0.2.1","exit_status":0,"session":0,"time":0,"addr":1700000200}`},
		{"past range", `[{defaults: {time_range: {start: "2000-01-01", end: "2000-01-02"}}}]`, false, ``},
		{"user range", `[{users: {bob: {time_range: {start: "2000-01-01", end: "2999-01-02"}}, carol: {}}}]`, false,
			`{"type":6,"PID":77,"line":"ssh:notty","inittab":"ssh:","user":"bob","hostname":"192.0.2.1","exit_status":0,"session":0,"time":0,"addr":1700000200}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			appendFile(t, path, utmpRecord(2, 0, "~", "reboot", "6.1.0", 1))
			u := &utmpBeacon{name: "wtmp", path: path, logins: tc.logins}
			cfg := yamlConf(t, tc.conf)
			if ok, msg := u.Validate(cfg); !ok {
				t.Fatal(msg)
			}
			ctx := &Context{ID: "m1"}
			if evs, err := u.Beacon(ctx, cfg); err != nil || len(evs) != 0 {
				t.Fatalf("first run: %v %v", jsonLines(evs), err)
			}
			appendFile(t, path, login, logout, bob[:100])
			appendFile(t, path, bob[100:])
			evs, err := u.Beacon(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := jsonLines(evs); got != tc.want {
				t.Errorf("events:\n%s\nwant\n%s", got, tc.want)
			}
			if evs, _ := u.Beacon(ctx, cfg); len(evs) != 0 {
				t.Errorf("read twice: %s", jsonLines(evs))
			}
		})
	}
}

func TestUtmpValidate(t *testing.T) {
	u := &utmpBeacon{name: "btmp"}
	for conf, want := range map[string]string{
		`{users: {}}`:       "Configuration for btmp beacon must be a list.",
		`[{users: [bob]}]`:  "User configuration for btmp beacon must be a dictionary.",
		`[{groups: [adm]}]`: "Group configuration for btmp beacon must be a dictionary.",
		`[{defaults: [1]}]`: "Defaults configuration for btmp beacon must be a dictionary.",
		`[{users: {bob: {time_range: {start: 8am}}}}]`:           "The time_range parameter for btmp beacon must contain start & end options.",
		`[{defaults: {time_range: [8am]}}]`:                      "The time_range parameter for btmp beacon must contain start & end options.",
		`[{users: {bob: {time_range: {start: 8am, end: 4pm}}}}]`: "Valid beacon configuration",
	} {
		if _, msg := u.Validate(yamlConf(t, conf)); msg != want {
			t.Errorf("%s: %q, want %q", conf, msg, want)
		}
	}
}
