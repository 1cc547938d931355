package modules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// TestCmdTimeoutSalt runs the salt-call command lines of
// testdata/cmd_timeout_salt.json (recorded from Salt 3006 on Debian 12,
// the pid left out) and compares the returns: the TimedProcTimeoutError
// text in stdout, the key order of the timed-out run_all.
func TestCmdTimeoutSalt(t *testing.T) {
	data, err := os.ReadFile("testdata/cmd_timeout_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Argv []string        `json:"argv"`
		Ret  json.RawMessage `json:"ret"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		want, err := value.FromJSON(c.Ret)
		if err != nil {
			t.Fatal(err)
		}
		args, kwargs := yamlload.ParseInput(c.Argv[1:], nil)
		got, err := execmod.NewContext().Call(c.Argv[0], args, kwargs)
		if err != nil {
			t.Errorf("%v: %v", c.Argv, err)
			continue
		}
		if m, ok := got.(*value.Map); ok {
			m.Delete("pid")
		}
		if value.Repr(got) != value.Repr(want) {
			t.Errorf("%v:\n got %s\nwant %s", c.Argv, value.Repr(got), value.Repr(want))
		}
	}
}

// TestCmdScriptTimeout: cmd.script's command is the temporary script's
// path with the args ("/tmp/__salt.tmp.<random>.sh a : Timed out after
// 1 seconds" from Salt).
func TestCmdScriptTimeout(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := testContext()
	ctx.Opts.Set("cachedir", t.TempDir())
	got := call(t, ctx, "cmd.script", []any{script}, "args", "a", "timeout", int64(1))
	m, _ := got.(*value.Map)
	out := value.Str(cmdGet(m, "stdout"))
	if !strings.HasSuffix(out, ".sh a : Timed out after 1 seconds") || !value.Equal(cmdGet(m, "retcode"), int64(1)) {
		t.Errorf("cmd.script: %s", value.Repr(got))
	}
}
