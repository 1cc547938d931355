package highstate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	execmod.Register("state.template", stateTemplate, "Execute the states of a template file on the minion (a local path, not salt://).")
	execmod.SetOutputter("state.template", "highstate")
}

// stateTemplate is state.template: the SLS file at a path on the minion
// (".sls" added when missing) is rendered and run as state.high runs high
// data. Its saltenv is the saltenv argument, else none.
func stateTemplate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	kwargs = kwargs.Copy()
	kwargs.Delete("env") // Salt drops env ("use saltenv")
	vals, _, err := execmod.Bind("state.template", args, kwargs, execmod.Req("tem"), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	if c := checkQueue(ctx, vals[1], kwargs); c != nil {
		return c, nil
	}
	restore, err := checkedStatePillar(ctx, kwargs)
	if err != nil {
		return nil, err
	}
	defer restore()
	tem := value.Str(vals[0])
	if !strings.HasSuffix(tem, ".sls") {
		tem += ".sls"
	}
	saltenv := ""
	if v, ok := kwargs.Get("saltenv"); ok && v != nil {
		saltenv = value.Str(v)
	}
	r := NewRun(ctx, kwargs)
	high, errs, err := r.renderLocal(tem, saltenv)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	ret, err := r.CallHigh(high, optBool(r.Opts, "test", false))
	if err != nil {
		return nil, err
	}
	ctx.SetRetcode(engine.StateRetcode(ret, high))
	return ret, nil
}

// renderLocal is Salt's render_state with local=True: the file at path is
// rendered as the SLS named by its path in saltenv, its includes come from
// the file server, and the high data is returned with the errors found.
func (r *Run) renderLocal(path, saltenv string) (*value.Map, []string, error) {
	var errs []string
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return value.NewMap(0), []string{fmt.Sprintf("Specified SLS %s on local filesystem cannot be found.", path)}, nil
	}
	var data any
	data, err := r.renderFile(path, "", saltenv, path)
	if err != nil {
		if _, generic := err.(genericError); generic {
			errs = append(errs, fmt.Sprintf("Rendering SLS %s failed, render error: %s", path, err))
		} else {
			errs = append(errs, fmt.Sprintf("Rendering SLS '%s:%s' failed: %s", saltenv, path, err))
		}
		data = nil
	}
	if !value.Truthy(data) {
		return value.NewMap(0), errs, nil
	}
	c := r.newCompiler()
	st, include, perrs := c.PrepareRendered(data, path, saltenv)
	errs = append(errs, perrs...)
	if st == nil {
		return value.NewMap(0), errs, nil
	}
	// The includes, resolved as Salt resolves them without top file
	// matches, are rendered together (in order, each once) and merged.
	matches := value.NewMap(0)
	for _, item := range include {
		env, inc := saltenv, ""
		if m, ok := item.(*value.Map); ok && m.Len() > 0 {
			k, v := m.At(m.Len() - 1)
			env, inc = value.Str(k), value.Str(v)
		} else {
			inc = value.Str(item)
		}
		if !r.Avail.Has(env) && !r.Avail.Has("__env__") {
			errs = append(errs, fmt.Sprintf("Nonexistent saltenv '%s' found in include of '%s' within SLS '%s:%s'", env, inc, saltenv, path))
			continue
		}
		if strings.HasPrefix(inc, ".") {
			// Salt fails here: a local file has no package to be relative to.
			return nil, nil, &execmod.CommandExecutionError{Msg: "NameError: name 'state_data' is not defined"}
		}
		if env == "_xenv" || len(match.FnmatchFilter(r.Avail.States(env), inc)) == 0 {
			in := env
			if env == "_xenv" {
				in = ""
			}
			errs = append(errs, fmt.Sprintf("Unknown include: Specified SLS %s: %s is not available on the salt master in saltenv(s): %s ", env, inc, in))
			continue
		}
		if !r.Avail.Has(saltenv) {
			return nil, nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("KeyError: %s", value.Repr(saltenv))}
		}
		targets := match.FnmatchFilter(r.Avail.States(saltenv), inc)
		if len(targets) == 0 {
			targets = []string{inc}
		}
		l, ok := matches.Get(env)
		if !ok {
			l = value.NewList()
			matches.Set(env, l)
		}
		for _, t := range targets {
			l.(*value.List).Append(t)
		}
	}
	if matches.Len() > 0 {
		inc, ierrs := c.RenderHighstate(matches)
		errs = append(errs, ierrs...)
		errs = mergeIncluded(st, inc, errs)
	}
	c.AutoOrder(st)
	return st, errs, nil
}

// mergeIncluded is Salt's merge_included_states followed by the update:
// the extend and exclude lists are joined, an ID defined differently in
// both is an error, and the included states are added.
func mergeIncluded(st, inc *value.Map, errs []string) []string {
	for _, k := range []string{"__extend__", "__exclude__"} {
		v, ok := inc.Get(k)
		if !ok {
			continue
		}
		inc.Delete(k)
		cur, _ := st.Get(k)
		l, _ := cur.(*value.List)
		if l == nil {
			l = value.NewList()
			st.Set(k, l)
		}
		if vl, ok := v.(*value.List); ok {
			l.Items = append(l.Items, vl.Items...)
		}
	}
	inc.Range(func(id, body any) bool {
		if old, ok := st.Get(id); ok && !value.Equal(old, body) {
			errs = append(errs, fmt.Sprintf("Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '%s' and is found in SLS '%s:%s' and SLS '%s:%s'",
				value.Str(id), value.Str(get2(old, "__env__")), value.Str(get2(old, "__sls__")), value.Str(get2(body, "__env__")), value.Str(get2(body, "__sls__"))))
		}
		st.Set(id, body)
		return true
	})
	return errs
}

func get2(m any, k string) any {
	if mm, ok := m.(*value.Map); ok {
		v, _ := mm.Get(k)
		return v
	}
	return nil
}

func init() {
	execmod.Register("state.clear_cache", clearCache, "Remove the state cache files (*.cache.p) of the cachedir; returns their names.")
}

// clearCache is state.clear_cache: the files of the cachedir whose names
// end in ".cache.p" (the caches of cache=True runs) are removed.
func clearCache(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("state.clear_cache", args, kwargs); err != nil {
		return nil, err
	}
	dir := optString(ctx.Opts, "cachedir", "")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &execmod.CommandExecutionError{Msg: err.Error()}
	}
	out := value.NewList()
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".cache.p") || !e.Type().IsRegular() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return nil, &execmod.CommandExecutionError{Msg: err.Error()}
		}
		out.Append(e.Name())
	}
	return out, nil
}
