// Package mysqlconn is the client side of Salt's mysql execution module:
// one connection per call, opened the way Salt's _connect opens one with
// PyMySQL (a unix socket when one is given, else TCP to host:port, an
// option file read for what the arguments leave unset), queries whose
// values come back typed as PyMySQL types them, and errors worded as
// Salt words them ("MySQL Error 1045: Access denied ..."). The grant
// text handling (quoting, tokenizing, generation) is in grants.go.
package mysqlconn

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

func init() {
	// The driver logs some protocol errors itself; they are returned too.
	_ = mysql.SetLogger(log0{})
}

type log0 struct{}

func (log0) Print(...any) {}

// Options are the connection parameters of one call, after Salt's
// connection_* arguments and mysql.* options have been merged. Empty
// strings are unset; Pass nil means no password.
type Options struct {
	Host, User, Port, DB, Socket, Charset string
	Pass                                  *string
	// DefaultFile and DefaultGroup name an option file (my.cnf) and its
	// group (default "client") read for the fields left unset.
	DefaultFile, DefaultGroup string
	// Timeout bounds the dial (0: 10 seconds).
	Timeout time.Duration
	// MultiStatements and FoundRows are the client flags of those names
	// (Salt's client_flags multi_statements and found_rows).
	MultiStatements, FoundRows bool
}

// Error is a failure reported by the server or by the connection, with
// PyMySQL's error number and text and the Python exception class it
// raises ("OperationalError", "ProgrammingError", ...).
type Error struct {
	Code  int
	Msg   string
	Class string
}

// Error is Salt's wording: "MySQL Error CODE: MESSAGE".
func (e *Error) Error() string { return fmt.Sprintf("MySQL Error %d: %s", e.Code, e.Msg) }

// Operational reports whether Salt's `except OperationalError` (and
// InternalError, at connection time) catches e.
func (e *Error) Operational() bool {
	return e.Class == "OperationalError" || e.Class == "InternalError"
}

// PythonText is str() of the Python exception: (code, 'message').
func (e *Error) PythonText() string {
	return "(" + strconv.Itoa(e.Code) + ", " + pyRepr(e.Msg) + ")"
}

func pyRepr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// programming, data, integrity and notSupported are PyMySQL's error
// number to exception class tables; the other numbers of 1000 and up are
// OperationalError, those below InternalError.
var classes = map[int]string{
	1007: "ProgrammingError", 1149: "ProgrammingError", 1064: "ProgrammingError", 1146: "ProgrammingError",
	1102: "ProgrammingError", 1103: "ProgrammingError", 1110: "ProgrammingError", 1111: "ProgrammingError",
	1112: "ProgrammingError", 1113: "ProgrammingError", 1179: "ProgrammingError", 1166: "ProgrammingError",
	1265: "DataError", 1263: "DataError", 1264: "DataError", 1364: "DataError", 1171: "DataError",
	1406: "DataError", 1441: "DataError", 1292: "DataError", 1367: "DataError",
	1062: "IntegrityError", 1216: "IntegrityError", 1452: "IntegrityError", 1217: "IntegrityError",
	1451: "IntegrityError", 1215: "IntegrityError", 1048: "IntegrityError",
	1196: "NotSupportedError", 1235: "NotSupportedError", 1289: "NotSupportedError", 1286: "NotSupportedError",
}

func classOf(code int) string {
	if c, ok := classes[code]; ok {
		return c
	}
	if code < 1000 {
		return "InternalError"
	}
	return "OperationalError"
}

// wrap turns a driver error into an *Error.
func wrap(err error, host string) *Error {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return &Error{Code: int(me.Number), Msg: me.Message, Class: classOf(int(me.Number))}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, syscall.ENOENT) {
		return &Error{Code: 2003, Msg: fmt.Sprintf("Can't connect to MySQL server on %s (%s)", pyRepr(host), osErrText(err)), Class: "OperationalError"}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) {
		return &Error{Code: 2013, Msg: "Lost connection to MySQL server during query", Class: "OperationalError"}
	}
	return &Error{Code: 2000, Msg: err.Error(), Class: "OperationalError"}
}

// osErrText words a dial error as Python's OSError prints:
// "[Errno 2] No such file or directory".
func osErrText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		s := en.Error()
		if s != "" {
			s = strings.ToUpper(s[:1]) + s[1:]
		}
		return fmt.Sprintf("[Errno %d] %s", int(en), s)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	return err.Error()
}

// Conn is one open connection, in autocommit mode.
type Conn struct {
	db   *sql.DB
	conn *sql.Conn
}

