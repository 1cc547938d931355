package modules

import (
	"os/exec"
	"testing"
)

// TestSelinuxSalt replays Salt's answers for the SELinux functions of the
// file module on a Debian machine without SELinux in its kernel: stat
// cannot read a context, chcon fails and the selinux module is missing.
// restorecon (policycoreutils) is either missing
// (testdata/saltrec/file_selinux.golden.json) or, installed, does nothing
// and succeeds (file_selinux_tools.golden.json).
func TestSelinuxSalt(t *testing.T) {
	golden := "testdata/saltrec/file_selinux.golden.json"
	if _, err := exec.LookPath("restorecon"); err == nil {
		golden = "testdata/saltrec/file_selinux_tools.golden.json"
	}
	replaySaltRecord(t, testContext(), golden, nil)
}
