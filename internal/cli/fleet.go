package cli

import "io"

// fleetCommands are the subcommands of fleet mode, by name.
var fleetCommands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"master": Master,
	"minion": Minion,
	"key":    Key,
	"run":    Run,
	"jobs":   Jobs,
}
