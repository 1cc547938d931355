package modules

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// saltdiffSetups build, in the scratch directory w, the files the cases of
// testdata/saltdiff_<name>.json were run on with Salt 3006 (by
// tools/saltdiff, the scratch directory standing for W).
var saltdiffSetups = map[string]func(t *testing.T, w string){
	"archive": func(t *testing.T, w string) {
		var tb bytes.Buffer
		tw := tar.NewWriter(&tb)
		for _, f := range [][2]string{{"d/a.txt", "a\n"}, {"sums", "s\n"}} {
			tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg})
			tw.Write([]byte(f[1]))
		}
		tw.Close()
		var zb bytes.Buffer
		zw := zip.NewWriter(&zb)
		for _, f := range [][2]string{{"a/b/c.txt", "c\n"}, {"top.txt", "t\n"}} {
			fw, _ := zw.Create(f[0])
			fw.Write([]byte(f[1]))
		}
		zw.Close()
		for name, data := range map[string][]byte{"t.tar": tb.Bytes(), "z.zip": zb.Bytes()} {
			if err := os.WriteFile(filepath.Join(w, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	},
}

// TestSaltdiffGoldens calls each case of testdata/saltdiff_*.json and
// compares the result with what Salt 3006 returned, as JSON text: key
// order and types (an int is not a string) count.
func TestSaltdiffGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "saltdiff_*.json"))
	if len(files) == 0 {
		t.Fatal("no goldens")
	}
	jsonOf := func(v any) string { return value.ToJSON(v, value.JSONOptions{Indent: -1}) }
	for _, file := range files {
		set := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "saltdiff_"), ".json")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := value.FromJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		cases, _ := doc.(*value.Map).Get("cases")
		for _, cv := range cases.(*value.List).Items {
			c := cv.(*value.Map)
			name, _ := c.Get("name")
			t.Run(set+"/"+value.Str(name), func(t *testing.T) {
				w := t.TempDir()
				if setup := saltdiffSetups[set]; setup != nil {
					setup(t, w)
				}
				fun, _ := c.Get("fun")
				args, _ := c.Get("args")
				kw, _ := c.Get("kwargs")
				got, err := testContext().Call(value.Str(fun), swapPaths(args, "W/", w+"/").(*value.List).Items, swapPaths(kw, "W/", w+"/").(*value.Map))
				// an error case names Salt's message: "type_error" for a
				// TypeError (salt-call's "Passed invalid arguments"), "error"
				// for any other
				if msg, ok := c.Get("type_error"); ok {
					var te *execmod.TypeError
					if !errors.As(err, &te) || te.Msg != value.Str(msg) {
						t.Fatalf("error %#v, want the TypeError %q", err, value.Str(msg))
					}
					return
				}
				if msg, ok := c.Get("error"); ok {
					if err == nil || strings.ReplaceAll(err.Error(), w, "W") != value.Str(msg) {
						t.Fatalf("error %v, want %q", err, value.Str(msg))
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v", value.Str(fun), err)
				}
				want, _ := c.Get("want")
				if g, w := jsonOf(swapPaths(got, w, "W")), jsonOf(want); g != w {
					t.Errorf("got  %s\nwant %s", g, w)
				}
			})
		}
	}
}
