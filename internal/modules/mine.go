package modules

// mine.go is salt/modules/mine.py for a masterless minion: there is no
// mine to ask, so mine.get returns an empty mapping.

import (
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("mine.get", mineGet, "Return mine data of targeted minions: always empty without a master (mine.get tgt fun tgt_type=glob).")
	execmod.Register("mine.valid", mineValid, "Return the valid mine functions: none without a master.")
}

func mineGet(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get", args, kwargs, execmod.Req("tgt"), execmod.Req("fun"),
		execmod.Opt("tgt_type", "glob"), execmod.Opt("exclude_minion", false)); err != nil {
		return nil, err
	}
	return value.NewMap(0), nil
}

func mineValid(*execmod.Context, []any, *value.Map) (any, error) {
	return value.NewMap(0), nil
}
