package cli

// log.go sets up logging as salt/_logging does: a console handler on
// stderr ("[LEVEL   ] message" at log_level), a log file handler
// (log_file at log_level_logfile in Salt's logfile format) and, for
// machines, one JSON object per line (--log-format json or log_format:
// json). Messages logged before the configuration is read (the config
// files themselves) are queued and replayed once the handlers are set up,
// as Salt's temporary deferred handler does.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"log/syslog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"brine/internal/config"
	"brine/internal/pyops"
)

// Salt's extra levels (salt/_logging/impl.py) placed among slog's: Salt's
// numbers are 1 garbage, 5 trace, 10 debug, 15 profile, 20 info, 30
// warning, 40 error, 50 critical, 1000 quiet.
const (
	levelAll      = slog.LevelDebug - 8
	levelGarbage  = slog.LevelDebug - 6
	levelTrace    = slog.LevelDebug - 4
	levelProfile  = slog.LevelDebug + 2
	levelCritical = slog.LevelError + 4
	levelQuiet    = slog.LevelError + 100
)

// logLevels are Salt's level names (LOG_LEVELS) as slog levels.
var logLevels = map[string]slog.Level{
	"all":      levelAll,
	"garbage":  levelGarbage,
	"trace":    levelTrace,
	"debug":    slog.LevelDebug,
	"profile":  levelProfile,
	"info":     slog.LevelInfo,
	"warning":  slog.LevelWarn,
	"error":    slog.LevelError,
	"critical": levelCritical,
	"quiet":    levelQuiet,
}

// parseLevel is get_logging_level_from_string: "" is warning, an unknown
// name is error, with Salt's warning as the second result.
func parseLevel(name string) (slog.Level, string) {
	if name == "" {
		return slog.LevelWarn, ""
	}
	if lv, ok := logLevels[strings.ToLower(name)]; ok {
		return lv, ""
	}
	return slog.LevelError, fmt.Sprintf("Could not translate the logging level string '%s' into an actual logging level integer. Returning 'logging.ERROR'.", name)
}

// levelName is the levelname Salt prints for a level.
func levelName(l slog.Level) string {
	switch {
	case l <= levelAll:
		return "NOTSET"
	case l <= levelGarbage:
		return "GARBAGE"
	case l < slog.LevelDebug:
		return "TRACE"
	case l < levelProfile:
		return "DEBUG"
	case l < slog.LevelInfo:
		return "PROFILE"
	case l < slog.LevelWarn:
		return "INFO"
	case l < slog.LevelError:
		return "WARNING"
	case l < levelCritical:
		return "ERROR"
	case l < levelQuiet:
		return "CRITICAL"
	}
	return "QUIET"
}

// Salt's default formats (DFLT_LOG_FMT_CONSOLE, DFLT_LOG_FMT_LOGFILE,
// DFLT_LOG_DATEFMT, DFLT_LOG_DATEFMT_LOGFILE). In the log file, %(name)s
// is the Go package that logged ("brine.engine" for
// brine/internal/engine) and %(lineno)d its Go source line: brine has no
// Python modules and line numbers to give.
const (
	defaultConsoleFmt     = "[%(levelname)-8s] %(message)s"
	defaultLogfileFmt     = "%(asctime)s,%(msecs)03d [%(name)-17s:%(lineno)-4d][%(levelname)-8s][%(process)d] %(message)s"
	defaultConsoleDateFmt = "%H:%M:%S"
	defaultLogfileDateFmt = "%Y-%m-%d %H:%M:%S"
	defaultLogFile        = "/var/log/salt/minion"
)

// logSettings are the logging options of one command.
type logSettings struct {
	Level          string // console level (log_level, -l)
	Format         string // "" or "text": Salt's formats; "json": one object per line
	ConsoleFmt     string // log_fmt_console
	ConsoleDateFmt string // log_datefmt
	File           string // log_file: a path, file://PATH, or "" for none
	FileLevel      string // log_level_logfile ("" means log_level)
	FileFmt        string // log_fmt_logfile
	FileDateFmt    string // log_datefmt_logfile
}

