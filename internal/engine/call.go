package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// verifyData is Salt's State.verify_data: the errors that keep a chunk
// from running. It may move watch into require and umask into __umask__.
func (r *runner) verifyData(low *value.Map) []string {
	var errs []string
	for _, k := range []string{"state", "fun", "name"} {
		if !low.Has(k) {
			errs = append(errs, fmt.Sprintf("Missing \"%s\" data", k))
		}
	}
	if name := get(low, "name"); value.Truthy(name) {
		if _, ok := name.(string); !ok {
			in := ""
			if low.Has("__sls__") {
				in = fmt.Sprintf("in SLS '%s' ", getStr(low, "__sls__"))
			}
			errs = append(errs, fmt.Sprintf("ID '%s' %sis not formed as a string, but is a %s", pyStr(name), in, value.TypeName(name)))
		}
	}
	if v, ok := low.Get("umask"); ok {
		low.Delete("umask")
		n, err := strconv.ParseInt(pyStr(v), 8, 64)
		if err != nil || v == nil {
			errs = append(errs, fmt.Sprintf("Invalid umask: %s", pyStr(v)))
		} else {
			low.Set("__umask__", n)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	full := getStr(low, "state") + "." + getStr(low, "fun")
	f, ok := r.reg.Lookup(full)
	reason := fmt.Sprintf("'%s' is not available.", full)
	if ok && f.Virtual != nil {
		if why := f.Virtual(); why != "" {
			ok = false
			// a module whose file is named otherwise than the module
			// gives Salt's plain line as its reason (see debconf)
			if why != reason {
				reason = fmt.Sprintf("'%s' __virtual__ returned False: %s", f.Module(), why)
			}
		}
	}
	if !ok {
		if low.Has("__sls__") {
			// Salt adds the loader's missing_fun_string: this line for a
			// module it never loaded or a function its module lacks, the
			// reason for a module its __virtual__ left out
			errs = append(errs, fmt.Sprintf("State '%s' was not found in SLS '%s'", full, getStr(low, "__sls__")),
				"Reason: "+reason)
		} else {
			errs = append(errs, fmt.Sprintf("Specified state '%s' was not found", full))
		}
	} else {
		for _, p := range f.MissingParams(low) {
			errs = append(errs, fmt.Sprintf("Missing parameter %s for state %s", p, full))
		}
	}
	reqdec := ""
	if low.Has("require") {
		reqdec = "require"
	}
	if low.Has("watch") {
		if r.reg.Has(getStr(low, "state") + ".mod_watch") {
			reqdec = "watch"
		} else {
			r.moveWatch(low)
			reqdec = "require"
		}
	}
	if reqdec != "" {
		for _, item := range asList(get(low, reqdec)) {
			m, ok := item.(*value.Map)
			if !ok || m.Len() == 0 {
				continue
			}
			k, v := m.At(0)
			if pyStr(k) != getStr(low, "state") {
				continue
			}
			pat := pyStr(v)
			if matchGlob(getStr(low, "name"), pat) || matchGlob(getStr(low, "__id__"), pat) {
				errs = append(errs, fmt.Sprintf("Recursive require detected in SLS %s for require %s in ID %s",
					getStr(low, "__sls__"), value.Repr(m), getStr(low, "__id__")))
			}
		}
	}
	return errs
}

// call is Salt's State.call: verify, run the checks, call the function,
// stamp the result, retry.
func (r *runner) call(low *value.Map, chunks []*value.Map, running *value.Map, retries int) *value.Map {
	start := r.now()
	logRunning(low, start)
	if errs := r.verifyData(low); len(errs) > 0 {
		var b strings.Builder
		for _, e := range errs {
			b.WriteString(e)
			b.WriteByte('\n')
		}
		ret := value.MapOf("result", false, "name", get(low, "name"), "changes", value.NewMap(0), "comment", b.String())
		ret.Set("__run_num__", r.nextRunNum())
		r.done++
		formatLog(ret)
		return ret
	}
	full := getStr(low, "state") + "." + getStr(low, "fun")
	f, _ := r.reg.Lookup(full)
	if r.opts.Progress != nil && !truthy(low, "__prereq__") {
		r.opts.Progress(r.done, len(r.chunks), getStr(low, "__id__"))
	}
	test := r.opts.Test || truthy(low, "__prereq__")
	logExecuting(low)
	ret := value.MapOf("result", false, "name", get(low, "name"), "changes", value.NewMap(0))
	args, extra := f.BindArgs(low)
	var malformed *malformedReturn // Salt's OutputUnifier replaces the return
	func() {
		defer func() {
			if p := recover(); p != nil {
				if cp, ok := p.(checkPanic); ok {
					ret = exceptionRet(low, args, cp.err.Error())
				} else {
					ret = exceptionRet(low, args, fmt.Sprintf("%v\n%s", p, debug.Stack()))
				}
			}
		}()
		if len(extra) > 0 {
			// Salt's format_call raises before the state's try: the
			// whole run stops, and salt-call prints "Passed invalid
			// arguments: ..." with the usage of the function it ran.
			r.fail(&execmod.InvocationError{Msg: statemod.InvalidKwargsMessage(extra, full)})
			return
		}
		state := getStr(low, "state")
		if (low.Has("unless") || low.Has("onlyif") || low.Has("creates")) && !r.reg.Has(state+".mod_run_check") {
			chk := r.runCheck(low)
			chk.Range(func(k, v any) bool {
				ret.Set(k, v)
				return true
			})
		}
		if res, ok := ret.Get("result"); !ok || res == false {
			c := r.newCall(f, args, low, chunks, running, test)
			if gc := r.globalConditions(full, state, get(low, "name")); gc != nil {
				ret = gc
			} else if err := r.formatSlots(args); err != nil {
				ret = exceptionRet(low, args, err.Error())
				return
			} else if !truthy(low, "__prereq__") && truthy(low, "parallel") {
				ret = r.callParallel(c, low)
			} else {
				out, err := runFunc(c)
				if errors.As(err, &malformed) {
					if out == nil {
						return
					}
					ret = out
				} else if err != nil {
					ret = exceptionRet(low, args, exceptionText(err))
				} else {
					ret = out
				}
			}
		}
		if low.Has("check_cmd") {
			if !r.reg.Has(state+".mod_run_check_cmd") || !hasParam(f, "check_cmd") {
				chk := r.runCheckCmd(low)
				chk.Range(func(k, v any) bool {
					ret.Set(k, v)
					return true
				})
			}
		}
	}()
	if len(extra) > 0 {
		return ret // the run stops (r.fail above): nothing is logged or kept
	}
	if malformed != nil && malformed.nonDict {
		// Salt's call returns a non-dict as it is, unstamped
		return malformed.ret()
	}
	unify(ret)
	if truthy(low, "__prereq__") {
		low.Set("__prereq__", false)
		return ret
	}
	ret.Set("__sls__", get(low, "__sls__"))
	ret.Set("__run_num__", r.nextRunNum())
	r.done++
	formatLog(ret)
	if r.opts.Refresh != nil {
		if reg := r.opts.Refresh(low, ret); reg != nil {
			r.reg = reg
		}
	}
	end := r.now()
	ret.Set("start_time", isoTime(start))
	ret.Set("duration", durationMS(end.Sub(start)))
	ret.Set("__id__", get(low, "__id__"))
	logCompleted(low, end, end.Sub(start))
	if low.Has("retry") && !low.Has("parallel") {
		rd := verifyRetryData(get(low, "retry"))
		low.Set("retry", rd)
		if !r.opts.Test {
			until := get(rd, "until")
			if !value.Equal(until, get(ret, "result")) {
				attempts := toInt(get(rd, "attempts"))
				if int64(retries) < attempts {
					interval := toInt(get(rd, "interval"))
					if splay := toInt(get(rd, "splay")); splay > 0 {
						interval += rand.Int64N(splay + 1)
					}
					r.opts.Sleep(r.ctx, time.Duration(interval)*time.Second)
					orig := ret
					ret = r.call(low, chunks, running, retries+1)
					cmt := ""
					if c := get(ret, "comment"); value.Truthy(c) {
						cmt = pyStr(c)
					}
					ret.Set("comment", fmt.Sprintf("Attempt %d: Returned a result of \"%s\", with the following comment: \"%s\"\n%s",
						retries, pyStr(get(orig, "result")), pyStr(get(orig, "comment")), cmt))
					ret.Set("duration", value.ToFloat(get(ret, "duration"))+value.ToFloat(get(orig, "duration"))+float64(interval*1000))
					if retries == 1 {
						ret.Set("start_time", get(orig, "start_time"))
					}
				}
			}
		} else {
			ret.Set("comment", retryTestComment(get(ret, "comment"), rd))
		}
	}
	if malformed != nil {
		return malformed.ret()
	}
	return ret
}

// malformedReturn is a state return Salt's OutputUnifier("content_check")
// refuses: a non-dict, changes that are not a dict, or missing keys. The
// decorator wraps State.call, so it replaces the whole (already stamped)
// result with a bare one named "later".
type malformedReturn struct {
	msg     string
	nonDict bool
}

func (e *malformedReturn) Error() string { return e.msg }

func (e *malformedReturn) ret() *value.Map {
	return value.MapOf("result", false, "name", "later", "changes", value.NewMap(0),
		"comment", "An exception occurred in this state: "+e.msg)
}

func retryTestComment(cmt any, rd *value.Map) string {
	c := ""
	if value.Truthy(cmt) {
		c = pyStr(cmt)
	}
	return c + "  " + fmt.Sprintf("The state would be retried every %s seconds (with a splay of up to %s seconds) a maximum of %s times or until a result of %s is returned",
		pyStr(get(rd, "interval")), pyStr(get(rd, "splay")), pyStr(get(rd, "attempts")), pyStr(get(rd, "until")))
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case bool:
		if x {
			return 1
		}
	case float64:
		return int64(x)
	}
	return 0
}

// verifyRetryData is Salt's verify_retry_data.
func verifyRetryData(v any) *value.Map {
	defaults := value.MapOf("until", true, "attempts", int64(2), "splay", int64(0), "interval", int64(30))
	m, ok := v.(*value.Map)
	if !ok {
		return defaults
	}
	out := value.NewMap(4)
	for _, k := range []string{"until", "attempts", "interval", "splay"} {
		x, has := m.Get(k)
		valid := false
		if has {
			switch x.(type) {
			case bool:
				valid = true // bool is an int in Python too
			case int64:
				valid = k != "until"
			}
		}
		if valid {
			out.Set(k, x)
		} else {
			out.Set(k, get(defaults, k))
		}
	}
	return out
}

func hasParam(f *statemod.Function, name string) bool {
	for _, p := range f.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (r *runner) newCall(f *statemod.Function, args, low *value.Map, chunks []*value.Map, running *value.Map, test bool) *statemod.Call {
	env := "base"
	if v, ok := low.Get("saltenv"); ok {
		env = pyStr(v)
	} else if v, ok := args.Get("env"); ok {
		if s, ok := v.(string); ok {
			env = s
		}
	} else if v, ok := low.Get("__env__"); ok {
		env = pyStr(v)
	}
	umask := -1
	if v, ok := low.Get("__umask__"); ok {
		umask = int(toInt(v))
	}
	c := &statemod.Call{
		Ctx:     r.ctx,
		Fun:     f,
		Args:    args,
		Low:     low,
		Test:    test,
		Saltenv: env,
		Running: running,
		Chunks:  chunks,
		Env:     r.opts.Env,
		Umask:   umask,
	}
	if v, ok := low.Get("__reqs__"); ok {
		c.Reqs, _ = v.(*value.Map)
	}
	return c
}

// runFunc calls the state function and checks its return as Salt's
// OutputUnifier does.
func runFunc(c *statemod.Call) (ret *value.Map, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v\n%s", p, debug.Stack())
		}
	}()
	if c.Umask >= 0 {
		old := setUmask(c.Umask)
		defer setUmask(old)
	}
	ret, err = c.Fun.Run(c)
	if err != nil {
		return nil, err
	}
	if ret == nil {
		return nil, &malformedReturn{msg: "Malformed state return. Data must be a dictionary type.", nonDict: true}
	}
	if _, ok := get(ret, "changes").(*value.Map); !ok {
		return ret, &malformedReturn{msg: "'Changes' should be a dictionary."}
	}
	var missing []string
	for _, k := range []string{"name", "result", "changes", "comment"} {
		if !ret.Has(k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return ret, &malformedReturn{msg: fmt.Sprintf("The following keys were not present in the state return: %s.", strings.Join(missing, ", "))}
	}
	return ret, nil
}

// unify is the OutputUnifier's unify policy: a list comment becomes lines,
// a non-None result a bool.
func unify(ret *value.Map) {
	if l, ok := get(ret, "comment").(*value.List); ok {
		parts := make([]string, len(l.Items))
		for i, it := range l.Items {
			parts[i] = pyStr(it)
		}
		ret.Set("comment", strings.Join(parts, "\n"))
	}
	if res, ok := ret.Get("result"); ok && res != nil {
		if _, isBool := res.(bool); !isBool {
			ret.Set("result", value.Truthy(res))
		}
	}
}

// exceptionText is what Salt's comment quotes of an exception: the Python
// traceback when the error carries one (a Python extension's), else its
// message.
func exceptionText(err error) string {
	var tb interface{ PyTraceback() string }
	if errors.As(err, &tb) && tb.PyTraceback() != "" {
		return tb.PyTraceback()
	}
	return err.Error()
}

func exceptionRet(low, args *value.Map, msg string) *value.Map {
	name := any(nil)
	if args != nil {
		name = get(args, "name")
	}
	if !value.Truthy(name) {
		name = get(low, "name")
		if name == nil {
			name = get(low, "__id__")
		}
	}
	return value.MapOf("result", false, "name", name, "changes", value.NewMap(0),
		"comment", "An exception occurred in this state: "+msg)
}

func matchGlob(name, pat string) bool { return globMatch(name, pat) }
