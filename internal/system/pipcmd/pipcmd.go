// Package pipcmd finds the pip to run for a bin_env the way
// salt/modules/pip.py's _get_pip_bin does; the pip execution functions
// and pip states share it.
package pipcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// NotFoundError is Salt's CommandNotFoundError.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return e.Msg }

// ErrNoPip is the error for a machine without any pip.
var ErrNoPip = &NotFoundError{"Could not find a `pip` binary"}

// Bin returns the command that runs pip for binEnv: "" for the system's
// Python (python3 -m pip, else pip3 or pip on the PATH), a virtualenv
// directory (its bin/python -m pip), a python executable (-m pip) or a
// pip executable.
func Bin(binEnv string) ([]string, error) {
	if binEnv == "" {
		if p, err := exec.LookPath("python3"); err == nil && exec.Command(p, "-m", "pip", "--version").Run() == nil {
			return []string{p, "-m", "pip"}, nil
		}
		for _, n := range []string{"pip3", "pip"} {
			if p, err := exec.LookPath(n); err == nil {
				return []string{p}, nil
			}
		}
		return nil, ErrNoPip
	}
	st, err := os.Stat(binEnv)
	if err == nil && st.IsDir() {
		for _, p := range []string{filepath.Join(binEnv, "python"), filepath.Join(binEnv, "bin", "python"), filepath.Join(binEnv, "Scripts", "python")} {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return []string{filepath.Clean(p), "-m", "pip"}, nil
			}
		}
		return nil, &NotFoundError{"Could not find a pip binary in virtualenv " + binEnv}
	}
	if err == nil && st.Mode()&0o111 != 0 {
		if !st.Mode().IsRegular() {
			return nil, errors.New("Could not find a pip binary within " + binEnv)
		}
		if strings.Contains(filepath.Base(binEnv), "python") {
			return []string{filepath.Clean(binEnv), "-m", "pip"}, nil
		}
		return []string{filepath.Clean(binEnv)}, nil
	}
	return nil, &NotFoundError{"Access denied to " + binEnv + ", could not find a pip binary"}
}

// IsVirtualenv reports whether binEnv is a directory (Salt then sets
// VIRTUAL_ENV for pip).
func IsVirtualenv(binEnv string) bool {
	st, err := os.Stat(binEnv)
	return binEnv != "" && err == nil && st.IsDir()
}