// logSettingsFrom reads the logging options of cfg; level and format
// (the -l and --log-format flags) win when given. Salt's default log_file
// (/var/log/salt/minion) is only written when the configuration names it:
// brine does not start logging to a system file its users never asked for.
func logSettingsFrom(cfg *config.Config, level, format string) logSettings {
	str := func(k string) string {
		v, ok := cfg.Get(k)
		if !ok || v == nil {
			return ""
		}
		if s, ok := v.(string); ok {
			return s
		}
		return fmt.Sprint(v)
	}
	s := logSettings{
		Level:          level,
		Format:         format,
		ConsoleFmt:     str("log_fmt_console"),
		ConsoleDateFmt: str("log_datefmt"),
		File:           str("log_file"),
		FileLevel:      str("log_level_logfile"),
		FileFmt:        str("log_fmt_logfile"),
		FileDateFmt:    str("log_datefmt_logfile"),
	}
	if s.Level == "" {
		s.Level = str("log_level")
	}
	if s.Format == "" {
		s.Format = str("log_format")
	}
	if s.File == defaultLogFile && !cfg.FromFile("log_file") {
		s.File = ""
	}
	return s
}

// deferLogging queues the messages logged from now until setupLogging,
// which replays them at the configured levels (Salt's temporary handler).
func deferLogging() {
	slog.SetDefault(slog.New(&queueHandler{q: &logQueue{}}))
}

// setupLogging routes slog's default logger to w in Salt's console format
// at the given Salt level name (warning when empty).
func setupLogging(level string, w io.Writer) {
	_ = configureLogging(logSettings{Level: level}, w)
}

// setupLoggingConfig sets up the console (on w) and log file handlers from
// cfg and the -l and --log-format flags. A bad --log-format or log_file is
// an error; console logging is set up all the same.
func setupLoggingConfig(cfg *config.Config, level, format string, w io.Writer) error {
	return configureLogging(logSettingsFrom(cfg, level, format), w)
}

// configureLogging installs the handlers s describes as slog's default and
// replays the messages queued by deferLogging.
func configureLogging(s logSettings, w io.Writer) error {
	var queued []slog.Record
	if q, ok := slog.Default().Handler().(*queueHandler); ok {
		queued = q.q.take()
	}
	var errs []error
	json := false
	switch strings.ToLower(s.Format) {
	case "", "text", "salt":
	case "json":
		json = true
	default:
		errs = append(errs, fmt.Errorf("invalid log format %q: must be text or json", s.Format))
	}
	var warnings []string
	level := func(name string) slog.Level {
		lv, w := parseLevel(name)
		if w != "" {
			warnings = append(warnings, w)
		}
		return lv
	}
	lv := level(s.Level)
	var hs []slog.Handler
	if json {
		hs = append(hs, newJSONHandler(w, lv))
	} else {
		hs = append(hs, newTextHandler(w, lv, orDefault(s.ConsoleFmt, defaultConsoleFmt), orDefault(s.ConsoleDateFmt, defaultConsoleDateFmt)))
	}
	if s.File != "" {
		flv := lv
		if s.FileLevel != "" {
			flv = level(s.FileLevel)
		}
		fw, err := openLogFile(s.File)
		var open *openError
		switch {
		case errors.As(err, &open):
			// Salt warns and goes on with the console only.
			defer slog.Warn(open.Error())
		case err != nil:
			errs = append(errs, err)
		case json:
			hs = append(hs, newJSONHandler(fw, flv))
		default:
			hs = append(hs, newTextHandler(fw, flv, orDefault(s.FileFmt, defaultLogfileFmt), orDefault(s.FileDateFmt, defaultLogfileDateFmt)))
		}
	}
	var h slog.Handler = hs[0]
	if len(hs) > 1 {
		h = &teeHandler{hs: hs}
	}
	slog.SetDefault(slog.New(h))
	for _, r := range queued {
		if h.Enabled(context.Background(), r.Level) {
			_ = h.Handle(context.Background(), r)
		}
	}
	for _, w := range warnings {
		slog.Warn(w)
	}
	return errors.Join(errs...)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// logFiles keeps the log files opened by this process, by path, so that
// setting logging up twice appends through one descriptor.
var (
	logFilesMu sync.Mutex
	logFiles   = map[string]io.Writer{}
)

// openLogFile opens log_file for appending: a path, or file://PATH. As in
// Salt, file:// naming a Unix socket (file:///dev/log, or
// file:///dev/log/LOG_DAEMON with a facility) is the local syslog, and
// udp://HOST[:PORT][/FACILITY] and tcp://... a remote one. Messages reach
// syslog at the facility's info priority, whatever their level.
func openLogFile(spec string) (io.Writer, error) {
	logFilesMu.Lock()
	defer logFilesMu.Unlock()
	if w, ok := logFiles[spec]; ok {
		return w, nil
	}
	path := spec
	if u, err := url.Parse(spec); err == nil && len(u.Scheme) > 1 {
		dial := func(network, addr string, facility syslog.Priority) (io.Writer, error) {
			w, err := syslog.Dial(network, addr, facility|syslog.LOG_INFO, "brine")
			if err != nil {
				return nil, fmt.Errorf("Failed to setup the Syslog logging handler: %w", err)
			}
			logFiles[spec] = w
			return w, nil
		}
		switch u.Scheme {
		case "file":
			path = strings.TrimPrefix(spec, "file://")
			sock, facility := path, syslog.LOG_USER
			if f, ok := syslogFacility(filepath.Base(path)); ok {
				sock, facility = filepath.Dir(path), f
			}
			if st, err := os.Stat(sock); err == nil && st.Mode()&os.ModeSocket != 0 {
				return dial("unixgram", sock, facility)
			}
		case "udp", "tcp":
			facility := syslog.LOG_USER
			if name := strings.Trim(u.Path, "/"); name != "" {
				f, ok := syslogFacility(name)
				if !ok {
					return nil, fmt.Errorf("The syslog facility '%s' is not known", strings.ToUpper(name))
				}
				facility = f
			}
			host := u.Host
			if u.Port() == "" {
				host += ":514"
			}
			return dial(u.Scheme, host, facility)
		default:
			return nil, fmt.Errorf("log_file %s: unsupported scheme %q (use a path, file://, udp:// or tcp://)", spec, u.Scheme)
		}
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o750) // verify_log_files creates the directory
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return nil, &openError{path}
	}
	logFiles[spec] = f
	return f, nil
}

