package modules

// test.go is salt/modules/test.py: functions for checking that a minion
// runs and how it receives arguments.

import (
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	mathrand "math/rand/v2"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/saltspec"
	"brine/internal/value"
	"brine/internal/version"
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
	registerTestMore()
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
type testError struct{ msg, class string }

func (e *testError) Error() string { return e.msg }

// SaltExceptionClass names the Python exception this error stands for.
func (e *testError) SaltExceptionClass() string {
	if e.class == "" {
		return "Exception"
	}
	return e.class
}

func testException(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("exception", args, kwargs, execmod.Opt("message", "Test Exception"))
	if err != nil {
		return nil, err
	}
	return nil, &testError{msg: value.Str(v[0])}
}

func registerTestMore() {
	execmod.Register("test.attr_call", testAttrCall, "Return grains.items, called through the function registry.")
	execmod.Register("test.module_report", testModuleReport, "Report the execution functions and how they can be reached (Salt's attribute and subscript views).")
	execmod.Register("test.version", testVersion, "Return the Salt version brine reports (its saltversion grain).")
	execmod.Register("test.versions_information", testVersionsInformation, "Return brine's versions report as a dict of sections.")
	execmod.Register("test.versions_report", testVersionsReport, "Return brine's versions report as text (brine --versions-report).")
	execmod.Register("test.versions", testVersionsReport, "Alias of test.versions_report.")
	execmod.Register("test.rand_sleep", testRandSleep, "Sleep a random number of seconds in [0, max] (default 60), then return True.")
	execmod.Register("test.conf_test", testConfTest, "Return config.option test.foo ('unconfigured' unless set).")
	execmod.Register("test.get_opts", testGetOpts, "Return the minion options.")
	execmod.Register("test.opts_pkg", testOptsPkg, "Return the minion options with the grains under 'grains'.")
	execmod.Register("test.cross_test", testCrossTest, "Call the function func with the positional args list, return its result.")
	execmod.Register("test.arg_type", testArgType, "Return the Python type names of the positional and keyword arguments.")
	execmod.Register("test.arg_repr", testArgRepr, "Return the repr of the positional and keyword arguments.")
	execmod.Register("test.arg_clean", testArgClean, "Like test.arg, without the __pub_* keyword arguments.")
	execmod.Register("test.fib", testFib, "Return the num-th Fibonacci number and the seconds it took.")
	execmod.Register("test.collatz", testCollatz, "Return the Collatz sequence from start (to 1, excluded) and the seconds it took.")
	execmod.Register("test.provider", testProvider, "Return the Salt source file (without .py) providing module.")
	execmod.Register("test.providers", testProviders, "Return a dict of provider file names to the modules they provide.")
	execmod.Register("test.not_loaded", testNotLoaded, "List Salt's execution module files that provide no loaded module.")
	execmod.Register("test.random_hash", testRandomHash, "Return the hash (hash_type, default the hash_type option) of a random number in [0, size].")
	execmod.Register("test.rand_str", testRandomHash, "Old name of test.random_hash.")
	execmod.Register("test.stack", testStack, "Return the current call stack (brine's Go stack).")
	execmod.Register("test.tty", testTTY, "Deprecated: says the function moved to cmd.tty.")
	execmod.Register("test.try", testTry, "Call module with the keyword arguments; None (or the error with return_try_exception=True) when it fails.")
	execmod.Register("test.assertion", testAssertion, "Raise AssertionError when assertion is false.")
	execmod.Register("test.raise_exception", testRaiseException, "Raise the builtin or salt.exceptions exception name with args; False when no such exception.")
	execmod.Register("test.deprecation_warning", testDeprecationWarning, "Log two deprecation warnings and return True.")
}

func testAttrCall(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	return ctx.Call("grains.items", nil, nil)
}

// testModuleReport follows test.module_report: iterating __salt__ yields
// only "mod.fun" names, so every function lands in functions, and in
// missing_attrs and missing_subs, as Salt 3006 reports it.
func testModuleReport(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	names := registry(ctx).Names()
	return value.MapOf("functions", strList(names), "function_attrs", value.NewList(), "function_subs", value.NewList(),
		"modules", value.NewList(), "module_attrs", value.NewList(),
		"missing_attrs", strList(names), "missing_subs", strList(names)), nil
}

func testVersion(*execmod.Context, []any, *value.Map) (any, error) { return grains.SaltVersion, nil }

func testVersionsReport(*execmod.Context, []any, *value.Map) (any, error) {
	return strings.TrimRight(version.Read().Report(), "\n"), nil
}

// testVersionsInformation parses brine's versions report back into
// {section: {name: version}}, the shape of Salt's versions_information.
func testVersionsInformation(*execmod.Context, []any, *value.Map) (any, error) {
	out := value.NewMap(0)
	var sec *value.Map
	for _, line := range strings.Split(version.Read().Report(), "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":"):
			sec = value.NewMap(0)
			out.Set(strings.TrimSuffix(line, ":"), sec)
		case sec != nil:
			k, v, _ := strings.Cut(strings.TrimSpace(line), ": ")
			if v == "Not Installed" {
				sec.Set(k, nil)
			} else {
				sec.Set(k, v)
			}
		}
	}
	return out, nil
}

