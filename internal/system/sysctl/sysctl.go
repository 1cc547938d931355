// Package sysctl is the kernel parameter handling of
// salt/modules/linux_sysctl.py that the sysctl execution functions and the
// sysctl.present state share: reading and setting /proc/sys, and the
// persistent configuration file.
package sysctl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Service is the execmod service name under which a run (or a test)
// attaches its own Kernel.
const Service = "sysctl"

// Kernel reads and sets kernel parameters of the running system.
type Kernel interface {
	// Get returns the current value ("" and false when there is none).
	Get(name string) (string, bool)
	// Set assigns the value.
	Set(name, value string) error
}

// Proc is the Kernel of /proc/sys under Root ("" for /).
type Proc struct{ Root string }

// Path is the /proc/sys file of a parameter: dots are directories and
// slashes dots, as sysctl(8) maps them.
func (p Proc) Path(name string) string {
	tr := strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return '/'
		case '/':
			return '.'
		}
		return r
	}, name)
	return filepath.Join("/", p.Root, "proc/sys", tr)
}

// Get reads the parameter, whitespace inside the value as single spaces.
func (p Proc) Get(name string) (string, bool) {
	data, err := os.ReadFile(p.Path(name))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\t", " ")), true
}

// Set writes the value to /proc/sys.
func (p Proc) Set(name, v string) error {
	return os.WriteFile(p.Path(name), []byte(v+"\n"), 0o644)
}

// DefaultConfig is linux_sysctl.default_config: systemd hosts read
// /etc/sysctl.d only.
func DefaultConfig() string {
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		return "/etc/sysctl.d/99-salt.conf"
	}
	return "/etc/sysctl.conf"
}

var wsRE = regexp.MustCompile(`\s+`)

// Sanitize is Salt's _sanitize_sysctl_value: runs of whitespace as one
// separator, so "4096 87380" and "4096\t87380" compare equal.
func Sanitize(v string) string {
	return strings.TrimSpace(wsRE.ReplaceAllString(v, " "))
}

// Pair is one key = value line of a configuration file.
type Pair struct{ Key, Value string }

// ShowFile is sysctl.show(config_file): the settings of the file in
// order. ok is false when the file does not exist; a file that cannot be
// read is an error.
func ShowFile(path string) (pairs []Pair, ok bool, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, true, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || !strings.Contains(line, "=") {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		pairs = append(pairs, Pair{strings.TrimRight(k, " \t"), strings.TrimLeft(v, " \t")})
	}
	return pairs, true, nil
}

// Error is a failure Salt reports as CommandExecutionError.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Persist is linux_sysctl.persist: name = val is written to config (the
// file is created with Salt's header when missing) and assigned with set
// when the file or the running value differs. It returns "Updated" or
// "Already set".
func Persist(get func(string) (string, error), set func(name, val string) error, name, val, config string) (string, error) {
	if st, err := os.Stat(config); err != nil || !st.Mode().IsRegular() {
		if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(config, []byte("#\n# Kernel sysctl configuration\n#\n"), 0o644); err != nil {
			return "", &Error{"Could not write to file: " + config}
		}
	}
	data, err := os.ReadFile(config)
	if err != nil {
		return "", &Error{"Could not read from file: " + config}
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	edited := false
	want := Sanitize(val)
	var out []string
	for _, line := range lines {
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || strings.HasPrefix(k, "#") || k != name {
			out = append(out, line)
			continue
		}
		if Sanitize(v) == want {
			cur, err := get(name)
			if err != nil {
				return "", err
			}
			if Sanitize(cur) != want {
				return "Updated", set(name, val)
			}
			return "Already set", nil
		}
		out = append(out, name+" = "+val+"\n")
		edited = true
	}
	if !edited {
		out = append(out, name+" = "+val+"\n")
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(config); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.WriteFile(config, []byte(strings.Join(out, "")), mode); err != nil {
		return "", &Error{"Could not write to file: " + config}
	}
	return "Updated", set(name, val)
}

// KernelGet adapts k.Get to Persist's getter.
func KernelGet(k Kernel) func(string) (string, error) {
	return func(name string) (string, error) {
		v, _ := k.Get(name)
		return v, nil
	}
}