// syslogFacility reads a facility name (LOG_USER, LOG_DAEMON, ...).
func syslogFacility(name string) (syslog.Priority, bool) {
	name = strings.ToUpper(name)
	if !strings.HasPrefix(name, "LOG_") {
		return 0, false
	}
	f, ok := map[string]syslog.Priority{
		"LOG_KERN": syslog.LOG_KERN, "LOG_USER": syslog.LOG_USER, "LOG_MAIL": syslog.LOG_MAIL,
		"LOG_DAEMON": syslog.LOG_DAEMON, "LOG_AUTH": syslog.LOG_AUTH, "LOG_SYSLOG": syslog.LOG_SYSLOG,
		"LOG_LPR": syslog.LOG_LPR, "LOG_NEWS": syslog.LOG_NEWS, "LOG_UUCP": syslog.LOG_UUCP,
		"LOG_CRON": syslog.LOG_CRON, "LOG_AUTHPRIV": syslog.LOG_AUTHPRIV, "LOG_FTP": syslog.LOG_FTP,
		"LOG_LOCAL0": syslog.LOG_LOCAL0, "LOG_LOCAL1": syslog.LOG_LOCAL1, "LOG_LOCAL2": syslog.LOG_LOCAL2,
		"LOG_LOCAL3": syslog.LOG_LOCAL3, "LOG_LOCAL4": syslog.LOG_LOCAL4, "LOG_LOCAL5": syslog.LOG_LOCAL5,
		"LOG_LOCAL6": syslog.LOG_LOCAL6, "LOG_LOCAL7": syslog.LOG_LOCAL7,
	}[name]
	return f, ok
}

// openError is a log file that cannot be opened.
type openError struct{ path string }

func (e *openError) Error() string {
	return fmt.Sprintf("Failed to open log file, do you have permission to write to %s?", e.path)
}

// logQueue holds records logged before logging is set up (bounded: a
// process that never sets logging up keeps at most queueMax).
type logQueue struct {
	mu   sync.Mutex
	recs []slog.Record
}

const queueMax = 10000

func (q *logQueue) take() []slog.Record {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := q.recs
	q.recs = nil
	return r
}

type queueHandler struct {
	q     *logQueue
	attrs []slog.Attr
}

func (h *queueHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *queueHandler) Handle(_ context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(h.attrs...)
	h.q.mu.Lock()
	defer h.q.mu.Unlock()
	if len(h.q.recs) < queueMax {
		h.q.recs = append(h.q.recs, r)
	}
	return nil
}

