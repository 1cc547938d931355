package modules

// mine_docker.go is mine.get_docker of salt/modules/mine.py: the
// docker.ps data of every minion in the mine (mine.get '*' docker.ps)
// turned into the addresses of the published container ports, by image
// and private port. The minions' mine_functions must send docker.ps with
// host=True, which adds the host's interfaces under "host".

import (
	"fmt"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("mine.get_docker", mineGetDocker,
		"Return the published ports of the containers in the mine's docker.ps data: {image: {'ipv4': {private_port: ['ip:public_port', ...]}}} [interfaces=...] [cidrs=...] [with_container_id=False].")
}

// pyItem is Python's obj[key] on mine data: KeyError for a missing key,
// TypeError for something that is not a mapping.
func pyItem(obj any, key any) (any, error) {
	m, ok := obj.(*value.Map)
	if !ok {
		return nil, netPyErrorf("TypeError", "'%s' object is not subscriptable", value.TypeName(obj))
	}
	v, ok := m.Get(key)
	if !ok {
		return nil, netPyErrorf("KeyError", "%s", value.Repr(key))
	}
	return v, nil
}

// pyMapItem is obj[key] as a mapping (AttributeError on .values() when not).
func pyMapItem(obj any, key any) (*value.Map, error) {
	v, err := pyItem(obj, key)
	if err != nil {
		return nil, err
	}
	m, ok := v.(*value.Map)
	if !ok {
		return nil, netPyErrorf("AttributeError", "'%s' object has no attribute 'values'", value.TypeName(v))
	}
	return m, nil
}

// asList is Salt's "a list as is, anything else a list of one".
func asList(v any) []any {
	if l, ok := v.(*value.List); ok {
		return l.Items
	}
	return []any{v}
}

// pyIter is iterating over v in Python: a list's items, a mapping's keys.
func pyIter(v any) ([]any, error) {
	switch x := v.(type) {
	case *value.List:
		return x.Items, nil
	case value.Tuple:
		return x, nil
	case *value.Map:
		return x.Keys(), nil
	}
	return nil, netPyErrorf("TypeError", "'%s' object is not iterable", value.TypeName(v))
}

// dockerHostIPs returns the IPv4 addresses of the host's interfaces (the
// ones named in interfaces when given), each once, in cidrs when given.
func dockerHostIPs(host any, interfaces, cidrs []any) ([]string, error) {
	ifaces, err := pyMapItem(host, "interfaces")
	if err != nil {
		return nil, err
	}
	var ips []string
	seen := map[string]bool{}
	add := func(info any) error {
		m, ok := info.(*value.Map)
		if !ok || !m.Has("inet") {
			return nil
		}
		inet, _ := m.Get("inet")
		items, err := pyIter(inet)
		if err != nil {
			return err
		}
		for _, it := range items {
			a, err := pyItem(it, "address")
			if err != nil {
				return err
			}
			if s := value.Str(a); !seen[s] {
				seen[s] = true
				ips = append(ips, s)
			}
		}
		return nil
	}
	if interfaces == nil {
		for _, k := range ifaces.Keys() {
			info, _ := ifaces.Get(k)
			if err := add(info); err != nil {
				return nil, err
			}
		}
	} else {
		for _, name := range interfaces {
			if info, ok := ifaces.Get(name); ok {
				if err := add(info); err != nil {
					return nil, err
				}
			}
		}
	}
	if cidrs == nil {
		return ips, nil
	}
	var good []string
	seen = map[string]bool{}
	for _, c := range cidrs {
		for _, ip := range ips {
			in, err := netInSubnetOf(value.Str(c), ip)
			if err != nil {
				return nil, err
			}
			if in && !seen[ip] {
				seen[ip] = true
				good = append(good, ip)
			}
		}
	}
	return good, nil
}

