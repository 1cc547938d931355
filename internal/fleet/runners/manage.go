package runners

// manage.go is salt/runners/manage.py: which minions answer, which are
// connected.

import (
	"errors"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fleet/keys"
	"brine/internal/grains"
	"brine/internal/value"
)

func init() {
	Register("manage.status", manageStatus, "Ping the minions tgt selects (all by default) and return those that answered under 'up' and the others under 'down'.")
	Register("manage.up", manageUp, "Ping the minions tgt selects and return the ids of those that answered.")
	Register("manage.down", manageDown, "Ping the minions tgt selects and return the ids of those that did not answer; removekeys=True deletes their keys.")
	Register("manage.versions", manageVersions, "Ask every minion its Salt version and group the minions by how it compares with the master's (Up to date, Minion requires update, Minion newer than master, Minion offline).")
	for _, n := range []string{"list_state", "present", "joined", "allowed", "alived", "reaped"} {
		Register("manage."+n, manageListState, "Return the accepted minions connected to the master now (optionally those in subset), without pinging them.")
	}
	for _, n := range []string{"list_not_state", "not_present", "not_joined", "not_allowed", "not_alived", "not_reaped"} {
		Register("manage."+n, manageListNotState, "Return the accepted minions not connected to the master now (optionally those in subset).")
	}
}

var pingParams = []execmod.Param{
	execmod.Opt("tgt", "*"), execmod.Opt("tgt_type", "glob"),
	execmod.Opt("timeout", nil), execmod.Opt("gather_job_timeout", nil),
}

// ping publishes test.ping and splits the targeted minions into those that
// returned and those that did not, both sorted (manage._ping).
func (c *Context) ping(tgt, tgtType string, timeout, gather any) (up, down []string, err error) {
	spec := cmdSpec{tgt: tgt, tgtType: tgtType, fun: "test.ping", expectMinions: true}
	if f, ok := number(timeout); ok && f > 0 {
		spec.timeout = f
	}
	if f, ok := number(gather); ok && f > 0 {
		spec.gather = f
	}
	res, err := c.cmd(spec)
	if err != nil {
		return nil, nil, err
	}
	res.Range(func(k, v any) bool {
		id := k.(string)
		if m, _ := v.(*value.Map); m != nil && m.Has("ret") {
			up = append(up, id)
		} else {
			down = append(down, id)
		}
		return true
	})
	return up, down, nil
}

func manageStatus(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("status", args, kwargs, append([]execmod.Param{execmod.Opt("output", true)}, pingParams...)...)
	if err != nil {
		return nil, err
	}
	up, down, err := c.ping(execmod.String(v[1]), execmod.String(v[2]), v[3], v[4])
	if err != nil {
		return nil, err
	}
	return value.MapOf("up", strList(up), "down", strList(down)), nil
}

func manageUp(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("up", args, kwargs, pingParams...)
	if err != nil {
		return nil, err
	}
	up, _, err := c.ping(execmod.String(v[0]), execmod.String(v[1]), v[2], v[3])
	if err != nil {
		return nil, err
	}
	return strList(up), nil
}

func manageDown(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("down", args, kwargs, append([]execmod.Param{execmod.Opt("removekeys", false)}, pingParams...)...)
	if err != nil {
		return nil, err
	}
	_, down, err := c.ping(execmod.String(v[1]), execmod.String(v[2]), v[3], v[4])
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[0]) && len(down) > 0 {
		store, err := c.keyStore()
		if err != nil {
			return nil, err
		}
		for _, id := range down {
			if _, err := keyDelete(store, id); err != nil {
				return nil, err
			}
		}
		c.reloadKeys()
	}
	return strList(down), nil
}

