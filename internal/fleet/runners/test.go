package runners

// test.go is salt/runners/test.py: runners for checking salt-run itself.

import (
	"fmt"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	Register("test.arg", testArg, "Return the positional and keyword arguments received (keywords starting with __ left out).")
	Register("test.raw_arg", testRawArg, "Return the positional and keyword arguments received, all of them.")
	Register("test.metasyntactic", testMetasyntactic, "Return the metasyntactic variables of locality (us or uk).")
	Register("test.sleep", testSleep, "Print s_time, sleep s_time seconds (default 10) and return True.")
	Register("test.stdout_print", testStdoutPrint, "Print foo and return bar.")
}

func argsReturn(args []any, kwargs *value.Map, clean bool) *value.Map {
	kw := value.NewMap(kwargs.Len())
	kwargs.Range(func(k, v any) bool {
		if !clean || !strings.HasPrefix(execmod.String(k), "__") {
			kw.Set(k, v)
		}
		return true
	})
	return value.MapOf("args", value.NewList(args...), "kwargs", kw)
}

func testArg(_ *Context, args []any, kwargs *value.Map) (any, error) {
	return argsReturn(args, kwargs, true), nil
}

func testRawArg(_ *Context, args []any, kwargs *value.Map) (any, error) {
	return argsReturn(args, kwargs, false), nil
}

func testMetasyntactic(_ *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("metasyntactic", args, kwargs, execmod.Opt("locality", "us"))
	if err != nil {
		return nil, err
	}
	switch execmod.String(v[0]) {
	case "us":
		return strList([]string{"foo", "bar", "baz", "qux", "quux", "quuz", "corge", "grault", "garply", "waldo", "fred", "plugh", "xyzzy", "thud"}), nil
	case "uk":
		return strList([]string{"wibble", "wobble", "wubble", "flob"}), nil
	}
	return nil, nil
}

func testSleep(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("sleep", args, kwargs, execmod.Opt("s_time", int64(10)))
	if err != nil {
		return nil, err
	}
	secs, ok := number(v[0])
	if _, isStr := v[0].(string); !ok || isStr || secs < 0 {
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("invalid sleep length %s", value.Repr(v[0]))}
	}
	fmt.Fprintln(c.Stdout, value.Str(v[0]))
	t := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.Ctx.Done():
		return nil, c.Ctx.Err()
	}
	return true, nil
}

func testStdoutPrint(c *Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("stdout_print", args, kwargs); err != nil {
		return nil, err
	}
	fmt.Fprintln(c.Stdout, "foo")
	return "bar", nil
}
