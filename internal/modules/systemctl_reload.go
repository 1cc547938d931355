package modules

// systemctl_reload.go is salt/modules/systemd_service.py's
// systemctl_reload, the function module.run states call most
// (`module.run: - name: service.systemctl_reload` after changing a unit
// file).

import (
	"context"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/system/svcmgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("service.systemctl_reload", serviceSystemctlReload, "Reload systemd's unit files (systemctl --system daemon-reload); True on success.")
}

func serviceSystemctlReload(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("systemctl_reload", args, kwargs); err != nil {
		return nil, err
	}
	if !svcmgr.SystemdBooted() {
		return nil, execmod.Errorf("service.systemctl_reload needs systemd, which is not the running init system")
	}
	res, err := system.Exec{}.Run(context.Background(), system.Cmd{Name: "systemctl", Args: []string{"--system", "daemon-reload"}})
	if err != nil {
		return nil, execmod.Errorf("Problem performing systemctl daemon-reload: %s", err)
	}
	if res.Code != 0 {
		return nil, execmod.Errorf("Problem performing systemctl daemon-reload: %s", strings.TrimSpace(res.Stdout+res.Stderr))
	}
	return true, nil
}
