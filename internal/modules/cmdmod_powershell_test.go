package modules

import (
	"regexp"
	"testing"

	_ "brine/internal/outputters" // the nested outputter formats error details
	"brine/internal/value"
)

var psScriptTmpRE = regexp.MustCompile(`__salt\.tmp\.[^. ]+`)

// dropPid removes the process id, which differs from run to run, after
// checking that brine reported one, and names cmd.script's temporary
// copy of the script alike.
func dropPid(t *testing.T) stepHook {
	return func(name string, got, want any) (any, any) {
		for _, v := range []any{got, want} {
			if m, ok := v.(*value.Map); ok {
				if out, ok := m.Get("stdout"); ok {
					m.Set("stdout", psScriptTmpRE.ReplaceAllString(value.Str(out), "__salt.tmp.X"))
				}
				if pid, ok := m.Get("pid"); ok {
					if n, isInt := pid.(int64); !isInt || n <= 0 {
						t.Errorf("%s: pid %v", name, pid)
					}
					m.Delete("pid")
				}
			}
		}
		return got, want
	}
}

// TestPowershellSalt replays Salt's answers for cmd.powershell and
// cmd.powershell_all (testdata/saltrec/powershell.golden.json). The
// machine has no PowerShell: the failures are real, and the runs use
// testdata's fake pwsh (a shell script that prints the arguments it is
// given, or canned JSON), which checks only how the command is built and
// passed and how its output is parsed.
func TestPowershellSalt(t *testing.T) {
	ctx := testContext()
	replaySaltRecord(t, ctx, "testdata/saltrec/powershell.golden.json", dropPid(t))
}
