package transport_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"brine/internal/ssh/sshdtest"
	"brine/internal/ssh/transport"
)

func TestDialAndRun(t *testing.T) {
	sshdtest.Skip(t)
	dir := t.TempDir()
	key := sshdtest.NewKey(t, dir, "id")
	other := sshdtest.NewKey(t, dir, "other")
	srv := sshdtest.Start(t, dir, sshdtest.Options{Authorized: []string{key.Authorized}})
	impostor := sshdtest.Start(t, dir, sshdtest.Options{Authorized: []string{key.Authorized}})
	known := filepath.Join(dir, "known_hosts")
	// known_hosts holds srv's key for the impostor's address too: the
	// impostor's own key is a changed key.
	if err := os.WriteFile(known, []byte(srv.KnownHostsLine()+"\n"+strings.Replace(srv.KnownHostsLine(), "]:"+itoa(srv.Port), "]:"+itoa(impostor.Port), 1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := transport.Config{Host: "127.0.0.1", Port: srv.Port, User: "root", Priv: key.Priv, KnownHosts: known, Timeout: 10 * time.Second}
	ctx := context.Background()

	c, err := transport.Dial(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(ctx, "cat; echo err >&2; exit 7", strings.NewReader("in"), false)
	if err != nil || string(res.Stdout) != "in" || string(res.Stderr) != "err\n" || res.Code != 7 {
		t.Errorf("Run: %+v %v", res, err)
	}
	if c.RoundTrips.Load() != 1 || c.BytesOut.Load() != 2 {
		t.Errorf("counters: %d commands, %d bytes out", c.RoundTrips.Load(), c.BytesOut.Load())
	}
	// A connection dropped under a command.
	srv.KillSessions()
	if _, err := c.Run(ctx, "sleep 5", nil, false); err == nil || !strings.Contains(err.Error(), "ssh: connection to 127.0.0.1 port ") {
		t.Errorf("dropped: %v", err)
	}
	c.Close()

	fresh := sshdtest.Start(t, dir, sshdtest.Options{Authorized: []string{key.Authorized}})
	tests := []struct {
		name    string
		mod     func(*transport.Config)
		stdout  string
		stderr  string
		retcode int
	}{
		{"unknown host key", func(c *transport.Config) { c.Port = fresh.Port }, "The host key needs to be accepted, to auto accept run brine ssh with the -i flag:\nThe authenticity of host '[127.0.0.1]:" + itoa(fresh.Port), "", 254},
		{"changed host key", func(c *transport.Config) { c.Port = impostor.Port; c.IgnoreHostKeys = true }, "", "ssh: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!", 255},
		{"key refused", func(c *transport.Config) { c.Priv = other.Priv }, "", "root@127.0.0.1: Permission denied (publickey).", 255},
		{"password refused", func(c *transport.Config) { c.Priv = other.Priv; c.Passwd = "nope" }, "", "Password authentication failed", 254},
		{"nothing listens", func(c *transport.Config) { c.Port = closed(t, dir) }, "", "ssh: connect to host 127.0.0.1 port ", 255},
		{"no such host", func(c *transport.Config) { c.Host = "no-such-host.invalid" }, "", "ssh: Could not resolve hostname no-such-host.invalid: Name or service not known", 255},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.mod(&cfg)
			_, err := transport.Dial(ctx, cfg)
			e, ok := err.(*transport.Error)
			if !ok {
				t.Fatalf("Dial: %v, want a *transport.Error", err)
			}
			if !strings.HasPrefix(e.Stdout, tc.stdout) || !strings.HasPrefix(e.Stderr, tc.stderr) || e.Retcode != tc.retcode {
				t.Errorf("got %+v, want stdout %q, stderr %q, retcode %d", e, tc.stdout, tc.stderr, tc.retcode)
			}
		})
	}
	// -i accepts the unknown key and records it.
	cfg := base
	cfg.Port, cfg.IgnoreHostKeys = fresh.Port, true
	c, err = transport.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	data, _ := os.ReadFile(known)
	if !strings.Contains(string(data), fresh.KnownHostsLine()) {
		t.Errorf("known_hosts after -i:\n%s", data)
	}
	cfg.IgnoreHostKeys = false
	if c, err = transport.Dial(ctx, cfg); err != nil {
		t.Errorf("the recorded key is not trusted: %v", err)
	} else {
		c.Close()
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func closed(t *testing.T, dir string) int {
	srv := sshdtest.Start(t, dir, sshdtest.Options{})
	p := srv.Port
	srv.Kill()
	return p
}
