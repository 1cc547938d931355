package states

// ssh_known_hosts.go is salt/states/ssh_known_hosts.py, on top of the
// ssh.* execution functions.

import (
	"fmt"
	"path/filepath"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "ssh_known_hosts.present", Run: sshKnownHostsPresent,
		Doc: "Verify that the specified host is known by the specified user.",
		Params: []statemod.Param{statemod.Req("name"), p("user", nil), p("fingerprint", nil), p("key", nil), p("port", nil),
			p("enc", nil), p("config", nil), p("hash_known_hosts", true), p("timeout", int64(5)), p("fingerprint_hash_type", nil)}})
	statemod.Register(&statemod.Function{Name: "ssh_known_hosts.absent", Run: sshKnownHostsAbsent,
		Doc:    "Verify that the specified host is not known by the given user.",
		Params: []statemod.Param{statemod.Req("name"), p("user", nil), p("config", nil)}})
}

// knownHostsConfig is the states' default config: the system file without
// a user, ~/.ssh/known_hosts with one; "" with Salt's error when no user
// is given and config is relative.
func knownHostsConfig(c *statemod.Call) (string, bool) {
	config := c.Str("config")
	if !value.Truthy(c.Get("user")) {
		if config == "" {
			config = "/etc/ssh/ssh_known_hosts"
		}
		return config, filepath.IsAbs(config)
	}
	if config == "" {
		config = ".ssh/known_hosts"
	}
	return config, true
}

func mapStr(m *value.Map, k string) string {
	v, _ := m.Get(k)
	return value.Str(v)
}

func sshKnownHostsPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	var res any = true
	if c.Test {
		res = nil
	}
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", res, "comment", "")
	config, ok := knownHostsConfig(c)
	if !ok {
		return fileErr(ret, `If not specifying a "user", specify an absolute "config".`)
	}
	key, fp := c.Get("key"), c.Get("fingerprint")
	if c.Test {
		switch {
		case value.Truthy(key) && value.Truthy(fp):
			return fileErr(ret, `Specify either "key" or "fingerprint", not both.`)
		case value.Truthy(key) && !value.Truthy(c.Get("enc")):
			return fileErr(ret, `Required argument "enc" if using "key" argument.`)
		}
		out, err := c.Salt("ssh.check_known_host", []any{c.Get("user"), name}, value.MapOf("key", key, "fingerprint", fp,
			"config", config, "port", c.Get("port"), "fingerprint_hash_type", c.Get("fingerprint_hash_type")))
		if err != nil {
			return fileErr(ret, fmt.Sprintf("ssh.check_known_host error: %v", err))
		}
		switch out {
		case "exists":
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("Host %s is already in %s", value.Str(name), config))
		case "add":
			ret.Set("comment", fmt.Sprintf("Key for %s is set to be added to %s", value.Str(name), config))
		default:
			ret.Set("comment", fmt.Sprintf("Key for %s is set to be updated in %s", value.Str(name), config))
		}
		return ret, nil
	}
	out, err := c.Salt("ssh.set_known_host", nil, value.MapOf("user", c.Get("user"), "hostname", name, "fingerprint", fp,
		"key", key, "port", c.Get("port"), "enc", c.Get("enc"), "config", config, "hash_known_hosts", c.Get("hash_known_hosts"),
		"timeout", c.Get("timeout"), "fingerprint_hash_type", c.Get("fingerprint_hash_type")))
	if err != nil {
		return nil, err
	}
	r, ok := out.(*value.Map)
	if !ok {
		return nil, fmt.Errorf("ssh.set_known_host returned %s", value.Repr(out))
	}
	switch mapStr(r, "status") {
	case "exists":
		ret.Set("comment", fmt.Sprintf("%s already exists in %s", value.Str(name), config))
		return ret, nil
	case "error":
		return fileErr(ret, mapStr(r, "error"))
	}
	oldV, _ := r.Get("old")
	newV, _ := r.Get("new")
	ret.Set("changes", value.MapOf("old", oldV, "new", newV))
	first := value.NewMap(0)
	if l, ok := newV.(*value.List); ok && len(l.Items) > 0 {
		first, _ = l.Items[0].(*value.Map)
	}
	if value.Truthy(key) {
		ret.Set("comment", fmt.Sprintf("%s's key saved to %s (key: %s)", value.Str(name), config, mapStr(first, "key")))
	} else {
		ret.Set("comment", fmt.Sprintf("%s's key saved to %s (fingerprint: %s)", value.Str(name), config, mapStr(first, "fingerprint")))
	}
	return ret, nil
}

func sshKnownHostsAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	config, ok := knownHostsConfig(c)
	if !ok {
		return fileErr(ret, `If not specifying a "user", specify an absolute "config".`)
	}
	known, err := c.Salt("ssh.get_known_host_entries", nil, value.MapOf("user", c.Get("user"), "hostname", name, "config", config))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(known) {
		ret.Set("comment", "Host is already absent")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("Key for %s is set to be removed from %s", value.Str(name), config))
		return ret, nil
	}
	out, err := c.Salt("ssh.rm_known_host", nil, value.MapOf("user", c.Get("user"), "hostname", name, "config", config))
	if err != nil {
		return nil, err
	}
	r, _ := out.(*value.Map)
	if r == nil {
		return nil, fmt.Errorf("ssh.rm_known_host returned %s", value.Repr(out))
	}
	if mapStr(r, "status") == "error" {
		return fileErr(ret, mapStr(r, "error"))
	}
	cm, _ := r.Get("comment")
	ret.Set("changes", value.MapOf("old", known, "new", nil))
	ret.Set("result", true)
	ret.Set("comment", cm)
	return ret, nil
}
