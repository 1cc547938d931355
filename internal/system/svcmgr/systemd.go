package svcmgr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"brine/internal/system"
)

// Error is a failure Salt raises (CommandExecutionError) with Msg.
type Error struct{ Msg string }

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }

// Falsy is a failure Salt reports as a False return, not an exception:
// the command ran and exited non-zero.
type Falsy struct {
	Cmd    system.Cmd
	Result system.Result
}

// Error describes the command and its output.
func (e *Falsy) Error() string {
	out := strings.TrimSpace(e.Result.Stderr)
	if out == "" {
		out = strings.TrimSpace(e.Result.Stdout)
	}
	if out == "" {
		return fmt.Sprintf("%s exited with code %d", e.Cmd, e.Result.Code)
	}
	return out
}

// IsFalsy reports whether err is a failure Salt returns as False.
func IsFalsy(err error) bool {
	var f *Falsy
	return errors.As(err, &f)
}

// Paths Salt's systemd module reads.
var (
	systemUnitDirs = []string{"/lib/systemd/system", "/usr/lib/systemd/system"}
	localUnitDir   = "/etc/systemd/system"
	initScriptDir  = "/etc/init.d"
)

// validUnitTypes are the unit suffixes Salt knows (VALID_UNIT_TYPES).
var validUnitTypes = []string{"service", "socket", "device", "mount", "automount", "swap", "target", "path", "timer"}

// ValidUnitType reports whether typ is a unit type Salt lists.
func ValidUnitType(typ string) bool {
	for _, t := range validUnitTypes {
		if t == typ {
			return true
		}
	}
	return false
}

// Canonical is the unit name of a service name: names ending in a unit
// type stay, others get ".service". Like Salt it checks the bare suffix,
// so "foomount" stays "foomount".
func Canonical(name string) string {
	for _, t := range validUnitTypes {
		if strings.HasSuffix(name, t) {
			return name
		}
	}
	return name + ".service"
}

// Rooted relocates the absolute path p under root ("" leaves it).
func Rooted(p, root string) string {
	if root == "" {
		return p
	}
	return filepath.Join(root, strings.TrimPrefix(p, "/"))
}

// Systemd drives systemctl as Salt's systemd_service module does: a
// daemon-reload first when a unit file changed, systemd-run --scope
// around changes where systemd is booted, SysV scripts without a unit of
// their own enabled through update-rc.d or chkconfig.
type Systemd struct {
	Runner system.Runner
	// Offline is Salt's offline mode: systemctl is installed but systemd
	// is not PID 1 (a container, a chroot).
	Offline bool
	// NoScope turns systemd-run --scope off (Salt's systemd.scope: False).
	NoScope bool

	mu       sync.Mutex
	status   map[string]system.Result // systemctl status output by name
	checked  map[string]bool          // names whose unit changes were checked
	version  int                      // 0 unknown yet, -1 undeterminable
	runlevel string
}

// NewSystemd returns a manager for a booted systemd.
func NewSystemd(r system.Runner) *Systemd { return &Systemd{Runner: r} }

// Name returns "systemd".
func (s *Systemd) Name() string { return "systemd" }

// Cmd builds a systemctl command line: action (space separated words),
// the unit of name when name is not empty, and -n 0 after status.
func (s *Systemd) Cmd(ctx context.Context, action, name string, scope, noBlock bool, root string) system.Cmd {
	var argv []string
	if scope && s.HasScope(ctx) {
		argv = append(argv, "systemd-run", "--scope")
	}
	argv = append(argv, "systemctl")
	if noBlock {
		argv = append(argv, "--no-block")
	}
	if root != "" {
		argv = append(argv, "--root", root)
	}
	argv = append(argv, strings.Fields(action)...)
	if name != "" {
		argv = append(argv, Canonical(name))
	}
	for _, a := range argv {
		if a == "status" {
			argv = append(argv, "-n", "0")
			break
		}
	}
	return system.Cmd{Name: argv[0], Args: argv[1:]}
}

// Run runs c; an error is a command that could not start.
func (s *Systemd) Run(ctx context.Context, c system.Cmd) (system.Result, error) {
	return s.Runner.Run(ctx, c)
}

// Output runs c and returns its stdout and stderr together, right
// stripped (cmd.run's answer).
func (s *Systemd) Output(ctx context.Context, c system.Cmd) string {
	res, err := s.Runner.Run(ctx, c)
	if err != nil {
		return ""
	}
	return merged(res)
}

