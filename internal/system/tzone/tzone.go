// Package tzone is the Linux time zone file handling of
// salt/modules/timezone.py that the timezone execution functions use:
// /etc/localtime compared with and linked to the zoneinfo files,
// /etc/timezone, and the hardware clock mode of /etc/adjtime. Paths are
// under Root ("" for /) so tests can use a directory.
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
