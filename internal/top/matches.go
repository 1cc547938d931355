package top

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"brine/internal/fileserver"
	"brine/internal/match"
	"brine/internal/value"
)

// levelTrace is Salt's trace level among slog's.
const levelTrace = slog.LevelDebug - 4

// Verify checks merged top data as Salt's verify_tops does and returns its
// error messages.
func Verify(top any) []string {
	var errs []string
	tm, ok := top.(*value.Map)
	if !ok {
		return []string{"Top data was not formed as a dict"}
	}
	tm.Range(func(env, matches any) bool {
		if env == "include" {
			return true
		}
		if _, ok := env.(string); !ok {
			errs = append(errs, fmt.Sprintf("Environment %s in top file is not formed as a string", value.Str(env)))
		}
		if env == "" {
			errs = append(errs, "Empty saltenv statement in top file")
		}
		mm, ok := matches.(*value.Map)
		if !ok {
			errs = append(errs, fmt.Sprintf("The top file matches for saltenv %s are not formatted as a dict", value.Str(env)))
			return true
		}
		for _, slsmods := range mm.Values() {
			l, ok := slsmods.(*value.List)
			if !ok {
				errs = append(errs, "Malformed topfile (state declarations not formed as a list)")
				continue
			}
			for _, slsmod := range l.Items {
				switch x := slsmod.(type) {
				case *value.Map:
					for _, v := range x.Values() {
						if !value.Truthy(v) {
							errs = append(errs, fmt.Sprintf("Improperly formatted top file matcher in saltenv %s: %s file", value.Str(x), value.Str(v)))
						}
					}
				case string:
					if x == "" {
						errs = append(errs, fmt.Sprintf("Environment %s contains an empty sls index", value.Str(env)))
					}
				}
			}
		}
		return true
	})
	return errs
}

// Matches is Salt's top_matches: the SLS each environment contributes to
// this minion, in top file order. saltenv, when set, keeps only that
// environment's section. A `- ENV: sls` item adds sls to ENV when ENV is
// available; `subfilter` items are matched recursively. The top data is
// modified (dict items are consumed) as in Salt.
func Matches(c *match.Context, top *value.Map, saltenv string, avail *fileserver.Avail) (*value.Map, error) {
	matches := value.NewMap(0)
	add := func(env any, sls any) {
		v, ok := matches.Get(env)
		if !ok {
			v = value.NewList()
			matches.Set(env, v)
		}
		if sls != nil {
			l := v.(*value.List)
			l.Append(sls)
		}
	}
	var filter func(env, tgt, data any) error
	filter = func(env, tgt, data any) error {
		var items []any
		switch d := data.(type) {
		case string:
			items = []any{d}
		default:
			items = iterItems(d)
		}
		ok, err := match.ConfirmTop(c, tgt, items)
		if err != nil {
			return err
		}
		if !ok {
			if slog.Default().Enabled(context.Background(), levelTrace) {
				slog.Log(context.Background(), levelTrace, fmt.Sprintf("Top file target '%s' in saltenv '%s' does not match this minion", value.Str(tgt), value.Str(env)))
			}
			return nil
		}
		var got []string
		logged := slog.Default().Enabled(context.Background(), slog.LevelDebug)
		if logged {
			defer func() {
				slog.Debug(fmt.Sprintf("Top file target '%s' in saltenv '%s' matched: %s", value.Str(tgt), value.Str(env), strings.Join(got, ", ")))
			}()
		}
		if !matches.Has(env) {
			matches.Set(env, value.NewList())
		}
		for _, item := range items {
			m, isMap := item.(*value.Map)
			if isMap {
				if sub, ok := m.Get("subfilter"); ok {
					m.Delete("subfilter")
					if sm, ok := sub.(*value.Map); ok {
						var serr error
						sm.Range(func(k, v any) bool {
							serr = filter(env, k, v)
							return serr == nil
						})
						if serr != nil {
							return serr
						}
					}
				}
			}
			switch x := item.(type) {
			case string:
				add(env, x)
				if logged {
					got = append(got, x)
				}
			case *value.Map:
				if x.Len() == 0 {
					continue
				}
				k, v := x.At(x.Len() - 1)
				x.Delete(k)
				ks, ok := k.(string)
				if !ok || !avail.Has(ks) {
					continue
				}
				add(ks, v)
				if logged {
					got = append(got, ks+": "+value.Str(v))
				}
			}
		}
		return nil
	}
	var err error
	top.Range(func(env, body any) bool {
		if saltenv != "" && !value.Equal(env, saltenv) {
			return true
		}
		bm, ok := body.(*value.Map)
		if !ok {
			return true
		}
		bm.Range(func(tgt, data any) bool {
			err = filter(env, tgt, data)
			return err == nil
		})
		return err == nil
	})
	return matches, err
}
