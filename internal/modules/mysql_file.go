package modules

// mysql_file.go is mysql.file_query and mysql.free_slave of
// salt/modules/mysql.py.

import (
	"errors"
	"log/slog"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/system/mysqlconn"
	"brine/internal/value"
)

func init() {
	execmod.Register("mysql.file_query", myFileQuery,
		"Run the statements of a file (local, salt:// or http(s)://) one mysql.query each: rows returned and affected summed, columns and results per SELECT, the total time.")
	execmod.Register("mysql.free_slave", myFreeSlave,
		"Detach a replica from its master (flush logs there, stop slave, reset master): \"promoted\" or \"failed\".")
}

// statementEnd is Salt's test for a line that ends a statement: a ";"
// after a character other than "-" or ";".
var statementEnd = regexp.MustCompile(`[^-;]+;`)

func myFileQuery(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "file_query", args, kwargs, execmod.Req("database"), execmod.Req("file_name"))
	if err != nil {
		return nil, err
	}
	if _, ok := a["file_name"].(string); !ok {
		return nil, &myPyError{class: "AttributeError", msg: "'" + pyTypeName(a["file_name"]) + "' object has no attribute 'startswith'"}
	}
	var name any = a["file_name"]
	for _, p := range []string{"salt://", "http://", "https://", "swift://", "s3://"} {
		if strings.HasPrefix(name.(string), p) {
			if name, err = ctx.Call("cp.cache_file", []any{name}, value.NewMap(0)); err != nil {
				return nil, err
			}
			break
		}
	}
	if name == false {
		// Salt opens the False that cp.cache_file returned.
		return nil, &execmod.TypeError{Msg: "False is not a permitted file descriptor"}
	}
	path := execmod.String(name)
	data, err := os.ReadFile(path)
	if path == "" || err != nil {
		if os.IsNotExist(err) || path == "" {
			slog.Error(`File "` + path + `" does not exist`)
			return false, nil
		}
		return nil, execmod.Errorf("%s", err)
	}
	// Python's text mode: universal newlines.
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	text = mysqlconn.StripComments(text)

	var raw float64
	var returned, affected int64
	columns, results := value.NewList(), value.NewList()
	stmt := ""
	for _, line := range pyops.SplitLines(text, false) {
		stmt += line
		if !statementEnd.MatchString(line) {
			continue
		}
		r, err := ctx.Call("mysql.query", []any{a["database"], stmt}, m.kw)
		stmt = ""
		if err != nil {
			return nil, err
		}
		if r == false {
			return false, nil
		}
		res, _ := r.(*value.Map)
		if qt, ok := res.Get("query time"); ok {
			t, _ := qt.(*value.Map).Get("raw")
			f, _ := strconv.ParseFloat(execmod.String(t), 64)
			raw += f
		}
		if v, ok := res.Get("rows returned"); ok {
			returned += v.(int64)
		}
		if v, ok := res.Get("columns"); ok {
			columns.Append(v)
		}
		if v, ok := res.Get("results"); ok {
			results.Append(v)
		}
		if v, ok := res.Get("rows affected"); ok {
			affected += v.(int64)
		}
	}
	ret := value.NewMap(5)
	// Salt drops the empty entries.
	if returned != 0 {
		ret.Set("rows returned", returned)
	}
	if columns.Len() > 0 {
		ret.Set("columns", columns)
	}
	if results.Len() > 0 {
		ret.Set("results", results)
	}
	if affected != 0 {
		ret.Set("rows affected", affected)
	}
	ret.Set("query time", value.MapOf("raw", pyRound(raw, 5), "human", pyRoundStr(raw, 2)+"s"))
	return ret, nil
}

// pyRound is round(x, n) for a float.
func pyRound(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.RoundToEven(x*p) / p
}

func myFreeSlave(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "free_slave", args, kwargs)
	if err != nil {
		return nil, err
	}
	c := m.connect()
	if c == nil {
		return "", nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "show slave status")
	if err != nil {
		return nil, pyErr(err)
	}
	if len(res.Rows) == 0 {
		// Salt reads Master_Host from the None fetchone() returned.
		return nil, &execmod.TypeError{Msg: "'NoneType' object is not subscriptable"}
	}
	host, _ := rowsAsMaps(res).Items[0].(*value.Map).Get("Master_Host")
	// Salt's _connect(host=...) ignores the host (it reads only
	// connection_* arguments): the master connection is made with the
	// mysql.* options alone.
	master := (&myCall{ctx: ctx, kw: value.MapOf("host", host)}).connect()
	if master == nil {
		return "", nil
	}
	_, err = master.Exec(bg, "flush logs")
	master.Close()
	if err != nil && !isOperational(err) {
		return nil, pyErr(err)
	}
	for _, q := range []string{"stop slave", "reset master", "change master to MASTER_HOST="} {
		if _, err := c.Exec(bg, q); err != nil {
			return nil, pyErr(err)
		}
	}
	res, err = c.Query(bg, false, "show slave status")
	if err != nil {
		return nil, pyErr(err)
	}
	if len(res.Rows) == 0 {
		return "promoted", nil
	}
	return "failed", nil
}

// isOperational reports whether err is a PyMySQL OperationalError.
func isOperational(err error) bool {
	var me *mysqlconn.Error
	return errors.As(err, &me) && me.Operational()
}
