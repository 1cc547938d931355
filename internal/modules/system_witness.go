package modules

// system_witness.go is the reboot-witness pair of salt/modules/system.py
// (written for NI Linux RT, loaded on every Linux): a flag file on a
// volatile filesystem remembers that a "reboot required" event was seen
// during this boot.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"brine/internal/execmod"
	"brine/internal/value"
)

// rebootWitnessPath is Salt's NILRT_REBOOT_WITNESS_PATH (a variable so
// tests can point it elsewhere).
var rebootWitnessPath = "/var/volatile/tmp/salt/reboot_witnessed"

func init() {
	execmod.Register("system.get_reboot_required_witnessed", systemGetRebootWitnessed,
		"True when a reboot-required event was witnessed during this boot (the flag file exists).")
	execmod.Register("system.set_reboot_required_witnessed", systemSetRebootWitnessed,
		"Record that a reboot-required event was witnessed; True when the flag file was created.")
}

func systemGetRebootWitnessed(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_reboot_required_witnessed", args, kwargs); err != nil {
		return nil, err
	}
	_, err := os.Stat(rebootWitnessPath)
	return err == nil, nil
}

// systemSetRebootWitnessed follows Salt exactly: the flag is touched only
// when its directory had to be created, so with the directory already
// there the result is False.
func systemSetRebootWitnessed(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("set_reboot_required_witnessed", args, kwargs); err != nil {
		return nil, err
	}
	dir := filepath.Dir(rebootWitnessPath)
	if _, err := os.Stat(dir); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		errno := 0
		var en syscall.Errno
		if errors.As(err, &en) {
			errno = int(en)
		}
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("Error creating %s (-%d): %s", dir, errno, strerror(err))}
	}
	out, err := ctx.Call("cmd.run_all", []any{"touch " + rebootWitnessPath}, nil)
	if err != nil {
		return nil, err
	}
	m, _ := out.(*value.Map)
	rc, _ := m.GetString("retcode")
	return value.Equal(rc, int64(0)), nil
}
