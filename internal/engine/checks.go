package engine

import (
	"fmt"
	"os"
	"syscall"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
)

func globMatch(name, pat string) bool { return match.Fnmatch(name, pat) }

func setUmask(m int) int { return syscall.Umask(m) }

func (r *runner) exec() *execmod.Context {
	if r.opts.Env.Exec == nil {
		r.opts.Env.Exec = execmod.NewContext()
	}
	return r.opts.Env.Exec
}

// cmdOpts are the cmd.retcode keyword arguments onlyif and unless take
// from the chunk (Salt's _run_check).
func (r *runner) cmdOpts(low *value.Map) *value.Map {
	exclude := map[string]bool{}
	if v, ok := low.Get("cmd_opts_exclude"); ok {
		if l := asList(v); l != nil {
			for _, x := range l {
				exclude[pyStr(x)] = true
			}
		} else {
			exclude[pyStr(v)] = true
		}
	}
	opts := value.NewMap(10)
	for _, k := range []string{"cwd", "root", "runas", "env", "prepend_path", "umask", "timeout", "success_retcodes"} {
		if !exclude[k] {
			opts.Set(k, get(low, k))
		}
	}
	var shell any
	if v, ok := low.Get("shell"); ok && !exclude["shell"] {
		shell = v
	} else if g := r.exec().Grains; g != nil && g.Has("shell") {
		shell = get(g, "shell")
	}
	if shell != nil && shell != "/sbin/nologin" {
		opts.Set("shell", shell)
	}
	return opts
}

// runCheck is Salt's _run_check: onlyif, unless and creates.
func (r *runner) runCheck(low *value.Map) *value.Map {
	ret := value.MapOf("result", false, "comment", value.NewList())
	for _, k := range []string{"__sls__", "__id__", "name"} {
		ret.Set(k, get(low, k))
	}
	opts := r.cmdOpts(low)
	comments := get(ret, "comment").(*value.List)
	if low.Has("onlyif") {
		res := r.runCheckCond(low, opts, true)
		ret.Set("result", get(res, "result"))
		comments.Append(get(res, "comment"))
		if v, ok := res.Get("skip_watch"); ok {
			ret.Set("skip_watch", v)
		}
	}
	if low.Has("unless") {
		res := r.runCheckCond(low, opts, false)
		ret.Set("result", value.Truthy(get(res, "result")) || value.Truthy(get(ret, "result")))
		comments.Append(get(res, "comment"))
		if v, ok := res.Get("skip_watch"); ok {
			ret.Set("skip_watch", value.Truthy(v) || value.Truthy(get(ret, "skip_watch")))
		}
	}
	if low.Has("creates") {
		res := r.runCheckCreates(low)
		ret.Set("result", value.Truthy(get(res, "result")) || value.Truthy(get(ret, "result")))
		comments.Append(get(res, "comment"))
		if v, ok := res.Get("skip_watch"); ok {
			ret.Set("skip_watch", value.Truthy(v) || value.Truthy(get(ret, "skip_watch")))
		}
	}
	return ret
}

// retcode runs a shell command as onlyif/unless do; failed reports a
// CommandExecutionError.
func (r *runner) retcode(cmd string, opts *value.Map) (rc int64, failed bool) {
	kw := value.MapOf("ignore_retcode", true, "python_shell", true)
	kw.Update(opts)
	out, err := r.exec().Call("cmd.retcode", []any{cmd}, kw)
	if err != nil {
		return 0, true
	}
	return toInt(out), false
}

// runCheckFunction calls the function form of onlyif/unless: a mapping with
// fun, optional args, get_return, and keyword arguments.
func (r *runner) runCheckFunction(entry *value.Map) (any, error) {
	entry = entry.Copy()
	fun, _ := entry.Delete("fun")
	var args []any
	if a, ok := entry.Delete("args"); ok {
		args = asList(a)
		if args == nil && a != nil {
			args = []any{a}
		}
	}
	return r.exec().Call(pyStr(fun), args, entry)
}

