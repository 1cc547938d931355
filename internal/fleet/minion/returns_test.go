package minion_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/fleet/client"
	"brine/internal/fleet/master"
	"brine/internal/fleet/minion"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// publish publishes fun with args to the list of ids and returns the jid.
func publish(t *testing.T, c *client.Client, ids, fun string, args ...any) string {
	t.Helper()
	rep, err := c.Publish(proto.PublishRequest{Tgt: ids, TgtType: "list", Fun: fun, Arg: proto.ValueJSON{V: value.NewList(args...)}})
	if err != nil || rep.JID == "" {
		t.Fatalf("publish %s to %s: %+v, %v", fun, ids, rep, err)
	}
	return rep.JID
}

// returns waits for the returns of jid from want (or, with want nil,
// gives the returns stored now).
func returns(t *testing.T, c *client.Client, jid string, want ...string) map[string]proto.Return {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := c.Returns(ctx, jid, want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want != nil && len(got) != len(want) {
		t.Fatalf("returns of %s: %v, want %v", jid, got, want)
	}
	return got
}

// sendReturn sends ret over c as minion c.ID.
func sendReturn(c *minion.Conn, ret proto.Return) error {
	data, err := json.Marshal(ret)
	if err != nil {
		return err
	}
	return c.Request(proto.ReqReturn, rawJSON(data), nil, 5*time.Second)
}

type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// TestReturnsGoThroughTheMaster has minion r1, with its own key, try to
// store returns it has no right to: for a job sent only to r2, in r2's
// name, twice for its own job, and straight
// into the JetStream bucket. The master refuses each; only the real
// returns are stored.
func TestReturnsGoThroughTheMaster(t *testing.T) {
	m, dir := startMaster(t, nil)
	opts := startMinions(t, m, dir, []string{"r1", "r2"}, nil)
	c := adminClient(t, m)
	jidR2 := publish(t, c, "r2", "test.echo", "real")
	returns(t, c, jidR2, "r2")
	jidR1 := publish(t, c, "r1", "test.echo", "mine")
	returns(t, c, jidR1, "r1")

	kp, err := minion.LoadKey(opts["r1"])
	if err != nil {
		t.Fatal(err)
	}
	violations := make(chan error, 16)
	conn, err := minion.Dial(opts["r1"], "r1", kp, minion.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.NC.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err })
	forged := func(jid, id string) proto.Return {
		return proto.Return{V: proto.Version, JID: jid, ID: id, Fun: "test.echo", Return: proto.ValueJSON{V: "forged"}, Success: true}
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		var me *minion.MasterError
		if !errors.As(err, &me) || !strings.Contains(me.Msg, want) {
			t.Errorf("%s: %v, want the master's refusal %q", what, err, want)
		}
	}
	refused("return for a job sent to another minion", sendReturn(conn, forged(jidR2, "r1")), "was not sent to r1")
	refused("return in another minion's name", sendReturn(conn, forged(jidR2, "r2")), "must name r1")
	refused("return for an unknown job", sendReturn(conn, forged(proto.NewJID(time.Now()), "r1")), "was not sent to r1")
	refused("second, different return of a job", sendReturn(conn, forged(jidR1, "r1")), "a different return")
	// The very return stored, sent again (a retry whose reply was lost),
	// is reported as a duplicate, which the minion takes as delivered.
	stored := returns(t, c, jidR1, "r1")["r1"]
	refused("the same return again", sendReturn(conn, stored), proto.ErrDuplicateReturn.Error())

	// Under r2's subject the server itself refuses: r1 may publish only
	// its own requests.
	data, _ := json.Marshal(forged(jidR2, "r2"))
	_, body, _ := proto.NewRequest(rawJSON(data))
	if _, err := conn.NC.Request(proto.ReqSubject("r2", proto.ReqReturn), body, 300*time.Millisecond); err == nil {
		t.Error("a return on r2's subject was answered")
	}
	expectViolation(t, violations, "brine.req.r2.return")
	// Writing to the bucket directly is refused, even under r1's own name.
	for _, id := range []string{"r1", "r2"} {
		subj := "$KV." + proto.ReturnBucket + "." + proto.ReturnKey(jidR2, id)
		_ = conn.NC.Publish(subj, []byte(`{"v":1,"jid":"`+jidR2+`","id":"`+id+`","return":"forged"}`))
		_ = conn.NC.Flush()
		expectViolation(t, violations, subj)
	}

	got := returns(t, c, jidR2, nil...)
	if len(got) != 1 || got["r2"].Return.V != "real" {
		t.Errorf("returns of the job sent to r2: %+v", got)
	}
	if got := returns(t, c, jidR1, nil...); len(got) != 1 || got["r1"].Return.V != "mine" {
		t.Errorf("returns of the job sent to r1: %+v", got)
	}
}