func merged(res system.Result) string {
	out := res.Stdout
	if res.Stderr != "" {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += res.Stderr
	}
	return strings.TrimRight(out, " \t\r\n")
}

// Version is systemd's version from systemctl --version, or -1.
func (s *Systemd) Version(ctx context.Context) int {
	s.mu.Lock()
	v := s.version
	s.mu.Unlock()
	if v != 0 {
		return v
	}
	v = -1
	if res, err := s.Runner.Run(ctx, system.Cmd{Name: "systemctl", Args: []string{"--version"}}); err == nil {
		first, _, _ := strings.Cut(res.Stdout+res.Stderr, "\n")
		if m := regexp.MustCompile(`\w+ ([0-9]+)`).FindStringSubmatch(first); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				v = n
			}
		}
	}
	s.mu.Lock()
	s.version = v
	s.mu.Unlock()
	return v
}

// HasScope reports whether changes run under systemd-run --scope:
// systemd booted, version 205 or later, and scopes not turned off.
func (s *Systemd) HasScope(ctx context.Context) bool {
	return !s.NoScope && !s.Offline && s.Version(ctx) >= 205
}

// statusOf is systemctl status of name (stderr merged), kept until the
// next daemon-reload.
func (s *Systemd) statusOf(ctx context.Context, name string) (system.Result, error) {
	s.mu.Lock()
	res, ok := s.status[name]
	s.mu.Unlock()
	if ok {
		return res, nil
	}
	res, err := s.Runner.Run(ctx, s.Cmd(ctx, "status", name, false, false, ""))
	if err != nil {
		return res, err
	}
	res = system.Result{Stdout: merged(res), Code: res.Code}
	s.mu.Lock()
	if s.status == nil {
		s.status = map[string]system.Result{}
	}
	s.status[name] = res
	s.mu.Unlock()
	return res, nil
}

var loadedLine = regexp.MustCompile(`^\s+loaded:\s+(\S+)`)

// checkAvailable is Salt's _check_available: systemctl status exits
// below 4 for a known unit (systemd 231 and later).
func (s *Systemd) checkAvailable(ctx context.Context, name string) (bool, error) {
	if s.Offline {
		return false, &Error{Msg: fmt.Sprintf("Cannot run in offline mode. Failed to get information on unit '%s'", name)}
	}
	res, err := s.statusOf(ctx, name)
	if err != nil {
		return false, err
	}
	if v := s.Version(ctx); v >= 231 {
		return res.Code >= 0 && res.Code < 4, nil
	}
	out := strings.ToLower(res.Stdout)
	if strings.Contains(out, "could not be found") {
		return false, nil
	}
	for _, line := range strings.Split(out, "\n") {
		if m := loadedLine.FindStringSubmatch(line); m != nil {
			return m[1] != "not-found", nil
		}
	}
	return false, &Error{Msg: fmt.Sprintf("Failed to get information on unit '%s'", name)}
}

// CheckForUnitChanges runs a daemon-reload when name has a unit file in
// /etc/systemd/system systemd does not know yet, or systemctl status
// says its unit file changed (once per name and manager).
func (s *Systemd) CheckForUnitChanges(ctx context.Context, name string) error {
	s.mu.Lock()
	done := s.checked[name]
	s.mu.Unlock()
	if done {
		return nil
	}
	reload := false
	if f, err := os.Open(filepath.Join(localUnitDir, Canonical(name))); err == nil {
		f.Close()
		ok, err := s.checkAvailable(ctx, name)
		if err != nil {
			return err
		}
		reload = !ok
	}
	if !reload {
		res, err := s.statusOf(ctx, name)
		if err != nil {
			return err
		}
		reload = strings.Contains(strings.ToLower(res.Stdout), "'systemctl daemon-reload'")
	}
	if reload {
		if err := s.DaemonReload(ctx); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if s.checked == nil {
		s.checked = map[string]bool{}
	}
	s.checked[name] = true
	s.mu.Unlock()
	return nil
}

// DaemonReload runs systemctl --system daemon-reload.
func (s *Systemd) DaemonReload(ctx context.Context) error {
	res, err := s.Runner.Run(ctx, s.Cmd(ctx, "--system daemon-reload", "", false, false, ""))
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return &Error{Msg: "Problem performing systemctl daemon-reload: " + merged(res)}
	}
	s.mu.Lock()
	s.status = nil
	s.mu.Unlock()
	return nil
}

