package modules

// saltutil_master.go is saltutil.runner and saltutil.wheel of
// salt/modules/saltutil.py: a minion beside its master runs the master's
// runner and wheel functions in-process, with the master's options read
// from the master file next to the minion's config file. The functions
// themselves live in internal/fleet/runners, which plugs them in through
// internal/catalog.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"brine/internal/catalog"
	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	execmod.Register("saltutil.runner", saltutilRunner,
		"Run the master's runner function name in-process (on a minion beside its master: the master file next to the "+
			"minion's config): saltutil.runner NAME [arg=LIST] [kwarg=MAPPING] [full_return=True] [saltenv=ENV] [KEY=VALUE ...]; "+
			"the keyword arguments join kwarg. Returns the runner's return, or the whole job data with full_return.")
	execmod.Register("saltutil.cmd", saltutilCmd,
		"Publish a job through the master beside this minion (the master file next to the minion's config) and return "+
			"the minions' returns by id ({ret, out, retcode, jid}): saltutil.cmd TGT FUN [arg=LIST] [timeout=SECONDS] "+
			"[tgt_type=glob] [kwarg=MAPPING]. No ssh, returners, batch or subset.")
	execmod.Register("saltutil.wheel", saltutilWheel,
		"Run the master's wheel function name in-process (on a minion beside its master): saltutil.wheel NAME [ARG ...] [KEY=VALUE ...], "+
			"e.g. saltutil.wheel key.accept jerry. Returns the job data: fun, jid, user, fun_args, return, success.")
}

// masterClients returns the master's clients, or Salt's failure when this
// program has none.
func masterClients() (catalog.Master, error) {
	m := catalog.MasterClients()
	if m == nil {
		return nil, execmod.Errorf("saltutil.runner, saltutil.wheel and saltutil.cmd need the master's clients, which this program does not include")
	}
	return m, nil
}

// masterOpts reads the master's options from the master file in the
// directory of the minion's config file (Salt's master_config of
// dirname(conf_file)/master; missing means the master's defaults).
func masterOpts(ctx *execmod.Context) (*value.Map, error) {
	confFile := execmod.String(optGet(ctx, "conf_file"))
	cfg, err := config.LoadMaster(filepath.Dir(confFile), nil)
	if err != nil {
		return nil, err
	}
	return cfg.Opts(), nil
}

func optGet(ctx *execmod.Context, k string) any {
	if ctx.Opts == nil {
		return nil
	}
	v, _ := ctx.Opts.Get(k)
	return v
}

// pubUser is the user of the publication (__pub_user), "UNKNOWN" when
// the call has none (salt-call).
func pubUser(kwargs *value.Map) string {
	if u, ok := kwargs.Get("__pub_user"); ok {
		return execmod.String(u)
	}
	return "UNKNOWN"
}

// clientArgs is the client's parse_input of arg: key=value strings and
// mappings marked __kwarg__ become keyword arguments, other strings are
// typed as on the command line.
func clientArgs(arg []any, kwarg *value.Map) ([]any, *value.Map) {
	var args []any
	kw := value.NewMap(0)
	for _, a := range arg {
		switch x := a.(type) {
		case string:
			if name, val, ok := yamlload.ParseKwarg(x); ok {
				kw.Set(name, yamlload.LoadArg(val))
			} else {
				args = append(args, yamlload.LoadArg(x))
			}
		case *value.Map:
			if m, ok := x.Get("__kwarg__"); ok && m == true {
				x.Range(func(k, v any) bool {
					if k != "__kwarg__" {
						kw.Set(k, v)
					}
					return true
				})
			} else {
				args = append(args, x)
			}
		default:
			args = append(args, x)
		}
	}
	kw.Update(kwarg)
	return args, kw
}

func saltutilRunner(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("saltutil.runner", args, kwargs, execmod.Req("name"), execmod.Opt("arg", nil),
		execmod.Opt("kwarg", nil), execmod.Opt("full_return", false), execmod.Opt("saltenv", "base"), execmod.Opt("jid", nil))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	arg, kwarg, saltenv, jid := v[1], v[2], v[4], v[5]
	if j, ok := rest.Delete("__orchestration_jid__"); ok {
		jid = j
	}
	if e, ok := rest.Delete("__env__"); ok {
		saltenv = e
	}
	user := pubUser(kwargs)
	extra := value.NewMap(0)
	rest.Range(func(k, val any) bool {
		if !strings.HasPrefix(execmod.String(k), "__") {
			extra.Set(k, val)
		}
		return true
	})
	if arg == nil {
		arg = value.NewList()
	}
	if kwarg == nil {
		kwarg = value.NewMap(0)
	}
	km, isMap := kwarg.(*value.Map)
	if isMap {
		km = km.Copy()
		kwarg = km
	}
	if extra.Len() > 0 {
		if !isMap {
			return nil, fmt.Errorf("'%s' object has no attribute 'update'", pyops.TypeName(kwarg))
		}
		km.Update(extra)
	}
	m, err := masterClients()
	if err != nil {
		return nil, err
	}
	opts := ctx.Opts
	if _, ok := optMap(ctx).Get("master_job_cache"); !ok {
		if opts, err = masterOpts(ctx); err != nil {
			return nil, err
		}
	}
	if isMap {
		if m.Has(catalog.Runners, name) && m.TakesSaltenv(catalog.Runners, name) {
			km.Set("saltenv", saltenv)
		}
		switch name {
		case "state.orchestrate", "state.orch", "state.sls":
			km.Set("orchestration_jid", jid)
		}
	}
	if jid != nil {
		fireArgs(ctx, jid, value.MapOf("type", "runner", "name", name, "args", arg, "kwargs", kwarg))
	}
	// the client's checks, in its order
	al, ok := arg.(*value.List)
	if !ok {
		return nil, &execmod.InvocationError{Msg: "arg must be formatted as a list/tuple"}
	}
	if !isMap {
		return nil, &execmod.InvocationError{Msg: "kwarg must be formatted as a dictionary"}
	}
	if !m.Has(catalog.Runners, name) {
		return nil, execmod.Errorf("'%s' is not available.", name)
	}
	cargs, ckw := clientArgs(al.Items, km)
	// the runner takes **kwargs in Salt's sense when it reads them: brine's
	// runners drop the publication data they do not use
	ckw.Set("__pub_user", user)
	data := m.Low(context.Background(), catalog.MasterCall{Client: catalog.Runners, Fun: name, Arg: cargs, Kwarg: ckw, User: user, Opts: opts})
	if value.Truthy(v[3]) {
		return data, nil
	}
	ret, _ := data.Get("return")
	return ret, nil
}

