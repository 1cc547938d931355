package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestUnknownOptions: every command refuses an unknown option
// (or a bad value) with one line saying so, then its usage, and the usage
// exit code, before it reads any configuration or connects anywhere.
func TestUnknownOptions(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"run", "--returner", "syslog", "*", "test.ping"}, "Error: unknown flag: --returner"},
		{[]string{"run", "--timout", "3", "*", "test.ping"}, "Error: unknown flag: --timout"},
		{[]string{"run", "-t", "soon", "*", "test.ping"}, `Error: invalid argument "soon" for "-t, --timeout" flag`},
		{[]string{"run", "--gather-job-timeout"}, "Error: flag needs an argument: --gather-job-timeout"},
		{[]string{"key", "--list-all", "-Z"}, "Error: unknown shorthand flag: 'Z' in -Z"},
		{[]string{"key", "--acept", "web1"}, "Error: unknown flag: --acept"},
		{[]string{"jobs", "--return", "x", "list"}, "Error: unknown flag: --return"},
		{[]string{"master", "--daemon"}, "Error: unknown flag: --daemon"},
		{[]string{"minion", "--bogus"}, "Error: unknown flag: --bogus"},
		{[]string{"call", "--lcoal", "test.ping"}, "Error: unknown flag: --lcoal"},
		{[]string{"call", "--out-indent", "wide", "test.ping"}, `Error: invalid argument "wide" for "--out-indent" flag`},
		{[]string{"check", "--strcit"}, "Error: unknown flag: --strcit"},
		{[]string{"graph", "-Q"}, "Error: unknown shorthand flag: 'Q' in -Q"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{tc.args[0], "-c", t.TempDir()}, tc.args[1:]...)
			rc := Main(args, &out, &errb)
			if rc != exitUsage {
				t.Errorf("exit code %d, want %d", rc, exitUsage)
			}
			lines := strings.Split(errb.String(), "\n")
			if !strings.HasPrefix(lines[0], tc.err) {
				t.Errorf("first line %q, want %q", lines[0], tc.err)
			}
			if len(lines) < 3 || lines[1] != "" || !strings.HasPrefix(lines[2], "Usage: brine "+tc.args[0]+" ") || !strings.Contains(errb.String(), "--config-dir") {
				t.Errorf("no usage after the error:\n%s", errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("stdout: %q", out.String())
			}
		})
	}
}

// TestHelp: --help on every command prints its synopsis, options and
// examples on stdout and exits 0; brine jobs lists its verbs.
func TestHelp(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			var out, errb bytes.Buffer
			if rc := Main(args, &out, &errb); rc != exitOK {
				t.Errorf("%v: exit code %d", args, rc)
			}
			got := out.String()
			for _, want := range []string{"Usage: brine " + c.name + " ", "\nOptions:\n", "\nExamples:\n  brine " + c.name} {
				if !strings.Contains(got, want) {
					t.Errorf("%v: no %q in\n%s", args, want, got)
				}
			}
			if errb.Len() != 0 {
				t.Errorf("%v: stderr %q", args, errb.String())
			}
		}
	}
	var out bytes.Buffer
	Main([]string{"jobs", "--help"}, &out, &out)
	if !strings.Contains(out.String(), "Verbs:\n  list ") || !strings.Contains(out.String(), "  lookup JID ") {
		t.Errorf("jobs verbs:\n%s", out.String())
	}
	out.Reset()
	if rc := Main([]string{"--help"}, &out, &out); rc != exitOK {
		t.Errorf("brine --help: %d", rc)
	}
	for _, c := range commands {
		if !strings.Contains(out.String(), "  "+c.name+" ") {
			t.Errorf("brine --help lacks %s:\n%s", c.name, out.String())
		}
	}
}