func testRandSleep(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rand_sleep", args, kwargs, execmod.Opt("max", int64(60)))
	if err != nil {
		return nil, err
	}
	n, ok := v[0].(int64)
	if !ok {
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("'%s' object cannot be interpreted as an integer", value.TypeName(v[0]))}
	}
	if n < 0 {
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("empty range in randrange(0, %d)", n+1)}
	}
	time.Sleep(time.Duration(mathrand.Int64N(n+1)) * time.Second)
	return true, nil
}

func testConfTest(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	return ctx.Call("config.option", []any{"test.foo"}, nil)
}

func testGetOpts(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) { return ctx.Opts, nil }

func testOptsPkg(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	m := ctx.Opts.Copy()
	m.Set("grains", ctx.Grains)
	return m, nil
}

func testCrossTest(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cross_test", args, kwargs, execmod.Req("func"), execmod.Opt("args", nil))
	if err != nil {
		return nil, err
	}
	var cargs []any
	switch x := v[1].(type) {
	case nil:
	case *value.List:
		cargs = x.Items
	case value.Tuple:
		cargs = x
	case string:
		for _, r := range x { // Python unpacks a string into its characters
			cargs = append(cargs, string(r))
		}
	default:
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("test.cross_test() argument after * must be an iterable, not %s", value.TypeName(x))}
	}
	return ctx.Call(execmod.String(v[0]), cargs, nil)
}

func testArgType(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	l := value.NewList()
	for _, a := range args {
		l.Append("<class '" + value.TypeName(a) + "'>")
	}
	kw := value.NewMap(kwargs.Len())
	kwargs.Range(func(k, v any) bool {
		kw.Set(k, "<class '"+value.TypeName(v)+"'>")
		return true
	})
	return value.MapOf("args", l, "kwargs", kw), nil
}

func testArgRepr(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return value.MapOf("args", value.Repr(value.Tuple(append([]any{}, args...))), "kwargs", value.Repr(kwargs)), nil
}

// cleanKwargs is salt.utils.args.clean_kwargs: keys starting with "__"
// dropped.
func testCleanKwargs(kwargs *value.Map) *value.Map {
	out := value.NewMap(0)
	kwargs.Range(func(k, v any) bool {
		if s, ok := k.(string); !ok || !strings.HasPrefix(s, "__") {
			out.Set(k, v)
		}
		return true
	})
	return out
}

func testArgClean(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return value.MapOf("args", value.Tuple(append([]any{}, args...)), "kwargs", testCleanKwargs(kwargs)), nil
}

// testPyInt is Python's int(x) for the argument types salt-call produces.
func testPyInt(x any) (*big.Int, error) {
	switch v := x.(type) {
	case int64:
		return big.NewInt(v), nil
	case *big.Int:
		return v, nil
	case bool:
		if v {
			return big.NewInt(1), nil
		}
		return big.NewInt(0), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("cannot convert float %s to integer", value.Str(v))}
		}
		b, _ := new(big.Float).SetFloat64(math.Trunc(v)).Int(nil)
		return b, nil
	case string:
		s := strings.ReplaceAll(strings.TrimSpace(v), "_", "")
		if b, ok := new(big.Int).SetString(s, 10); ok && s != "" {
			return b, nil
		}
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("invalid literal for int() with base 10: %s", value.Repr(v))}
	}
	return nil, &execmod.InvocationError{Msg: fmt.Sprintf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(x))}
}

func testFib(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("fib", args, kwargs, execmod.Req("num"))
	if err != nil {
		return nil, err
	}
	n, err := testPyInt(v[0])
	if err != nil {
		return nil, err
	}
	if n.Sign() < 0 {
		return nil, &testError{msg: "Negative number is not allowed!", class: "ValueError"}
	}
	if !n.IsInt64() || n.Int64() > 1_000_000 {
		return nil, &execmod.InvocationError{Msg: "fib: num too large for brine (at most 1000000)"}
	}
	start := time.Now()
	num := n.Int64()
	if num < 2 {
		return value.Tuple{num, time.Since(start).Seconds()}, nil
	}
	prev, curr := big.NewInt(0), big.NewInt(1)
	for i := int64(1); i < num; i++ {
		prev, curr = curr, prev.Add(prev, curr)
	}
	return value.Tuple{value.NormInt(curr), time.Since(start).Seconds()}, nil
}

