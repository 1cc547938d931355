package runners

import (
	"strings"

	"brine/internal/execmod"
	"brine/internal/pyext"
	"brine/internal/value"
)

// masterSyncs are the master's saltutil.sync_* runners in sync_all's
// order: the key of sync_all's return, the function's name and the
// extension kind (directory) it syncs.
var masterSyncs = []struct{ key, fun, kind string }{
	{"clouds", "clouds", "clouds"}, {"modules", "modules", "modules"}, {"states", "states", "states"},
	{"grains", "grains", "grains"}, {"renderers", "renderers", "renderers"}, {"returners", "returners", "returners"},
	{"output", "output", "output"}, {"proxymodules", "proxymodules", "proxy"}, {"runners", "runners", "runners"},
	{"wheel", "wheel", "wheel"}, {"engines", "engines", "engines"}, {"thorium", "thorium", "thorium"},
	{"queues", "queues", "queues"}, {"pillar", "pillar", "pillar"}, {"utils", "utils", "utils"},
	{"sdb", "sdb", "sdb"}, {"cache", "cache", "cache"}, {"fileserver", "fileserver", "fileserver"},
	{"tops", "tops", "tops"}, {"tokens", "eauth_tokens", "tokens"}, {"serializers", "serializers", "serializers"},
	{"executors", "executors", "executors"}, {"roster", "roster", "roster"},
}

func init() {
	for _, s := range masterSyncs {
		Register("saltutil.sync_"+s.fun, func(c *Context, args []any, kwargs *value.Map) (any, error) {
			req, err := masterSyncArgs("sync_"+s.fun, args, kwargs)
			if err != nil {
				return nil, err
			}
			return masterSync(c, s.kind, req)
		}, "Sync salt://_"+s.kind+" of saltenv (base by default) into the master's extension module cache (extension_modules/"+s.kind+"); returns the '"+s.kind+".<name>' entries copied.")
	}
	Register("saltutil.sync_all", saltutilSyncAll,
		"Sync every kind of custom module from the file roots of saltenv (base by default) into the master's extension module cache; returns the entries copied, per kind.")
}

type masterSyncRequest struct {
	envs        []string
	allow, deny any
}

// masterSyncArgs binds the master's sync arguments: saltenv ("a,b" or a
// list; base by default), extmod_whitelist, extmod_blacklist.
func masterSyncArgs(fun string, args []any, kwargs *value.Map) (masterSyncRequest, error) {
	v, _, err := execmod.Bind(fun, args, kwargs,
		execmod.Opt("saltenv", "base"), execmod.Opt("extmod_whitelist", nil), execmod.Opt("extmod_blacklist", nil))
	if err != nil {
		return masterSyncRequest{}, err
	}
	req := masterSyncRequest{allow: v[1], deny: v[2]}
	switch e := v[0].(type) {
	case *value.List:
		for _, x := range e.Items {
			req.envs = append(req.envs, execmod.String(x))
		}
	default:
		req.envs = strings.Split(execmod.String(e), ",")
	}
	return req, nil
}

// masterSync is salt.utils.extmods.sync with the master's options: the
// files of salt://_<kind> copied into extension_modules/<kind>.
func masterSync(c *Context, kind string, req masterSyncRequest) (*value.List, error) {
	names, err := pyext.Sync(c.Opts, kind, req.envs, pyext.FilterOf(c.Opts, kind, req.allow, req.deny))
	if err != nil {
		return nil, err
	}
	out := value.NewList()
	for _, n := range names {
		out.Append(n)
	}
	return out, nil
}

func saltutilSyncAll(c *Context, args []any, kwargs *value.Map) (any, error) {
	req, err := masterSyncArgs("sync_all", args, kwargs)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(len(masterSyncs))
	for _, s := range masterSyncs {
		names, err := masterSync(c, s.kind, req)
		if err != nil {
			return nil, err
		}
		ret.Set(s.key, names)
	}
	return ret, nil
}
