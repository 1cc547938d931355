package pillar

import (
	"brine/internal/value"
	"brine/internal/yamlload"
)

// StateRequest is what a state function (state.apply, state.sls,
// state.highstate, state.show_sls, ...) knows when it needs its pillar.
type StateRequest struct {
	// Opts are the minion options (not the call's).
	Opts *value.Map
	// Grains and MinionID describe the minion.
	Grains   *value.Map
	MinionID string
	// Saltenv and Pillarenv are the call's, after Salt's get_sls_opts
	// (see CallEnvs); "" means none.
	Saltenv, Pillarenv string
	// Override is the call's pillar= argument, nil when absent; Enc its
	// pillar_enc= argument.
	Override any
	Enc      string
	// Previous is the in-memory pillar compiled at start-up.
	Previous *value.Map
}

// CallEnvs is the saltenv/pillarenv part of Salt's get_sls_opts: the call's
// saltenv= replaces the minion's; pillarenv= (or, with
// pillarenv_from_saltenv, the call's saltenv) replaces its pillarenv.
// saltenvArg and pillarenvArg are the keyword arguments, nil when absent.
func CallEnvs(opts *value.Map, saltenvArg, pillarenvArg any, hasPillarenvArg bool) (saltenv, pillarenv string) {
	saltenv = optString(opts, "saltenv")
	if saltenvArg != nil {
		saltenv = value.Str(saltenvArg)
	}
	pillarenv = optString(opts, "pillarenv")
	if hasPillarenvArg || truthy(opts, "pillarenv_from_saltenv") {
		pillarenv = ""
		if value.Truthy(pillarenvArg) {
			pillarenv = value.Str(pillarenvArg)
		} else if value.Truthy(saltenvArg) {
			pillarenv = value.Str(saltenvArg)
		}
	}
	return saltenv, pillarenv
}

// StatePillar returns the pillar a state run uses, as Salt's state module
// and salt.state.State gather it under salt-call:
//
//   - a pillar= that is not a mapping, without pillar_enc, is an error with
//     Salt's message;
//   - with no pillar= and the minion's own pillarenv, the in-memory pillar;
//   - otherwise a fresh compile for the call's environments, merged over the
//     in-memory pillar, with the command-line pillar (decrypted with
//     pillar_enc, read as YAML when it is a string) merged over it again.
//     An override that cannot be decrypted or is not a mapping is dropped,
//     as Salt only logs it.
func (s Service) StatePillar(r StateRequest) (*value.Map, error) {
	if _, err := ParseOverride(r.Override, r.Enc); err != nil {
		return nil, err
	}
	minionPillarenv := optString(r.Opts, "pillarenv")
	if minionPillarenv == "" && truthy(r.Opts, "pillarenv_from_saltenv") {
		minionPillarenv = optString(r.Opts, "saltenv")
	}
	override := r.Override
	if r.Previous != nil && r.Pillarenv == minionPillarenv && !value.Truthy(override) {
		return r.Previous, nil
	}
	var om *value.Map
	if value.Truthy(override) {
		if r.Enc != "" {
			if dec, err := s.Decrypt(r.Opts, override, r.Enc, true); err == nil {
				override = dec
			}
		}
		if str, ok := override.(string); ok {
			if v, err := yamlload.Load([]byte(str), ""); err == nil {
				override = v
			}
		}
		om, _ = override.(*value.Map)
	}
	p, err := s.Compile(r.Opts, r.Grains, r.MinionID, r.Saltenv, r.Pillarenv, om, r.Previous)
	if err != nil {
		return nil, err
	}
	if om.Len() > 0 {
		strategy := optString(r.Opts, "pillar_source_merging_strategy")
		if strategy == "" {
			strategy = "smart"
		}
		renderer := optString(r.Opts, "renderer")
		if renderer == "" {
			renderer = "yaml"
		}
		p = value.MergeInPlace(p, om, strategy, renderer, truthy(r.Opts, "pillar_merge_lists"))
	}
	return p, nil
}

// PillarFailureHeader is the first line of the list a state function returns
// instead of running when the pillar has errors.
const PillarFailureHeader = "Pillar failed to render with the following messages:"

// FailureList is what Salt's state functions return when the pillar they
// would run with has `_errors` (and force is not set): the header followed
// by each error. It returns nil when there is nothing to report.
func FailureList(p *value.Map, force bool) *value.List {
	if force || p == nil {
		return nil
	}
	errs, _ := p.GetString("_errors")
	if !value.Truthy(errs) {
		return nil
	}
	out := value.NewList(PillarFailureHeader)
	if items, ok := iterable(errs); ok {
		out.Append(items...)
	} else {
		out.Append(errs)
	}
	return out
}
