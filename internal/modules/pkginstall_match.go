package modules

import (
	"fmt"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

// pkgComparisonRE splits a requested version such as ">=2.10" into its
// operator and version, as Salt's salt.utils.pkg.split_comparison does.
var pkgComparisonRE = regexp.MustCompile(`^(<=>|!=|>=|<=|>>|<<|<>|>|<|=)?\s?([^<>=]+)$`)

// pkgHasComparison reports whether a requested version starts with an
// ordering operator, so that it names a range rather than one version.
func pkgHasComparison(version string) bool {
	return strings.HasPrefix(version, "<") || strings.HasPrefix(version, ">")
}

// pkgMatchVersion returns the first of candidates that satisfies desired
// (an operator and a version; no operator means equality), or "" and false.
func pkgMatchVersion(m pkgmgr.Manager, desired string, candidates []string) (string, bool) {
	op, want := "", desired
	if g := pkgComparisonRE.FindStringSubmatch(desired); g != nil {
		op, want = g[1], g[2]
	}
	if op == "" {
		op = "=="
	}
	for _, c := range candidates {
		if pkgmgr.Satisfies(op, m.Compare(c, want)) {
			return c, true
		}
	}
	return "", false
}

// pkgResolveComparisons replaces each target version that is a range
// (">=2.10") by the first repository version matching it, as Salt's
// aptpkg.install does. Targets without a match are dropped and reported in
// the returned error texts.
func pkgResolveComparisons(ctx *execmod.Context, m pkgmgr.Manager, targets []PkgTarget) ([]PkgTarget, []string, error) {
	var names []any
	for _, t := range targets {
		if pkgHasComparison(t.Version) {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return targets, nil, nil
	}
	avail := value.NewMap(0)
	if _, ok := ctx.Lookup("pkg.list_repo_pkgs"); ok {
		r, err := ctx.Call("pkg.list_repo_pkgs", names, nil)
		if err != nil {
			return nil, nil, err
		}
		if rm, ok := r.(*value.Map); ok {
			avail = rm
		}
	}
	var out []PkgTarget
	var errs []string
	for _, t := range targets {
		if !pkgHasComparison(t.Version) {
			out = append(out, t)
			continue
		}
		var cands []string
		if l, ok := avail.Get(t.Name); ok {
			if ll, ok := l.(*value.List); ok {
				for _, c := range ll.Items {
					cands = append(cands, execmod.String(c))
				}
			}
		}
		v, ok := pkgMatchVersion(m, t.Version, cands)
		if !ok {
			shown := "None"
			if len(cands) > 0 {
				shown = strings.Join(cands, ", ")
			}
			errs = append(errs, fmt.Sprintf("No version matching '%s%s' could be found (available: %s)", t.Name, t.Version, shown))
			continue
		}
		t.Version = v
		out = append(out, t)
	}
	return out, errs, nil
}