// connected returns the accepted minions and which of them are connected.
func (c *Context) connected() (accepted []string, absent map[string]bool, err error) {
	store, err := c.keyStore()
	if err != nil {
		return nil, nil, err
	}
	accepted, err = store.List(keys.Accepted)
	if err != nil {
		return nil, nil, err
	}
	conn, err := c.Client()
	if err != nil {
		return nil, nil, err
	}
	absent, known, err := conn.Presence(accepted)
	if err != nil {
		return nil, nil, err
	}
	if !known {
		return nil, nil, errors.New("the master cannot tell which minions are connected (an external NATS server it may not query)")
	}
	return accepted, absent, nil
}

// stateParams binds list_state's arguments; show_ip is refused: brine's
// master does not see the minions' addresses.
func stateParams(name string, args []any, kwargs *value.Map) (map[string]bool, error) {
	v, _, err := execmod.Bind(name, args, kwargs, execmod.Opt("subset", nil), execmod.Opt("show_ip", false))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[1]) {
		return nil, &execmod.InvocationError{Msg: "show_ip is not supported: brine's master does not know the minions' addresses"}
	}
	if v[0] == nil {
		return nil, nil
	}
	subset := map[string]bool{}
	switch x := v[0].(type) {
	case *value.List:
		for _, e := range x.Items {
			subset[execmod.String(e)] = true
		}
	default:
		for _, e := range strings.Split(execmod.String(x), ",") {
			subset[strings.TrimSpace(e)] = true
		}
	}
	return subset, nil
}

func manageListState(c *Context, args []any, kwargs *value.Map) (any, error) {
	subset, err := stateParams("list_state", args, kwargs)
	if err != nil {
		return nil, err
	}
	accepted, absent, err := c.connected()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range accepted {
		if !absent[id] && (subset == nil || subset[id]) {
			out = append(out, id)
		}
	}
	return strList(out), nil
}

func manageListNotState(c *Context, args []any, kwargs *value.Map) (any, error) {
	subset, err := stateParams("list_not_state", args, kwargs)
	if err != nil {
		return nil, err
	}
	accepted, absent, err := c.connected()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range accepted {
		if absent[id] && (subset == nil || subset[id]) {
			out = append(out, id)
		}
	}
	return strList(out), nil
}

// number reads a numeric argument (an int, a float or numeric text).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// versionLabels are manage.versions' headings by comparison result.
var versionLabels = map[int]string{
	-2: "Minion offline", -1: "Minion requires update", 0: "Up to date", 1: "Minion newer than master", 2: "Master",
}

func manageVersions(c *Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("versions", args, kwargs); err != nil {
		return nil, err
	}
	res, err := c.cmd(cmdSpec{tgt: "*", fun: "test.version"})
	if err != nil {
		return nil, err
	}
	return versionStatus(res, grains.SaltVersion), nil
}

// versionStatus groups the test.version returns in res (saltutil.cmd's
// shape) by comparison with the master's version, in the order the
// groups are first met, the master's own version last.
func versionStatus(res *value.Map, master string) *value.Map {
	groups := value.NewMap(0)
	res.Range(func(id, md any) bool {
		m, _ := md.(*value.Map)
		r, _ := m.Get("ret")
		var ver any = false
		diff := -2
		if s, ok := r.(string); ok && s != "" && !value.Truthy(mapGet(m, "retcode")) {
			ver, diff = s, compareVersions(s, master)
		}
		label := versionLabels[diff]
		g, ok := groups.Get(label)
		if !ok {
			g = value.NewMap(0)
			groups.Set(label, g)
		}
		g.(*value.Map).Set(id, ver)
		return true
	})
	groups.Set(versionLabels[2], master)
	return groups
}

// compareVersions compares dotted version numbers (3006.9 < 3006.10):
// -1, 0 or 1.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int64
		if i < len(pa) {
			x, _ = strconv.ParseInt(strings.TrimLeft(pa[i], "v"), 10, 64)
		}
		if i < len(pb) {
			y, _ = strconv.ParseInt(pb[i], 10, 64)
		}
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	return 0
}
