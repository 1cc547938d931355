package saltspec_test

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	_ "brine/internal/builtin"
	"brine/internal/execmod"
	"brine/internal/saltspec"
	"brine/internal/statemod"
)

const supportFile = "../../docs/support.md"

// TestSupportTable builds docs/support.md from Salt's table and brine's
// registries and compares it with the committed file; -update rewrites it.
func TestSupportTable(t *testing.T) {
	got := SupportTable(execmod.Default.Names(), statemod.Default.Names())
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(supportFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(supportFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/support.md is out of date: go test ./internal/saltspec -run TestSupportTable -update")
	}
}

// coverage is one module of one kind: Salt's functions, brine's, and
// brine's that Salt does not have.
type coverage struct {
	done, todo, extra []string
}

func (c coverage) cell() string {
	n := len(c.done) + len(c.todo)
	switch {
	case n == 0 && len(c.extra) == 0:
		return ""
	case n == 0:
		return fmt.Sprintf("%d brine only", len(c.extra))
	}
	return fmt.Sprintf("%d of %d", len(c.done), n)
}

func cover(kind saltspec.Kind, mod string, brine map[string]bool) coverage {
	var c coverage
	salt := map[string]bool{}
	for _, f := range saltspec.FunctionNames(kind, mod) {
		salt[f] = true
		if brine[mod+"."+f] {
			c.done = append(c.done, f)
		} else {
			c.todo = append(c.todo, f)
		}
	}
	for full := range brine {
		m, f, _ := strings.Cut(full, ".")
		if m == mod && !salt[f] {
			c.extra = append(c.extra, f)
		}
	}
	sort.Strings(c.extra)
	return c
}

// SupportTable renders docs/support.md for the given registered names.
func SupportTable(execNames, stateNames []string) string {
	brine := [2]map[string]bool{{}, {}}
	mods := map[string]bool{}
	for k, names := range [2][]string{execNames, stateNames} {
		for _, n := range names {
			brine[k][n] = true
			m, _, _ := strings.Cut(n, ".")
			mods[m] = true
		}
	}
	all := map[string]bool{}
	for _, k := range []saltspec.Kind{saltspec.Exec, saltspec.State} {
		for _, m := range saltspec.Modules(k) {
			all[m] = true
		}
	}
	for m := range mods {
		all[m] = true
	}
	names := make([]string, 0, len(all))
	for m := range all {
		names = append(names, m)
	}
	sort.Strings(names)

	var totals [2][2]int // kind -> implemented, Salt's
	covs := map[string][2]coverage{}
	for _, m := range names {
		var cs [2]coverage
		for k, kind := range []saltspec.Kind{saltspec.Exec, saltspec.State} {
			cs[k] = cover(kind, m, brine[k])
			totals[k][0] += len(cs[k].done)
			totals[k][1] += len(cs[k].done) + len(cs[k].todo)
		}
		covs[m] = cs
	}

	var b strings.Builder
	b.WriteString("# Salt " + saltspec.SaltVersion() + " functions in brine\n\n")
	b.WriteString("Generated from Salt's source (`tools/saltspec/gen.py`, " + saltspec.Origin() + ") and brine's\n")
	b.WriteString("registries by `go test ./internal/saltspec -run TestSupportTable -update`;\n")
	b.WriteString("that test fails when this file is out of date. Do not edit it by hand.\n\n")
	fmt.Fprintf(&b, "brine implements **%d of %d** execution functions and **%d of %d** state\n", totals[0][0], totals[0][1], totals[1][0], totals[1][1])
	b.WriteString("functions of Salt " + saltspec.SaltVersion() + ". A function Salt has and brine does not is reported as\n")
	b.WriteString("such by `brine call` and `brine check` (\"... is a Salt " + saltspec.SaltVersion() + " execution function that brine does not\n")
	b.WriteString("implement yet\"), not as a misspelling.\n\n")

	b.WriteString("## Modules brine implements\n\n")
	b.WriteString("| Module | Execution functions | State functions |\n|---|---|---|\n")
	var rest []string
	for _, m := range names {
		if !mods[m] {
			rest = append(rest, m)
			continue
		}
		cs := covs[m]
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s |\n", m, m, cs[0].cell(), cs[1].cell())
	}
	for _, m := range names {
		if !mods[m] {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n", m)
		for k, label := range []string{"Execution", "State"} {
			c := covs[m][k]
			if len(c.done)+len(c.todo)+len(c.extra) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n%s functions, %d of %d:\n\n", label, len(c.done), len(c.done)+len(c.todo))
			list(&b, "Implemented", c.done)
			list(&b, "Not yet", c.todo)
			list(&b, "brine only (not in Salt "+saltspec.SaltVersion()+")", c.extra)
		}
	}

	b.WriteString("\n## Salt modules brine does not implement yet\n\n")
	b.WriteString("| Module | Execution functions | State functions |\n|---|---|---|\n")
	for _, m := range rest {
		cs := covs[m]
		fmt.Fprintf(&b, "| %s | %s | %s |\n", m, cs[0].cell(), cs[1].cell())
	}
	return b.String()
}

func list(b *strings.Builder, label string, names []string) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(b, "- %s (%d): `%s`\n", label, len(names), strings.Join(names, "`, `"))
}
