package cli

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	_ "brine/internal/builtin"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"brine": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the txtar scripts under testdata/script: each is a small
// config and file tree plus `brine call` commands and their expected output.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
