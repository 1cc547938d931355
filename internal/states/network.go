package states

// network.go is salt/states/network.py on Debian: network.managed (an
// interface's stanza in /etc/network/interfaces, its bonding options, and
// ifup/ifdown unless noifupdown), network.routes (its route scripts) and
// network.system (the global network settings). Each compares what the ip
// execution functions (internal/modules/debian_ip*.go) read with what they
// build, reports a unified diff, and applies what changed.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "network.managed", Params: []statemod.Param{statemod.Req("name"), statemod.Opt("enabled", true)},
		Kwargs: true, Doc: "Manage a network interface's configuration (and bring it up or down).", Run: networkManaged})
	statemod.Register(&statemod.Function{Name: "network.routes", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Manage the route scripts of a network interface.", Run: networkRoutes})
	statemod.Register(&statemod.Function{Name: "network.system", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Manage the global network settings.", Run: networkSystem})
}

// pyExceptionIs reports whether err stands for the Python exception class
// name (an error with a PythonType method).
func pyExceptionIs(err error, name string) bool {
	var pe interface{ PythonType() string }
	return errors.As(err, &pe) && pe.PythonType() == name
}

// stringLines reads a list of lines returned by an ip function.
func stringLines(v any) []string {
	l, _ := v.(*value.List)
	if l == nil {
		return nil
	}
	out := make([]string, 0, l.Len())
	for _, it := range l.Items {
		out = append(out, value.Str(it))
	}
	return out
}

// lineDiff is "\n".join(difflib.unified_diff(old, new, lineterm="")) on
// lines that keep their newlines: the header lines lose theirs.
func lineDiff(old, new []string) string {
	recs := fileops.SplitLines(fileops.UnifiedDiff(old, new, "", ""))
	for i, r := range recs {
		if i < 2 || strings.HasPrefix(r, "@@ ") {
			recs[i] = strings.TrimSuffix(r, "\n")
		}
	}
	return strings.Join(recs, "\n")
}

// networkKwargs is the call's **kwargs with test set from the run when the
// state does not give it.
func networkKwargs(c *statemod.Call, force bool) *value.Map {
	kw := c.ExtraKwargs()
	if force || !kw.Has("test") {
		kw.Set("test", c.Test)
	}
	return kw
}

func networkRoutes(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Interface "+name+" routes are up to date.")
	kw := networkKwargs(c, false)
	fail := func(err error) (*value.Map, error) {
		if pyExceptionIs(err, "AttributeError") {
			ret.Set("result", false)
			ret.Set("comment", err.Error())
			return ret, nil
		}
		return nil, err
	}
	o, err := c.Salt("ip.get_routes", []any{name}, nil)
	if err != nil {
		return fail(err)
	}
	n, err := c.Salt("ip.build_routes", []any{name}, kw)
	if err != nil {
		return fail(err)
	}
	if err := networkApply(c, ret, kw, stringLines(o), stringLines(n), "Interface "+name+" routes", "network_routes",
		"Added interface "+name+" routes.", true); err != nil {
		return fail(err)
	}
	return ret, nil
}

// networkApply is the end network.routes and network.system share: the
// lines of the settings now (old) and as built (new) are compared,
// reported in test mode, else applied with ip.apply_network_settings.
// what names the settings in comments; key and added are the change's
// key and its text for settings that were empty; comments is false where
// Salt leaves the comment as it was.
func networkApply(c *statemod.Call, ret, kw *value.Map, old, new []string, what, key, added string, comments bool) error {
	changes := getv(ret, "changes").(*value.Map)
	switch {
	case value.Truthy(getv(kw, "test")):
		switch {
		case slices.Equal(old, new):
		case len(old) == 0 && len(new) > 0:
			ret.Set("result", nil)
			ret.Set("comment", what+" are set to be added.")
		default:
			ret.Set("result", nil)
			ret.Set("comment", what+" are set to be updated:\n"+lineDiff(old, new))
		}
		return nil
	case len(old) == 0 && len(new) > 0:
		if comments {
			ret.Set("comment", what+" added.")
		}
		changes.Set(key, added)
	case !slices.Equal(old, new):
		if comments {
			ret.Set("comment", what+" updated.")
		}
		changes.Set(key, lineDiff(old, new))
	default:
		return nil
	}
	_, err := c.Salt("ip.apply_network_settings", nil, kw)
	return err
}

func networkSystem(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), true, "Global network settings are up to date.")
	kw := networkKwargs(c, true)
	fail := func(err error) (*value.Map, error) {
		if pyExceptionIs(err, "AttributeError") || pyExceptionIs(err, "KeyError") {
			ret.Set("result", false)
			ret.Set("comment", err.Error())
			return ret, nil
		}
		return nil, err
	}
	o, err := c.Salt("ip.get_network_settings", nil, nil)
	if err != nil {
		return fail(err)
	}
	n, err := c.Salt("ip.build_network_settings", nil, kw)
	if err != nil {
		return fail(err)
	}
	if err := networkApply(c, ret, kw, stringLines(o), stringLines(n), "Global network settings", "network_settings",
		"Added global network settings.", false); err != nil {
		return fail(err)
	}
	return ret, nil
}

// ifaceStatus is network.managed's check that name is up: an interface
// that is up, or the label of a secondary address (or of one of several
// loopback addresses).
func ifaceStatus(ifaces *value.Map, name string) bool {
	if e, ok := ifaces.GetString(name); ok {
		m, _ := e.(*value.Map)
		return value.Truthy(getv(m, "up"))
	}
	status := false
	ifaces.Range(func(k, e any) bool {
		m, _ := e.(*value.Map)
		labelled := func(key string, needMany bool) {
			l, _ := getv(m, key).(*value.List)
			if l == nil || (needMany && l.Len() <= 1) {
				return
			}
			for _, it := range l.Items {
				if im, ok := it.(*value.Map); ok && value.Str(getv(im, "label")) == name {
					status = true
				}
			}
		}
		labelled("secondary", false)
		if value.Str(k) == "lo" {
			labelled("inet", true)
			labelled("inet6", true)
		}
		return true
	})
	return status
}

func networkManaged(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	enabled := c.Bool("enabled")
	ret := statemod.Ret(c.Get("name"), true, "Interface "+name+" is up to date.")
	kw := networkKwargs(c, false)
	test := value.Truthy(getv(kw, "test"))
	ifaceType := "eth"
	if t, ok := kw.Get("type"); ok {
		ifaceType = value.Str(t)
		kw.Delete("type")
	}
	if addr, ok := kw.Get("addr"); ok {
		kw.Delete("addr")
		msg := "'addr' is not a valid argument name, "
		if !kw.Has("hwaddr") {
			msg += "its value has been assigned to 'hwaddr' instead."
			kw.Set("hwaddr", addr)
		} else {
			msg += "it has been ignored in favor of 'hwaddr'."
		}
		ret.Set("warnings", value.NewList(msg+" Update your SLS file to get rid of this warning."))
	}
	changes := getv(ret, "changes").(*value.Map)
	fail := func(err error) (*value.Map, error) {
		if pyExceptionIs(err, "AttributeError") {
			ret.Set("result", false)
			ret.Set("comment", err.Error())
			return ret, nil
		}
		return nil, err
	}
	// compare reports old against new as Salt's managed does for the
	// interface ("Interface") and the bond ("Bond interface").
	compare := func(what, key, added string, old, new []string) {
		switch {
		case test && len(old) == 0 && len(new) > 0:
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("%s %s is set to be added.", what, name))
		case test && !slices.Equal(old, new):
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("%s %s is set to be updated:\n%s", what, name, lineDiff(old, new)))
		case test:
		case len(old) == 0 && len(new) > 0:
			ret.Set("comment", fmt.Sprintf("%s %s added.", what, name))
			changes.Set(key, added)
		case !slices.Equal(old, new):
			ret.Set("comment", fmt.Sprintf("%s %s updated.", what, name))
			changes.Set(key, lineDiff(old, new))
		}
	}
	o, err := c.Salt("ip.get_interface", []any{name}, nil)
	if err != nil {
		return fail(err)
	}
	n, err := c.Salt("ip.build_interface", []any{name, ifaceType, enabled}, value.DeepCopy(kw).(*value.Map))
	if err != nil {
		return fail(err)
	}
	compare("Interface", "interface", "Added network interface.", stringLines(o), stringLines(n))
	if ifaceType == "source" {
		return ret, nil
	}
	if ifaceType == "bond" {
		o, err := c.Salt("ip.get_bond", []any{name}, nil)
		if err != nil {
			return fail(err)
		}
		n, err := c.Salt("ip.build_bond", []any{name}, value.DeepCopy(kw).(*value.Map))
		if err != nil {
			return fail(err)
		}
		compare("Bond interface", "bond", "Added bond "+name+".", stringLines(o), stringLines(n))
	}
	if test {
		return ret, nil
	}
	if strings.Contains(name, "range") {
		if changes.Len() == 0 {
			ret.Set("comment", "no change, passing it")
			return ret, nil
		}
		res, err := c.Salt("service.restart", []any{"network"}, nil)
		if err != nil {
			ret.Set("result", false)
			ret.Set("comment", err.Error())
			return ret, nil
		}
		ret.Set("result", res)
		ret.Set("comment", "network restarted for change of ranged interfaces")
		return ret, nil
	}
	noIfUpDown := kw.Has("noifupdown")
	ifs, err := c.Salt("network.interfaces", nil, nil)
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", err.Error())
		return ret, nil
	}
	ifm, _ := ifs.(*value.Map)
	if ifm == nil {
		ifm = value.NewMap(0)
	}
	up := ifaceStatus(ifm, name)
	run := func(fun string) error {
		_, err := c.Salt(fun, []any{name, ifaceType}, nil)
		return err
	}
	var runErr error
	switch {
	case noIfUpDown:
	case enabled && up && changes.Len() > 0:
		if runErr = run("ip.down"); runErr == nil {
			if runErr = run("ip.up"); runErr == nil {
				changes.Set("status", "Interface "+name+" restart to validate")
			}
		}
	case enabled && !up:
		if runErr = run("ip.up"); runErr == nil {
			changes.Set("status", "Interface "+name+" is up")
		}
	case !enabled && up:
		if runErr = run("ip.down"); runErr == nil {
			changes.Set("status", "Interface "+name+" down")
		}
	}
	if runErr != nil {
		ret.Set("result", false)
		ret.Set("comment", runErr.Error())
		return ret, nil
	}
	if ifaceType == "bond" && !noIfUpDown {
		if err := enslave(c, name, getv(kw, "slaves"), changes); err != nil {
			return nil, err
		}
	}
	if enabled && up {
		return ret, nil
	}
	if _, err := c.Salt("saltutil.refresh_grains", nil, nil); err != nil {
		return nil, err
	}
	return ret, nil
}

