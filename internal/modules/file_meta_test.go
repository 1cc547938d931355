package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/value"
)

var saltTmpRE = regexp.MustCompile(`/tmp/__salt\.tmp\.\w+`)

// swapPaths replaces old by new in every string of v (keys too), and the
// names of Salt's temporary files by TMP.
func swapPaths(v any, old, new string) any {
	switch x := v.(type) {
	case string:
		return saltTmpRE.ReplaceAllString(strings.ReplaceAll(x, old, new), "TMP")
	case *value.List:
		l := value.NewList()
		for _, it := range x.Items {
			l.Append(swapPaths(it, old, new))
		}
		return l
	case value.Tuple:
		l := value.NewList()
		for _, it := range x {
			l.Append(swapPaths(it, old, new))
		}
		return l
	case *value.Map:
		m := value.NewMap(x.Len())
		x.Range(func(k, v any) bool {
			m.Set(swapPaths(k, old, new), swapPaths(v, old, new))
			return true
		})
		return m
	}
	return v
}

// TestFileManagedParts runs file.get_managed, check_file_meta,
// check_managed, check_managed_changes and manage_file on real files;
// testdata/file_meta.json holds the calls and what Salt 3006 returned for
// them on the same files (the scratch directory is W).
func TestFileManagedParts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "file_meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := value.FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	setup, _ := doc.(*value.Map).Get("setup")
	cases, _ := doc.(*value.Map).Get("cases")
	for _, cv := range cases.(*value.List).Items {
		c := cv.(*value.Map)
		name, _ := c.Get("name")
		t.Run(value.Str(name), func(t *testing.T) {
			w := t.TempDir()
			cmd := exec.Command("bash", "-ec", value.Str(setup))
			cmd.Dir = w
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("setup: %v\n%s", err, out)
			}
			fun, _ := c.Get("fun")
			args, _ := c.Get("args")
			kw, _ := c.Get("kwargs")
			ctx := testContext()
			got, err := ctx.Call(value.Str(fun), swapPaths(args, "W/", w+"/").(*value.List).Items, swapPaths(kw, "W/", w+"/").(*value.Map))
			if err != nil {
				t.Fatalf("%s: %v", value.Str(fun), err)
			}
			gotN := swapPaths(got, w, "W")
			want, _ := c.Get("want")
			if !value.Equal(gotN, want) {
				t.Errorf("got  %s\nwant %s", value.Repr(gotN), value.Repr(want))
			}
			if sfn, ok := got.(value.Tuple); ok && len(sfn) > 0 {
				if s := value.Str(sfn[0]); strings.HasPrefix(s, filepath.Join(os.TempDir(), "__salt.tmp.")) {
					os.Remove(s)
				}
			}
		})
	}
}