// SystemdServices lists the units in systemd's unit directories under
// root: services by name, other units by full name.
func SystemdServices(root string) map[string]bool {
	ret := map[string]bool{}
	for _, dir := range append(append([]string{}, systemUnitDirs...), localUnitDir) {
		dir = Rooted(dir, root)
		if syscall.Access(dir, 4) != nil {
			continue
		}
		if st, err := os.Lstat(dir); err != nil || st.Mode()&os.ModeSymlink != 0 {
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			base, typ, ok := cutLast(e.Name(), ".")
			if !ok || !ValidUnitType(typ) {
				continue
			}
			if typ == "service" {
				ret[base] = true
			} else {
				ret[e.Name()] = true
			}
		}
	}
	return ret
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// SysVServices lists the executable init scripts under root that have
// no systemd unit of their name (systemd nil: looked up).
func SysVServices(root string, systemd map[string]bool) []string {
	dir := Rooted(initScriptDir, root)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	if systemd == nil {
		systemd = SystemdServices(root)
	}
	var ret []string
	for _, e := range ents {
		if syscall.Access(filepath.Join(dir, e.Name()), 1) == nil && !systemd[e.Name()] {
			ret = append(ret, e.Name())
		}
	}
	return ret
}

// GetAll is every unit and unit-less init script under root, sorted.
func GetAll(root string) []string {
	set := SystemdServices(root)
	for _, n := range SysVServices(root, set) {
		set[n] = true
	}
	return sortedKeys(set)
}

// Runlevel is the current runlevel (runlevel's second word), else the
// default runlevel.
func (s *Systemd) Runlevel(ctx context.Context) string {
	s.mu.Lock()
	rl := s.runlevel
	s.mu.Unlock()
	if rl != "" {
		return rl
	}
	if res, err := s.Runner.Run(ctx, system.Cmd{Name: "runlevel"}); err == nil {
		if f := strings.Fields(merged(res)); len(f) > 1 {
			rl = f[1]
		}
	}
	if rl == "" {
		rl = defaultRunlevel()
	}
	s.mu.Lock()
	s.runlevel = rl
	s.mu.Unlock()
	return rl
}

// defaultRunlevel is Upstart's DEFAULT_RUNLEVEL, overridden by an
// initdefault line of /etc/inittab and a runlevel word on the kernel
// command line; "2" when rc-sysinit.conf cannot be read.
func defaultRunlevel() string {
	data, err := os.ReadFile("/etc/init/rc-sysinit.conf")
	if err != nil {
		return "2"
	}
	rl := "2"
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "env DEFAULT_RUNLEVEL") {
			parts := strings.Split(line, "=")
			rl = strings.TrimSpace(parts[len(parts)-1])
		}
	}
	if data, err := os.ReadFile("/etc/inittab"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "#") && strings.Contains(line, "initdefault") {
				if parts := strings.Split(line, ":"); len(parts) > 1 {
					rl = parts[1]
				}
			}
		}
	}
	if data, err := os.ReadFile("/proc/cmdline"); err == nil {
		valid := map[string]bool{"0": true, "1": true, "2": true, "3": true, "4": true, "5": true, "6": true,
			"s": true, "S": true, "-s": true, "single": true}
		for _, line := range strings.Split(string(data), "\n") {
			for _, arg := range strings.Fields(line) {
				if valid[arg] {
					rl = arg
					break
				}
			}
		}
	}
	return rl
}