// enslave adds the bond's missing slaves with ifenslave.
func enslave(c *statemod.Call, name string, slaves any, changes *value.Map) error {
	if !value.Truthy(slaves) {
		return nil
	}
	out, err := c.Salt("cmd.run", []any{value.NewList("cat", "/sys/class/net/"+name+"/bonding/slaves")}, nil)
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, s := range strings.Fields(value.Str(out)) {
		present[s] = true
	}
	want := stringLines(slaves)
	if s, ok := slaves.(string); ok {
		want = strings.Fields(s)
	}
	var missing []string
	seen := map[string]bool{}
	for _, s := range want {
		if !present[s] && !seen[s] {
			missing = append(missing, s)
			seen[s] = true
		}
	}
	if len(missing) == 0 {
		return nil
	}
	path, err := c.Salt("cmd.run", []any{value.NewList("which", "ifenslave")}, nil)
	if err != nil {
		return err
	}
	if p := strings.TrimSpace(value.Str(path)); p != "" {
		args := value.NewList(p, name)
		for _, s := range missing {
			args.Append(s)
		}
		if _, err := c.Salt("cmd.run", []any{args}, value.MapOf("python_shell", false)); err != nil {
			return err
		}
	}
	changes.Set("enslave", fmt.Sprintf("Added slaves '%s' to master '%s'", strings.Join(missing, " "), name))
	return nil
}
