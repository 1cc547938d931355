package runners

import (
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	Register("mine.get", mineGet,
		"Gather the mine data of function fun (a name, 'a,b' or a list) from the minions tgt selects, as the master's own minion may read it (mine_get and allow_tgt apply).")
	Register("mine.update", mineUpdate,
		"Tell the minions tgt selects to update their mine data (mine.update on them; clear and mine_functions passed on).")
}

// mineGet is Salt's mine.get runner: masterapi's _mine_get with the
// master's own id as the requester.
func mineGet(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs,
		execmod.Req("tgt"), execmod.Req("fun"), execmod.Opt("tgt_type", "glob"))
	if err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.Mine(c.MinionID(), execmod.String(v[0]), execmod.String(v[2]), v[1])
}

// mineUpdate is Salt's mine.update runner: salt.execute of mine.update on
// the target.
func mineUpdate(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("update", args, kwargs,
		execmod.Req("tgt"), execmod.Opt("tgt_type", "glob"), execmod.Opt("clear", false), execmod.Opt("mine_functions", nil))
	if err != nil {
		return nil, err
	}
	kw := value.MapOf("tgt_type", v[1], "clear", v[2], "mine_functions", v[3])
	return c.Call("salt.execute", []any{v[0], "mine.update"}, kw)
}
