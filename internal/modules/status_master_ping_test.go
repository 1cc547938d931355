package modules

import (
	"net"
	"strconv"
	"testing"

	"brine/internal/value"
)

// TestStatusPingMaster pings loopback servers: one greeting as a NATS
// server (a brine master's port) does, one that says something else, and
// a closed port.
func TestStatusPingMaster(t *testing.T) {
	serve := func(greeting string) int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				_, _ = c.Write([]byte(greeting))
				c.Close()
			}
		}()
		return l.Addr().(*net.TCPAddr).Port
	}
	closed := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		return p
	}
	nats := serve("INFO {\"server_id\":\"x\",\"version\":\"2.10.0\"}\r\n")
	http := serve("HTTP/1.1 400 Bad Request\r\n\r\n")
	ctx := testContext()
	ctx.Opts.Set("auth_timeout", int64(5))
	for _, tc := range []struct {
		master string
		port   int
		want   bool
	}{
		{"127.0.0.1", nats, true},
		{"localhost", nats, true},
		{"127.0.0.1:" + strconv.Itoa(nats), closed(), true}, // host:port names the port
		{"127.0.0.1", http, false},
		{"127.0.0.1", closed(), false},
		{"nosuchhost.invalid", nats, false},
		{"", nats, false},
	} {
		ctx.Opts.Set("master_port", int64(tc.port))
		got, err := ctx.Call("status.ping_master", []any{tc.master}, value.NewMap(0))
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("ping_master %s (master_port %d) = %v, want %v", tc.master, tc.port, got, tc.want)
		}
	}
}
