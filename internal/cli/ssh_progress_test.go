package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"brine/internal/ssh"
)

func TestSSHProgressAndSummary(t *testing.T) {
	var b bytes.Buffer
	p := &sshProgress{w: &b, on: true, total: 3, current: map[string]string{}}
	p.update("web1", "connecting")
	p.last = time.Time{}
	p.update("web2", "sending brine (40.1 MB)")
	p.finished(&ssh.Result{ID: "web1"})
	p.update("web1", "done")
	p.last = time.Time{}
	p.update("web2", "running state.apply")
	p.clear()
	want := "\r\x1b[K[0/3] web1: connecting" +
		"\r\x1b[K[0/3] web2: sending brine (40.1 MB) (+1 running)" +
		"\r\x1b[K[1/3] web2: running state.apply" +
		"\r\x1b[K"
	if b.String() != want {
		t.Errorf("progress:\n got %q\nwant %q", b.String(), want)
	}
	// Off the terminal, nothing.
	b.Reset()
	off := newSSHProgress(&b, 3)
	off.update("web1", "connecting")
	off.clear()
	if b.Len() != 0 {
		t.Errorf("progress off a terminal wrote %q", b.String())
	}

	b.Reset()
	sshSummary(&b, []*ssh.Result{{ID: "b", Retcode: 2}, {ID: "a"}, {ID: "c", Failed: true, Retcode: 255}}, 1500*time.Millisecond)
	if got := b.String(); !strings.HasPrefix(got, "brine ssh: 3 target(s) in 1.50s: 2 returned, 1 with a non-zero retcode (b), 1 unreachable or failed (c)\n") {
		t.Errorf("summary: %q", got)
	}
}
