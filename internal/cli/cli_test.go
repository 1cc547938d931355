package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	_ "brine/internal/builtin"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"brine": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the txtar scripts under testdata/script: each is a small
// config and file tree plus `brine call` commands and their expected output.
//
// Scripts run in parallel: a minion config without a cachedir gets one of
// its own in the script's directory, so that the state runs of two
// scripts do not meet in the default cachedir's proc directory (a second
// state run on one minion is refused, as in Salt).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Setup: privateCachedir})
}

func privateCachedir(env *testscript.Env) error {
	return filepath.WalkDir(env.WorkDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "minion" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		v, lerr := yamlload.Load(b, path)
		if _, isMap := v.(*value.Map); lerr != nil || !isMap || bytes.Contains(b, []byte("cachedir")) {
			return nil
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		b = append(b, fmt.Sprintf("cachedir: %s\n", filepath.Join(env.WorkDir, ".cache"))...)
		return os.WriteFile(path, b, 0o644)
	})
}
