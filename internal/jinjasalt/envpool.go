package jinjasalt

import (
	"sort"
	"strings"
	"sync"

	"brine/internal/jinja"
	"brine/internal/value"
)

// Parsed templates are bound to the environment that parsed them, and Salt
// puts each render's context into the environment's globals. So that
// templates are parsed once and not once per render, Render takes its
// environment from a pool keyed by the options and by the set of context
// names: every render from one pool sets exactly the same globals, so no
// value of an earlier render can show through. An environment whose loader
// set a global outside that set (tpldir for a render without sls) is not
// reused. The environment's own cache keeps imported templates (by name,
// checked against the file's current text); mains keeps the rendered
// sources.

const maxMains = 512

type pooledEnv struct {
	env   *jinja.Environment
	names map[string]bool
	mains map[string]*jinja.Template // source -> parsed template
	pool  *sync.Pool
}

type envKey struct {
	opts  Options
	names string
}

var envPools sync.Map // envKey -> *sync.Pool

func checkout(opts Options, vars *value.Map) *pooledEnv {
	keys := make([]string, 0, vars.Len())
	vars.Range(func(k, _ any) bool { keys = append(keys, pyStr(k)); return true })
	sort.Strings(keys)
	key := envKey{opts: opts, names: strings.Join(keys, "\x00")}
	p, ok := envPools.Load(key)
	if !ok {
		p, _ = envPools.LoadOrStore(key, &sync.Pool{})
	}
	pool := p.(*sync.Pool)
	if pe, ok := pool.Get().(*pooledEnv); ok {
		return pe
	}
	env := jinja.New()
	env.TrimBlocks = opts.TrimBlocks
	env.LstripBlocks = opts.LstripBlocks
	env.KeepTrailingNewline = opts.KeepTrailingNewline
	env.Lenient = opts.AllowUndefined
	Install(env)
	names := make(map[string]bool, len(keys))
	for _, k := range keys {
		names[k] = true
	}
	return &pooledEnv{env: env, names: names, mains: map[string]*jinja.Template{}, pool: pool}
}

// parse returns the parsed template of src, from the cache when it has
// been parsed before.
func (pe *pooledEnv) parse(src string) (*jinja.Template, error) {
	if t, ok := pe.mains[src]; ok {
		return t, nil
	}
	t, err := pe.env.Parse(mainName, src)
	if err != nil {
		return nil, err
	}
	if len(pe.mains) >= maxMains {
		clear(pe.mains)
	}
	pe.mains[src] = t
	return t, nil
}

// release returns the environment to its pool unless the render changed
// globals outside the pool's names.
func (pe *pooledEnv) release(ld *loader) {
	pe.env.Loader = nil
	if ld.dirty {
		return
	}
	pe.pool.Put(pe)
}