func expectViolation(t *testing.T, ch chan error, subject string) {
	t.Helper()
	select {
	case err := <-ch:
		if !strings.Contains(err.Error(), "Permissions Violation") || !strings.Contains(err.Error(), subject) {
			t.Errorf("%s: unexpected error %v", subject, err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("%s: no permissions violation", subject)
	}
}

// runMinion runs one in-process minion with opts until the returned stop
// is called.
func runMinion(t *testing.T, opts *value.Map) (stop func()) {
	t.Helper()
	ready := make(chan struct{})
	mn, err := minion.New(minion.Options{Opts: opts, Log: logger(t), Ready: func() { close(ready) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mn.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("minion not ready")
	}
	var stopped bool
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

// resend signs job jid again as minions receive it and sends it to id,
// as a replay would.
func resend(t *testing.T, m *master.Master, c *client.Client, id, jid string) {
	t.Helper()
	job, err := c.Job(context.Background(), jid)
	if err != nil {
		t.Fatal(err)
	}
	job.Minions = nil
	data, err := proto.Sign(m.Key, job)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Conn().Publish(proto.JobSubject(id, jid), data); err != nil {
		t.Fatal(err)
	}
}

func lines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// TestJobsRunOnce checks the minion's job journal: a job delivered again
// after a restart is not run again; a job taken by a minion that then
// stopped mid-job is not run again but answered with an error; a job
// older than the catch-up window is refused.
func TestJobsRunOnce(t *testing.T) {
	m, dir := startMaster(t, nil)
	c := adminClient(t, m)
	opts := minionOpts(t, m, dir, "j1")
	opts.Set("job_catchup_window", int64(60))
	work := t.TempDir()
	runs := filepath.Join(work, "runs")

	stop := runMinion(t, opts)
	jid := publish(t, c, "j1", "cmd.run", "echo ran >> "+runs)
	returns(t, c, jid, "j1")
	stop()

	// After a restart, the same job delivered again does not run.
	stop = runMinion(t, opts)
	resend(t, m, c, "j1", jid)
	returns(t, c, publish(t, c, "j1", "test.ping"), "j1") // the resent job was handled before
	time.Sleep(300 * time.Millisecond)
	if n := lines(t, runs); n != 1 {
		t.Errorf("the job ran %d times", n)
	}

	// A job older than the window is refused, signature or not.
	old := time.Now().Add(-2 * time.Minute)
	stale := proto.Job{JID: proto.NewJID(old), Fun: "cmd.run", Arg: proto.ValueJSON{V: value.NewList("echo stale >> " + runs)}, Kwarg: proto.ValueJSON{V: value.NewMap(0)}, Tgt: "j1", TgtType: "list", TS: old.UnixNano()}
	data, _ := proto.Sign(m.Key, stale)
	if err := m.Conn().Publish(proto.JobSubject("j1", stale.JID), data); err != nil {
		t.Fatal(err)
	}
	returns(t, c, publish(t, c, "j1", "test.ping"), "j1")
	time.Sleep(300 * time.Millisecond)
	if n := lines(t, runs); n != 1 {
		t.Errorf("a stale job ran: %d runs", n)
	}
	stop()

	// A minion that took a job and stopped before finishing it (its
	// journal says taken, no return is pending) does not run it when the
	// catch-up offers it again, and says so.
	jid = publish(t, c, "j1", "cmd.run", "echo interrupted >> "+runs)
	journal := filepath.Join(optString(opts, "cachedir"), minion.JournalFile)
	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(jid + " taken\n")
	f.Close()
	runMinion(t, opts)
	got := returns(t, c, jid, "j1")["j1"]
	if s, _ := got.Return.V.(string); got.Retcode != 1 || !strings.Contains(s, "not run again") {
		t.Errorf("return of the interrupted job: %+v", got)
	}
	if n := lines(t, runs); n != 1 {
		t.Errorf("the interrupted job ran again: %d runs", n)
	}
}

func optString(opts *value.Map, k string) string {
	v, _ := opts.Get(k)
	s, _ := v.(string)
	return s
}

// TestBroadcast checks that a job for every minion is published once on
// the broadcast subject, that a job for some of them is not, and that a
// minion may listen to broadcasts but not send one.
func TestBroadcast(t *testing.T) {
	m, dir := startMaster(t, nil)
	opts := startMinions(t, m, dir, []string{"b1", "b2", "b3"}, nil)
	c := adminClient(t, m)
	kp, err := minion.LoadKey(opts["b1"])
	if err != nil {
		t.Fatal(err)
	}
	violations := make(chan error, 16)
	conn, err := minion.Dial(opts["b1"], "b1", kp, minion.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.NC.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err })
	var mu sync.Mutex
	var subjects []string
	if _, err := conn.NC.Subscribe(proto.BroadcastWildcard, func(msg *nats.Msg) {
		mu.Lock()
		subjects = append(subjects, msg.Subject)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if err := conn.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	all := publish(t, c, "b1,b2,b3", "test.echo", "all")
	if got := returns(t, c, all, "b1", "b2", "b3"); got["b3"].Return.V != "all" {
		t.Errorf("broadcast returns: %+v", got)
	}
	some := publish(t, c, "b2,b3", "test.echo", "some")
	returns(t, c, some, "b2", "b3")
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(subjects) != 1 || subjects[0] != proto.BroadcastSubject(all) {
		t.Errorf("broadcasts seen by b1: %v, want only %s", subjects, all)
	}
	_ = conn.NC.Publish(proto.BroadcastSubject(proto.NewJID(time.Now())), []byte(`{}`))
	_ = conn.NC.Flush()
	expectViolation(t, violations, "brine.all.")
}
