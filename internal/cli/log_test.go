package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// keepDefault restores slog's default logger after a test that sets it.
func keepDefault(t *testing.T) {
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
}

// logAll logs one message at each of Salt's levels.
func logAll() {
	ctx := context.Background()
	for _, l := range []slog.Level{levelGarbage, levelTrace, slog.LevelDebug, levelProfile, slog.LevelInfo, slog.LevelWarn, slog.LevelError, levelCritical} {
		slog.Log(ctx, l, "msg "+levelName(l))
	}
}

func TestLevels(t *testing.T) {
	keepDefault(t)
	for _, tc := range []struct {
		level string
		want  []string // the level names shown
	}{
		{"all", []string{"GARBAGE", "TRACE", "DEBUG", "PROFILE", "INFO", "WARNING", "ERROR", "CRITICAL"}},
		{"garbage", []string{"GARBAGE", "TRACE", "DEBUG", "PROFILE", "INFO", "WARNING", "ERROR", "CRITICAL"}},
		{"trace", []string{"TRACE", "DEBUG", "PROFILE", "INFO", "WARNING", "ERROR", "CRITICAL"}},
		{"debug", []string{"DEBUG", "PROFILE", "INFO", "WARNING", "ERROR", "CRITICAL"}},
		{"profile", []string{"PROFILE", "INFO", "WARNING", "ERROR", "CRITICAL"}},
		{"info", []string{"INFO", "WARNING", "ERROR", "CRITICAL"}},
		{"", []string{"WARNING", "ERROR", "CRITICAL"}},
		{"warning", []string{"WARNING", "ERROR", "CRITICAL"}},
		{"WARNING", []string{"WARNING", "ERROR", "CRITICAL"}},
		{"error", []string{"ERROR", "CRITICAL"}},
		{"bogus", []string{"ERROR", "CRITICAL"}}, // Salt's get_logging_level_from_string
		{"critical", []string{"CRITICAL"}},
		{"quiet", nil},
	} {
		var buf bytes.Buffer
		setupLogging(tc.level, &buf)
		logAll()
		var want strings.Builder
		for _, n := range tc.want {
			want.WriteString("[" + (n + "        ")[:8] + "] msg " + n + "\n")
		}
		if got := buf.String(); got != want.String() {
			t.Errorf("level %q:\n got %q\nwant %q", tc.level, got, want.String())
		}
	}
}

