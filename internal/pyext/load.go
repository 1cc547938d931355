package pyext

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.RegisterSetup("pyext", 10, Setup)
}

// Setup loads the extension modules of the cache into the run when there
// are any (no Python runs otherwise): custom utils, execution modules,
// states and renderers.
func Setup(ctx *execmod.Context) error {
	if !Setupable(ctx) {
		return nil
	}
	return Load(ctx)
}

// Load (re)loads the cached extension modules into the run's worker and
// registers the Python execution functions into the run's registry.
func Load(ctx *execmod.Context) error {
	w, err := WorkerFor(ctx, "the custom modules in "+ExtmodsDir(ctx.Opts))
	if err != nil {
		return err
	}
	return loadInto(ctx, w, true)
}

// loadInto loads the cached extension modules into w in one batch and,
// when register is set, registers their functions into ctx's registries.
func loadInto(ctx *execmod.Context, w *Worker, register bool) error {
	dir := ExtmodsDir(ctx.Opts)
	var msgs []*value.Map
	if s := sessionOf(ctx); s.loaded["pillar"] {
		// the pillar compiled since the worker started
		msgs = append(msgs, value.MapOf("op", "init", "pillar", ctx.Pillar, "grains", ctx.Grains))
	}
	sessionOf(ctx).loaded["pillar"] = true
	kinds := []string{"utils", "modules", "states", "renderers"}
	for _, kind := range kinds {
		msgs = append(msgs, value.MapOf("op", "load", "kind", kind, "root", filepath.Join(dir, kind)))
	}
	rets, err := w.Batch(msgs)
	if err != nil {
		return err
	}
	rets = rets[len(msgs)-len(kinds):]
	for i, kind := range kinds {
		if rets[i].Err != nil {
			return fmt.Errorf("loading custom %s: %w", kind, rets[i].Err)
		}
		m, _ := rets[i].Value.(*value.Map)
		if m == nil {
			continue
		}
		logLoadErrors(m)
		if !register {
			continue
		}
		switch kind {
		case "modules":
			registerExec(ctx, w, m)
		case "states":
			registerStates(ctx, w, m)
		case "renderers":
			registerRenderers(ctx, w, m)
		}
	}
	return nil
}

func logLoadErrors(m *value.Map) {
	errs, _ := m.Get("errors")
	l, _ := errs.(*value.List)
	if l == nil {
		return
	}
	for _, e := range l.Items {
		em, _ := e.(*value.Map)
		if em == nil {
			continue
		}
		p, _ := em.Get("path")
		msg, _ := em.Get("msg")
		tb, _ := em.Get("tb")
		slog.Error(fmt.Sprintf("Failed to import module %v: %v", p, msg))
		slog.Debug(fmt.Sprint(tb))
	}
}

// listOf returns the items of m[key] when it is a list.
func listOf(m *value.Map, key string) []any {
	v, _ := m.Get(key)
	if l, ok := v.(*value.List); ok {
		return l.Items
	}
	return nil
}

func str(m *value.Map, key string) string {
	v, _ := m.Get(key)
	s, _ := v.(string)
	return s
}

// registerExec puts the loaded Python functions into a copy of the run's
// registry: a custom module replaces the builtin module of its name.
func registerExec(ctx *execmod.Context, w *Worker, m *value.Map) {
	reg := ctx.Registry
	if reg == nil {
		reg = execmod.Default
	}
	reg = reg.Clone()
	for _, mod := range listOf(m, "modules") {
		if s, ok := mod.(string); ok {
			reg.DropModule(s)
		}
	}
	for _, f := range listOf(m, "functions") {
		fm, _ := f.(*value.Map)
		if fm == nil {
			continue
		}
		name := str(fm, "name")
		reg.Replace(name, pyExecFunc(w, name), str(fm, "doc"))
	}
	ctx.Registry = reg
}

// pyExecFunc is the execmod.Func of a Python execution function.
func pyExecFunc(w *Worker, name string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		w, err := workerOf(ctx, w)
		if err != nil {
			return nil, nameWorkerError(err, name)
		}
		ret, rc, err := w.request(value.MapOf("op", "call", "kind", "exec", "fun", name,
			"args", value.NewList(args...), "kwargs", kwargs), handlerFor(ctx))
		if rc, ok := rc.(int64); ok {
			ctx.SetRetcode(int(rc))
		}
		return ret, nameWorkerError(err, name)
	}
}

// Reload makes what a saltutil.sync_* just copied visible to the rest of
// the run ("" for every kind). A run without python3 only logs it: the
// sync itself worked.
func Reload(ctx *execmod.Context, kind string) error {
	switch kind {
	case "", "modules", "utils", "states", "renderers":
		if !Setupable(ctx) {
			return nil
		}
		if err := Load(ctx); err != nil {
			slog.Warn(fmt.Sprintf("The synced modules are not loaded: %s", err))
		}
	}
	return nil
}

// Setupable reports whether the module cache holds Python modules of the
// kinds loaded into a run.
func Setupable(ctx *execmod.Context) bool {
	for _, k := range []string{"modules", "utils", "states", "renderers"} {
		if hasPython(ctx.Opts, k) {
			return true
		}
	}
	return false
}

// nameWorkerError adds the Python function's name to a failure of the
// worker itself (died, timed out); Python exceptions pass unchanged.
func nameWorkerError(err error, name string) error {
	if err == nil {
		return nil
	}
	var pe *PyError
	if errors.As(err, &pe) {
		return err
	}
	return &execmod.CommandExecutionError{Msg: fmt.Sprintf("%s (python): %s", name, err)}
}
