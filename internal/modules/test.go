package modules

// test.go is salt/modules/test.py: functions for checking that a minion
// runs and how it receives arguments.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("test.ping", testPing, "Return True: the minion answers.")
	execmod.Register("test.echo", testEcho, "Return the string passed in.")
	execmod.Register("test.arg", testArg, "Return the positional and keyword arguments received.")
	execmod.Register("test.kwarg", testKwarg, "Return the keyword arguments received.")
	execmod.Register("test.true", testTrue, "Return True.")
	execmod.Register("test.false", testFalse, "Return False.")
	execmod.Register("test.retcode", testRetcode, "Set the return code of the run to code (default 42) and return True.")
	execmod.Register("test.outputter", testOutputter, "Return data, to try outputters.")
	execmod.Register("test.exception", testException, "Raise an exception with message (default 'Test Exception').")
	execmod.Register("test.sleep", testSleep, "Sleep for length seconds, then return True.")
}

// testSleep is test.sleep: time.sleep(int(length)), so a float is
// truncated and a string must hold an integer.
func testSleep(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("sleep", args, kwargs, execmod.Req("length"))
	if err != nil {
		return nil, err
	}
	var n int64
	switch x := v[0].(type) {
	case int64:
		n = x
	case bool:
		if x {
			n = 1
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("cannot convert float %s to integer", value.Str(x))}
		}
		n = int64(x)
	case string:
		i, perr := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if perr != nil {
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("invalid literal for int() with base 10: %s", value.Repr(x))}
		}
		n = i
	default:
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(v[0]))}
	}
	if n < 0 {
		return nil, &execmod.InvocationError{Msg: "sleep length must be non-negative"}
	}
	time.Sleep(time.Duration(n) * time.Second)
	return true, nil
}

func testPing(*execmod.Context, []any, *value.Map) (any, error) { return true, nil }

func testEcho(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("echo", args, kwargs, execmod.Req("text"))
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

func testArg(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return value.MapOf("args", value.Tuple(append([]any{}, args...)), "kwargs", kwargs.Copy()), nil
}

func testKwarg(_ *execmod.Context, _ []any, kwargs *value.Map) (any, error) {
	return kwargs.Copy(), nil
}

func testTrue(*execmod.Context, []any, *value.Map) (any, error)  { return true, nil }
func testFalse(*execmod.Context, []any, *value.Map) (any, error) { return false, nil }

func testRetcode(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("retcode", args, kwargs, execmod.Opt("code", int64(42)))
	if err != nil {
		return nil, err
	}
	code, ok := v[0].(int64)
	if !ok {
		return nil, &execmod.InvocationError{Msg: "code must be an integer"}
	}
	ctx.SetRetcode(int(code))
	return true, nil
}

func testOutputter(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("outputter", args, kwargs, execmod.Opt("data", nil))
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// testError is the plain Python Exception test.exception raises.
type testError struct{ msg string }

func (e *testError) Error() string { return e.msg }

// SaltExceptionClass names the Python exception this error stands for.
func (e *testError) SaltExceptionClass() string { return "Exception" }

func testException(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("exception", args, kwargs, execmod.Opt("message", "Test Exception"))
	if err != nil {
		return nil, err
	}
	return nil, &testError{msg: value.Str(v[0])}
}
