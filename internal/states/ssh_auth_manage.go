package states

// ssh_auth_manage.go is salt/states/ssh_auth.py's ssh_auth.manage: the
// keys given are made present (ssh_auth.present for each) and the other
// keys of the user's default authorized_keys file removed
// (ssh_auth.absent).

import (
	"errors"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "ssh_auth.manage",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("ssh_keys"), statemod.Req("user"),
			statemod.Opt("enc", "ssh-rsa"), statemod.Opt("comment", ""), statemod.Opt("source", ""),
			statemod.Opt("options", nil), statemod.Opt("config", ".ssh/authorized_keys"),
			statemod.Opt("fingerprint_hash_type", nil)},
		Kwargs: true,
		Doc:    "Ensure that exactly the SSH keys given are in the user's authorized keys.",
		Run:    sshAuthManage})
}

// sshAuthSub calls the state function full with args, as manage calls
// present and absent.
func sshAuthSub(c *statemod.Call, full string, args *value.Map) (*value.Map, error) {
	f, ok := statemod.Default.Lookup(full)
	if !ok {
		return nil, errors.New("state function " + full + " is not registered")
	}
	bound, _ := f.BindArgs(args)
	nc := *c
	nc.Fun, nc.Args = f, bound
	return f.Run(&nc)
}

func sshAuthManage(c *statemod.Call) (*value.Map, error) {
	user := c.Get("user")
	ret := value.MapOf("name", "", "changes", value.NewMap(0), "result", true, "comment", "")
	changes := getv(ret, "changes").(*value.Map)
	keys, ok := c.Get("ssh_keys").(*value.List)
	if !ok {
		return nil, errors.New("ssh_keys must be a list of keys")
	}
	potential := map[string]bool{}
	for _, k := range keys.Items {
		for _, f := range strings.Split(value.Str(k), " ") {
			potential[f] = true
		}
	}
	existing, err := c.Salt("ssh.auth_keys", nil, value.MapOf("user", user))
	if err != nil {
		return nil, err
	}
	if m, ok := existing.(*value.Map); ok {
		for _, k := range m.Keys() {
			key := value.Str(k)
			if potential[key] {
				continue
			}
			if c.Test {
				ret.Set("comment", key+" Key set for removal")
				ret.Set("result", nil)
				continue
			}
			r, err := sshAuthSub(c, "ssh_auth.absent", value.MapOf("name", key, "user", user))
			if err != nil {
				return nil, err
			}
			changes.Set(key, getv(r, "comment"))
		}
	}
	for _, k := range keys.Items {
		args := c.Args.Copy()
		args.Delete("ssh_keys")
		args.Set("name", k)
		r, err := sshAuthSub(c, "ssh_auth.present", args)
		if err != nil {
			return nil, err
		}
		if rc, _ := getv(r, "changes").(*value.Map); rc != nil && rc.Len() > 0 {
			changes.Update(rc)
		} else {
			ret.Set("comment", strings.TrimSpace(value.Str(getv(ret, "comment"))+"\n"+value.Str(getv(r, "comment"))))
		}
		switch res := getv(r, "result"); {
		case res == nil:
			ret.Set("result", nil)
		case !value.Truthy(res):
			ret.Set("result", false)
		}
	}
	return ret, nil
}