func mineGetDocker(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_docker", args, kwargs, execmod.Opt("interfaces", nil), execmod.Opt("cidrs", nil),
		execmod.Opt("with_container_id", false))
	if err != nil {
		return nil, err
	}
	var interfaces, cidrs []any
	if value.Truthy(v[0]) {
		interfaces = asList(v[0])
	}
	if value.Truthy(v[1]) {
		cidrs = asList(v[1])
	}
	withID := value.Truthy(v[2])
	hosts, err := ctx.Call("mine.get", []any{"*", "docker.ps"}, nil)
	if err != nil {
		return nil, err
	}
	hm, ok := hosts.(*value.Map)
	if !ok {
		return nil, netPyErrorf("AttributeError", "'%s' object has no attribute 'values'", value.TypeName(hosts))
	}
	proxy := value.NewMap(0)
	for _, id := range hm.Keys() {
		c, _ := hm.Get(id)
		containers, ok := c.(*value.Map)
		if !ok {
			return nil, netPyErrorf("AttributeError", "'%s' object has no attribute 'pop'", value.TypeName(c))
		}
		containers = containers.Copy()
		host, ok := containers.Delete("host")
		if !ok {
			return nil, netPyErrorf("KeyError", "'host'")
		}
		ips, err := dockerHostIPs(host, interfaces, cidrs)
		if err != nil {
			return nil, err
		}
		for _, k := range containers.Keys() {
			container, _ := containers.Get(k)
			if err := dockerPorts(proxy, container, ips, withID); err != nil {
				return nil, err
			}
		}
	}
	return proxy, nil
}

// dockerPorts adds the published ports of one container to proxy.
func dockerPorts(proxy *value.Map, container any, hostIPs []string, withID bool) error {
	info, err := pyItem(container, "Info")
	if err != nil {
		return err
	}
	id, err := pyItem(info, "Id")
	if err != nil {
		return err
	}
	image, err := pyItem(container, "Image")
	if err != nil {
		return err
	}
	if !proxy.Has(image) {
		proxy.Set(image, value.NewMap(0))
	}
	byImage, _ := proxy.Get(image)
	ports, err := pyItem(container, "Ports")
	if err != nil {
		return err
	}
	items, err := pyIter(ports)
	if err != nil {
		return err
	}
	for _, port := range items {
		pm, ok := port.(*value.Map)
		if !ok {
			return netPyErrorf("AttributeError", "'%s' object has no attribute 'get'", value.TypeName(port))
		}
		ip, _ := pm.Get("IP")
		var addrs []any
		switch {
		case ip == "0.0.0.0":
			for _, h := range hostIPs {
				addrs = append(addrs, h)
			}
		case value.Truthy(ip):
			addrs = []any{ip}
		}
		for _, a := range addrs {
			private, err := pyItem(pm, "PrivatePort")
			if err != nil {
				return err
			}
			public, err := pyItem(pm, "PublicPort")
			if err != nil {
				return err
			}
			ipv4 := setDefaultMap(byImage.(*value.Map), "ipv4")
			list, _ := ipv4.Get(private)
			l, ok := list.(*value.List)
			if !ok {
				l = value.NewList()
				ipv4.Set(private, l)
			}
			var entry any = fmt.Sprintf("%s:%s", value.Str(a), value.Str(public))
			if withID {
				entry = value.Tuple{entry, id}
			}
			if !listHas(l, entry) {
				l.Append(entry)
			}
		}
	}
	return nil
}

// listHas is Python's "x in list".
func listHas(l *value.List, x any) bool {
	for _, it := range l.Items {
		if value.Equal(it, x) {
			return true
		}
	}
	return false
}

// setDefaultMap is m.setdefault(key, {}).
func setDefaultMap(m *value.Map, key string) *value.Map {
	if v, ok := m.Get(key); ok {
		if sub, ok := v.(*value.Map); ok {
			return sub
		}
	}
	sub := value.NewMap(0)
	m.Set(key, sub)
	return sub
}