// testCollatz follows test.collatz, where start / 2 is Python's true
// division: the steps after the first halving are floats.
func testCollatz(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("collatz", args, kwargs, execmod.Req("start"))
	if err != nil {
		return nil, err
	}
	n, err := testPyInt(v[0])
	if err != nil {
		return nil, err
	}
	if n.Sign() <= 0 {
		// Salt loops forever here; brine refuses.
		return nil, &execmod.InvocationError{Msg: "collatz: start must be a positive integer (Salt never returns for it)"}
	}
	begin := time.Now()
	steps := value.NewList()
	cur := new(big.Int).Set(n)
	one, three := big.NewInt(1), big.NewInt(3)
	for cur.Cmp(one) != 0 {
		steps.Append(value.NormInt(new(big.Int).Set(cur)))
		if cur.Bit(0) == 0 {
			f, _ := new(big.Rat).SetFrac(cur, big.NewInt(2)).Float64()
			// From here on the value is a float.
			for f != 1 {
				steps.Append(f)
				if math.Mod(f, 2) == 0 {
					f /= 2
				} else {
					f = f*3 + 1
				}
				if math.IsInf(f, 0) || steps.Len() > 10_000_000 {
					return nil, &execmod.InvocationError{Msg: "collatz: the sequence does not end"}
				}
			}
			break
		}
		cur.Add(cur.Mul(cur, three), one)
	}
	return value.Tuple{steps, time.Since(begin).Seconds()}, nil
}

// testDebianProviders names the Salt source file behind a module that Salt
// builds from several files, as loaded on Debian.
var testDebianProviders = map[string]string{
	"pkg": "aptpkg", "service": "systemd_service", "shadow": "linux_shadow", "user": "useradd",
	"group": "groupadd", "sysctl": "linux_sysctl", "mount": "mount", "cmd": "cmdmod", "sys": "sysmod",
	"log": "logmod", "state": "state", "config": "config", "pkg_resource": "pkg_resource", "acl": "linux_acl",
	"kmod": "kmod", "lowpkg": "dpkg_lowpkg", "lvm": "linux_lvm", "ip": "debian_ip", "locale": "localemod", "timezone": "timezone",
	"hosts": "hosts", "network": "network", "status": "status", "system": "system", "disk": "disk",
}

func testModuleProvider(mod string) string {
	if p, ok := testDebianProviders[mod]; ok {
		return p
	}
	if m, ok := saltspec.LookupModule(saltspec.Exec, mod); ok {
		for _, s := range m.Sources {
			if s == mod+".py" {
				return mod
			}
		}
		if len(m.Sources) == 1 {
			return strings.TrimSuffix(m.Sources[0], ".py")
		}
	}
	return mod
}

func testProvider(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("provider", args, kwargs, execmod.Req("module"))
	if err != nil {
		return nil, err
	}
	mod := execmod.String(v[0])
	if !registry(ctx).HasModule(mod) {
		return "", nil
	}
	return testModuleProvider(mod), nil
}

func testProviderMap(ctx *execmod.Context) *value.Map {
	out := value.NewMap(0)
	seen := map[string]bool{}
	for _, n := range registry(ctx).Names() {
		mod, _, _ := strings.Cut(n, ".")
		if !seen[mod] {
			seen[mod] = true
			out.Set(testModuleProvider(mod), mod)
		}
	}
	return out
}

func testProviders(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	return testProviderMap(ctx), nil
}

func testNotLoaded(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	prov := testProviderMap(ctx)
	set := map[string]bool{}
	for _, mod := range saltspec.Modules(saltspec.Exec) {
		m, _ := saltspec.LookupModule(saltspec.Exec, mod)
		for _, s := range m.Sources {
			name := strings.TrimSuffix(s, ".py")
			if _, ok := prov.Get(name); !ok && !strings.HasPrefix(name, "_") {
				set[name] = true
			}
		}
	}
	var out []string
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return strList(out), nil
}

func testRandomHash(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("random_hash", args, kwargs, execmod.Opt("size", int64(9999999999)), execmod.Opt("hash_type", nil))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[1])
	if !value.Truthy(v[1]) {
		name = "md5"
		if h, ok := ctx.Opts.Get("hash_type"); ok && value.Truthy(h) {
			name = execmod.String(h)
		}
	}
	h, ok := hashNew(name)
	if !ok {
		return nil, &testError{msg: fmt.Sprintf("module 'hashlib' has no attribute '%s'", name), class: "AttributeError"}
	}
	size, err := testPyInt(v[0])
	if err != nil {
		return nil, err
	}
	if size.Sign() < 0 {
		return nil, &testError{msg: fmt.Sprintf("empty range for randrange() (0, %s, %s)", new(big.Int).Add(size, big.NewInt(1)), new(big.Int).Add(size, big.NewInt(1))), class: "ValueError"}
	}
	n, err := crand.Int(crand.Reader, new(big.Int).Add(size, big.NewInt(1)))
	if err != nil {
		return nil, err
	}
	d := h()
	d.Write([]byte(n.String()))
	return hex.EncodeToString(d.Sum(nil)), nil
}

