package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// browser starts a headless Chromium with a fresh profile and returns a
// tab's context.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		t.Skipf("no %s (apt-get install chromium)", chromiumPath)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// The master's certificate is signed by its own CA.
		chromedp.IgnoreCertErrors,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	// The deadline only keeps a broken console from hanging the test.
	ctx, cancelC := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	return ctx
}

// shooter saves PNG screenshots into the test's artifact directory (and
// BRINE_ARTIFACTS/web when set) and checks they are PNGs with content.
type shooter struct {
	t    *testing.T
	dirs []string
	n    int
}

func newShooter(t *testing.T) *shooter {
	s := &shooter{t: t, dirs: []string{t.TempDir()}}
	if d := os.Getenv("BRINE_ARTIFACTS"); d != "" {
		d = filepath.Join(d, "web")
		if err := os.MkdirAll(d, 0o755); err == nil {
			s.dirs = append(s.dirs, d)
		}
	}
	return s
}

func (s *shooter) shot(ctx context.Context, name string) {
	s.t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		s.t.Fatalf("screenshot %s: %d bytes, not a PNG with content", name, len(png))
	}
	s.n++
	for _, d := range s.dirs {
		p := filepath.Join(d, name+".png")
		if err := os.WriteFile(p, png, 0o644); err != nil {
			s.t.Fatal(err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			s.t.Fatalf("screenshot %s not saved", p)
		}
	}
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: %v (at %s)\n%s", what, err, loc, body)
	}
}

// poll waits until the JavaScript expression is true.
func poll(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: %v\n%s", what, err, body)
	}
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

func count(t *testing.T, ctx context.Context, css string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll("+jsString(css)+").length"))
	if err != nil {
		t.Fatalf("counting %s: %v", css, err)
	}
	return n
}

func jsString(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }

// login logs in through the console's form.
func consoleLogin(t *testing.T, ctx context.Context, base, user, pass string) {
	t.Helper()
	do(t, ctx, "login "+user,
		chromedp.Navigate(base+"/app/"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), user),
		chromedp.SendKeys(chromedp.ID("password"), pass),
		chromedp.Click(chromedp.CSS("form.login button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("minions")),
	)
}

// runFun submits the run page's form and waits for every minion's result
// to appear on the job page it leads to.
func runFun(t *testing.T, ctx context.Context, base, tgt, tgtType, fun, args string) {
	t.Helper()
	do(t, ctx, "run "+fun,
		chromedp.Navigate(base+"/app/run"),
		chromedp.WaitVisible(chromedp.ID("fun")),
		chromedp.SetValue(chromedp.ID("tgt"), tgt),
		chromedp.SetValue(chromedp.ID("tgt_type"), tgtType),
		chromedp.SendKeys(chromedp.ID("fun"), fun),
		chromedp.SendKeys(chromedp.ID("args"), args),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("results")),
		chromedp.WaitNotPresent(chromedp.CSS("section.result.waiting")),
	)
}

