package highstate

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// pillarCompiler is the run's pillar service (the pillar package's
// Service, attached to the execmod.Context as "pillar").
type pillarCompiler interface {
	Compile(opts, grains *value.Map, minionID, saltenv, pillarenv string, override, previous *value.Map) (*value.Map, error)
}

// errPillarNotDict is Salt's SaltInvocationError for a non-dict pillar=.
var errPillarNotDict = &execmod.InvocationError{Msg: "Pillar data must be formatted as a dictionary, unless pillar_enc is specified."}

// statePillar gives the run the pillar Salt's State object would use: the
// minion's in-memory pillar when the call keeps its pillarenv and passes
// no pillar=, else a fresh compile (merged over the in-memory one). The
// returned function restores the context's pillar.
func statePillar(ctx *execmod.Context, kwargs *value.Map) (func(), error) {
	if slog.Default().Enabled(context.Background(), slog.LevelDebug) {
		slog.Debug("Gathering pillar data for state run")
		start := time.Now()
		defer func() {
			slog.Debug(fmt.Sprintf("Finished gathering pillar data for state run (duration_in_ms=%s)", value.Str(float64(time.Since(start).Microseconds())/1000)))
		}()
	}
	noop := func() {}
	if err := checkLockSaltenv(ctx, kwargs); err != nil {
		return noop, err
	}
	override, hasOverride := kwargs.Get("pillar")
	enc, hasEnc := kwargs.Get("pillar_enc")
	var om *value.Map
	if hasOverride && override != nil {
		m, ok := override.(*value.Map)
		if !ok && !hasEnc {
			return noop, errPillarNotDict
		}
		om = m
		if hasEnc && value.Truthy(enc) {
			om = decryptOverride(ctx, override, value.Str(enc))
		}
	}
	// get_sls_opts: pillarenv from the call (or the saltenv with
	// pillarenv_from_saltenv).
	cfgEnv, _ := ctx.Opts.Get("pillarenv")
	pillarenv := cfgEnv
	kwEnv, hasKwEnv := kwargs.Get("pillarenv")
	if hasKwEnv || optBool(ctx.Opts, "pillarenv_from_saltenv", false) {
		pillarenv = nil
		if value.Truthy(kwEnv) {
			pillarenv = kwEnv
		} else if v, ok := kwargs.Get("saltenv"); ok && value.Truthy(v) {
			pillarenv = v
		}
	}
	sameEnv := value.Equal(strOrNil(pillarenv), strOrNil(cfgEnv))
	if sameEnv && om == nil {
		return noop, nil
	}
	svc, ok := ctx.Service("pillar").(pillarCompiler)
	if !ok {
		return noop, nil
	}
	saltenv := ""
	if v, ok := kwargs.Get("saltenv"); ok && v != nil {
		saltenv = value.Str(v)
	} else if v, ok := ctx.Opts.Get("saltenv"); ok && v != nil {
		saltenv = value.Str(v)
	}
	penv := ""
	if pillarenv != nil {
		penv = value.Str(pillarenv)
	}
	opts := ctx.Opts.Copy()
	opts.Set("pillarenv", pillarenv)
	var previous *value.Map
	if sameEnv {
		previous = ctx.Pillar
	} else {
		previous = ctx.Pillar
	}
	fresh, err := svc.Compile(opts, ctx.Grains, optString(ctx.Opts, "id", ""), saltenv, penv, om, previous)
	if err != nil {
		return noop, err
	}
	old := ctx.Pillar
	ctx.Pillar = fresh
	return func() { ctx.Pillar = old }, nil
}

// pillarDecrypter decrypts a command-line pillar (the pillar service).
type pillarDecrypter interface {
	Decrypt(opts *value.Map, data any, renderer string, translateNewlines bool) (any, error)
}

// decryptOverride is salt.state.State's handling of pillar= with
// pillar_enc= (lowercased): the data decrypted with that renderer
// (newlines translated), a string read as YAML. A failure to decrypt or
// to load is only logged and the data goes on as it was; what is not a
// mapping then is dropped, as Salt does.
func decryptOverride(ctx *execmod.Context, override any, enc string) *value.Map {
	svc, ok := ctx.Service("pillar").(pillarDecrypter)
	if !ok {
		return nil
	}
	if !value.Truthy(override) {
		return nil
	}
	dec, err := svc.Decrypt(ctx.Opts, override, strings.ToLower(enc), true)
	if err != nil {
		slog.Error(fmt.Sprintf("Failed to decrypt pillar override: %s", err))
		dec = override
	}
	if s, ok := dec.(string); ok {
		if v, err := yamlload.SafeLoad([]byte(s), ""); err != nil {
			slog.Error("Failed to load CLI pillar override")
		} else {
			dec = v
		}
	}
	m, ok := dec.(*value.Map)
	if !ok {
		slog.Error("Pillar override was not passed as a dictionary")
	}
	return m
}

func strOrNil(v any) any {
	if v == nil {
		return nil
	}
	return value.Str(v)
}

// checkLockSaltenv is get_sls_opts' lock_saltenv check: with the option
// set, a saltenv= other than the configured one is refused.
func checkLockSaltenv(ctx *execmod.Context, kwargs *value.Map) error {
	v, ok := kwargs.Get("saltenv")
	if !ok || v == nil || !optBool(ctx.Opts, "lock_saltenv", false) {
		return nil
	}
	cur, _ := ctx.Opts.Get("saltenv")
	if cur == nil || value.Str(v) != value.Str(cur) {
		return &execmod.CommandExecutionError{Msg: "lock_saltenv is enabled, saltenv cannot be changed"}
	}
	return nil
}
