package states

// pkg_held.go is pkg.held and pkg.unheld of salt/states/pkg.py on the
// Debian family, where Salt reads the holds from pkg.get_selections and
// changes them with pkg.hold and pkg.unhold (other families, and runs
// with a package manager of their own attached, use the manager's holds:
// pkgHeldStateGeneric).

import (
	"fmt"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

func pkgHeldState(c *statemod.Call, hold bool) (*value.Map, error) {
	injected := false
	if c.Env != nil && c.Env.Exec != nil {
		_, injected = c.Env.Exec.Service(pkgManagerService).(pkgmgr.Manager)
	}
	if osFamily(c) != "Debian" || injected {
		return pkgHeldStateGeneric(c, hold)
	}
	if hold {
		return pkgHeldDebian(c)
	}
	return pkgUnheldDebian(c)
}

// dpkgHolds is the held packages in dpkg's selections, in its order.
func dpkgHolds(c *statemod.Call) ([]string, error) {
	r, err := c.Salt("pkg.get_selections", nil, value.MapOf("state", "hold"))
	if err != nil {
		return nil, err
	}
	var out []string
	if m, ok := r.(*value.Map); ok {
		if l, ok := getv(m, "hold").(*value.List); ok {
			for _, x := range l.Items {
				out = append(out, value.Str(x))
			}
		}
	}
	return out, nil
}

// holdEntry is the first (name, version) of a pkgs item.
func holdEntry(p any) (string, any) {
	if m, ok := p.(*value.Map); ok && m.Len() > 0 {
		k, v := m.At(0)
		return value.Str(k), v
	}
	return value.Str(p), nil
}

func dpkgHoldEntry(r any, name string) *value.Map {
	if m, ok := r.(*value.Map); ok {
		if e, ok := getv(m, name).(*value.Map); ok {
			return e
		}
	}
	return value.NewMap(0)
}

func versionNote(v any) string {
	if !value.Truthy(v) {
		return ""
	}
	return fmt.Sprintf(" (version = %s)", value.Str(v))
}

func pkgHeldDebian(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	pkgs, replace := c.Get("pkgs"), c.Bool("replace")
	if l, ok := pkgs.(*value.List); ok && l.Len() == 0 && !replace {
		return value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "No packages to be held provided"), nil
	}
	if value.Truthy(name) && pkgs == nil {
		if v := c.Get("version"); value.Truthy(v) {
			pkgs = value.NewList(value.MapOf(name, v))
		} else {
			pkgs = value.NewList(name)
		}
	}
	locks, err := dpkgHolds(c)
	if err != nil {
		return nil, err
	}
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	changes := value.NewMap(0)
	var comments []string
	held := map[string]bool{}
	l, _ := pkgs.(*value.List)
	if l == nil {
		l = value.NewList()
	}
	for _, p := range l.Items {
		pname, pver := holdEntry(p)
		held[pname] = true
		if contains(locks, pname) {
			continue
		}
		if c.Test {
			comments = append(comments, "The following package would be held: "+pname+versionNote(pver))
			continue
		}
		hr, err := c.Salt("pkg.hold", nil, value.MapOf("name", name, "pkgs", value.NewList(p)))
		if err != nil {
			return nil, err
		}
		if value.Truthy(getv(dpkgHoldEntry(hr, pname), "result")) {
			comments = append(comments, "Package "+pname+" is now being held")
		} else {
			ret.Set("result", false)
			comments = append(comments, "Package "+pname+" was not held")
		}
		if m, ok := hr.(*value.Map); ok {
			changes.Update(m)
		}
	}
	if replace {
		for _, lk := range locks {
			if held[lk] {
				continue
			}
			if c.Test {
				comments = append(comments, "The following package would be unheld: "+lk)
				continue
			}
			if err := unholdInto(c, name, lk, ret, changes, &comments); err != nil {
				return nil, err
			}
		}
	}
	return finishHeld(ret, changes, comments), nil
}

// unholdInto runs pkg.unhold for one package and records its outcome.
func unholdInto(c *statemod.Call, name any, pkg string, ret, changes *value.Map, comments *[]string) error {
	ur, err := c.Salt("pkg.unhold", nil, value.MapOf("name", name, "pkgs", value.NewList(pkg)))
	if err != nil {
		return err
	}
	e := dpkgHoldEntry(ur, pkg)
	if !value.Truthy(getv(e, "result")) {
		ret.Set("result", false)
	}
	if cm := value.Str(getv(e, "comment")); value.Truthy(getv(e, "comment")) {
		*comments = append(*comments, cm)
	}
	if m, ok := ur.(*value.Map); ok {
		changes.Update(m)
	}
	return nil
}

func finishHeld(ret, changes *value.Map, comments []string) *value.Map {
	ret.Set("changes", changes)
	ret.Set("comment", strings.Join(comments, "\n"))
	if changes.Len() == 0 && len(comments) == 0 {
		ret.Set("comment", "No changes made")
	}
	return ret
}

func pkgUnheldDebian(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	pkgs, all := c.Get("pkgs"), c.Bool("all")
	if l, ok := pkgs.(*value.List); ok && l.Len() == 0 && !all {
		return value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "No packages to be unheld provided"), nil
	}
	if value.Truthy(name) && pkgs == nil {
		pkgs = value.NewList(value.MapOf(name, c.Get("version")))
	}
	locks, err := dpkgHolds(c)
	if err != nil {
		return nil, err
	}
	want := map[string]any{}
	if l, ok := pkgs.(*value.List); ok {
		for _, p := range l.Items {
			n, v := holdEntry(p)
			want[n] = v
		}
	}
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	changes := value.NewMap(0)
	var comments []string
	for _, lk := range locks {
		v, wanted := want[lk]
		if !all && !wanted {
			continue
		}
		if c.Test {
			note := ""
			if value.Truthy(v) {
				// Salt names the version of the dpkg hold here, which
				// has none.
				note = " (version = None)"
			}
			comments = append(comments, "The following package would be unheld: "+lk+note)
			continue
		}
		if err := unholdInto(c, name, lk, ret, changes, &comments); err != nil {
			return nil, err
		}
	}
	return finishHeld(ret, changes, comments), nil
}
