package highstate

// argwarn.go: the stderr WARNINGs of a state run for what the return data
// cannot say without changing Salt's output: a state function Salt 3006
// has but brine does not implement, an argument the state function
// neither takes nor passes on, an unknown keyword of state.apply.

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/saltspec"
	"brine/internal/statemod"
	"brine/internal/value"
)

// chunkKeys are the keys of a low chunk that are no state's arguments and
// are not among Salt's STATE_INTERNAL_KEYWORDS either.
var chunkKeys = map[string]bool{"name": true, "names": true, "provider": true, "sfun": true}

// warnChunks logs the WARNINGs for the chunks of a run. A chunk whose
// function brine has and whose keys it knows costs one map lookup a key;
// Salt's argument lists are read only for a key brine does not know.
func warnChunks(chunks []*value.Map, reg *statemod.Registry) {
	type fn struct {
		f     *statemod.Function
		full  string
		known map[string]bool // parameters, internal keywords, chunkKeys
	}
	// A run has few distinct functions: look each up once.
	seen := map[[2]string]*fn{}
	for _, low := range chunks {
		st, _ := low.Get("state")
		fun, _ := low.Get("fun")
		sts, _ := st.(string)
		funs, _ := fun.(string)
		e := seen[[2]string{sts, funs}]
		if e == nil {
			e = &fn{full: sts + "." + funs}
			e.f, _ = reg.Lookup(e.full)
			if e.f != nil {
				e.known = knownKeys(e.f)
			}
			seen[[2]string{sts, funs}] = e
		}
		if e.f == nil {
			if ni := saltspec.NotImplemented(saltspec.State, e.full); ni != "" {
				slog.Warn(where(low) + ni)
			}
			continue
		}
		for i := range low.Len() {
			k, _ := low.At(i)
			if ks, ok := k.(string); ok && !e.known[ks] && !strings.HasPrefix(ks, "__") {
				warnArg(low, e.f, e.full, ks)
			}
		}
	}
}

// knownKeys are the keys of f's chunks that need no second look.
func knownKeys(f *statemod.Function) map[string]bool {
	m := make(map[string]bool, len(f.Params)+len(chunkKeys)+64)
	for _, p := range f.Params {
		m[p.Name] = true
	}
	for k := range chunkKeys {
		m[k] = true
	}
	for _, l := range [][]string{statemod.RequisiteKeywords, statemod.RequisiteInKeywords, statemod.RuntimeKeywords} {
		for _, k := range l {
			m[k] = true
		}
	}
	return m
}

// warnArg warns about the argument k of the chunk low when Salt's state
// function (brine's, for a function Salt does not have) neither takes it
// nor passes it on through **kwargs.
func warnArg(low *value.Map, f *statemod.Function, full, k string) {
	sf, inSalt := saltspec.Lookup(saltspec.State, full)
	var names []string
	switch {
	case inSalt && sf.Accepts(k):
		if !f.Kwargs {
			slog.Warn(fmt.Sprintf("%sargument '%s' of %s is a Salt %s argument that brine does not implement yet", where(low), k, full, saltspec.SaltVersion()))
		}
		return
	case inSalt && sf.TakesKwargs(), !inSalt && f.Kwargs:
		return
	case inSalt:
		names = sf.ParamNames()
	default:
		for _, p := range f.Params {
			names = append(names, p.Name)
		}
	}
	slog.Warn(fmt.Sprintf("%s%s takes no argument '%s'.%s", where(low), full, k, didYouMean(k, names)))
}

// where names the chunk for a message: "SLS 'web', ID 'nginx': ".
func where(low *value.Map) string {
	sls, _ := low.Get("__sls__")
	id, _ := low.Get("__id__")
	return fmt.Sprintf("SLS '%s', ID '%s': ", value.Str(sls), value.Str(id))
}

// didYouMean returns " Did you mean 'x'?" for the candidate closest to s,
// "" when none is close (a third of the length, at least 2 edits, fewer
// than the length of s: "tset" is "test").
func didYouMean(s string, cands []string) string {
	sorted := append([]string(nil), cands...)
	sort.Strings(sorted)
	best, bestD := "", min(max(2, len(s)/3)+1, len(s))
	for _, c := range sorted {
		if d := diag.EditDistance(s, c); d < bestD && c != s {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean '%s'?", best)
}

// warnCallKwargs warns about the keyword arguments of state.apply, sls or
// highstate that the Salt function neither takes nor reads from its
// **kwargs (tset=True), with a did-you-mean.
func warnCallKwargs(fun string, kwargs *value.Map) {
	if kwargs == nil {
		return
	}
	var f *saltspec.Function
	var known map[string]bool
	kwargs.Range(func(k, _ any) bool {
		ks, ok := k.(string)
		if !ok || strings.HasPrefix(ks, "__") {
			return true
		}
		if known == nil {
			var has bool
			if f, has = saltspec.Lookup(saltspec.Exec, fun); !has {
				return false
			}
			known = map[string]bool{}
			for _, n := range f.Keywords() {
				known[n] = true
			}
		}
		if !known[ks] {
			slog.Warn(fmt.Sprintf("%s takes no keyword argument '%s'; Salt %s ignores it.%s", fun, ks, saltspec.SaltVersion(), didYouMean(ks, f.Keywords())))
		}
		return true
	})
}

// withKwargsWarning wraps the execution function fun so that its keyword
// arguments are checked (warnCallKwargs) before it runs.
func withKwargsWarning(fun string, f execmod.Func) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		warnCallKwargs(fun, kwargs)
		return f(ctx, args, kwargs)
	}
}
