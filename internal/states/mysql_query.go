package states

// mysql_query.go is salt/states/mysql_query.py: run, and run_file (a
// file of statements through mysql.file_query), which share everything
// but how the query is found and run.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "mysql_query.run", Run: myQueryRun, Kwargs: true,
		Doc: "Run a query in a database, optionally storing the result in a file or a grain.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("database"), statemod.Req("query"), statemod.Opt("output", nil),
			statemod.Opt("grain", nil), statemod.Opt("key", nil), statemod.Opt("overwrite", true), statemod.Opt("check_db_exists", true),
			statemod.Opt("client_flags", nil)}})
	statemod.Register(&statemod.Function{Name: "mysql_query.run_file", Run: myQueryRunFile, Kwargs: true,
		Doc: "Run the statements of query_file (local or salt://) in a database, optionally storing the result in a file or a grain.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("database"), statemod.Opt("query_file", nil), statemod.Opt("output", nil),
			statemod.Opt("grain", nil), statemod.Opt("key", nil), statemod.Opt("overwrite", true), statemod.Opt("saltenv", nil),
			statemod.Opt("check_db_exists", true), statemod.Opt("client_flags", nil)}})
}

// myQuerySpec is what run and run_file do differently.
type myQuerySpec struct {
	// prepare runs before the database check: it returns a finished
	// result, or the query to pass to fun.
	prepare func(c *statemod.Call, ret *value.Map) (*value.Map, any, error)
	// absent names the missing database in the comment.
	absent func(c *statemod.Call) string
	// fun is the execution function (mysql.query, mysql.file_query).
	fun string
	// falseFails: a False result ends the state as failed (run_file).
	falseFails bool
	// writeAll writes a result without rows (run: a key:value line each).
	writeAll func(result *value.Map) (string, error)
}

func myQueryRun(c *statemod.Call) (*value.Map, error) {
	return myQueryState(c, myQuerySpec{
		prepare: func(c *statemod.Call, _ *value.Map) (*value.Map, any, error) { return nil, c.Get("query"), nil },
		absent:  func(c *statemod.Call) string { return c.Name() },
		fun:     "query",
		writeAll: func(result *value.Map) (string, error) {
			var b strings.Builder
			result.Range(func(col, val any) bool {
				b.WriteString(value.Str(col) + ":" + value.Str(val) + "\n")
				return true
			})
			return b.String(), nil
		},
	})
}

