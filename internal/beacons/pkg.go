package beacons

// pkg.go is salt/beacons/pkg.py: packages that are installed, have an
// upgrade or are gone, an event when a package's status changes from
// what the previous loop saw (the first loop only records it).

import (
	"fmt"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() { Register("pkg", func() Module { return &pkgBeacon{last: map[string]string{}} }) }

type pkgBeacon struct {
	last map[string]string // Salt's __context__["beacon.pkg"]: installed, upgrade or not-installed
}

// Virtual is Salt's __virtual__: the beacon needs pkg.upgrade_available.
func (*pkgBeacon) Virtual() (bool, string) {
	if _, ok := execmod.Default.Lookup("pkg.upgrade_available"); ok {
		return true, ""
	}
	return false, "pkg.upgrade_available is missing."
}

func (*pkgBeacon) Validate(config any) (bool, string) {
	l, ok := config.(*value.List)
	if !ok {
		return false, "Configuration for pkg beacon must be a list."
	}
	found, isList := false, false
	for _, it := range l.Items {
		m, ok := it.(*value.Map)
		if !ok {
			continue
		}
		if p, ok := m.Get("pkgs"); ok {
			found = true
			if _, ok := p.(*value.List); ok {
				isList = true
			}
		}
	}
	if !found || !isList {
		return false, "Configuration for pkg beacon requires list of pkgs."
	}
	return true, "Valid beacon configuration"
}

// Beacon asks pkg.version and pkg.latest_version for each package. Salt
// looks its refresh option up in the list itself rather than in its
// items, so the package database is never refreshed: neither is it here.
func (p *pkgBeacon) Beacon(ctx *Context, config any) ([]*value.Map, error) {
	if ctx.Call == nil {
		return nil, fmt.Errorf("'pkg.version' is not available")
	}
	var pkgs []any
	if l, ok := config.(*value.List); ok {
		for _, it := range l.Items {
			if m, ok := it.(*value.Map); ok {
				if pl, ok := mustGet(m, "pkgs").(*value.List); ok {
					pkgs = append(pkgs, pl.Items...)
				}
			}
		}
	}
	var ret []*value.Map
	for _, name := range pkgs {
		key := value.Str(name)
		prev := p.last[key]
		installed, err := ctx.Call("pkg.version", []any{name}, value.MapOf("use_context", false))
		if err != nil {
			return nil, err
		}
		var version any
		status := "not-installed"
		if value.Truthy(installed) {
			version, status = installed, "installed"
			latest, err := ctx.Call("pkg.latest_version", []any{name}, value.MapOf("refresh", false))
			if err != nil {
				return nil, err
			}
			if value.Truthy(latest) {
				version, status = latest, "upgrade"
			}
		}
		p.last[key] = status
		if prev != "" && prev != status {
			ret = append(ret, value.MapOf("pkg", name, "version", version, "status", status))
		}
	}
	return ret, nil
}
