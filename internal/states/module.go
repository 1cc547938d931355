package states

// module.go is salt/states/module.py: module.run in both syntaxes (the
// current one, where each key is a function, and the legacy one, where
// name is the function), module.wait (module.watch) and mod_watch.

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"brine/internal/execmod"
	"brine/internal/saltspec"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "module.run", Kwargs: true,
		Doc: "Run execution module functions: each key naming a function with its arguments, or name with the legacy syntax.",
		Run: moduleRun})
	for _, n := range []string{"module.wait", "module.watch"} {
		statemod.Register(&statemod.Function{Name: n, Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
			Doc: "Run the module function only when a watched state changed (through mod_watch).",
			Run: func(c *statemod.Call) (*value.Map, error) {
				return statemod.Ret(c.Get("name"), true, ""), nil
			}})
	}
	statemod.Register(&statemod.Function{Name: "module.mod_watch", Kwargs: true,
		Doc: "Run the module functions of a module.wait or module.run whose watched state changed.",
		Run: moduleRun})
}

func hasFunc(c *statemod.Call, name string) bool {
	if c.Env == nil || c.Env.Exec == nil {
		return false
	}
	_, ok := c.Env.Exec.Lookup(name)
	if !ok {
		// The return keeps Salt's comment; stderr says when the function
		// is Salt's and only brine lacks it.
		if ni := saltspec.NotImplemented(saltspec.Exec, name); ni != "" {
			where := ""
			if c.Low != nil {
				id, _ := c.Low.Get("__id__")
				sls, _ := c.Low.Get("__sls__")
				where = fmt.Sprintf("SLS '%s', ID '%s': ", value.Str(sls), value.Str(id))
			}
			slog.Warn(where + ni)
		}
	}
	return ok
}

func moduleRun(c *statemod.Call) (*value.Map, error) {
	legacy := false
	var keys []string
	c.Args.Range(func(k, _ any) bool {
		ks := value.Str(k)
		if ks != "name" && ks != "__reqs__" && ks != "sfun" {
			keys = append(keys, ks)
			if !strings.Contains(ks, ".") {
				legacy = true
			}
		}
		return true
	})
	if len(keys) == 0 && c.Args.Len() > 0 {
		legacy = true
	}
	if legacy {
		return moduleLegacyRun(c)
	}
	return moduleNewRun(c)
}

// splitFuncArgs turns a module.run argument list into positional and
// keyword arguments (one-key mappings are keywords).
func splitFuncArgs(v any) ([]any, *value.Map) {
	kw := value.NewMap(0)
	var args []any
	switch x := v.(type) {
	case nil:
	case *value.List:
		for _, it := range x.Items {
			if m, ok := it.(*value.Map); ok {
				m.Range(func(k, v any) bool { kw.Set(k, v); return true })
			} else {
				args = append(args, it)
			}
		}
	case *value.Map:
		x.Range(func(k, v any) bool { kw.Set(k, v); return true })
	default:
		args = append(args, x)
	}
	return args, kw
}

func isInvocation(err error) bool {
	var ie *execmod.InvocationError
	return errors.As(err, &ie)
}