func saltutilWheel(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) == 0 && !kwargs.Has("name") {
		return nil, execmod.MissingArguments("saltutil.wheel", "name")
	}
	var name string
	if len(args) > 0 {
		if kwargs.Has("name") {
			return nil, &execmod.TypeError{Msg: "wheel() got multiple values for argument 'name'"}
		}
		name, args = execmod.String(args[0]), args[1:]
	} else {
		name = execmod.String(mapOr(kwargs, "name"))
	}
	jid, _ := kwargs.Get("__orchestration_jid__")
	saltenv, ok := kwargs.Get("__env__")
	if !ok {
		saltenv = "base"
	}
	user := pubUser(kwargs)
	valid := value.NewMap(0)
	kwargs.Range(func(k, v any) bool {
		if ks := execmod.String(k); ks != "name" && !strings.HasPrefix(ks, "__") {
			valid.Set(k, v)
		}
		return true
	})
	m, err := masterClients()
	if err != nil {
		return nil, err
	}
	opts := ctx.Opts
	if execmod.String(optGet(ctx, "__role")) == "minion" {
		if opts, err = masterOpts(ctx); err != nil {
			return nil, err
		}
	}
	if m.Has(catalog.Wheel, name) && m.TakesSaltenv(catalog.Wheel, name) {
		valid.Set("saltenv", saltenv)
	}
	if !m.Has(catalog.Wheel, name) {
		return nil, execmod.Errorf("'%s' is not available.", name)
	}
	if jid != nil {
		fireArgs(ctx, jid, value.MapOf("type", "wheel", "name", name, "args", valid))
	}
	cargs, ckw := clientArgs(args, valid)
	return m.Low(context.Background(), catalog.MasterCall{Client: catalog.Wheel, Fun: name, Arg: cargs, Kwarg: ckw, User: user, Opts: opts}), nil
}

// fireArgs is Salt's fire_args: the arguments of an orchestration step on
// the minion's bus as salt/run/<jid>/args (nothing when the run has no
// bus, as with salt-call --local).
func fireArgs(ctx *execmod.Context, jid any, data *value.Map) {
	if s := eventService(ctx); s != nil {
		s.FireLocal(fmt.Sprintf("salt/run/%s/args", execmod.String(jid)), data)
	}
}

func optMap(ctx *execmod.Context) *value.Map {
	if ctx.Opts == nil {
		return value.NewMap(0)
	}
	return ctx.Opts
}

func mapOr(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

func saltutilCmd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("saltutil.cmd", args, kwargs, execmod.Req("tgt"), execmod.Req("fun"), execmod.Opt("arg", value.NewList()),
		execmod.Opt("timeout", nil), execmod.Opt("tgt_type", "glob"), execmod.Opt("ret", ""), execmod.Opt("kwarg", nil), execmod.Opt("ssh", false))
	if err != nil {
		return nil, err
	}
	switch {
	case value.Truthy(v[7]):
		return nil, execmod.Errorf("saltutil.cmd: brine has no salt-ssh client (ssh=True)")
	case execmod.String(v[5]) != "":
		return nil, execmod.Errorf("saltutil.cmd: brine's published jobs take no returner (ret=%s)", execmod.String(v[5]))
	case rest.Has("batch") || rest.Has("subset"):
		return nil, execmod.Errorf("saltutil.cmd: brine has no batch or subset runs here")
	}
	tgt := v[0]
	if l, ok := tgt.(*value.List); ok {
		ids := make([]string, len(l.Items))
		for i, x := range l.Items {
			ids[i] = execmod.String(x)
		}
		tgt = strings.Join(ids, ",")
	}
	var arg []any
	switch a := v[2].(type) {
	case *value.List:
		arg = a.Items
	case nil:
	default:
		arg = []any{a}
	}
	kwarg, _ := v[6].(*value.Map)
	if v[6] != nil && kwarg == nil {
		return nil, &execmod.InvocationError{Msg: "kwarg must be formatted as a dictionary"}
	}
	var timeout float64
	if v[3] != nil {
		f, err := pyops.Float(v[3])
		if err != nil {
			return nil, err
		}
		timeout = f
	}
	m, err := masterClients()
	if err != nil {
		return nil, err
	}
	opts, err := masterOpts(ctx)
	if err != nil {
		return nil, err
	}
	ret, err := m.Cmd(context.Background(), opts, catalog.CmdCall{Tgt: execmod.String(tgt), TgtType: execmod.String(v[4]),
		Fun: execmod.String(v[1]), Arg: arg, Kwarg: kwarg, Timeout: timeout})
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return ret, nil
}
