package modules

// timezone.go is salt/modules/timezone.py (the reading half): the
// system's time zone from /etc/timezone or the /etc/localtime link.

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("timezone.get_zone", tzGetZone, "Return the system time zone name (e.g. Europe/Paris).")
	execmod.Register("timezone.get_offset", tzGetOffset, "Return the current UTC offset as +hhmm.")
	execmod.Register("timezone.get_zonecode", tzGetZonecode, "Return the current time zone abbreviation (e.g. CET).")
}

// SystemZone returns the system time zone name.
func SystemZone() (string, error) {
	if data, err := os.ReadFile("/etc/timezone"); err == nil {
		if z := strings.TrimSpace(string(data)); z != "" {
			return z, nil
		}
	}
	target, err := filepath.EvalSymlinks("/etc/localtime")
	if err != nil {
		return "", err
	}
	if _, z, ok := strings.Cut(target, "zoneinfo/"); ok {
		return z, nil
	}
	return "", os.ErrNotExist
}

func tzGetZone(*execmod.Context, []any, *value.Map) (any, error) {
	z, err := SystemZone()
	if err != nil {
		return nil, execmod.Errorf("Unable to get timezone: %s", err)
	}
	return z, nil
}

func tzGetOffset(*execmod.Context, []any, *value.Map) (any, error) {
	return time.Now().Format("-0700"), nil
}

func tzGetZonecode(*execmod.Context, []any, *value.Map) (any, error) {
	name, _ := time.Now().Zone()
	return name, nil
}