func testStack(*execmod.Context, []any, *value.Map) (any, error) { return string(debug.Stack()), nil }

func testTTY(*execmod.Context, []any, *value.Map) (any, error) {
	return "ERROR: This function has been moved to cmd.tty", nil
}

// testTry is test.try. The function is called with the keyword arguments
// given (without the __pub_* data); with return_try_exception the error
// message takes the place of Python's exception object.
func testTry(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("try_", args, kwargs, execmod.Req("module"), execmod.Opt("return_try_exception", false))
	if err != nil {
		return nil, err
	}
	ret, err := ctx.Call(execmod.String(v[0]), nil, rest)
	if err != nil {
		if value.Truthy(v[1]) {
			return err.Error(), nil
		}
		return nil, nil
	}
	return ret, nil
}

func testAssertion(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("assertion", args, kwargs, execmod.Req("assertion"))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[0]) {
		return nil, &testError{class: "AssertionError"}
	}
	return nil, nil
}

// testPyExceptions are Python's builtin exception classes that
// test.raise_exception can raise by name.
var testPyExceptions = strings.Fields(`BaseException Exception ArithmeticError AssertionError AttributeError BlockingIOError
BrokenPipeError BufferError ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError
ConnectionResetError EOFError EnvironmentError FileExistsError FileNotFoundError FloatingPointError GeneratorExit
IOError ImportError IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt
LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError OSError OverflowError
PermissionError ProcessLookupError RecursionError ReferenceError RuntimeError StopAsyncIteration StopIteration
SyntaxError SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError UnicodeError ValueError
ZeroDivisionError`)

// testSaltExceptions are the classes of salt.exceptions.
var testSaltExceptions = strings.Fields(`SaltException SaltClientError SaltMasterError SaltNoMinionsFound
SaltSyndicMasterError SaltMasterUnresolvableError MasterExit AuthenticationError InvalidKeyError CommandNotFoundError
CommandExecutionError LoaderError PublishError MinionError FileserverConfigError FileLockError GitLockError
GitRemoteError SaltInvocationError PkgParseError SaltRenderError SaltClientTimeout SaltCacheError TimeoutError
SaltReqTimeoutError TimedProcTimeoutError EauthAuthenticationError TokenAuthenticationError SaltDeserializationError
AuthorizationError SaltDaemonNotRunning SaltRunnerError SaltWheelError SaltConfigurationError SaltSystemExit
SaltCloudException SaltCloudSystemExit SaltCloudConfigError SaltCloudNotFound SaltCloudExecutionTimeout
SaltCloudExecutionFailure SaltCloudPasswordError TemplateError ArgumentValueError CheckError InvalidConfigError
InvalidEntityError MissingSmb LoggingRuntimeError CodePageError`)

func testRaiseException(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("raise_exception", args[:min(len(args), 1)], kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	rest := args[min(len(args), 1):]
	msg := ""
	switch len(rest) {
	case 0:
	case 1:
		msg = value.Str(rest[0])
	default:
		msg = value.Repr(value.Tuple(rest))
	}
	if cls, ok := strings.CutPrefix(name, "salt.exceptions."); ok {
		if !slices.Contains(testSaltExceptions, cls) {
			slog.Error("No such exception: " + name)
			return false, nil
		}
		if m, ok := testCleanKwargs(kwargs).Get("message"); ok && len(rest) == 0 {
			msg = value.Str(m)
		}
		switch cls {
		case "CommandExecutionError":
			return nil, &execmod.CommandExecutionError{Msg: msg}
		case "SaltInvocationError":
			return nil, &execmod.InvocationError{Msg: msg}
		}
		return nil, &testError{msg: msg, class: name}
	}
	if !slices.Contains(testPyExceptions, name) {
		slog.Error("No such exception: " + name)
		return false, nil
	}
	return nil, &testError{msg: msg, class: name}
}

func testDeprecationWarning(*execmod.Context, []any, *value.Map) (any, error) {
	slog.Warn("This is a test deprecation warning by version.")
	slog.Warn("This is a test deprecation warning by date very far into the future (3000-01-01).")
	return true, nil
}