func TestConsoleAttrs(t *testing.T) {
	keepDefault(t)
	var buf bytes.Buffer
	setupLogging("warning", &buf)
	slog.With("a", 1).Warn("careful", "err", "boom")
	if got, want := buf.String(), "[WARNING ] careful a=1 err=boom\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLogfileFormat(t *testing.T) {
	keepDefault(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "minion.log")
	var console bytes.Buffer
	err := configureLogging(logSettings{Level: "warning", File: path, FileLevel: "debug"}, &console)
	if err != nil {
		t.Fatal(err)
	}
	slog.Debug("to the file only")
	slog.Warn("to both")
	if got, want := console.String(), "[WARNING ] to both\n"; got != want {
		t.Errorf("console: got %q, want %q", got, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[brine\.cli\s+:\d+\s*\]\[(DEBUG   |WARNING )\]\[\d+\] (to the file only|to both)$`)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", data)
	}
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("log file line %q does not match %s", l, re)
		}
	}
	// The name is padded to 17 and the line number to 4, as in Salt.
	if !regexp.MustCompile(`\[brine\.cli {8}:\d{2,4} *\]`).MatchString(lines[0]) {
		t.Errorf("padding: %q", lines[0])
	}
}

func TestJSONFormat(t *testing.T) {
	keepDefault(t)
	var buf bytes.Buffer
	if err := configureLogging(logSettings{Level: "trace", Format: "json"}, &buf); err != nil {
		t.Fatal(err)
	}
	slog.Log(context.Background(), levelTrace, "a \"quoted\"\nline", "count", 3)
	slog.With("sls", "web").Info("done")
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", buf.String())
	}
	var recs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		recs = append(recs, m)
	}
	if recs[0]["level"] != "TRACE" || recs[0]["message"] != "a \"quoted\"\nline" || recs[0]["count"] != 3.0 || recs[0]["name"] != "brine.cli" {
		t.Errorf("first record: %v", recs[0])
	}
	if _, err := time.Parse(time.RFC3339Nano, recs[0]["time"].(string)); err != nil {
		t.Errorf("time: %v", err)
	}
	if recs[1]["level"] != "INFO" || recs[1]["sls"] != "web" {
		t.Errorf("second record: %v", recs[1])
	}
	if err := configureLogging(logSettings{Format: "xml"}, &buf); err == nil {
		t.Error("log format xml: want an error")
	}
}

func TestDeferredMessages(t *testing.T) {
	keepDefault(t)
	deferLogging()
	slog.Debug("early debug")
	slog.Warn("early warning")
	var buf bytes.Buffer
	setupLogging("warning", &buf)
	if got, want := buf.String(), "[WARNING ] early warning\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	deferLogging()
	slog.Debug("early debug")
	buf.Reset()
	setupLogging("debug", &buf)
	slog.Debug("later")
	if got, want := buf.String(), "[DEBUG   ] early debug\n[DEBUG   ] later\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFormatRecord(t *testing.T) {
	at := time.Date(2024, 3, 5, 7, 8, 9, 12_345_678, time.UTC)
	r := slog.NewRecord(at, slog.LevelInfo, "hello", 0)
	for _, tc := range []struct{ format, datefmt, want string }{
		{defaultConsoleFmt, "", "[INFO    ] hello"},
		{"%(asctime)s,%(msecs)03d %(levelname)s %(levelno)d %(message)s", "%Y-%m-%d %H:%M:%S", "2024-03-05 07:08:09,012 INFO 20 hello"},
		{"%(levelname)8s|%(message)-7s|%% %(unknown)s.", "", "    INFO|hello  |% ."},
		{"%(asctime)s", "%d/%m/%y %I%p %j %a %b", "05/03/24 07AM 065 Tue Mar"},
		{"%(bracketlevel)s %(message)r %(bracketname)s", "", "[INFO    ] 'hello' [                 ]"},
		{"%(colorlevel)s %(colormsg)s", "", "\x1b[1;32m[INFO    ]\x1b[0m \x1b[32mhello\x1b[0m"},
	} {
		if got := formatRecord(tc.format, tc.datefmt, r, "hello"); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.format, got, tc.want)
		}
	}
}

func TestOpenLogFileSchemes(t *testing.T) {
	if _, err := openLogFile("ftp://host/x"); err == nil || !strings.Contains(err.Error(), "unsupported scheme") {
		t.Errorf("ftp: %v", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "a.log")
	w, err := openLogFile("file://" + p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "x\n" {
		t.Errorf("file:// wrote %q", data)
	}
}

func TestSyslogUDP(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer pc.Close()
	if _, err := openLogFile("udp://" + pc.LocalAddr().String() + "/LOG_BOGUS"); err == nil || err.Error() != "The syslog facility 'LOG_BOGUS' is not known" {
		t.Errorf("bogus facility: %v", err)
	}
	w, err := openLogFile("udp://" + pc.LocalAddr().String() + "/LOG_DAEMON")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("hello syslog\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048)
	_ = pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _, err := pc.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	// <30> is LOG_DAEMON (3<<3) at info (6).
	if got := string(buf[:n]); !strings.HasPrefix(got, "<30>") || !strings.Contains(got, "brine") || !strings.Contains(got, "hello syslog") {
		t.Errorf("syslog packet %q", got)
	}
}

// BenchmarkDisabledDebug is the cost of a guarded debug message at the
// default warning level.
func BenchmarkDisabledDebug(b *testing.B) {
	old := slog.Default()
	defer slog.SetDefault(old)
	var buf bytes.Buffer
	setupLogging("warning", &buf)
	b.ReportAllocs()
	for b.Loop() {
		if slog.Default().Enabled(context.Background(), slog.LevelDebug) {
			slog.Debug("never built")
		}
	}
}