func (h *queueHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &queueHandler{q: h.q, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *queueHandler) WithGroup(string) slog.Handler { return h }

// teeHandler sends each record to every handler that takes its level.
type teeHandler struct{ hs []slog.Handler }

func (t *teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range t.hs {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (t *teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range t.hs {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (t *teeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := &teeHandler{}
	for _, h := range t.hs {
		out.hs = append(out.hs, h.WithAttrs(attrs))
	}
	return out
}

func (t *teeHandler) WithGroup(name string) slog.Handler {
	out := &teeHandler{}
	for _, h := range t.hs {
		out.hs = append(out.hs, h.WithGroup(name))
	}
	return out
}

// textHandler formats records with a Python logging format string
// (log_fmt_console, log_fmt_logfile) and date format; attributes follow
// the message as key=value.
type textHandler struct {
	mu      *sync.Mutex
	w       io.Writer
	level   slog.Level
	format  string
	datefmt string
	attrs   []slog.Attr
}

func newTextHandler(w io.Writer, level slog.Level, format, datefmt string) *textHandler {
	return &textHandler{mu: &sync.Mutex{}, w: w, level: level, format: format, datefmt: datefmt}
}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	var msg strings.Builder
	msg.WriteString(r.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&msg, " %s=%v", a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&msg, " %s=%v", a.Key, a.Value)
		return true
	})
	line := formatRecord(h.format, h.datefmt, r, msg.String()) + "\n"
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line)
	return err
}

func (h *textHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

func (h *textHandler) WithGroup(string) slog.Handler { return h }

// newJSONHandler writes one JSON object per record: time, level (Salt's
// name), name (the package that logged), message and the attributes.
func newJSONHandler(w io.Writer, level slog.Level) slog.Handler {
	return &jsonHandler{slog.NewJSONHandler(&lockedWriter{w: w}, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.LevelKey:
				if l, ok := a.Value.Any().(slog.Level); ok {
					return slog.String(slog.LevelKey, levelName(l))
				}
			case slog.MessageKey:
				a.Key = "message"
			}
			return a
		},
	})}
}

type jsonHandler struct{ slog.Handler }

func (h *jsonHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	if name, _ := recordSource(r); name != "" {
		out.AddAttrs(slog.String("name", name))
	}
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(a)
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h *jsonHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &jsonHandler{h.Handler.WithAttrs(attrs)}
}

func (h *jsonHandler) WithGroup(name string) slog.Handler {
	return &jsonHandler{h.Handler.WithGroup(name)}
}

// lockedWriter serializes writes shared by handlers (the JSON handler of
// the console and of a log file may be the same file).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// recordSource returns the logger name of a record (the Go package of its
// caller, "brine.engine" for brine/internal/engine) and its source line.
func recordSource(r slog.Record) (string, int) {
	if r.PC == 0 {
		return "", 0
	}
	fr, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
	fn := fr.Function
	// "brine/internal/engine.(*runner).call": the package is what precedes
	// the first dot after the last slash.
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		fn = fn[:slash+1+dot]
	}
	fn = strings.TrimPrefix(fn, "brine/internal/")
	fn = strings.TrimPrefix(fn, "brine/")
	if !strings.HasPrefix(fn, "brine") {
		fn = "brine." + fn
	}
	return strings.ReplaceAll(fn, "/", "."), fr.Line
}

// formatRecord applies a Python logging format string ("%(name)s",
// "%(levelname)-8s", "%(msecs)03d", ...) to a record whose formatted
// message is msg. Unknown keys format as empty strings.
func formatRecord(format, datefmt string, r slog.Record, msg string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		if format[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if format[i+1] != '(' {
			b.WriteByte(c)
			continue
		}
		end := strings.IndexByte(format[i:], ')')
		if end < 0 {
			b.WriteString(format[i:])
			break
		}
		key := format[i+2 : i+end]
		j := i + end + 1
		spec := j
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		conv := format[j]
		flags := format[spec:j]
		i = j
		v := recordField(key, datefmt, r, msg)
		switch conv {
		case 'd', 'i', 'u':
			switch n := v.(type) {
			case int:
				fmt.Fprintf(&b, "%"+flags+"d", n)
			case float64:
				fmt.Fprintf(&b, "%"+flags+"d", int(n))
			default:
				fmt.Fprintf(&b, "%"+flags+"s", fmt.Sprint(n))
			}
		case 'f', 'F', 'e', 'E', 'g', 'G':
			switch n := v.(type) {
			case int:
				fmt.Fprintf(&b, "%"+flags+string(conv), float64(n))
			case float64:
				fmt.Fprintf(&b, "%"+flags+string(conv), n)
			default:
				fmt.Fprintf(&b, "%"+flags+"s", fmt.Sprint(n))
			}
		case 'r':
			fmt.Fprintf(&b, "%"+flags+"s", "'"+fmt.Sprint(v)+"'")
		default: // 's' and anything else
			fmt.Fprintf(&b, "%"+flags+"s", fmt.Sprint(v))
		}
	}
	return b.String()
}

