package pkgmgr

import (
	"context"
	"strings"
)

// PurgeDesiredLister is implemented by managers that know packages
// selected for purging that are still installed (dpkg's purge selection
// on a package others depend on).
type PurgeDesiredLister interface {
	ListPurgeDesired(ctx context.Context) (Installed, error)
}

// ListPurgeDesired lists the packages wanted purged but still installed,
// as Salt's aptpkg.list_pkgs(purge_desired=True).
func (a *Apt) ListPurgeDesired(context.Context) (Installed, error) {
	entries, err := a.statusEntries()
	if err != nil {
		return nil, err
	}
	out := Installed{}
	for _, e := range entries {
		f := strings.Fields(e.Status)
		if len(f) != 3 {
			continue
		}
		want, state := f[0], f[2]
		if strings.Contains(want, "install") || strings.Contains(want, "hold") || strings.Contains(want, "deinstall") {
			continue
		}
		if strings.Contains(want, "purge") && state == "installed" {
			out.add(a.displayName(e), e.Version)
		}
	}
	return out, nil
}
