// Command brine runs Salt 3006 state trees: `brine call` is a drop-in for
// `salt-call --local`.
package main

import (
	"os"

	_ "brine/internal/builtin"
	"brine/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