func moduleNewRun(c *statemod.Call) (*value.Map, error) {
	var funcs []string
	names := value.NewList()
	c.Args.Range(func(k, _ any) bool {
		ks := value.Str(k)
		if ks == "name" || ks == "__reqs__" || ks == "sfun" {
			return true
		}
		names.Append(ks)
		if strings.Contains(ks, ".") {
			funcs = append(funcs, ks)
		}
		return true
	})
	ret := value.MapOf("name", names, "changes", value.NewMap(0), "comment", "", "result", nil)
	if len(funcs) == 0 {
		ret.Set("comment", "No function provided.")
		ret.Set("result", false)
		return ret, nil
	}
	var missing, tests []string
	for _, f := range funcs {
		f, _, _ = strings.Cut(f, ":")
		if !hasFunc(c, f) {
			missing = append(missing, f)
		} else if c.Test {
			tests = append(tests, f)
		}
	}
	if len(missing) > 0 || len(tests) > 0 {
		var parts []string
		if len(missing) > 0 {
			plr := ""
			if len(missing) > 1 {
				plr = "True"
			}
			parts = append(parts, fmt.Sprintf("Unavailable function%s: %s.", plr, strings.Join(missing, ", ")))
		} else {
			parts = append(parts, "")
		}
		if len(tests) > 0 {
			plr := ""
			if len(tests) > 1 {
				plr = "True"
			}
			parts = append(parts, fmt.Sprintf("Function%s %s to be executed.", plr, strings.Join(tests, ", ")))
		} else {
			parts = append(parts, "")
		}
		ret.Set("comment", strings.TrimSpace(strings.Join(parts, " ")))
		if len(missing) > 0 {
			ret.Set("result", false)
		}
		return ret, nil
	}
	changes := getv(ret, "changes").(*value.Map)
	var failures, success []string
	for _, f := range funcs {
		name, _, _ := strings.Cut(f, ":")
		args, kw := splitFuncArgs(c.Get(f))
		fret, err := c.Salt(name, args, kw)
		if err != nil {
			if isInvocation(err) {
				failures = append(failures, fmt.Sprintf("'%s' failed: %s", f, err.Error()))
				continue
			}
			return nil, err
		}
		if !moduleResult(fret, value.NewMap(0)) {
			if m, ok := fret.(*value.Map); ok {
				cm, has := m.Get("comment")
				if !has {
					cm = "(error message N/A)"
				}
				failures = append(failures, fmt.Sprintf("'%s' failed: %s", f, value.Str(cm)))
			}
			if fret == false {
				failures = append(failures, fmt.Sprintf("'%s': False", f))
			}
			continue
		}
		var shown any = fret
		if m, ok := fret.(*value.Map); ok {
			if cm, has := m.Get("comment"); has {
				shown = cm
			} else {
				shown = "Success"
			}
		}
		success = append(success, f+": "+value.Str(shown))
		changes.Set(f, fret)
	}
	ret.Set("comment", strings.Join(append(failures, success...), ", "))
	ret.Set("result", len(failures) == 0)
	return ret, nil
}

// moduleResult is Salt's _get_result.
func moduleResult(fret any, changes *value.Map) bool {
	if m, ok := fret.(*value.Map); ok {
		if rc, ok := m.Get("retcode"); ok && !value.Equal(rc, int64(0)) {
			return false
		}
	}
	if b, ok := fret.(bool); ok {
		return b
	}
	cr, ok := getv(changes, "ret").(*value.Map)
	if !ok {
		return true
	}
	if r, ok := cr.Get("result"); ok {
		if b, ok := r.(bool); ok {
			return b
		}
	}
	if rc, ok := cr.Get("retcode"); ok && !value.Equal(rc, int64(0)) {
		return false
	}
	return dictResult(cr)
}

func dictResult(m *value.Map) bool {
	ok := true
	m.Range(func(k, v any) bool {
		if k == "result" && v == false {
			ok = false
			return false
		}
		if sub, isMap := v.(*value.Map); isMap {
			if !dictResult(sub) {
				ok = false
				return false
			}
		}
		return true
	})
	return ok
}

// legacyRenames are the m_ prefixed keywords of the legacy syntax standing
// for arguments whose names the state itself uses.
var legacyRenames = map[string]string{"m_name": "name", "m_fun": "fun", "m_state": "state", "m_saltenv": "saltenv", "m_names": "names"}

func moduleLegacyRun(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "comment", "", "result", nil)
	if !hasFunc(c, name) {
		ret.Set("comment", "Module function "+name+" is not available")
		ret.Set("result", false)
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Module function "+name+" is set to execute")
		return ret, nil
	}
	kw := value.NewMap(0)
	var args []any
	c.Args.Range(func(k, v any) bool {
		ks := value.Str(k)
		switch ks {
		case "name", "__reqs__", "sfun", "returner":
			return true
		case "args":
			if l, ok := v.(*value.List); ok {
				args = append(args, l.Items...)
				return true
			}
		case "kwargs":
			if m, ok := v.(*value.Map); ok {
				m.Range(func(k, v any) bool { kw.Set(k, v); return true })
				return true
			}
		}
		if r, ok := legacyRenames[ks]; ok {
			ks = r
		}
		kw.Set(ks, v)
		return true
	})
	mret, err := c.Salt(name, args, kw)
	if err != nil {
		ret.Set("comment", fmt.Sprintf("Module function %s threw an exception. Exception: %s", name, err.Error()))
		ret.Set("result", false)
		return ret, nil
	}
	changes := getv(ret, "changes").(*value.Map)
	changes.Set("ret", mret)
	ret.Set("comment", "Module function "+name+" executed")
	ret.Set("result", moduleResult(mret, changes))
	return ret, nil
}
