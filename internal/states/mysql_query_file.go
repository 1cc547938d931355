package states

// mysql_query.run_file (salt/states/mysql_query.py): mysql_query.run with
// the statements of a file, run by mysql.file_query.

import (
	"fmt"
	"os"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func myQueryRunFile(c *statemod.Call) (*value.Map, error) {
	return myQueryState(c, myQuerySpec{
		prepare:    myQueryFilePrepare,
		absent:     func(c *statemod.Call) string { return value.Str(c.Get("database")) },
		fun:        "file_query",
		falseFails: true,
		// Salt's run_file hands the result mapping to to_str, which takes
		// only text. (It also maps each statement's rows onto the list of
		// column tuples, as the shared code does: a tuple key each.)
		writeAll: func(*value.Map) (string, error) {
			return "", fmt.Errorf("expected str, bytes, or bytearray not <class 'dict'>")
		},
	})
}

// myQueryFilePrepare caches a salt:// or http(s):// query_file and fails
// the state when the file does not exist.
func myQueryFilePrepare(c *statemod.Call, ret *value.Map) (*value.Map, any, error) {
	qf := c.Get("query_file")
	s, ok := qf.(string)
	if !ok {
		return nil, nil, fmt.Errorf("'%s' object has no attribute 'startswith'", pyTypeName(qf))
	}
	var file any = s
	for _, p := range []string{"http://", "https://", "salt://", "s3://", "swift://"} {
		if !strings.HasPrefix(s, p) {
			continue
		}
		env := c.Get("saltenv")
		if !value.Truthy(env) {
			env = c.Saltenv
		}
		cached, err := c.Salt("cp.cache_file", []any{s}, value.MapOf("saltenv", env))
		if err != nil {
			return nil, nil, err
		}
		file = cached
		break
	}
	// os.path.exists(False), for a file that could not be cached, is
	// True in Salt (file descriptor 0).
	if path, ok := file.(string); ok {
		if _, err := os.Stat(path); err != nil {
			ret.Set("comment", "File "+path+" does not exist")
			ret.Set("result", false)
			return ret, nil, nil
		}
	}
	return nil, file, nil
}

// pyTypeOf is pyTypeName knowing tuples.
func pyTypeOf(v any) string {
	if _, ok := v.(value.Tuple); ok {
		return "tuple"
	}
	return pyTypeName(v)
}