// SysVEnabled reports whether the init script name has a start link in
// the current runlevel's rc directory under root.
func (s *Systemd) SysVEnabled(ctx context.Context, name, root string) bool {
	re, err := regexp.Compile(`^S\d{0,2}` + name)
	if err != nil {
		return false
	}
	matches, _ := filepath.Glob(Rooted("/etc/rc"+s.Runlevel(ctx)+".d/S*"+name, root))
	for _, m := range matches {
		if re.MatchString(filepath.Base(m)) {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// stripScope drops systemd-run's notes about the scope unit from stderr.
func stripScope(msg string) string {
	var keep []string
	for _, line := range strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n") {
		if !strings.HasSuffix(line, ".scope") {
			keep = append(keep, line)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// Available reports whether systemd knows name.
func (s *Systemd) Available(ctx context.Context, name string) (bool, error) {
	if err := s.CheckForUnitChanges(ctx, name); err != nil {
		return false, err
	}
	return s.checkAvailable(ctx, name)
}

// Status runs systemctl is-active.
func (s *Systemd) Status(ctx context.Context, name string) (bool, error) {
	if err := s.CheckForUnitChanges(ctx, name); err != nil {
		return false, err
	}
	res, err := s.Runner.Run(ctx, s.Cmd(ctx, "is-active", name, false, false, ""))
	if err != nil {
		return false, err
	}
	return res.Code == 0, nil
}

// Act runs start, restart, reload or force-reload; a failure is an
// Error with systemctl's stderr.
func (s *Systemd) Act(ctx context.Context, action, name string, noBlock bool) error {
	if err := s.CheckForUnitChanges(ctx, name); err != nil {
		return err
	}
	res, err := s.Runner.Run(ctx, s.Cmd(ctx, action, name, true, noBlock, ""))
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return &Error{Msg: stripScope(res.Stderr)}
	}
	return nil
}

// Start runs systemctl start.
func (s *Systemd) Start(ctx context.Context, name string) error {
	return s.Act(ctx, "start", name, false)
}

// Restart runs systemctl restart.
func (s *Systemd) Restart(ctx context.Context, name string) error {
	return s.Act(ctx, "restart", name, false)
}

// Reload runs systemctl reload.
func (s *Systemd) Reload(ctx context.Context, name string) error {
	return s.Act(ctx, "reload", name, false)
}

// StopBlock runs systemctl stop; a failure is Falsy.
func (s *Systemd) StopBlock(ctx context.Context, name string, noBlock bool) error {
	if err := s.CheckForUnitChanges(ctx, name); err != nil {
		return err
	}
	c := s.Cmd(ctx, "stop", name, true, noBlock, "")
	res, err := s.Runner.Run(ctx, c)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return &Falsy{Cmd: c, Result: res}
	}
	return nil
}

// Stop runs systemctl stop.
func (s *Systemd) Stop(ctx context.Context, name string) error { return s.StopBlock(ctx, name, false) }

// sysvTool is the command enabling or disabling an init script at boot.
func (s *Systemd) sysvTool(ctx context.Context, name string, enable bool) (system.Cmd, error) {
	var argv []string
	if s.HasScope(ctx) {
		argv = append(argv, "systemd-run", "--scope")
	}
	if p, err := exec.LookPath("update-rc.d"); err == nil {
		if enable {
			argv = append(argv, p, "-f", name, "defaults", "99")
		} else {
			argv = append(argv, p, "-f", name, "remove")
		}
	} else if p, err := exec.LookPath("chkconfig"); err == nil {
		state := "off"
		if enable {
			state = "on"
		}
		argv = append(argv, p, name, state)
	} else {
		return system.Cmd{}, &Error{Msg: "Unable to find sysv service manager (tried update-rc.d, chkconfig)"}
	}
	return system.Cmd{Name: argv[0], Args: argv[1:]}, nil
}

// toggle enables or disables name at boot: through update-rc.d or
// chkconfig for a unit-less init script (a failure is Falsy), else
// systemctl (a failure to enable is an Error, to disable Falsy).
func (s *Systemd) toggle(ctx context.Context, name string, enable, noBlock bool, root string) error {
	if err := s.CheckForUnitChanges(ctx, name); err != nil {
		return err
	}
	if contains(SysVServices(root, nil), name) {
		c, err := s.sysvTool(ctx, name, enable)
		if err != nil {
			return err
		}
		res, err := s.Runner.Run(ctx, c)
		if err != nil {
			return err
		}
		if res.Code != 0 {
			return &Falsy{Cmd: c, Result: res}
		}
		return nil
	}
	action := "disable"
	if enable {
		action = "enable"
	}
	c := s.Cmd(ctx, action, name, true, noBlock, root)
	res, err := s.Runner.Run(ctx, c)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		if enable {
			return &Error{Msg: stripScope(res.Stderr)}
		}
		return &Falsy{Cmd: c, Result: res}
	}
	return nil
}

// EnableRoot enables name at boot (units under root).
func (s *Systemd) EnableRoot(ctx context.Context, name string, noBlock bool, root string) error {
	return s.toggle(ctx, name, true, noBlock, root)
}

// DisableRoot disables name at boot (units under root).
func (s *Systemd) DisableRoot(ctx context.Context, name string, noBlock bool, root string) error {
	return s.toggle(ctx, name, false, noBlock, root)
}

// Enable enables name at boot.
func (s *Systemd) Enable(ctx context.Context, name string) error {
	return s.toggle(ctx, name, true, false, "")
}

// Disable disables name at boot.
func (s *Systemd) Disable(ctx context.Context, name string) error {
	return s.toggle(ctx, name, false, false, "")
}

// EnabledRoot is Salt's enabled: systemctl is-enabled succeeds; for a
// template instance, a link of that name under /etc/systemd/system; for
// a unit-less init script, its start link.
func (s *Systemd) EnabledRoot(ctx context.Context, name, root string) (bool, error) {
	res, err := s.Runner.Run(ctx, s.Cmd(ctx, "is-enabled", name, false, false, root))
	if err != nil {
		return false, err
	}
	switch {
	case res.Code == 0:
		return true, nil
	case strings.Contains(name, "@"):
		res, err := s.Runner.Run(ctx, system.Cmd{Name: "find", Args: []string{localUnitDir, "-name", name, "-type", "l", "-print", "-quit"}})
		if err != nil {
			return false, err
		}
		return strings.TrimSpace(res.Stdout) != "", nil
	case contains(SysVServices(root, nil), name):
		return s.SysVEnabled(ctx, name, root), nil
	}
	return false, nil
}

// Enabled reports whether name starts at boot.
func (s *Systemd) Enabled(ctx context.Context, name string) (bool, error) {
	return s.EnabledRoot(ctx, name, "")
}

// MaskedRoot reports whether name's unit under root is a link to
// /dev/null in /etc/systemd/system (or /run/systemd/system for runtime).
func (s *Systemd) MaskedRoot(ctx context.Context, name string, runtime bool, root string) (bool, error) {
	if err := s.CheckForUnitChanges(ctx, name); err != nil {
		return false, err
	}
	dir := "/etc"
	if runtime {
		dir = "/run"
	}
	target, err := os.Readlink(filepath.Join(Rooted(dir, root), "systemd", "system", Canonical(name)))
	return err == nil && target == "/dev/null", nil
}

// Masked reports whether name is masked (runtime: until reboot).
func (s *Systemd) Masked(ctx context.Context, name string, runtime bool) (bool, error) {
	return s.MaskedRoot(ctx, name, runtime, "")
}

// MaskRoot masks name (runtime: until reboot) under root.
func (s *Systemd) MaskRoot(ctx context.Context, name string, runtime bool, root string) error {
	if err := s.CheckForUnitChanges(ctx, name); err != nil {
		return err
	}
	return s.maskCmd(ctx, "mask", name, runtime, root)
}

// maskCmd runs systemctl action (mask or unmask, --runtime with runtime)
// on name under root.
func (s *Systemd) maskCmd(ctx context.Context, action, name string, runtime bool, root string) error {
	verb := action
	if runtime {
		action += " --runtime"
	}
	res, err := s.Runner.Run(ctx, s.Cmd(ctx, action, name, true, false, root))
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return &Error{Msg: fmt.Sprintf("Failed to %s service '%s'", verb, name)}
	}
	return nil
}

// UnmaskRoot removes name's mask (runtime: the runtime mask) under root;
// nothing to do when it is not masked.
func (s *Systemd) UnmaskRoot(ctx context.Context, name string, runtime bool, root string) error {
	masked, err := s.MaskedRoot(ctx, name, runtime, root)
	if err != nil || !masked {
		return err
	}
	return s.maskCmd(ctx, "unmask", name, runtime, root)
}

// Mask masks name.
func (s *Systemd) Mask(ctx context.Context, name string, runtime bool) error {
	return s.MaskRoot(ctx, name, runtime, "")
}

// Unmask unmasks name.
func (s *Systemd) Unmask(ctx context.Context, name string, runtime bool) error {
	return s.UnmaskRoot(ctx, name, runtime, "")
}

// List returns every unit and unit-less init script.
func (s *Systemd) List(context.Context) ([]string, error) {
	all := GetAll("")
	sort.Strings(all)
	return all, nil
}
