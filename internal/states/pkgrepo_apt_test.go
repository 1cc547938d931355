package states_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// TestPkgrepoAptSaltCases replays pkgrepo cases recorded from Salt 3006 on
// Debian 12 without python-apt, as the official onedir build runs
// (testdata/pkgrepo/record_apt.py, state.single against
// /etc/apt/sources.list.d): the sources file before, the state's result,
// comment and changes, and the sources files after.
func TestPkgrepoAptSaltCases(t *testing.T) {
	data, err := os.ReadFile("testdata/pkgrepo/apt_cases_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := yamlload.SafeLoad(data, "apt_cases_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.(*value.List).Items {
		cm := c.(*value.Map)
		t.Run(value.Str(getv(cm, "title")), func(t *testing.T) {
			root, ctx := fakeRoot(t)
			ctx.Grains.Set("os_family", "Debian")
			ctx.Grains.Set("os", "Debian")
			ctx.Grains.Set("oscodename", "bookworm")
			ctx.SetService("pkgmgr", newFakePkg())
			os.MkdirAll(filepath.Join(root, "etc/apt/sources.list.d"), 0o755)
			getv(cm, "before").(*value.Map).Range(func(k, v any) bool {
				os.WriteFile(filepath.Join(root, value.Str(k)), []byte(value.Str(v)), 0o644)
				return true
			})
			args := value.DeepCopy(getv(cm, "kwargs")).(*value.Map)
			args.Set("name", getv(cm, "name"))
			got := sysRun(t, ctx, value.Str(getv(cm, "fun")), args, getv(cm, "test") == true)
			want := getv(cm, "ret").(*value.Map)
			for _, k := range []string{"result", "comment", "changes"} {
				if g, w := value.Repr(sortComps(getv(got, k))), value.Repr(sortComps(getv(want, k))); g != w {
					t.Errorf("%s:\n got %s\nwant %s", k, g, w)
				}
			}
			after := value.NewMap(0)
			matches, _ := filepath.Glob(filepath.Join(root, "etc/apt/sources.list.d/*"))
			sort.Strings(matches)
			for _, m := range matches {
				b, _ := os.ReadFile(m)
				after.Set("/"+strings.TrimPrefix(m, root+"/"), string(b))
			}
			if g, w := value.Repr(sortLineComps(after)), value.Repr(sortLineComps(getv(cm, "after"))); g != w {
				t.Errorf("files after:\n got %s\nwant %s", g, w)
			}
		})
	}
}

// sortComps sorts changes.comps.new: Salt's mod_repo merges components
// through a set, so their order changes from run to run.
func sortComps(v any) any {
	m, ok := v.(*value.Map)
	if !ok {
		return v
	}
	c, ok := m.GetString("comps")
	if !ok {
		return v
	}
	m = value.DeepCopy(m).(*value.Map)
	c = value.DeepCopy(c)
	if l, ok := getv(c.(*value.Map), "new").(*value.List); ok {
		sort.Slice(l.Items, func(i, j int) bool { return value.Str(l.Items[i]) < value.Str(l.Items[j]) })
	}
	m.Set("comps", c)
	return m
}

// TestPkgrepoUbuntuDisabled: on Ubuntu and Mint Salt passes disabled on
// to aptpkg, which comments the line out (on Debian it is ignored).
func TestPkgrepoUbuntuDisabled(t *testing.T) {
	root, ctx := fakeRoot(t)
	ctx.Grains.Set("os_family", "Debian")
	ctx.Grains.Set("os", "Ubuntu")
	ctx.Grains.Set("oscodename", "jammy")
	ctx.SetService("pkgmgr", newFakePkg())
	list := filepath.Join(root, "etc/apt/sources.list.d/x.list")
	os.MkdirAll(filepath.Dir(list), 0o755)
	line := "deb http://archive.example.org/ubuntu jammy main"
	os.WriteFile(list, []byte(line+"\n"), 0o644)
	args := value.MapOf("name", line, "file", "/etc/apt/sources.list.d/x.list", "disabled", true, "refresh", false)
	ret := sysRun(t, ctx, "pkgrepo.managed", args, false)
	if value.Repr(getv(ret, "changes")) != "{'disabled': {'new': True, 'old': False}, 'line': {'new': '# "+line+"', 'old': '"+line+"'}}" {
		t.Errorf("changes %s", value.Repr(getv(ret, "changes")))
	}
	if b, _ := os.ReadFile(list); string(b) != "# "+line+"\n" {
		t.Errorf("list %q", b)
	}
	ret = sysRun(t, ctx, "pkgrepo.managed", args, false)
	if c := value.Str(getv(ret, "comment")); c != "Package repo '"+line+"' already configured" {
		t.Errorf("again: %s", value.Repr(ret))
	}
}

// sortLineComps sorts the components of each source line in the files
// (for the same reason as sortComps).
func sortLineComps(v any) any {
	m := value.DeepCopy(v).(*value.Map)
	m.Range(func(k, v any) bool {
		lines := strings.SplitAfter(value.Str(v), "\n")
		for i, l := range lines {
			body, comment, hasComment := strings.Cut(strings.TrimSuffix(l, "\n"), " #")
			w := strings.Split(body, " ")
			if len(w) > 4 && (w[0] == "deb" || w[0] == "deb-src") && !strings.HasPrefix(w[1], "[") {
				sort.Strings(w[3:])
				body = strings.Join(w, " ")
				if hasComment {
					body += " #" + comment
				}
				lines[i] = body + l[len(strings.TrimSuffix(l, "\n")):]
			}
		}
		m.Set(k, strings.Join(lines, ""))
		return true
	})
	return m
}