// TestWebConsole drives the console in headless Chromium: log in, see
// the minions, accept a key, run test.ping and state.apply test=True and
// watch the results arrive, open a job, follow the event stream, draw a
// minion's state graph; and a user limited to test.* on web* sees only
// those minions and cannot run anything else. Each page is saved as a
// screenshot.
func TestWebConsole(t *testing.T) {
	a := newAPICluster(t, "")
	a.write("srv/salt/top.sls", "base:\n  '*':\n    - demo\n")
	a.write("srv/salt/demo.sls", `first:
  test.succeed_with_changes: []
second:
  test.nop:
    - require:
      - test: first
third:
  test.succeed_without_changes:
    - watch:
      - test: second
fourth:
  test.nop:
    - onchanges:
      - test: first
`)
	for _, id := range []string{"web1", "web2", "db1"} {
		a.startMinion(id, "{role: "+id[:len(id)-1]+"}", true)
	}
	a.acceptAll("web1", "web2", "db1")
	a.startMinion("new1", "", true)
	waitKeyState(t, a.cluster, "new1", "minions_pre")

	ctx := browser(t)
	shots := newShooter(t)

	do(t, ctx, "login page", chromedp.Navigate(a.base+"/app/"), chromedp.WaitVisible(chromedp.ID("username")))
	shots.shot(ctx, "01-login")
	consoleLogin(t, ctx, a.base, "admin", "s3cret")
	if n := count(t, ctx, "#minions tbody tr[data-minion]"); n != 3 {
		t.Fatalf("the minions page shows %d minions, want 3:\n%s", n, text(t, ctx, "#minions"))
	}
	if got := text(t, ctx, "#minions tbody"); !strings.Contains(got, "web1") || !strings.Contains(got, "db1") {
		t.Errorf("minions table: %s", got)
	}
	shots.shot(ctx, "02-minions")
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	}); err == nil {
		shots.shot(ctx, "02-minions-dark")
		_, _ = chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
	}

	// Accept the pending key, through the confirmation page.
	do(t, ctx, "keys page", chromedp.Navigate(a.base+"/app/keys"), chromedp.WaitVisible(chromedp.ID("keys-minions_pre")))
	if got := text(t, ctx, "#keys-minions_pre"); !strings.Contains(got, "new1") {
		t.Fatalf("pending keys: %s", got)
	}
	shots.shot(ctx, "03-keys")
	do(t, ctx, "accept new1", chromedp.Click(chromedp.CSS(`a[aria-label="accept new1"]`)), chromedp.WaitVisible(chromedp.ID("confirm")))
	shots.shot(ctx, "04-keys-confirm")
	do(t, ctx, "confirm", chromedp.Click(chromedp.ID("confirm")), chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if got := text(t, ctx, "p.notice"); got != "Key for minion new1 accepted." {
		t.Errorf("notice %q", got)
	}
	if got := text(t, ctx, "#keys-minions"); !strings.Contains(got, "new1") {
		t.Errorf("new1 not accepted: %s", got)
	}
	shots.shot(ctx, "05-keys-accepted")

	// test.ping: the results appear on the job page as they arrive.
	runFun(t, ctx, a.base, "web1,web2,db1", "list", "test.ping", "")
	if n := count(t, ctx, "section.result.ok"); n != 3 {
		t.Errorf("%d minions returned, want 3: %s", n, text(t, ctx, "#results"))
	}
	if got := text(t, ctx, "#results"); strings.Count(got, "True") != 3 {
		t.Errorf("test.ping results: %s", got)
	}
	shots.shot(ctx, "06-run-test-ping")

	// A result arriving after the page was loaded is added live: db1 is
	// stopped when the job is published and picks it up when it starts.
	a.stopMinion("db1")
	do(t, ctx, "run on a stopped minion",
		chromedp.Navigate(a.base+"/app/run"),
		chromedp.WaitVisible(chromedp.ID("fun")),
		chromedp.SetValue(chromedp.ID("tgt"), "db1"),
		chromedp.SetValue(chromedp.ID("tgt_type"), "list"),
		chromedp.SendKeys(chromedp.ID("fun"), "test.echo"),
		chromedp.SendKeys(chromedp.ID("args"), "'live result'"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.CSS("section.result.waiting")),
	)
	poll(t, ctx, "the job page listens", "window.brineLive === true")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.sameLoad = 1")); err != nil {
		t.Fatal(err)
	}
	a.startMinion("db1", "{role: db}", true)
	do(t, ctx, "live result", chromedp.WaitVisible(chromedp.CSS(`section.result.ok[data-minion="db1"]`)))
	if got := text(t, ctx, "#results"); !strings.Contains(got, "live result") {
		t.Errorf("live result: %s", got)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.sameLoad || 0")); err != nil || n != 1 {
		t.Errorf("the page was reloaded (%v)", err)
	}
	shots.shot(ctx, "06b-live-result")

	// state.apply test=True on two minions, shown by the highstate outputter.
	runFun(t, ctx, a.base, "web*", "glob", "state.apply", "test=True")
	got := text(t, ctx, "#results")
	for _, want := range []string{"Summary for web1", "Summary for web2", "ID: first", "Function: test.succeed_with_changes", "Succeeded: 4"} {
		if !strings.Contains(got, want) {
			t.Errorf("state.apply results lack %q:\n%s", want, got)
		}
	}
	if n := count(t, ctx, "#results pre.output span.c-yellow, #results pre.output span.c-green"); n == 0 {
		t.Error("the highstate output has no colours")
	}
	shots.shot(ctx, "07-run-state-apply")

	// The run page itself, with completion of function names.
	do(t, ctx, "run page", chromedp.Navigate(a.base+"/app/run"), chromedp.WaitVisible(chromedp.ID("fun")))
	poll(t, ctx, "function completion has test.ping and state.apply",
		`document.querySelectorAll('#functions option[value="test.ping"], #functions option[value="state.apply"]').length === 2`)
	shots.shot(ctx, "08-run")

	// The job list, filtered, and a job opened from it.
	do(t, ctx, "jobs", chromedp.Navigate(a.base+"/app/jobs?q=state.apply"), chromedp.WaitVisible(chromedp.ID("jobs")))
	if n := count(t, ctx, "#jobs tbody tr a"); n != 1 {
		t.Errorf("filtered jobs: %d rows:\n%s", n, text(t, ctx, "#jobs"))
	}
	shots.shot(ctx, "09-jobs")
	do(t, ctx, "open job", chromedp.Click(chromedp.CSS("#jobs tbody tr a")), chromedp.WaitVisible(chromedp.ID("results")))
	if got := text(t, ctx, "main"); !strings.Contains(got, "state.apply") || !strings.Contains(got, "Summary for web1") {
		t.Errorf("job page: %s", got)
	}
	shots.shot(ctx, "10-job")

	// The event stream: a hook fired through the API shows up live.
	do(t, ctx, "events", chromedp.Navigate(a.base+"/app/events"), chromedp.WaitVisible(chromedp.ID("events")))
	poll(t, ctx, "the event stream opens", "document.getElementById('stream-state').textContent.startsWith('Listening')")
	tok := a.login(t, "admin", "s3cret")
	if st, out := a.call(t, "POST", "/hook/console/test", tok, "application/json", `{"hello": "console"}`); st != 200 {
		t.Fatalf("hook: %d %v", st, out)
	}
	poll(t, ctx, "the hook's event is shown", `[...document.querySelectorAll('#events .tag')].some(e => e.textContent === 'salt/netapi/hook/console/test')`)
	shots.shot(ctx, "11-events")

	// The state graph of web1, coloured by its last run.
	do(t, ctx, "graph", chromedp.Navigate(a.base+"/app/minions/web1/graph"), chromedp.WaitVisible(chromedp.CSS("svg.graph")))
	if n := count(t, ctx, "svg.graph g.node"); n != 4 {
		t.Errorf("graph nodes: %d, want 4", n)
	}
	if n := count(t, ctx, "svg.graph path.edge"); n != 3 {
		t.Errorf("graph edges: %d, want 3", n)
	}
	shots.shot(ctx, "12-graph")

	// A running apply's progress colours the graph live: state.apply with
	// state_events fires one progress event per state.
	poll(t, ctx, "the graph page listens for progress events", `window.brineGraphLive === true`)
	if st, out := a.call(t, "POST", "/", tok, "application/json",
		`[{"client": "local_async", "tgt": "web1", "fun": "state.apply", "kwarg": {"state_events": true}}]`); st != 200 {
		t.Fatalf("state.apply with state_events: %d %v", st, out)
	}
	poll(t, ctx, "the graph shows the run's progress", `/: 4 of 4 states done\.$/.test(document.getElementById('graph-progress').textContent)`)
	if n := count(t, ctx, "svg.graph g.node.ok"); n != 4 {
		t.Errorf("%d states coloured as succeeded, want 4", n)
	}
	shots.shot(ctx, "12-graph-progress")

	// A user limited to test.* on web* sees web1 and web2 only, and may
	// not run cmd.run.
	do(t, ctx, "logout", chromedp.Navigate(a.base+"/app/minions"), chromedp.WaitVisible(chromedp.CSS("form.logout")),
		chromedp.Click(chromedp.CSS("form.logout button")), chromedp.WaitVisible(chromedp.ID("username")))
	consoleLogin(t, ctx, a.base, "webdev", "webpass")
	if got := text(t, ctx, "#minions tbody"); !strings.Contains(got, "web1") || !strings.Contains(got, "web2") || strings.Contains(got, "db1") || strings.Contains(got, "new1") {
		t.Errorf("webdev sees: %s", got)
	}
	shots.shot(ctx, "13-minions-limited")
	do(t, ctx, "forbidden run",
		chromedp.Navigate(a.base+"/app/run"),
		chromedp.WaitVisible(chromedp.ID("fun")),
		chromedp.SetValue(chromedp.ID("tgt"), "web*"),
		chromedp.SendKeys(chromedp.ID("fun"), "cmd.run"),
		chromedp.SendKeys(chromedp.ID("args"), "id"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.CSS("p.error")),
	)
	if got := text(t, ctx, "p.error"); !strings.Contains(got, "Authorization error occurred.") {
		t.Errorf("forbidden run: %q", got)
	}
	shots.shot(ctx, "14-run-refused")
	do(t, ctx, "keys refused", chromedp.Navigate(a.base+"/app/keys"), chromedp.WaitVisible(chromedp.CSS("p.error")))
	if n := count(t, ctx, "ul.keylist li"); n != 0 {
		t.Errorf("webdev sees %d keys", n)
	}
	if shots.n < 14 {
		t.Errorf("%d screenshots", shots.n)
	}
}
