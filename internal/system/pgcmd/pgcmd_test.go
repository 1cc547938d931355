package pgcmd

import (
	"fmt"
	"reflect"
	"testing"
)

// The expected values below are what Salt 3006's postgres module
// functions return for the same input.

func TestRoleArgs(t *testing.T) {
	str := func(v any) string { return fmt.Sprint(v) }
	cases := []struct {
		prefix, name string
		o            RoleOpts
		want         string
	}{
		{`CREATE ROLE "u" WITH`, "u", RoleOpts{Kind: "user", Password: "pw'x", Createdb: true, Connlimit: int64(5), ValidUntil: "2030-01-01", Groups: []string{"a", "b"}},
			`CREATE ROLE "u" WITH INHERIT CREATEDB LOGIN CONNECTION LIMIT 5 ENCRYPTED PASSWORD 'md527b793a5f1fde140bfa2a30faa0ad951' VALID UNTIL '2030-01-01'; GRANT "a" TO "u"; GRANT "b" TO "u"`},
		{`CREATE ROLE "g" WITH`, "g", RoleOpts{Kind: "group", Superuser: false, Replication: true, Encrypted: false, Password: "plain"},
			`CREATE ROLE "g" WITH INHERIT NOSUPERUSER REPLICATION NOLOGIN UNENCRYPTED PASSWORD 'plain'`},
		{`ALTER ROLE "r" WITH`, "r", RoleOpts{Kind: "role", Password: true, Superuser: true, DBSuperuser: true}, `ALTER ROLE "r" WITH PASSWORD`},
		{`ALTER ROLE "r" WITH`, "r", RoleOpts{Kind: "role", Password: false, Connlimit: int64(0), ValidUntil: ""},
			`ALTER ROLE "r" WITH NOCONNECTION LIMIT 0 NOPASSWORD NOVALID UNTIL`},
		{`ALTER ROLE "r" WITH`, "r", RoleOpts{Kind: "role"}, `ALTER ROLE "r"`},
		{`CREATE ROLE "s" WITH`, "s", RoleOpts{Kind: "user", Password: "SCRAM-SHA-256$4096:abc$def:ghi", Encrypted: "scram-sha-256", Groups: []string{"x"}},
			`CREATE ROLE "s" WITH INHERIT LOGIN ENCRYPTED PASSWORD 'SCRAM-SHA-256$4096:abc$def:ghi'; GRANT "x" TO "s"`},
	}
	for _, c := range cases {
		got, err := RoleArgs(c.prefix, c.name, c.o, str)
		if err != nil || got != c.want {
			t.Errorf("RoleArgs(%+v):\n got %q (%v)\nwant %q", c.o, got, err, c.want)
		}
	}
	if _, err := RoleArgs("x", "x", RoleOpts{Password: "p", Encrypted: "sha1"}, str); err == nil || err.Error() != "Unknown password algorithm: sha1" {
		t.Errorf("unknown method: %v", err)
	}
}

func TestPasswords(t *testing.T) {
	if got := MD5Password("w2u", "secret"); got != "md5d6b7a59a073ded31f36aa6393e6158bb" {
		t.Errorf("MD5Password = %s", got)
	}
	want := "SCRAM-SHA-256$4096:MDEyMzQ1Njc4OWFiY2RlZg==$AT2aoRrlSfo2TqdQC1Jlt06C0TU8ZAYs5fEskIsmfQg=:R8/LhNwOfiDkd4IddBWqrPbPreA9rzEVEFEt532VDJE="
	if got := ScramSHA256("pässword\u00a0x", []byte("0123456789abcdef"), 4096); got != want {
		t.Errorf("ScramSHA256 = %s", got)
	}
	// A verifier PostgreSQL 15 made itself (password_encryption scram).
	pg := "SCRAM-SHA-256$4096:uxyQ7ciZ9wnxp0HxCrkl5g==$VmA0b3cQWs0WuCgCMEJ08QpgaYJPKhnbhOClx7rRBjc=:O3w10eVyFGEVg9nMhozEwts3cCcexqL7CH0rFFKUK20="
	cases := []struct {
		role, pw, verifier string
		m                  Method
		want               bool
	}{
		{"w2m", "md5abcdef", pg, "scram-sha-256", true},
		{"w2m", "other", pg, "scram-sha-256", false},
		{"w2m", pg, pg, "scram-sha-256", true},
		{"w2u", "secret", "md5d6b7a59a073ded31f36aa6393e6158bb", "md5", true},
		{"w2x", "secret", "md5d6b7a59a073ded31f36aa6393e6158bb", "md5", false},
		{"w2u", "md5d6b7a59a073ded31f36aa6393e6158bb", "md5d6b7a59a073ded31f36aa6393e6158bb", "md5", true},
		{"w2u", "plain", "plain", "", true},
		{"w2u", "plain", "", "scram-sha-256", false},
	}
	for _, c := range cases {
		if got := VerifyPassword(c.role, c.pw, c.verifier, c.m); got != c.want {
			t.Errorf("VerifyPassword(%s, %s, %s, %s) = %v", c.role, c.pw, c.verifier, c.m, got)
		}
	}
	if got := MaybeEncrypt("r", "md5x", "md5"); got != "md5x" {
		t.Errorf("MaybeEncrypt keeps a verifier: %s", got)
	}
}

func TestParsing(t *testing.T) {
	rows := ParseCSV("x,y\n\"a,b\",2\n,3\n")
	if len(rows) != 2 || !reflect.DeepEqual(rows[0].Vals, []string{"a,b", "2"}) || !reflect.DeepEqual(rows[1].Vals, []string{"", "3"}) {
		t.Errorf("ParseCSV = %+v", rows)
	}
	for in, want := range map[string][]string{"": {}, "{}": {}, "{a,b}": {"a", "b"}, `{"a b",c}`: {"a b", "c"}} {
		if got := SplitArray(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitArray(%q) = %q", in, got)
		}
	}
	for in, want := range map[string]string{"2030-07-08 09:10:00": "datetime.datetime(2030, 7, 8, 9, 10)",
		"2031-05-06 07:08:09": "datetime.datetime(2031, 5, 6, 7, 8, 9)", "infinity": ""} {
		if got, _ := PyDatetime(in); got != want {
			t.Errorf("PyDatetime(%q) = %q", in, got)
		}
	}
	for _, c := range []struct {
		a, b string
		less bool
	}{{"1.6", "9.9a", true}, {"15.18 (Debian 15.18-0+deb12u1)", "9.1", false}, {"9.4", "9.5", true}, {"1.6", "1.6", false}, {"1.6", "1.6a", true}} {
		if got := LooseLess(c.a, c.b); got != c.less {
			t.Errorf("LooseLess(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
