package states_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// The archives of archiveOptionCases: the same members in the same order
// as the ones the returns were recorded with ($D is the case's directory).
const (
	archiveOptSetup = `mkdir -p "$D/build/app/sub" && echo v1 > "$D/build/app/V" && echo s > "$D/build/app/sub/s" && ` +
		`tar -C "$D/build" --no-recursion --owner=0 --group=0 --mtime=2020-01-01 -czf "$D/app.tar.gz" app app/V app/sub app/sub/s && ` +
		`tar -C "$D/build" --no-recursion --owner=0 --group=0 --mtime=2020-01-01 -cJf "$D/app.tar.xz" app app/V app/sub app/sub/s && ` +
		`printf 'not an archive\n' > "$D/junk.tar" && cp "$D/junk.tar" "$D/junk.zip" && ` +
		`{ ! command -v zstd >/dev/null || tar -C "$D/build" --no-recursion --owner=0 --group=0 --mtime=2020-01-01 -cf - app app/V app/sub app/sub/s | zstd -q > "$D/app.tar.zst"; } && ` +
		`cd "$D/build" && zip -q -X ../app.zip app/ app/V app/sub/ app/sub/s`
	archiveOptRebuild = `echo v2 > "$D/build/app/V" && ` +
		`tar -C "$D/build" --no-recursion --owner=0 --group=0 --mtime=2020-01-01 -czf "$D/app.tar.gz" app app/V app/sub app/sub/s`
)

// TestArchiveExtractedOptions runs the archive.extracted cases of
// testdata/archive_options_salt.json (returns and extracted trees
// recorded from Salt 3006 with salt-call state.single on Debian 12, the
// case directory as {dir}): the tar command with options and
// --strip-components, cmd_unzip with options, trim_output, overwrite,
// clean, clean_parent, if_missing, source_hash_update, archives brine
// cannot read (the listing's errors) and list_options.
func TestArchiveExtractedOptions(t *testing.T) {
	for _, tool := range []string{"tar", "xz", "zip", "unzip", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	data, err := os.ReadFile("testdata/archive_options_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string         `json:"name"`
		Args    map[string]any `json:"args"`
		Pre     bool           `json:"pre"`
		Rebuild bool           `json:"rebuild"`
		Test    bool           `json:"test"`
		Needs   string         `json:"needs"`
		Ret     map[string]any `json:"ret"`
		Tree    []string       `json:"tree"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Needs != "" {
				if _, err := exec.LookPath(c.Needs); err != nil {
					t.Skipf("%s is not installed", c.Needs)
				}
			}
			d := t.TempDir()
			shell := func(script string) {
				cmd := exec.Command("bash", "-c", script)
				cmd.Env = append(os.Environ(), "D="+d)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", script, err, out)
				}
			}
			shell(archiveOptSetup)
			ctx := execmod.NewContext()
			ctx.Opts.Set("cachedir", filepath.Join(d, "cache"))
			run := func(test bool) *value.Map {
				tgz, err := os.ReadFile(filepath.Join(d, "app.tar.gz"))
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(tgz)
				args := value.MapOf("name", filepath.Join(d, "out"), "source", filepath.Join(d, "app.tar.gz"))
				keys := make([]string, 0, len(c.Args))
				for k := range c.Args {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					v := c.Args[k]
					switch x := v.(type) {
					case string:
						v = strings.NewReplacer("{dir}", d, "{sum}", hex.EncodeToString(sum[:])).Replace(x)
					case float64:
						v = int64(x)
					}
					args.Set(k, v)
				}
				return sysRun(t, ctx, "archive.extracted", args, test)
			}
			if c.Pre {
				run(false)
			}
			if c.Rebuild {
				shell(archiveOptRebuild)
			}
			ret := run(c.Test)
			got := value.NewMap(4)
			for _, k := range []string{"result", "comment", "changes", "warnings"} {
				if v, ok := ret.Get(k); ok {
					got.Set(k, v)
				}
			}
			if ch, ok := got.Get("changes"); ok {
				ch.(*value.Map).Delete("pid")
			}
			var gotJSON map[string]any
			text := strings.ReplaceAll(value.ToJSON(got, value.JSONOptions{Indent: -1}), d, "{dir}")
			if err := json.Unmarshal([]byte(text), &gotJSON); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotJSON, c.Ret) {
				want, _ := json.Marshal(c.Ret)
				t.Errorf("return\n got %s\nwant %s", text, want)
			}
			tree := []string{}
			out := filepath.Join(d, "out")
			filepath.Walk(out, func(p string, _ os.FileInfo, err error) error {
				if err == nil && p != out {
					rel, _ := filepath.Rel(out, p)
					tree = append(tree, rel)
				}
				return nil
			})
			if !reflect.DeepEqual(tree, c.Tree) && (len(tree) > 0 || len(c.Tree) > 0) {
				t.Errorf("tree %v, want %v", tree, c.Tree)
			}
		})
	}
}
