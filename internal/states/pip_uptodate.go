package states

// pip_uptodate.go is salt/states/pip_state.py's pip.uptodate: upgrade
// every outdated package of a pip environment through pip.list_upgrades
// and pip.upgrade.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pip.uptodate",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("bin_env", nil), statemod.Opt("user", nil),
			statemod.Opt("cwd", nil), statemod.Opt("use_vt", false)},
		Doc: "Upgrade every outdated package of the pip environment bin_env (name is only a label).", Run: pipUptodate})
}

func pipUptodate(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), false, "Failed to update.")
	kw := value.MapOf("bin_env", c.Get("bin_env"), "user", c.Get("user"), "cwd", c.Get("cwd"))
	pkgs, err := c.Salt("pip.list_upgrades", nil, kw)
	if err != nil {
		ret.Set("comment", err.Error())
		return ret, nil
	}
	if !value.Truthy(pkgs) {
		ret.Set("comment", "System is already up-to-date.")
		ret.Set("result", true)
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "System update will be performed")
		ret.Set("result", nil)
		return ret, nil
	}
	kw.Set("use_vt", c.Get("use_vt"))
	up, err := c.Salt("pip.upgrade", nil, kw)
	if err != nil {
		return nil, err
	}
	m, _ := up.(*value.Map)
	switch r, _ := getMapKey(m, "result"); {
	case r == false:
		m.Range(func(k, v any) bool {
			ret.Set(k, v)
			return true
		})
	case value.Truthy(up):
		// Salt puts pip.upgrade's whole return under changes.
		ret.Set("changes", up)
		ret.Set("comment", "Upgrade successful.")
		ret.Set("result", true)
	default:
		ret.Set("comment", "Upgrade failed.")
	}
	return ret, nil
}

func getMapKey(m *value.Map, k string) (any, bool) {
	if m == nil {
		return nil, false
	}
	return m.Get(k)
}
