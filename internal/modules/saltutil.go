package modules

// saltutil.go is the part of salt/modules/saltutil.py brine has:
// saltutil.refresh_pillar.

import (
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("saltutil.refresh_pillar", saltutilRefreshPillar,
		"Ask the running minion to refresh its pillar; false when no minion listens (salt-call --local).")
}

// saltutilRefreshPillar fires Salt's pillar_refresh event. A local run has no
// minion process listening for it, so firing fails and, as Salt does under
// salt-call --local, the function returns false. With wait=True Salt waits
// for the completion event, which never comes either: false as well.
func saltutilRefreshPillar(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("refresh_pillar", args, kwargs,
		execmod.Opt("wait", false),
		execmod.Opt("timeout", int64(30)),
		execmod.Opt("clean_cache", true),
	); err != nil {
		return nil, err
	}
	return false, nil
}