func myQueryState(c *statemod.Call, spec myQuerySpec) (*value.Map, error) {
	database := value.Str(c.Get("database"))
	ret := statemod.Ret(c.Get("name"), true, "Database "+database+" is already present")
	flags := c.Get("client_flags")
	if flags == nil {
		flags = value.NewList()
	}
	if _, ok := flags.(*value.List); !ok {
		ret.Set("comment", "Error: client_flags must be a list.")
		ret.Set("result", false)
		return ret, nil
	}
	call := func(fun string, args ...any) (any, error) { return myCall(c, fun, args, "client_flags", flags) }
	done, query, err := spec.prepare(c, ret)
	if done != nil || err != nil {
		return done, err
	}
	if c.Bool("check_db_exists") {
		ok, err := call("db_exists", c.Get("database"))
		if err != nil {
			return nil, err
		}
		if !value.Truthy(ok) {
			if msg, ok := myError(c); ok {
				ret.Set("comment", msg)
				ret.Set("result", false)
				return ret, nil
			}
			ret.Set("result", nil)
			ret.Set("comment", "Database "+spec.absent(c)+" is not present")
			return ret, nil
		}
	}
	output, grain, key := c.Get("output"), c.Get("grain"), c.Get("key")
	overwrite := c.Bool("overwrite")
	grainSet := func() (bool, error) {
		ls, err := c.Salt("grains.ls", nil, nil)
		if err != nil {
			return false, err
		}
		if l, ok := ls.(*value.List); ok {
			for _, it := range l.Items {
				if value.Equal(it, grain) {
					return true, nil
				}
			}
		}
		return false, nil
	}
	grainValue := func() (*value.Map, error) {
		set, err := grainSet()
		if err != nil || !set {
			return value.NewMap(0), err
		}
		v, err := c.Salt("grains.get", []any{grain}, nil)
		if err != nil {
			return nil, err
		}
		m, ok := v.(*value.Map)
		if !ok {
			return nil, fmt.Errorf("argument of type '%s' is not iterable", pyTypeName(v))
		}
		return m, nil
	}
	pending := func(comment string) (*value.Map, error) {
		ret.Set("result", nil)
		ret.Set("comment", comment)
		return ret, nil
	}
	switch {
	case output == "grain":
		switch {
		case grain != nil && key == nil:
			set, err := grainSet()
			if err != nil {
				return nil, err
			}
			if !overwrite && set {
				ret.Set("comment", "No execution needed. Grain "+value.Str(grain)+" already set")
				return ret, nil
			}
			if c.Test {
				return pending("Query would execute, storing result in grain: " + value.Str(grain))
			}
		case grain != nil:
			gv, err := grainValue()
			if err != nil {
				return nil, err
			}
			if _, has := gv.Get(key); !overwrite && has {
				ret.Set("comment", "No execution needed. Grain "+value.Str(grain)+":"+value.Str(key)+" already set")
				return ret, nil
			}
			if c.Test {
				return pending("Query would execute, storing result in grain: " + value.Str(grain) + ":" + value.Str(key))
			}
		default:
			ret.Set("result", false)
			ret.Set("comment", "Error: output type 'grain' needs the grain parameter\n")
			return ret, nil
		}
	case output != nil:
		if st, err := os.Stat(value.Str(output)); !overwrite && err == nil && st.Mode().IsRegular() {
			ret.Set("comment", "No execution needed. File "+value.Str(output)+" already set")
			return ret, nil
		}
		if c.Test {
			return pending("Query would execute, storing result in file: " + value.Str(output))
		}
	case c.Test:
		return pending("Query would execute, not storing result")
	}
	qv, err := call(spec.fun, c.Get("database"), query)
	if err != nil {
		return nil, err
	}
	if spec.falseFails && qv == false {
		ret.Set("result", false)
		return ret, nil
	}
	result, ok := qv.(*value.Map)
	if !ok {
		return nil, fmt.Errorf("argument of type '%s' is not iterable", pyTypeName(qv))
	}
	if rows, has := result.Get("results"); has {
		colsV, _ := result.Get("columns")
		cols := seqItems(colsV)
		mapped := value.NewList()
		for _, r := range seqItems(rows) {
			line := value.NewMap(len(cols))
			vals := seqItems(r)
			for i, col := range cols {
				if i >= len(vals) {
					return nil, fmt.Errorf("%s index out of range", pyTypeOf(r))
				}
				line.Set(col, vals[i])
			}
			mapped.Append(line)
		}
		result.Set("results", mapped)
	}
	ret.Set("comment", value.Repr(result))
	changes := value.NewMap(1)
	switch {
	case output == "grain" && key == nil:
		if _, err := c.Salt("grains.setval", []any{grain, result}, nil); err != nil {
			return nil, err
		}
		changes.Set("query", "Executed. Output into grain: "+value.Str(grain))
	case output == "grain":
		gv, err := grainValue()
		if err != nil {
			return nil, err
		}
		gv.Set(key, result)
		if _, err := c.Salt("grains.setval", []any{grain, gv}, nil); err != nil {
			return nil, err
		}
		changes.Set("query", "Executed. Output into grain: "+value.Str(grain)+":"+value.Str(key))
	case output != nil:
		changes.Set("query", "Executed. Output into "+value.Str(output))
		var b strings.Builder
		var err error
		if rows, has := result.Get("results"); has {
			for _, r := range seqItems(rows) {
				r.(*value.Map).Range(func(col, val any) bool {
					cs, ok := col.(string)
					if !ok {
						err = fmt.Errorf(`can only concatenate %[1]s (not "str") to %[1]s`, pyTypeOf(col))
						return false
					}
					s, ok := val.(string)
					if !ok {
						err = errors.New(`can only concatenate str (not "` + pyTypeName(val) + `") to str`)
						return false
					}
					b.WriteString(cs + ":" + s + "\n")
					return true
				})
				if err != nil {
					break
				}
			}
		} else {
			var s string
			s, err = spec.writeAll(result)
			b.WriteString(s)
		}
		// Salt opens (truncates) the file before it writes.
		if werr := os.WriteFile(value.Str(output), []byte(b.String()), 0o666); werr != nil {
			return nil, execmod.Errorf("%s", werr)
		}
		if err != nil {
			return nil, err
		}
	default:
		changes.Set("query", "Executed")
	}
	ret.Set("changes", changes)
	return ret, nil
}

// seqItems returns the items of a list or tuple.
func seqItems(v any) []any {
	switch x := v.(type) {
	case *value.List:
		return x.Items
	case value.Tuple:
		return x
	}
	return nil
}