// runCheckCond is Salt's _run_check_onlyif (onlyif true) or
// _run_check_unless (onlyif false).
func (r *runner) runCheckCond(low *value.Map, opts *value.Map, onlyif bool) *value.Map {
	key := "unless"
	if onlyif {
		key = "onlyif"
	}
	ret := value.MapOf("result", false)
	for _, k := range []string{"__sls__", "__id__", "name"} {
		ret.Set(k, get(low, k))
	}
	entries := asList(get(low, key))
	if entries == nil {
		entries = []any{get(low, key)}
	}
	skip := func(comment string) {
		ret.Set("comment", comment)
		ret.Set("skip_watch", true)
		ret.Set("result", true)
	}
	run := func(comment string) {
		ret.Delete("skip_watch")
		ret.Set("comment", comment)
		ret.Set("result", false)
	}
	// check applies a return code; false means stop checking.
	check := func(rc int64) bool {
		if onlyif {
			if rc != 0 && get(ret, "result") == false {
				skip("onlyif condition is false")
				return false
			} else if rc == 0 {
				ret.Set("comment", "onlyif condition is true")
				ret.Set("result", false)
			}
			return true
		}
		if rc == 0 {
			skip("unless condition is true")
			return false
		}
		run("unless condition is false")
		return true
	}
	for _, entry := range entries {
		switch e := entry.(type) {
		case string:
			rc, failed := r.retcode(e, opts)
			if failed {
				if onlyif {
					rc = 100
				} else {
					rc = 0
				}
			}
			if onlyif {
				if !check(rc) {
					return ret
				}
			} else if check(rc) {
				return ret
			}
		case *value.Map:
			if !e.Has("fun") {
				ret.Set("comment", fmt.Sprintf("no `fun` argument in %s: %s", key, value.Repr(e)))
				return ret
			}
			getReturn, _ := e.Get("get_return")
			fe := e.Copy()
			fe.Delete("get_return")
			ex := r.exec()
			ex.SetRetcode(0)
			result, err := r.runCheckFunction(fe)
			if err != nil {
				panic(checkPanic{err})
			}
			if value.Truthy(getReturn) {
				result, _ = value.Traverse(result, pyStr(getReturn), ":")
			}
			if rc := ex.Retcode(); rc != 0 {
				if onlyif {
					if !check(int64(rc)) {
						return ret
					}
				} else if check(int64(rc)) {
					return ret
				}
			} else if onlyif {
				if !value.Truthy(result) {
					skip("onlyif condition is false")
					return ret
				}
				ret.Set("comment", "onlyif condition is true")
				ret.Set("result", false)
			} else {
				if value.Truthy(result) {
					skip("unless condition is true")
				} else {
					run("unless condition is false")
					return ret
				}
			}
		default:
			if onlyif {
				ret.Set("comment", "onlyif execution failed, bad type passed")
				ret.Set("result", false)
				return ret
			}
			ret.Set("comment", "unless condition is false, bad type passed")
			ret.Set("result", false)
		}
	}
	return ret
}

// checkPanic carries an execution error out of a check to call's recover,
// which turns it into "An exception occurred in this state".
type checkPanic struct{ err error }

func (p checkPanic) String() string { return p.err.Error() }

// runCheckCreates is Salt's _run_check_creates.
func (r *runner) runCheckCreates(low *value.Map) *value.Map {
	ret := value.MapOf("result", false)
	for _, k := range []string{"__sls__", "__id__", "name"} {
		ret.Set(k, get(low, k))
	}
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	c := get(low, "creates")
	if s, ok := c.(string); ok && exists(s) {
		ret.Set("comment", s+" exists")
		ret.Set("result", true)
		ret.Set("skip_watch", true)
		return ret
	}
	if l, ok := c.(*value.List); ok {
		all := true
		for _, p := range l.Items {
			if !exists(pyStr(p)) {
				all = false
				break
			}
		}
		if all {
			ret.Set("comment", "All files in creates exist")
			ret.Set("result", true)
			ret.Set("skip_watch", true)
			return ret
		}
	}
	ret.Set("comment", "Creates files not found")
	ret.Set("result", false)
	return ret
}

// runCheckCmd is Salt's _run_check_cmd.
func (r *runner) runCheckCmd(low *value.Map) *value.Map {
	ret := value.MapOf("result", false)
	for _, k := range []string{"__sls__", "__id__", "name"} {
		ret.Set(k, get(low, k))
	}
	opts := value.NewMap(1)
	if g := r.exec().Grains; g != nil && g.Has("shell") {
		opts.Set("shell", get(g, "shell"))
	}
	entries := asList(get(low, "check_cmd"))
	if entries == nil {
		if s, ok := get(low, "check_cmd").(string); ok {
			// Salt iterates the string itself, one character per command.
			for _, ch := range s {
				entries = append(entries, string(ch))
			}
		}
	}
	for _, e := range entries {
		rc, failed := r.retcode(pyStr(e), opts)
		if failed {
			panic(checkPanic{fmt.Errorf("check_cmd %s failed", pyStr(e))})
		}
		if rc == 0 && get(ret, "result") == false {
			ret.Set("comment", "check_cmd determined the state succeeded")
			ret.Set("result", true)
		} else if rc != 0 {
			ret.Set("comment", "check_cmd determined the state failed")
			ret.Set("result", false)
			return ret
		}
	}
	return ret
}
