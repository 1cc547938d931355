package proto

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"brine/internal/value"
)

func TestToken(t *testing.T) {
	for _, tc := range []struct{ id, tok string }{
		{"web1", "web1"},
		{"web_1-a", "web_1-a"},
		{"web.example.com", "=d2ViLmV4YW1wbGUuY29t"},
		{"a*", "=YSo"},
		{">", "=Pg"},
		{"=x", "=PXg"},
	} {
		if got := Token(tc.id); got != tc.tok {
			t.Errorf("Token(%q) = %q, want %q", tc.id, got, tc.tok)
		}
		if strings.ContainsAny(Token(tc.id), ".*> ") {
			t.Errorf("Token(%q) is not one subject token", tc.id)
		}
		back, err := IDFromToken(Token(tc.id))
		if err != nil || back != tc.id {
			t.Errorf("IDFromToken(Token(%q)) = %q, %v", tc.id, back, err)
		}
	}
	if _, err := IDFromToken("a.b"); err == nil {
		t.Error("IDFromToken accepted a dotted token")
	}
}

func FuzzToken(f *testing.F) {
	for _, s := range []string{"web1", "a.b", "*", ">", "", "=", "x y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		tok := Token(id)
		if tok == "" && id != "" {
			t.Fatalf("empty token for %q", id)
		}
		if strings.ContainsAny(tok, ".*> \t\r\n") {
			t.Fatalf("Token(%q) = %q is not one plain subject token", id, tok)
		}
		back, err := IDFromToken(tok)
		if id != "" && (err != nil || back != id) {
			t.Fatalf("round trip of %q: %q, %v", id, back, err)
		}
	})
}

func TestSubjects(t *testing.T) {
	if got := JobSubject("web.1", "20260101000000000000"); got != "brine.job.=d2ViLjE.20260101000000000000" {
		t.Error(got)
	}
	id, kind, err := ParseReqSubject(ReqSubject("db.example", ReqPillar))
	if err != nil || id != "db.example" || kind != ReqPillar {
		t.Errorf("ParseReqSubject = %q %q %v", id, kind, err)
	}
	for _, bad := range []string{"brine.req.a", "brine.job.a.b", "brine.req.a.b.c", "x.req.a.b"} {
		if _, _, err := ParseReqSubject(bad); err == nil {
			t.Errorf("ParseReqSubject(%q) accepted", bad)
		}
	}
}

func TestJID(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)
	a, b := NewJID(now), NewJID(now)
	if !ValidJID(a) || !ValidJID(b) || a >= b {
		t.Fatalf("jids %q %q", a, b)
	}
	tm, err := JIDTime("20261121100000123456")
	if err != nil || !tm.Equal(now) {
		t.Errorf("JIDTime = %v, %v", tm, err)
	}
	if ValidJID("2026112110000012345x") || ValidJID("1") {
		t.Error("ValidJID accepted junk")
	}
}

func TestSignOpen(t *testing.T) {
	kp, _ := nkeys.CreateUser()
	other, _ := nkeys.CreateUser()
	pub, _ := kp.PublicKey()
	job := Job{JID: "20260101000000000001", Fun: "test.ping", Arg: ValueJSON{V: value.NewList("a", int64(1))}, Kwarg: ValueJSON{V: value.MapOf("b", true)}}
	msg, err := Sign(kp, job)
	if err != nil {
		t.Fatal(err)
	}
	var got Job
	if _, err := Open(msg, pub, &got); err != nil {
		t.Fatal(err)
	}
	if got.Fun != "test.ping" || len(got.Arg.List()) != 2 || !kwTrue(got.Kwarg.Map(), "b") {
		t.Errorf("round trip: %+v", got)
	}
	opub, _ := other.PublicKey()
	if _, err := Open(msg, opub, nil); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Open with another key: %v", err)
	}
	// Tampering with the data breaks the signature.
	var s Signed
	_ = json.Unmarshal(msg, &s)
	s.Data = json.RawMessage(strings.Replace(string(s.Data), "test.ping", "cmd.run", 1))
	bad, _ := json.Marshal(s)
	if _, err := Open(bad, pub, nil); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Open of tampered data: %v", err)
	}
	// A message re-signed by another key is refused when the key is pinned.
	forged, _ := Sign(other, job)
	if _, err := Open(forged, pub, nil); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Open of forged message: %v", err)
	}
}

func TestKeyRequest(t *testing.T) {
	kp, _ := nkeys.CreateUser()
	msg, err := NewKeyRequest(kp, "web1")
	if err != nil {
		t.Fatal(err)
	}
	kr, err := ParseKeyRequest(msg)
	if err != nil || kr.ID != "web1" {
		t.Fatalf("ParseKeyRequest = %+v, %v", kr, err)
	}
	// Claiming another id with the same signature fails.
	var raw KeyRequest
	_ = json.Unmarshal(msg, &raw)
	raw.ID = "db1"
	bad, _ := json.Marshal(raw)
	if _, err := ParseKeyRequest(bad); !errors.Is(err, ErrBadSignature) {
		t.Errorf("forged id: %v", err)
	}
	raw.ID = "../etc"
	bad, _ = json.Marshal(raw)
	if _, err := ParseKeyRequest(bad); err == nil {
		t.Error("accepted a path as id")
	}
}

func TestReplayGuard(t *testing.T) {
	g := NewReplayGuard(time.Minute)
	now := time.Now()
	if err := g.Check("a", now, now); err != nil {
		t.Fatal(err)
	}
	if err := g.Check("a", now, now); !errors.Is(err, ErrReplay) {
		t.Errorf("second use: %v", err)
	}
	if err := g.Check("b", now.Add(-2*time.Minute), now); !errors.Is(err, ErrReplay) {
		t.Errorf("stale: %v", err)
	}
	if err := g.Check("c", now.Add(2*time.Minute), now); !errors.Is(err, ErrReplay) {
		t.Errorf("future: %v", err)
	}
}

func kwTrue(m *value.Map, k string) bool {
	v, _ := m.Get(k)
	return value.Truthy(v)
}

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"web1", true},
		{"web-1.example.com", true},
		{"", false},
		{".", false},
		{"..", false},
		{".hidden", false}, // dot files are the key store's temporary files
		{"a/b", false},
		{`a\b`, false},
		{"a\x00b", false},
		{strings.Repeat("x", 255), true},
		{strings.Repeat("x", 256), false},
	} {
		if got := ValidID(tc.id); got != tc.ok {
			t.Errorf("ValidID(%q) = %v, want %v", tc.id, got, tc.ok)
		}
	}
}
