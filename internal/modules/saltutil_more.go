package modules

// saltutil_more.go is the rest of salt/modules/saltutil.py: sync_pillar,
// mmodule, update, cmd_iter, and the key functions regen_keys and
// revoke_auth, which reach the master through the run's MasterService
// (publish.go); without a master they fail as Salt's do (no master_uri).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/saltspec"
	"brine/internal/value"
)

func init() {
	execmod.Register("saltutil.sync_pillar", saltutilSyncPillar,
		"Sync custom pillar modules from salt://_pillar into the extension module cache (cachedir/extmods/pillar); only on "+
			"masterless minions (file_client: local). Refreshes pillar unless refresh=False; returns the 'pillar.<name>' entries copied.")
	execmod.Register("saltutil.mmodule", saltutilMmodule,
		"Run the execution function fun with the minion modules of saltenv: saltutil.mmodule SALTENV FUN [ARG ...] [KEY=VALUE ...].")
	execmod.Register("saltutil.update", saltutilUpdate,
		"Update the minion through Esky; brine, like a Salt that is not an Esky build, returns an _error.")
	execmod.Register("saltutil.cmd_iter", saltutilCmdIter,
		"As saltutil.cmd, publishing through the master beside this minion; salt-call prints the generator itself, a published "+
			"job gets the minions' returns by id.")
	execmod.Register("saltutil.regen_keys", saltutilRegenKeys,
		"Remove the files of the minion's pki_dir and create a new minion key (the master must accept it after the minion restarts).")
	execmod.Register("saltutil.revoke_auth", saltutilRevokeAuth,
		"Ask the master to delete this minion's key (allowed when its allow_minion_key_revoke is on); "+
			"revoke_auth [preserve_minion_cache=False]. True unless the master did not answer.")
}

// errNoMasterURI is what Salt raises where it reads the master's address
// a masterless minion lacks.
var errNoMasterURI = pyException("KeyError", "'master_uri'")

// pyException is an exception Salt's function lets through: salt-call
// prints its traceback; brine, as for its other such errors, the
// exception's last line.
func pyException(typ, msg string) error { return execmod.Errorf("%s: %s", typ, msg) }

func saltutilSyncPillar(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	req, err := syncArgs("sync_pillar", ctx, args, kwargs)
	if err != nil {
		return nil, err
	}
	refresh, _, _ := execmod.Bind("sync_pillar", args, kwargs, execmod.Opt("saltenv", nil), execmod.Opt("refresh", true),
		execmod.Opt("extmod_whitelist", nil), execmod.Opt("extmod_blacklist", nil))
	if v, _ := ctx.Opts.Get("file_client"); v != "local" {
		return nil, execmod.Errorf("Pillar modules can only be synced to masterless minions")
	}
	names, err := syncKind(ctx, "pillar", req)
	if err != nil {
		return nil, err
	}
	if value.Truthy(refresh[1]) {
		if _, err := saltutilRefreshPillar(ctx, nil, value.NewMap(0)); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func saltutilMmodule(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	kw := kwargs.Copy()
	var saltenv, fun any
	for _, p := range []struct {
		name string
		dst  *any
	}{{"saltenv", &saltenv}, {"fun", &fun}} {
		if len(args) > 0 {
			if kw.Has(p.name) {
				return nil, &execmod.TypeError{Msg: fmt.Sprintf("mmodule() got multiple values for argument '%s'", p.name)}
			}
			*p.dst, args = args[0], args[1:]
			continue
		}
		v, ok := kw.Delete(p.name)
		if !ok {
			missing := []string{"saltenv", "fun"}
			if p.name == "fun" {
				missing = missing[1:]
			}
			return nil, execmod.MissingArguments("mmodule", missing...)
		}
		*p.dst = v
	}
	roots, _ := ctx.Opts.Get("file_roots")
	rm, _ := roots.(*value.Map)
	if !rm.Has(saltenv) {
		return nil, pyException("KeyError", value.Repr(saltenv))
	}
	name := execmod.String(fun)
	if _, ok := registry(ctx).Lookup(name); !ok {
		return nil, pyException("KeyError", value.Repr(fun))
	}
	// the function is called directly, __pub_ data and all: one without
	// **kwargs refuses what it does not name, as Python does
	if fn, ok := saltspec.Lookup(saltspec.Exec, name); ok && !fn.TakesKwargs() {
		var bad string
		kw.Range(func(k, _ any) bool {
			if ks := value.Str(k); !fn.Accepts(ks) {
				bad = ks
				return false
			}
			return true
		})
		if bad != "" {
			return nil, &execmod.TypeError{Msg: fmt.Sprintf("%s() got an unexpected keyword argument '%s'", fn.Name, bad)}
		}
	}
	return ctx.Call(name, args, kw)
}

func saltutilUpdate(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("update", args, kwargsOf(kwargs), execmod.Opt("version", nil)); err != nil {
		return nil, err
	}
	return value.MapOf("_error", "Esky not available as import"), nil
}

// saltutilCmdIter is saltutil.cmd_iter. Salt's is a generator: salt-call
// prints it unconsumed, while a minion running a published job merges
// what it yields, one {minion: data} per minion, into saltutil.cmd's
// return.
func saltutilCmdIter(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("cmd_iter", args, kwargs, execmod.Req("tgt"), execmod.Req("fun"), execmod.Opt("arg", value.Tuple{}),
		execmod.Opt("timeout", nil), execmod.Opt("tgt_type", "glob"), execmod.Opt("ret", ""), execmod.Opt("kwarg", nil),
		execmod.Opt("ssh", false)); err != nil {
		return nil, err
	}
	if t, _ := kwargs.Get("__pub_tgt"); t == "salt-call" {
		return fmt.Sprintf("<generator object cmd_iter at %p>", &struct{ int }{}), nil
	}
	return saltutilCmd(ctx, args, kwargs)
}

func saltutilRegenKeys(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) > 0 {
		return nil, execmod.TooManyPositional("regen_keys", 0, 0, len(args))
	}
	pki := execmod.String(optGet(ctx, "pki_dir"))
	ents, err := os.ReadDir(pki)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, pyException("FileNotFoundError", fmt.Sprintf("[Errno 2] No such file or directory: '%s'", pki))
		}
		return nil, err
	}
	for _, e := range ents {
		_ = os.Remove(filepath.Join(pki, e.Name())) // directories stay, as with Salt's os.remove
	}
	svc, ok := masterService(ctx)
	if !ok {
		return nil, errNoMasterURI
	}
	if err := svc.RegenKey(pki); err != nil {
		return nil, err
	}
	return nil, nil
}

func saltutilRevokeAuth(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("revoke_auth", args, kwargsOf(kwargs), execmod.Opt("preserve_minion_cache", false))
	if err != nil {
		return nil, err
	}
	svc, ok := masterService(ctx)
	if !ok {
		return nil, errNoMasterURI
	}
	if err := svc.RevokeAuth(value.Truthy(v[0])); err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return false, nil
		}
		return nil, err
	}
	return true, nil
}
