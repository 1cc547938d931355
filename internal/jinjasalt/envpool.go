package jinjasalt

import (
	"sync"

	"brine/internal/jinja"
)

// Parsed templates are bound to the environment that parsed them. Salt
// puts each render's context into its environment's globals; brine gives
// them to the engine as the render's own globals, with the render's own
// loader (jinja.RenderConfig), so one environment per option set serves
// every render, concurrently, and no value of one render can show through
// in another. The environment's cache keeps imported templates (by name,
// checked against the file's current text); mains keeps the parsed
// rendered sources.

const maxMains = 512

type saltEnv struct {
	env   *jinja.Environment
	mu    sync.RWMutex
	mains map[string]*jinja.Template // source -> parsed template
}

var envs sync.Map // Options -> *saltEnv

// envFor returns the environment of an option set.
func envFor(opts Options) *saltEnv {
	if se, ok := envs.Load(opts); ok {
		return se.(*saltEnv)
	}
	env := jinja.New()
	env.TrimBlocks = opts.TrimBlocks
	env.LstripBlocks = opts.LstripBlocks
	env.KeepTrailingNewline = opts.KeepTrailingNewline
	env.Lenient = opts.AllowUndefined
	Install(env)
	se, _ := envs.LoadOrStore(opts, &saltEnv{env: env, mains: map[string]*jinja.Template{}})
	return se.(*saltEnv)
}

// parse returns the parsed template of src, from the cache when it has
// been parsed before.
func (se *saltEnv) parse(src string) (*jinja.Template, error) {
	se.mu.RLock()
	t, ok := se.mains[src]
	se.mu.RUnlock()
	if ok {
		return t, nil
	}
	t, err := se.env.Parse(mainName, src)
	if err != nil {
		return nil, err
	}
	se.mu.Lock()
	if len(se.mains) >= maxMains {
		clear(se.mains)
	}
	se.mains[src] = t
	se.mu.Unlock()
	return t, nil
}
