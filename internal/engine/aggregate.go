package engine

import (
	"fmt"
	"log/slog"

	"brine/internal/statemod"
	"brine/internal/value"
)

// aggregateRequisiteKeys are Salt's STATE_REQUISITE_KEYWORDS and
// STATE_REQUISITE_IN_KEYWORDS, the keys _aggregate_requisites copies.
var aggregateRequisiteKeys = []string{
	"onchanges", "onchanges_any", "onfail", "onfail_any", "onfail_all", "onfail_stop",
	"prereq", "prerequired", "watch", "watch_any", "require", "require_any", "listen",
	"onchanges_in", "onfail_in", "prereq_in", "watch_in", "require_in", "listen_in",
}

// modAggregate is Salt's State._mod_aggregate, run as a chunk comes up:
// when the state_aggregate option (or the chunk's aggregate argument) is
// true or lists the chunk's state module, and the module has a
// mod_aggregate function, the chunk is marked __agg__, given the
// requisites of the chunks of its module already aggregated, and handed
// to mod_aggregate, which returns the chunk to run (pkg folds the packages
// of the pkg chunks still to run into it).
func (r *runner) modAggregate(low, running *value.Map, chunks []*value.Map) *value.Map {
	opt := r.aggregateOption()
	if v, ok := low.Get("aggregate"); ok {
		opt = v
	}
	state := getStr(low, "state")
	var mods []any
	switch x := opt.(type) {
	case bool:
		if !x {
			return low
		}
		mods = []any{state}
	case *value.List:
		mods = x.Items
	default:
		return low
	}
	listed := false
	for _, m := range mods {
		if m == state {
			listed = true
			break
		}
	}
	if !listed || truthy(low, "__agg__") {
		return low
	}
	f, ok := r.reg.Lookup(state + ".mod_aggregate")
	if !ok {
		return low
	}
	low.Set("__agg__", true)
	aggregateRequisites(low, chunks)
	out, err := f.Run(&statemod.Call{Ctx: r.ctx, Fun: f, Args: value.NewMap(0), Low: low,
		Test: r.opts.Test, Running: running, Chunks: chunks, Env: r.opts.Env, Umask: -1})
	if err != nil || out == nil {
		slog.Error(fmt.Sprintf("Failed to execute aggregate for state %s", state))
		return low
	}
	return out
}

// aggregateOption is config.option("state_aggregate"): the minion option,
// else the pillar key.
func (r *runner) aggregateOption() any {
	ex := r.opts.Env.Exec
	if ex == nil {
		return nil
	}
	for _, m := range []*value.Map{ex.Opts, ex.Pillar} {
		if m == nil {
			continue
		}
		if v, ok := m.Get("state_aggregate"); ok {
			return v
		}
	}
	return nil
}

// aggregateRequisites is Salt's _aggregate_requisites: the requisites of
// the chunks of low's state module that were aggregated already (other
// than low itself, by name) are gathered per kind and set on low,
// replacing low's own list of that kind, as Salt's dict update does.
func aggregateRequisites(low *value.Map, chunks []*value.Map) {
	state := get(low, "state")
	name := get(low, "name")
	gathered := map[string]*value.List{}
	var order []string
	for _, ch := range chunks {
		if get(ch, "state") != state || !truthy(ch, "__agg__") || value.Equal(get(ch, "name"), name) {
			continue
		}
		for _, k := range aggregateRequisiteKeys {
			v, ok := ch.Get(k)
			if !ok {
				continue
			}
			l, ok := gathered[k]
			if !ok {
				l = value.NewList()
				gathered[k] = l
				order = append(order, k)
			}
			if vl, isList := v.(*value.List); isList {
				l.Items = append(l.Items, vl.Items...)
			} else {
				l.Append(v)
			}
		}
	}
	for _, k := range order {
		low.Set(k, gathered[k])
	}
}