// readOptionFile returns the keys of group in a my.cnf-style file, with
// surrounding quotes removed (PyMySQL's parser); a missing file is empty.
func readOptionFile(path, group string) map[string]string {
	out := map[string]string{}
	if strings.HasPrefix(path, "~") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[1:])
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' && strings.HasSuffix(line, "]") {
			in = strings.TrimSpace(line[1:len(line)-1]) == group
			continue
		}
		if !in {
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			continue
		}
		k, v := strings.ToLower(strings.TrimSpace(line[:i])), strings.TrimSpace(line[i+1:])
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}

// Open connects as PyMySQL's connect does with these options.
func Open(ctx context.Context, o Options) (*Conn, error) {
	if o.DefaultFile != "" {
		group := o.DefaultGroup
		if group == "" {
			group = "client"
		}
		cnf := readOptionFile(o.DefaultFile, group)
		fill := func(dst *string, key string) {
			if *dst == "" {
				*dst = cnf[key]
			}
		}
		fill(&o.User, "user")
		if o.Pass == nil || *o.Pass == "" {
			if p, ok := cnf["password"]; ok {
				o.Pass = &p
			}
		}
		fill(&o.Host, "host")
		fill(&o.DB, "database")
		fill(&o.Socket, "socket")
		fill(&o.Port, "port")
		fill(&o.Charset, "default-character-set")
	}
	host := o.Host
	if host == "" {
		host = "localhost"
	}
	cfg := mysql.NewConfig()
	cfg.User = o.User
	if cfg.User == "" {
		if u, err := user.Current(); err == nil {
			cfg.User = u.Username
		}
	}
	if o.Pass != nil {
		cfg.Passwd = *o.Pass
	}
	if o.Socket != "" {
		cfg.Net, cfg.Addr = "unix", o.Socket
	} else {
		port := 3306
		if o.Port != "" {
			p, err := strconv.Atoi(o.Port)
			if err != nil {
				return nil, &Error{Code: 2000, Msg: fmt.Sprintf("invalid literal for int() with base 10: %s", pyRepr(o.Port)), Class: "ValueError"}
			}
			if p != 0 {
				port = p
			}
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, strconv.Itoa(port))
	}
	cfg.DBName = o.DB
	cfg.InterpolateParams = true
	cfg.MultiStatements = o.MultiStatements
	cfg.ClientFoundRows = o.FoundRows
	cfg.AllowCleartextPasswords = false
	cfg.Timeout = o.Timeout
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	charset := o.Charset
	if charset == "" {
		charset = "utf8mb4"
	}
	if err := cfg.Apply(mysql.Charset(charset, "")); err != nil {
		return nil, &Error{Code: 2019, Msg: err.Error(), Class: "OperationalError"}
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, wrap(err, host)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err == nil {
		err = conn.PingContext(ctx)
	}
	if err != nil {
		db.Close()
		return nil, wrap(err, host)
	}
	return &Conn{db: db, conn: conn}, nil
}

// Close ends the connection.
func (c *Conn) Close() {
	c.conn.Close()
	c.db.Close()
}

// Exec runs a statement that returns no rows and returns the rows it
// affected.
func (c *Conn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := c.conn.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, wrap(err, "")
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Result is the outcome of a query: its column names and rows.
type Result struct {
	Columns []string
	Rows    [][]any
}

// Query runs q and returns its rows with PyMySQL's types: integers as
// int64, floating point as float64, NULL as nil and the rest as strings.
// With asText every non-NULL value is a string (Salt's mysql.query).
func (c *Conn) Query(ctx context.Context, asText bool, q string, args ...any) (*Result, error) {
	rows, err := c.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrap(err, "")
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, wrap(err, "")
	}
	types, _ := rows.ColumnTypes()
	res := &Result{Columns: cols}
	for rows.Next() {
		raw := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, wrap(err, "")
		}
		row := make([]any, len(cols))
		for i, b := range raw {
			if b == nil {
				continue
			}
			s := string(b)
			row[i] = s
			if asText || types == nil {
				continue
			}
			switch types[i].DatabaseTypeName() {
			case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR",
				"UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT", "UNSIGNED BIGINT":
				if n, err := strconv.ParseInt(s, 10, 64); err == nil {
					row[i] = n
				} else if u, err := strconv.ParseUint(s, 10, 64); err == nil {
					row[i] = float64(u)
				}
			case "FLOAT", "DOUBLE":
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					row[i] = f
				}
			}
		}
		res.Rows = append(res.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(err, "")
	}
	return res, nil
}