var startTime = time.Now()

// Salt's LOG_COLORS as ANSI codes: the level's, its message's.
var (
	levelColors = map[string]string{"QUIET": "0", "CRITICAL": "1;31", "ERROR": "1;31", "WARNING": "1;33", "INFO": "1;32",
		"PROFILE": "1;36", "DEBUG": "1;36", "TRACE": "1;35", "GARBAGE": "1;34", "NOTSET": "0"}
	msgColors = map[string]string{"QUIET": "0", "CRITICAL": "1;31", "ERROR": "31", "WARNING": "33", "INFO": "32",
		"PROFILE": "1;36", "DEBUG": "36", "TRACE": "35", "GARBAGE": "34", "NOTSET": "0"}
)

func ansi(code, s string) string { return "\x1b[" + code + "m" + s + "\x1b[0m" }

// recordField is one attribute of Python's LogRecord and of Salt's
// SaltLogRecord (bracketname, bracketlevel, bracketprocess) and
// SaltColorLogRecord (colorname, colorlevel, colorprocess, colormsg).
func recordField(key, datefmt string, r slog.Record, msg string) any {
	switch key {
	case "message", "msg":
		return msg
	case "colormsg":
		return ansi(msgColors[levelName(r.Level)], msg)
	case "levelname":
		return levelName(r.Level)
	case "levelno":
		return pyLevelNo(r.Level)
	case "name":
		n, _ := recordSource(r)
		return n
	case "bracketname":
		n, _ := recordSource(r)
		return fmt.Sprintf("[%-17s]", n)
	case "colorname":
		n, _ := recordSource(r)
		return ansi("1;32", fmt.Sprintf("[%-17s]", n))
	case "bracketlevel":
		return fmt.Sprintf("[%-8s]", levelName(r.Level))
	case "colorlevel":
		return ansi(levelColors[levelName(r.Level)], fmt.Sprintf("[%-8s]", levelName(r.Level)))
	case "process":
		return os.Getpid()
	case "bracketprocess":
		return fmt.Sprintf("[%5d]", os.Getpid())
	case "colorprocess":
		return ansi("1;34", fmt.Sprintf("[%5d]", os.Getpid()))
	case "lineno":
		_, l := recordSource(r)
		return l
	case "processName":
		return "MainProcess"
	case "thread":
		return 0
	case "threadName":
		return "MainThread"
	case "asctime":
		return pyops.Strftime(r.Time, datefmt)
	case "msecs":
		return r.Time.Nanosecond() / 1e6
	case "created":
		return float64(r.Time.UnixNano()) / 1e9
	case "relativeCreated":
		return float64(r.Time.Sub(startTime).Microseconds()) / 1e3
	case "pathname", "filename", "module", "funcName":
		if r.PC == 0 {
			return ""
		}
		fr, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		switch key {
		case "pathname":
			return fr.File
		case "filename":
			return fr.File[strings.LastIndexByte(fr.File, '/')+1:]
		case "module":
			f := fr.File[strings.LastIndexByte(fr.File, '/')+1:]
			return strings.TrimSuffix(f, ".go")
		}
		return fr.Function[strings.LastIndexByte(fr.Function, '.')+1:]
	case "jid":
		return ""
	}
	return ""
}

// pyLevelNo is Python's number of a level.
func pyLevelNo(l slog.Level) int {
	for _, p := range []struct {
		l slog.Level
		n int
	}{{levelQuiet, 1000}, {levelCritical, 50}, {slog.LevelError, 40}, {slog.LevelWarn, 30}, {slog.LevelInfo, 20}, {levelProfile, 15}, {slog.LevelDebug, 10}, {levelTrace, 5}, {levelGarbage, 1}} {
		if l >= p.l {
			return p.n
		}
	}
	return 0
}
