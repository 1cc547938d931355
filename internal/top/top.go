// Package top reads state top files the way Salt's BaseHighState does
// (get_tops, merge_tops, verify_tops, top_matches): each environment's top
// file is rendered, `include`d top files are added, the tops are merged by
// top_file_merging_strategy (merge, same, merge_all), checked, and matched
// against the minion to give the matches dictionary
// {saltenv: [sls, ...]} that state.show_top prints and the compiler uses.
//
// Rendering is behind the Renderer interface so this package does not
// depend on the render pipeline.
package top

import (
	"errors"
	"fmt"

	"brine/internal/fileserver"
	"brine/internal/match"
	"brine/internal/value"
)

// Renderer renders one file of the state tree.
type Renderer interface {
	// RenderFile renders the local file path (source is its root-relative
	// path) for saltenv; sls is "" for a top file. It returns the rendered
	// data (nil or an empty map for an empty file).
	RenderFile(path, source, saltenv, sls string) (any, error)
}

// RendererFunc adapts a function to Renderer.
type RendererFunc func(path, source, saltenv, sls string) (any, error)

// RenderFile calls f.
func (f RendererFunc) RenderFile(path, source, saltenv, sls string) (any, error) {
	return f(path, source, saltenv, sls)
}

// Options are the minion options that shape top file handling.
type Options struct {
	// StateTop is the state_top option: "salt://top.sls", "top.sls" or
	// "/tops/x.sls" (all root-relative).
	StateTop string
	// Strategy is top_file_merging_strategy: merge (default), same or
	// merge_all; unknown values fall back to merge.
	Strategy string
	// EnvOrder is env_order.
	EnvOrder []string
	// DefaultTop is default_top (default "base").
	DefaultTop string
	// StateTopSaltenv is state_top_saltenv ("" for unset).
	StateTopSaltenv string
	// Saltenv restricts reading and matching to one environment ("" for
	// all): the saltenv argument or option.
	Saltenv string
}

// ErrRender is wrapped by the errors GetTops and Merge return when a top
// file cannot be used; Salt logs these and carries on with an empty top.
var ErrRender = errors.New("unable to render top file")

// Tops are the rendered top files per environment, environments in the
// order they were read.
type Tops struct {
	Envs []string
	Data map[string][]any
}

func (t *Tops) add(env string, data any) {
	if t.Data == nil {
		t.Data = map[string][]any{}
	}
	if _, ok := t.Data[env]; !ok {
		t.Envs = append(t.Envs, env)
	}
	t.Data[env] = append(t.Data[env], data)
}

func (o Options) topPath() string {
	p := o.StateTop
	if p == "" {
		p = "salt://top.sls"
	}
	if rel, _, ok := fileserver.ParseURL(p); ok {
		return rel
	}
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	return p
}

func emptyTop() any { return value.NewMap(0) }

func isEmpty(v any) bool {
	m, ok := v.(*value.Map)
	return ok && m.Len() == 0
}

// GetTops reads and renders the top files (Salt's get_tops). A render
// error aborts with an error wrapping ErrRender.
func GetTops(avail *fileserver.Avail, r Renderer, o Options) (*Tops, error) {
	tops := &Tops{}
	roots := avail.Roots
	if o.Strategy == "same" && o.Saltenv == "" && o.DefaultTop == "" {
		return nil, fmt.Errorf("%w: top_file_merging_strategy set to 'same', but no default_top configuration option was set", ErrRender)
	}
	rel := o.topPath()
	render := func(env string) error {
		p, err := roots.Find(env, rel)
		if err != nil {
			tops.add(env, emptyTop())
			return nil
		}
		data, err := r.RenderFile(p, rel, env, "")
		if err != nil {
			return fmt.Errorf("%w: %w", ErrRender, err)
		}
		if data == nil {
			data = emptyTop()
		}
		tops.add(env, data)
		return nil
	}
	if o.Saltenv != "" {
		if err := render(o.Saltenv); err != nil {
			return nil, err
		}
	} else {
		envs := roots.EnvList(o.EnvOrder)
		if o.StateTopSaltenv != "" {
			envs = []string{o.StateTopSaltenv}
		}
		for _, env := range envs {
			if err := render(env); err != nil {
				return nil, err
			}
		}
	}
	// Includes are read from the initial top files only.
	type inc struct {
		env  string
		pats []any
	}
	var incs []inc
	for _, env := range tops.Envs {
		var pats []any
		for _, ctop := range tops.Data[env] {
			m, ok := ctop.(*value.Map)
			if !ok {
				continue
			}
			v, ok := m.Get("include")
			if !ok {
				continue
			}
			pats = append(pats, iterItems(v)...)
			m.Delete("include")
		}
		if len(pats) > 0 {
			incs = append(incs, inc{env, pats})
		}
	}
	for _, in := range incs {
		done := map[string]bool{}
		for _, pat := range in.pats {
			for _, sls := range match.FnmatchFilter(avail.States(in.env), value.Str(pat)) {
				if done[sls] {
					continue
				}
				var data any = value.NewMap(0)
				if s, ok := roots.ResolveSLS(in.env, sls); ok {
					d, err := r.RenderFile(s.Path, s.Source, in.env, "")
					if err != nil {
						return nil, fmt.Errorf("%w: %w", ErrRender, err)
					}
					if d != nil {
						data = d
					}
				}
				tops.add(in.env, data)
				done[sls] = true
			}
		}
	}
	return tops, nil
}

// iterItems is Python iteration over a value: list items, dict keys,
// string characters.
func iterItems(v any) []any {
	switch x := v.(type) {
	case *value.List:
		return x.Items
	case value.Tuple:
		return x
	case *value.Map:
		return x.Keys()
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out
	}
	return nil
}

