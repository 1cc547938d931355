package states

// alternatives.go is salt/states/alternatives.py (alternatives.install,
// remove, auto, set) over update-alternatives, as
// salt/modules/alternatives.py runs it. Under a system root (tests) the
// commands get --altdir and --admindir inside it.

import (
	"fmt"
	"os/exec"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/alternatives"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "alternatives.install",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("link"), statemod.Req("path"), statemod.Req("priority")},
		Doc:    "Install a path as an alternative for name.", Run: altInstall})
	statemod.Register(&statemod.Function{Name: "alternatives.remove",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("path")},
		Doc:    "Remove a path from the alternatives of name.", Run: altRemove})
	statemod.Register(&statemod.Function{Name: "alternatives.auto", Params: []statemod.Param{statemod.Req("name")},
		Doc: "Put the alternatives of name in auto mode.", Run: altAuto})
	statemod.Register(&statemod.Function{Name: "alternatives.set",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("path")},
		Doc:    "Set the alternative of name to path.", Run: altSet})
}

func altCmd(c *statemod.Call, args ...string) (string, error) {
	argv := alternatives.Tool{Root: sysRoot(c)}.Argv(args...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// altDisplay is `update-alternatives --display name` ("" when unknown).
func altDisplay(c *statemod.Call, name string) string {
	out, err := altCmd(c, "--display", name)
	if err != nil {
		return ""
	}
	return out
}

// altPaths lists the registered alternatives of name.
func altPaths(c *statemod.Call, name string) []string {
	out, err := altCmd(c, "--list", name)
	if err != nil || out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func altExists(c *statemod.Call, name, path string) bool {
	return contains(altPaths(c, name), path)
}

// altCurrent is alternatives.show_current: the path the link points to.
func altCurrent(c *statemod.Call, name string) string {
	cur, _ := alternatives.Tool{Root: sysRoot(c)}.Current(name)
	return cur
}

func altInstall(c *statemod.Call) (*value.Map, error) {
	name, link, path := c.Name(), c.Str("link"), c.Str("path")
	priority := c.Get("priority")
	ret := value.MapOf("name", c.Get("name"), "link", c.Get("link"), "path", c.Get("path"), "priority", priority,
		"result", true, "changes", value.NewMap(0), "comment", "")
	if altExists(c, name, path) {
		ret.Set("comment", fmt.Sprintf("Alternative %s for %s is already registered", path, name))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("Alternative will be set for %s to %s with priority %s", name, path, value.Str(priority)))
		ret.Set("result", nil)
		return ret, nil
	}
	out, _ := altCmd(c, "--install", link, name, path, value.Str(priority))
	if !altExists(c, name, path) {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Alternative for %s not installed: %s", name, out))
		return ret, nil
	}
	if altCurrent(c, name) == path {
		ret.Set("comment", fmt.Sprintf("Alternative for %s set to path %s with priority %s", name, path, value.Str(priority)))
	} else {
		ret.Set("comment", fmt.Sprintf("Alternative %s for %s registered with priority %s and not set to default", path, name, value.Str(priority)))
	}
	ret.Set("changes", value.MapOf("name", c.Get("name"), "link", c.Get("link"), "path", c.Get("path"), "priority", priority))
	return ret, nil
}

func altRemove(c *statemod.Call) (*value.Map, error) {
	name, path := c.Name(), c.Str("path")
	ret := value.MapOf("name", c.Get("name"), "path", c.Get("path"), "result", true, "changes", value.NewMap(0), "comment", "")
	if altExists(c, name, path) {
		if c.Test {
			ret.Set("comment", "Alternative for "+name+" will be removed")
			ret.Set("result", nil)
			return ret, nil
		}
		altCmd(c, "--remove", name, path)
		if cur := altCurrent(c, name); cur != "" {
			ret.Set("comment", "Alternative for "+name+" removed. Falling back to path "+cur)
			ret.Set("changes", value.MapOf("path", cur))
			return ret, nil
		}
		ret.Set("comment", "Alternative for "+name+" removed")
		return ret, nil
	}
	if cur := altCurrent(c, name); cur != "" {
		ret.Set("comment", "Alternative for "+name+" is set to it's default path "+cur)
		return ret, nil
	}
	ret.Set("result", false)
	ret.Set("comment", "Alternative for "+name+" doesn't exist")
	return ret, nil
}

func altAuto(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "result", true, "comment", "", "changes", value.NewMap(0))
	display := altDisplay(c, name)
	if first, _, _ := strings.Cut(display, "\n"); strings.HasSuffix(first, " auto mode") {
		ret.Set("comment", name+" already in auto mode")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", name+" will be put in auto mode")
		ret.Set("result", nil)
		return ret, nil
	}
	out, _ := altCmd(c, "--auto", name)
	getv(ret, "changes").(*value.Map).Set("result", out)
	return ret, nil
}

func altSet(c *statemod.Call) (*value.Map, error) {
	name, path := c.Name(), c.Str("path")
	ret := value.MapOf("name", c.Get("name"), "path", c.Get("path"), "result", true, "changes", value.NewMap(0), "comment", "")
	if altCurrent(c, name) == path {
		ret.Set("comment", "Alternative for "+name+" already set to "+path)
		return ret, nil
	}
	if !altExists(c, name, path) {
		ret.Set("result", false)
		ret.Set("comment", "Alternative "+path+" for "+name+" doesn't exist")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Alternative for "+name+" will be set to path "+path)
		ret.Set("result", nil)
		return ret, nil
	}
	altCmd(c, "--set", name, path)
	if cur := altCurrent(c, name); cur == path {
		ret.Set("comment", "Alternative for "+name+" set to path "+cur)
		ret.Set("changes", value.MapOf("path", cur))
	} else {
		ret.Set("comment", "Alternative for "+name+" not updated")
	}
	return ret, nil
}
