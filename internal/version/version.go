// Package version says which brine this is (its version, commit and build
// date, stamped at build time or read from the Go build information) and
// which Salt release line it follows, for --version and --versions-report.
package version

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/sys/unix"
)

// Version is brine's version. `make build` and `make install` stamp it
// with -ldflags "-X brine/internal/version.Version=..." from git describe;
// without it, the module version from the build information is used
// ("devel" for a plain go build in a checkout).
var Version = ""

// Salt is the Salt release brine follows, and its codename.
const (
	Salt         = "3006"
	SaltCodename = "Sulfur"
)

// Build describes the running binary.
type Build struct {
	Version  string // "v0.3.0", "devel"
	Commit   string // VCS revision, "" when unknown
	Date     string // commit time (RFC 3339), "" when unknown
	Modified bool   // built from a work tree with uncommitted changes
	Go       string // the Go toolchain
	Deps     []Dep  // the modules linked in
}

// Dep is a module linked into the binary.
type Dep struct{ Path, Version string }

// Read returns the build description.
func Read() Build {
	b := Build{Version: Version, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
		for _, d := range bi.Deps {
			v := d.Version
			if d.Replace != nil {
				v = d.Replace.Version
			}
			b.Deps = append(b.Deps, Dep{Path: d.Path, Version: v})
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	return b
}

// String is the one-line version: "brine v0.3.0 (commit 1a2b3c4d5e6f,
// 2026-11-25T17:00:00Z), follows Salt 3006 (Sulfur)".
func (b Build) String() string {
	var extra []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Modified {
			c += "-dirty"
		}
		extra = append(extra, "commit "+c)
	}
	if b.Date != "" {
		extra = append(extra, b.Date)
	}
	s := "brine " + b.Version
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s + ", follows Salt " + Salt + " (" + SaltCodename + ")"
}

// Report is brine's --versions-report, laid out as Salt's: the Salt
// version followed, brine's own, the dependencies linked in and the
// system.
func (b Build) Report() string {
	var sb strings.Builder
	section := func(title string, rows [][2]string) {
		w := 0
		for _, r := range rows {
			w = max(w, len(r[0]))
		}
		fmt.Fprintf(&sb, "%s:\n", title)
		for _, r := range rows {
			v := r[1]
			if v == "" {
				v = "Not Installed"
			}
			fmt.Fprintf(&sb, "%*s: %s\n", w+2, r[0], v)
		}
		sb.WriteString("\n")
	}
	section("Salt Version", [][2]string{{"Salt", Salt + " (" + SaltCodename + "), as brine implements it"}})
	commit, date := b.Commit, b.Date
	switch {
	case commit == "":
		commit = "unknown"
	case b.Modified:
		commit += " (modified)"
	}
	if date == "" {
		date = "unknown"
	}
	section("brine Version", [][2]string{{"brine", b.Version}, {"commit", commit}, {"date", date}, {"Go", b.Go}})
	var deps [][2]string
	for _, d := range b.Deps {
		deps = append(deps, [2]string{d.Path, d.Version})
	}
	if len(deps) > 0 {
		section("Dependency Versions", deps)
	}
	section("System Versions", systemRows())
	return strings.TrimRight(sb.String(), "\n") + "\n"
}

// systemRows are Salt's System Versions: dist, kernel, machine, release,
// system, version.
func systemRows() [][2]string {
	osr := osRelease()
	dist := strings.TrimSpace(strings.Join([]string{osr["ID"], osr["VERSION_ID"], osr["VERSION_CODENAME"]}, " "))
	var u unix.Utsname
	var sysname, release, machine, kver string
	if unix.Uname(&u) == nil {
		sysname, release = unix.ByteSliceToString(u.Sysname[:]), unix.ByteSliceToString(u.Release[:])
		machine, kver = unix.ByteSliceToString(u.Machine[:]), unix.ByteSliceToString(u.Version[:])
	}
	return [][2]string{
		{"dist", dist},
		{"kernel", release},
		{"machine", machine},
		{"release", release},
		{"system", sysname},
		{"version", strings.TrimSpace(osr["PRETTY_NAME"] + " " + kver)},
	}
}

// osRelease reads /etc/os-release (KEY=value lines, values maybe quoted).
func osRelease() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		out[k] = strings.Trim(v, `"'`)
	}
	return out
}
