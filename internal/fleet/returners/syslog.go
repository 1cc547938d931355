package returners

// syslog.go is salt/returners/syslog_return.py: the return as JSON, one
// message to the local syslog, with the configured level, facility,
// options and tag (ident), as Python's syslog module (glibc's syslog(3))
// sends it.

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"brine/internal/value"
)

func init() {
	Register(&Returner{
		Name:   "syslog",
		Doc:    "Send each return as JSON to the local syslog (syslog.level, syslog.facility, syslog.tag, syslog.options).",
		Return: syslogReturn,
	})
}

// SyslogSocket is the local syslog socket messages go to.
var SyslogSocket = "/dev/log"

// syslogConsts are the integer constants of Python's syslog module by
// name; Salt accepts any of them as level, facility or option.
var syslogConsts = map[string]int{
	"LOG_EMERG": 0, "LOG_ALERT": 1, "LOG_CRIT": 2, "LOG_ERR": 3,
	"LOG_WARNING": 4, "LOG_NOTICE": 5, "LOG_INFO": 6, "LOG_DEBUG": 7,
	"LOG_KERN": 0 << 3, "LOG_USER": 1 << 3, "LOG_MAIL": 2 << 3, "LOG_DAEMON": 3 << 3,
	"LOG_AUTH": 4 << 3, "LOG_SYSLOG": 5 << 3, "LOG_LPR": 6 << 3, "LOG_NEWS": 7 << 3,
	"LOG_UUCP": 8 << 3, "LOG_CRON": 9 << 3, "LOG_AUTHPRIV": 10 << 3, "LOG_FTP": 11 << 3,
	"LOG_LOCAL0": 16 << 3, "LOG_LOCAL1": 17 << 3, "LOG_LOCAL2": 18 << 3, "LOG_LOCAL3": 19 << 3,
	"LOG_LOCAL4": 20 << 3, "LOG_LOCAL5": 21 << 3, "LOG_LOCAL6": 22 << 3, "LOG_LOCAL7": 23 << 3,
	"LOG_PID": 0x01, "LOG_CONS": 0x02, "LOG_ODELAY": 0x04, "LOG_NDELAY": 0x08,
	"LOG_NOWAIT": 0x10, "LOG_PERROR": 0x20,
}

// syslogOptions reads and checks the returner's options (Salt's
// _get_options and _verify_options).
func syslogOptions(cfg Config, ret *value.Map) (level, facility, logopt int, tag string, hasTag bool, err error) {
	o := Options(cfg, "syslog", ret, [][2]string{{"level", "level"}, {"facility", "facility"}, {"tag", "tag"}, {"options", "options"}},
		map[string]any{"level": "LOG_INFO", "facility": "LOG_USER", "options": value.NewList()})
	lookup := func(v any) (int, error) {
		s, ok := v.(string)
		n, known := syslogConsts[s]
		if !ok || !known {
			return 0, fmt.Errorf("syslog has no attribute %s", value.Str(v))
		}
		return n, nil
	}
	lv, _ := o.Get("level")
	if level, err = lookup(lv); err != nil {
		return
	}
	fv, _ := o.Get("facility")
	if facility, err = lookup(fv); err != nil {
		return
	}
	ov, _ := o.Get("options")
	var opts []any
	switch x := ov.(type) {
	case *value.List:
		opts = x.Items
	case string:
		for _, c := range x { // Python iterates a string's characters
			opts = append(opts, string(c))
		}
	}
	for _, op := range opts {
		n, lerr := lookup(op)
		if lerr != nil {
			err = lerr
			return
		}
		logopt |= n
	}
	if tv, ok := o.Get("tag"); ok {
		s, isStr := tv.(string)
		switch {
		case !isStr:
			err = errors.New("tag must be a string")
		case len([]rune(s)) > 32:
			err = errors.New("tag size is limited to 32 characters")
		}
		tag, hasTag = s, true
	}
	return
}

func syslogReturn(cfg Config, ret *value.Map) error {
	level, facility, logopt, tag, hasTag, err := syslogOptions(cfg, ret)
	if err != nil {
		return err
	}
	ident := tag
	if !hasTag {
		ident = filepath.Base(os.Args[0])
	}
	return sendSyslog(facility|level, logopt, ident, pyJSON(ret), time.Now())
}

// syslogLine is the datagram glibc's syslog(3) writes to the local
// socket: <PRI>, the local time as "Jan _2 15:04:05", the ident (with
// [pid] under LOG_PID), ": " and the message.
func syslogLine(pri, logopt int, ident, msg string, now time.Time) string {
	if logopt&syslogConsts["LOG_PID"] != 0 {
		ident = fmt.Sprintf("%s[%d]", ident, os.Getpid())
	}
	return fmt.Sprintf("<%d>%s %s: %s", pri, now.Format(time.Stamp), ident, msg)
}

// sendSyslog sends one message as glibc does: a datagram to the socket,
// else a stream connection with the message NUL-terminated; LOG_PERROR
// copies it to stderr, LOG_CONS writes it to the console when the socket
// cannot take it.
func sendSyslog(pri, logopt int, ident, msg string, now time.Time) error {
	line := syslogLine(pri, logopt, ident, msg, now)
	if logopt&syslogConsts["LOG_PERROR"] != 0 {
		fmt.Fprintln(os.Stderr, line[strings.IndexByte(line, '>')+1+len(time.Stamp)+1:])
	}
	err := func() error {
		c, err := net.Dial("unixgram", SyslogSocket)
		if err == nil {
			defer c.Close()
			_, err = c.Write([]byte(line))
			return err
		}
		c, serr := net.Dial("unix", SyslogSocket)
		if serr != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte(line + "\x00"))
		return err
	}()
	if err != nil && logopt&syslogConsts["LOG_CONS"] != 0 {
		if f, cerr := os.OpenFile("/dev/console", os.O_WRONLY|syscall.O_NOCTTY, 0); cerr == nil {
			fmt.Fprintf(f, "%s\r\n", line[strings.IndexByte(line, '>')+1:])
			f.Close()
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("syslog: %w", err)
	}
	return nil
}
