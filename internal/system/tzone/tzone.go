// Package tzone is the Linux time zone handling of
// salt/modules/timezone.py that the timezone execution functions and
// timezone.system share: /etc/localtime compared with and linked to the
// zoneinfo files, /etc/timezone, and the hardware clock mode of
// /etc/adjtime. Paths are under Root ("" for /) so tests can use a
// directory.
package tzone

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// System is the machine under Root.
type System struct{ Root string }

// Path is p under the root.
func (s System) Path(p string) string { return filepath.Join("/", s.Root, p) }

// ZoneFile is the zoneinfo file of a zone (as the machine sees it).
func ZoneFile(zone string) string { return filepath.Join("/usr/share/zoneinfo", zone) }

// Localtime reads /etc/localtime, following an absolute link inside the
// root.
func (s System) Localtime() ([]byte, error) {
	p := s.Path("/etc/localtime")
	if target, err := os.Readlink(p); err == nil && filepath.IsAbs(target) {
		return os.ReadFile(s.Path(target))
	}
	return os.ReadFile(p)
}

// CompareError says which file zone_compare could not read.
type CompareError struct {
	Zone bool // the zoneinfo file (else /etc/localtime)
	Err  error
}

func (e *CompareError) Error() string { return e.Err.Error() }

// Compare is zone_compare: whether /etc/localtime has the content of the
// zone's zoneinfo file.
func (s System) Compare(zone string) (bool, error) {
	want, err := os.ReadFile(s.Path(ZoneFile(zone)))
	if err != nil || strings.Contains(zone, "..") {
		if err == nil {
			err = os.ErrNotExist
		}
		return false, &CompareError{Zone: true, Err: err}
	}
	have, err := s.Localtime()
	if err != nil {
		return false, &CompareError{Err: err}
	}
	return bytes.Equal(want, have), nil
}

// Link points /etc/localtime at the zone's zoneinfo file and, on Debian,
// writes the zone to /etc/timezone.
func (s System) Link(zone string, debian bool) error {
	lt := s.Path("/etc/localtime")
	if err := os.Remove(lt); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Symlink(ZoneFile(zone), lt); err != nil {
		return err
	}
	if debian {
		return os.WriteFile(s.Path("/etc/timezone"), []byte(strings.TrimSpace(zone)+"\n"), 0o644)
	}
	return nil
}

// Adjtime is the last line of /etc/adjtime (the hardware clock mode,
// "UTC" or "LOCAL"); ok is false when the file is missing.
func (s System) Adjtime() (mode string, ok bool) {
	data, err := os.ReadFile(s.Path("/etc/adjtime"))
	if err != nil {
		return "", false
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), true
}

// UTC reports whether the hardware clock keeps UTC: the third line of
// /etc/adjtime is not LOCAL (true when there is no such file).
func (s System) UTC() bool {
	data, err := os.ReadFile(s.Path("/etc/adjtime"))
	if err != nil {
		return true
	}
	lines := strings.Split(string(data), "\n")
	return !(len(lines) > 2 && strings.TrimSpace(lines[2]) == "LOCAL")
}

// SetUTC writes the hardware clock mode to /etc/adjtime.
func (s System) SetUTC(utc bool) error {
	p := s.Path("/etc/adjtime")
	lines := []string{"0.0 0 0.0", "0"}
	if data, err := os.ReadFile(p); err == nil {
		lines = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		for len(lines) < 2 {
			lines = append(lines, "0")
		}
	}
	mode := "UTC"
	if !utc {
		mode = "LOCAL"
	}
	if len(lines) > 2 {
		lines[2] = mode
	} else {
		lines = append(lines[:2], mode)
	}
	return os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// Zone is the system time zone name: /etc/timezone, else the zoneinfo
// path /etc/localtime links to.
func (s System) Zone() (string, error) {
	if data, err := os.ReadFile(s.Path("/etc/timezone")); err == nil {
		if z := strings.TrimSpace(string(data)); z != "" {
			return z, nil
		}
	}
	target, err := os.Readlink(s.Path("/etc/localtime"))
	if err != nil {
		return "", err
	}
	if _, z, ok := strings.Cut(target, "zoneinfo/"); ok {
		return z, nil
	}
	return "", os.ErrNotExist
}
