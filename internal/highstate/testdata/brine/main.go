// Command brine is cmd/brine plus the highstate package, for running the
// conformance cases before internal/builtin imports highstate.
package main

import (
	"os"

	_ "brine/internal/builtin"
	"brine/internal/cli"
	_ "brine/internal/highstate"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
