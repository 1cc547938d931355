// Package procenv is salt/modules/environ.py's setval on POSIX, shared by
// the environ execution functions and environ.setenv: the environment of
// the running process.
package procenv

import (
	"os"
	"strings"
)

// Setval sets key to val (a string) in the process environment and
// returns the value set; val false sets "" or, with falseUnsets, removes
// key and returns nil; any other val is refused with false.
func Setval(key string, val any, falseUnsets bool) any {
	if val == false {
		if falseUnsets {
			os.Unsetenv(key)
			return nil
		}
		val = ""
	}
	s, ok := val.(string)
	if !ok {
		return false
	}
	if err := os.Setenv(key, s); err != nil {
		return false
	}
	return s
}

// Names lists the variables of the process environment.
func Names() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		out = append(out, k)
	}
	return out
}
