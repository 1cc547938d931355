package runners

// salt.go is salt/runners/salt.py: execution functions run on the master
// itself (salt.cmd) or on minions (salt.execute).

import (
	"errors"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	Register("salt.cmd", saltCmd, "Run the execution function fun on the master with the arguments that follow (with_pillar=True compiles the master minion's pillar first).")
	Register("salt.execute", saltExecute, "Run the execution function fun on the minions tgt selects and return their returns by minion id.")
}

func saltCmd(c *Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) == 0 && !kwargs.Has("fun") {
		return nil, &execmod.InvocationError{Msg: "cmd() missing 1 required positional argument: 'fun'"}
	}
	var fun string
	if len(args) > 0 {
		fun, args = execmod.String(args[0]), args[1:]
	} else {
		fun = execmod.String(mapGet(kwargs, "fun"))
	}
	// clean_kwargs: keyword arguments starting with "__" are dropped.
	kw := value.NewMap(kwargs.Len())
	kwargs.Range(func(k, v any) bool {
		if ks := execmod.String(k); !strings.HasPrefix(ks, "__") && ks != "fun" {
			kw.Set(k, v)
		}
		return true
	})
	withPillar, _ := kw.Delete("with_pillar")
	ctx, svc := c.masterMinion()
	if value.Truthy(withPillar) {
		compilePillar(ctx, svc)
	}
	if err := execmod.RunSetups(ctx); err != nil {
		return nil, err
	}
	defer closeServices(ctx)
	f, ok := ctx.Lookup(fun)
	if !ok {
		return MissingFunString(fun), nil
	}
	return f(ctx, args, kw)
}

// closeServices ends what a run's setups started (the Python worker).
func closeServices(ctx *execmod.Context) {
	if cl, ok := ctx.Service("pyext").(interface{ Close() error }); ok {
		_ = cl.Close()
	}
}

func saltExecute(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("execute", args, kwargs,
		execmod.Req("tgt"), execmod.Req("fun"), execmod.Opt("arg", nil), execmod.Opt("timeout", nil),
		execmod.Opt("tgt_type", "glob"), execmod.Opt("ret", ""), execmod.Opt("jid", ""), execmod.Opt("kwarg", nil))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[5]) {
		return nil, errors.New("returners (ret=) are not supported by brine's master")
	}
	spec := cmdSpec{tgt: execmod.String(v[0]), fun: execmod.String(v[1]), tgtType: execmod.String(v[4])}
	if l, ok := v[2].(*value.List); ok {
		spec.arg = l.Items
	} else if v[2] != nil {
		spec.arg = []any{v[2]}
	}
	if m, ok := v[7].(*value.Map); ok {
		spec.kwarg = m.Copy()
	}
	if t, ok := number(v[3]); ok {
		spec.timeout = t
	}
	res, err := c.cmd(spec)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(res.Len())
	res.Range(func(id, md any) bool {
		r, _ := md.(*value.Map).Get("ret")
		out.Set(id, r)
		return true
	})
	return out, nil
}