var errNoTargets = fmt.Errorf("%w: Unable to render top file. No targets found.", ErrRender)

// merged is env -> target -> data, all ordered.
type merged struct{ m *value.Map }

func (t merged) env(env any) *value.Map {
	if v, ok := t.m.Get(env); ok {
		return v.(*value.Map)
	}
	e := value.NewMap(0)
	t.m.Set(env, e)
	return e
}

// copyTargets copies every target of section into top[env]; a section
// that is not a mapping is Salt's "No targets found" error.
func (t merged) copyTargets(env, section any) error {
	sec, ok := section.(*value.Map)
	if !ok {
		if section == nil || !isIterable(section) {
			return errNoTargets
		}
		if l, ok := section.(*value.List); ok && l.Len() == 0 {
			return nil
		}
		if s, ok := section.(string); ok && s == "" {
			return nil
		}
		return errNoTargets
	}
	if sec.Len() == 0 {
		return nil
	}
	dst := t.env(env)
	sec.Range(func(k, v any) bool { dst.Set(k, v); return true })
	return nil
}

func isIterable(v any) bool {
	switch v.(type) {
	case *value.List, value.Tuple, *value.Map, string:
		return true
	}
	return false
}

// sections yields the (env, targets) pairs of one rendered top file.
func sections(ctop any) []struct{ env, targets any } {
	m, ok := ctop.(*value.Map)
	if !ok {
		return nil
	}
	var out []struct{ env, targets any }
	m.Range(func(k, v any) bool {
		out = append(out, struct{ env, targets any }{k, v})
		return true
	})
	return out
}

// Merge combines the tops by strategy (Salt's merge_tops) into
// env -> target -> data.
func Merge(tops *Tops, o Options) (*value.Map, error) {
	switch o.Strategy {
	case "same":
		return mergeSame(tops, o)
	case "merge_all":
		return mergeAll(tops)
	}
	return mergeMerge(tops)
}

func mergeMerge(tops *Tops) (*value.Map, error) {
	top := merged{value.NewMap(0)}
	for _, ctop := range tops.Data["base"] {
		for _, s := range sections(ctop) {
			if s.env == "include" {
				continue
			}
			if err := top.copyTargets(s.env, s.targets); err != nil {
				return nil, err
			}
		}
	}
	for _, cenv := range tops.Envs {
		if cenv == "base" {
			continue
		}
		for _, ctop := range tops.Data[cenv] {
			for _, s := range sections(ctop) {
				if s.env == "include" || !value.Equal(s.env, cenv) || top.m.Has(s.env) {
					continue
				}
				if err := top.copyTargets(s.env, s.targets); err != nil {
					return nil, err
				}
			}
		}
	}
	return top.m, nil
}

func mergeSame(tops *Tops, o Options) (*value.Map, error) {
	top := merged{value.NewMap(0)}
	allEmpty := func(l []any) bool {
		for _, x := range l {
			if !isEmpty(x) {
				return false
			}
		}
		return true
	}
	for _, cenv := range tops.Envs {
		ctops := tops.Data[cenv]
		if allEmpty(ctops) {
			fallback := tops.Data[o.DefaultTop]
			if allEmpty(fallback) {
				continue
			}
			for _, ctop := range fallback {
				for _, s := range sections(ctop) {
					if !value.Equal(s.env, cenv) {
						continue
					}
					if err := top.copyTargets(s.env, s.targets); err != nil {
						return nil, err
					}
					break
				}
			}
			continue
		}
		for _, ctop := range ctops {
			for _, s := range sections(ctop) {
				if s.env == "include" || !value.Equal(s.env, cenv) {
					continue
				}
				if err := top.copyTargets(s.env, s.targets); err != nil {
					return nil, err
				}
			}
		}
	}
	return top.m, nil
}

func mergeAll(tops *Tops) (*value.Map, error) {
	top := merged{value.NewMap(0)}
	readTgt := func(v any) (matchType any, states []any) {
		for _, item := range iterItems(v) {
			switch x := item.(type) {
			case *value.Map:
				matchType = x
			case string:
				states = append(states, x)
			}
		}
		return
	}
	for _, cenv := range tops.Envs {
		for _, ctop := range tops.Data[cenv] {
			for _, s := range sections(ctop) {
				if s.env == "include" {
					continue
				}
				sec, ok := s.targets.(*value.Map)
				if !ok {
					if err := top.copyTargets(s.env, s.targets); err != nil {
						return nil, err
					}
					continue
				}
				var err error
				sec.Range(func(tgt, data any) bool {
					dst := top.env(s.env)
					old, ok := dst.Get(tgt)
					if !ok {
						dst.Set(tgt, data)
						return true
					}
					m1, s1 := readTgt(old)
					m2, s2 := readTgt(data)
					out := value.NewList()
					mt := m2
					if mt == nil {
						mt = m1
					}
					if mt != nil {
						out.Append(mt)
					}
					out.Append(s1...)
					for _, x := range s2 {
						if !containsEqual(out.Items, x) {
							out.Append(x)
						}
					}
					dst.Set(tgt, out)
					return true
				})
				if err != nil {
					return nil, err
				}
			}
		}
	}
	return top.m, nil
}

func containsEqual(items []any, x any) bool {
	for _, e := range items {
		if value.Equal(e, x) {
			return true
		}
	}
	return false
}

// Get is Salt's get_top: GetTops then Merge. Salt only logs a failure
// here and carries on with an empty top; callers do the same with the
// returned error.
func Get(avail *fileserver.Avail, r Renderer, o Options) (*value.Map, error) {
	tops, err := GetTops(avail, r, o)
	if err != nil {
		return value.NewMap(0), err
	}
	m, err := Merge(tops, o)
	if err != nil {
		return value.NewMap(0), err
	}
	return m, nil
}
