package pillar

import "brine/internal/value"

// Service compiles pillar for execution functions (pillar.items,
// pillar.get with pillarenv, ...) and state runs. The command line attaches
// one to the run's execmod.Context under the name "pillar"; it satisfies the
// modules package's PillarService interface.
type Service struct {
	Renderers Renderers
	// OnRenderError, when set, is told of each pillar file that fails to
	// render (see Options.OnRenderError).
	OnRenderError func(RenderFailure)
}

// Compile compiles a fresh pillar; see Options for the arguments.
func (s Service) Compile(opts, grains *value.Map, minionID, saltenv, pillarenv string, override, previous *value.Map) (*value.Map, error) {
	return Compile(Options{
		Opts:      opts,
		Grains:    grains,
		MinionID:  minionID,
		Saltenv:   saltenv,
		Pillarenv: pillarenv,
		Override:  override,
		Previous:  previous,
		Render:    s.Renderers.Render(),
		Decrypt:   s.Renderers.Decrypt(opts),

		OnRenderError: s.OnRenderError,
	})
}

// Decrypt decrypts data with the renderer named renderer (pillar_enc),
// checking it against opts["decrypt_pillar_renderers"] as Salt does.
func (s Service) Decrypt(opts *value.Map, data any, renderer string, translateNewlines bool) (any, error) {
	valid, ok := opts.GetString("decrypt_pillar_renderers")
	if !ok {
		valid = value.NewList("gpg")
	}
	return DecryptData(data, renderer, translateNewlines, valid, s.Renderers.Decrypt(opts))
}

// ParseOverride checks a command-line pillar as the state functions do:
// nil stays nil, a mapping is returned, anything else is an error carrying
// Salt's message ("Pillar data must be formatted as a dictionary, unless
// pillar_enc is specified.") unless enc is set.
func ParseOverride(v any, enc string) (any, error) {
	if v == nil {
		return nil, nil
	}
	if _, ok := v.(*value.Map); ok || enc != "" {
		return v, nil
	}
	return nil, errOverrideNotDict
}

type overrideError string

// Error returns the message.
func (e overrideError) Error() string { return string(e) }

const errOverrideNotDict = overrideError("Pillar data must be formatted as a dictionary, unless pillar_enc is specified.")
