package modules

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"brine/internal/value"
)

// dpkgLocked says whether another process holds dpkg's lock (dpkg
// --set-selections with no input fails on it then).
func dpkgLocked() bool {
	c := exec.Command("dpkg", "--set-selections")
	c.Stdin = strings.NewReader("")
	out, err := c.CombinedOutput()
	return err != nil && strings.Contains(string(out), "lock")
}

func TestAptNames(t *testing.T) {
	ctx := testContext()
	ctx.Grains.Set("osarch", "amd64")
	for _, tc := range []struct {
		fun, arg, want string
	}{
		{"pkg.normalize_name", "vim:amd64", "'vim'"},
		{"pkg.normalize_name", "vim:all", "'vim'"},
		{"pkg.normalize_name", "vim:i386", "'vim:i386'"},
		{"pkg.normalize_name", "vim", "'vim'"},
		{"pkg.parse_arch", "vim:i386", "{'name': 'vim', 'arch': 'i386'}"},
		{"pkg.parse_arch", "vim", "{'name': 'vim', 'arch': None}"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, []any{tc.arg})); got != tc.want {
			t.Errorf("%s(%s) = %s, want %s", tc.fun, tc.arg, got, tc.want)
		}
	}
	ctx.Grains.Set("os_family", "RedHat")
	if _, err := ctx.Call("pkg.hold", []any{"x"}, nil); err == nil || err.Error() != "'pkg.hold' is not available." {
		t.Errorf("pkg.hold on RedHat: %v", err)
	}
}

// TestAptSelectionsReal holds and releases bash in the real dpkg database
// (its selection is put back to install at the end) and reads the files of
// installed packages.
func TestAptSelectionsReal(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs dpkg and root")
	}
	out, _ := exec.Command("dpkg", "--get-selections", "bash").Output()
	if strings.Fields(string(out)) == nil || strings.Fields(string(out))[1] != "install" {
		t.Skipf("bash's selection is %q, not install", out)
	}
	t.Cleanup(func() {
		c := exec.Command("dpkg", "--set-selections")
		c.Stdin = strings.NewReader("bash install\n")
		c.Run()
	})
	ctx := testContext()
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"pkg.get_selections", nil, []any{"pattern", "bash"}, "{'install': ['bash']}"},
		{"pkg.get_selections", nil, []any{"pattern", "bash", "state", "hold"}, "{'hold': []}"},
		{"pkg.unhold", []any{"bash"}, nil, "{'bash': {'name': 'bash', 'changes': {}, 'result': True, 'comment': 'Package bash is already set not to be held.'}}"},
		{"pkg.hold", []any{"bash"}, nil, "{'bash': {'name': 'bash', 'changes': {'old': 'install', 'new': 'hold'}, 'result': True, 'comment': 'Package bash is now being held.'}}"},
		{"pkg.hold", nil, []any{"pkgs", value.NewList("bash")}, "{'bash': {'name': 'bash', 'changes': {}, 'result': True, 'comment': 'Package bash is already set to be held.'}}"},
		{"pkg.get_selections", []any{"bash"}, nil, "{'hold': ['bash']}"},
		{"pkg.unhold", []any{"bash"}, nil, "{'bash': {'name': 'bash', 'changes': {'old': 'hold', 'new': 'install'}, 'result': True, 'comment': 'Package bash is no longer being held.'}}"},
		{"pkg.hold", []any{"brine-no-such-pkg"}, nil, "{'brine-no-such-pkg': {'name': 'brine-no-such-pkg', 'changes': {'old': None, 'new': 'hold'}, 'result': True, 'comment': 'Package brine-no-such-pkg is now being held.'}}"},
		{"pkg.unhold", []any{"brine-no-such-pkg"}, nil, "{'brine-no-such-pkg': {'name': 'brine-no-such-pkg', 'changes': {}, 'result': False, 'comment': 'Package brine-no-such-pkg does not have a state.'}}"},
		{"pkg.set_selections", nil, []any{"selection", "{'install': ['bash']}"}, "{}"},
		{"pkg.owner", []any{"/bin/bash"}, nil, "'bash'"},
		{"pkg.owner", []any{"/nonexistent/brine"}, nil, "''"},
		{"pkg.owner", []any{"/bin/bash", "/nonexistent/brine"}, nil, "{'/bin/bash': 'bash', '/nonexistent/brine': ''}"},
	} {
		got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...))
		// Another apt or dpkg holding the lock makes a change fail: wait
		// for it (up to ten minutes) and try again.
		for i := 0; got != tc.want && i < 300 && dpkgLocked(); i++ {
			time.Sleep(2 * time.Second)
			got = value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...))
		}
		if got != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	files := call(t, ctx, "pkg.file_list", []any{"bash"}).(*value.Map)
	if !strings.Contains(value.Repr(files), "'/bin/bash'") {
		t.Errorf("pkg.file_list bash = %s", value.Repr(files))
	}
	dict := value.Repr(call(t, ctx, "pkg.file_dict", []any{"bash"}))
	if !strings.HasPrefix(dict, "{'errors': [], 'packages': {'bash': ['/.', ") {
		t.Errorf("pkg.file_dict bash = %.100s", dict)
	}
	if got := value.Repr(call(t, ctx, "pkg.file_list", []any{"brine-no-such-pkg"})); !strings.HasPrefix(got, "'Error:  dpkg-query: no packages found matching brine-no-such-pkg") {
		t.Errorf("file_list of a missing package = %s", got)
	}
	if _, err := exec.LookPath("apt-get"); err == nil {
		// No refresh: the machine may have no network; what apt already
		// knows answers.
		up, ok := call(t, ctx, "pkg.list_upgrades", nil, "refresh", false).(*value.Map)
		if !ok {
			t.Errorf("list_upgrades is not a mapping")
		}
		up.Range(func(k, v any) bool {
			if _, isStr := v.(string); !isStr {
				t.Errorf("list_upgrades %v: %v", k, v)
			}
			return true
		})
		if l, ok := call(t, ctx, "pkg.autoremove", nil, "list_only", true).(*value.List); !ok {
			t.Errorf("autoremove list_only is not a list")
		} else if items := value.Repr(l); strings.Contains(items, "bash") {
			t.Errorf("autoremove would remove %s", items)
		}
	}
	if _, err := exec.LookPath("checkrestart"); err != nil {
		if _, err := ctx.Call("pkg.services_need_restart", nil, nil); err == nil || !strings.HasPrefix(err.Error(), "'checkrestart' is needed.") {
			t.Errorf("services_need_restart without checkrestart: %v", err)
		}
	}
	info := call(t, ctx, "pkg.info_installed", []any{"bash", "coreutils"}).(*value.Map)
	b, _ := info.GetString("bash")
	bm, _ := b.(*value.Map)
	if bm == nil || value.Repr(mapGet(bm, "name")) != "'bash'" || value.Repr(mapGet(bm, "group")) != "'shells'" || mapGet(bm, "version") == nil ||
		mapGet(bm, "install_date_time_t") == nil || !strings.Contains(value.Str(mapGet(bm, "description")), "GNU Bourne Again SHell") {
		t.Errorf("info_installed bash = %s", value.Repr(b))
	}
	if _, ok := info.GetString("coreutils"); !ok {
		t.Errorf("info_installed has no coreutils: %s", value.Repr(info.Keys()))
	}
	got := value.Repr(call(t, ctx, "pkg.info_installed", []any{"bash"}, "attr", "version,arch"))
	if !strings.HasPrefix(got, "{'bash': {'arch': '") || strings.Contains(got, "description") {
		t.Errorf("info_installed attr = %s", got)
	}
	if _, err := ctx.Call("pkg.info_installed", []any{"brine-no-such-pkg"}, nil); err == nil || !strings.HasPrefix(err.Error(), "Error getting packages information: dpkg-query: no packages found matching brine-no-such-pkg") {
		t.Errorf("info_installed of a missing package: %v", err)
	}
	if _, err := ctx.Call("pkg.set_selections", nil, value.MapOf("selection", value.MapOf("bogus", value.NewList("bash")))); err == nil || err.Error() != "Invalid state(s): bogus" {
		t.Errorf("set_selections with a bad state: %v", err)
	}
}

func TestAptRepos(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"etc/apt/sources.list": "# comment line\ndeb http://deb.debian.org/debian bookworm main contrib\n" +
			"# deb-src http://deb.debian.org/debian bookworm main\n",
		"etc/apt/sources.list.d/extra.list": "deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/x.gpg] https://example.com/apt stable main\n",
	})
	ctx := testContext()
	ctx.SetService(SysRootService, root)
	// Files are reported as paths on the target, without the test root.
	list := "/etc/apt/sources.list"
	extra := "/etc/apt/sources.list.d/extra.list"
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"pkg.list_repos", nil, "{'http://deb.debian.org/debian': [" +
			"{'file': '" + list + "', 'comps': ['main', 'contrib'], 'disabled': False, 'enabled': True, 'dist': 'bookworm', 'type': 'deb', " +
			"'uri': 'http://deb.debian.org/debian', 'line': 'deb http://deb.debian.org/debian bookworm main contrib', 'architectures': [], 'signedby': ''}, " +
			"{'file': '" + list + "', 'comps': ['main'], 'disabled': True, 'enabled': False, 'dist': 'bookworm', 'type': 'deb-src', " +
			"'uri': 'http://deb.debian.org/debian', 'line': '# deb-src http://deb.debian.org/debian bookworm main', 'architectures': [], 'signedby': ''}], " +
			"'https://example.com/apt': [{'file': '" + extra + "', 'comps': ['main'], 'disabled': False, 'enabled': True, 'dist': 'stable', 'type': 'deb', " +
			"'uri': 'https://example.com/apt', 'line': 'deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/x.gpg] https://example.com/apt stable main', " +
			"'architectures': ['amd64', 'arm64'], 'signedby': '/usr/share/keyrings/x.gpg'}]}"},
		{"pkg.get_repo", []any{"deb https://example.com/apt stable main"}, "{'file': '" + extra + "', *"},
		{"pkg.get_repo", []any{"deb http://deb.debian.org/debian bookworm non-free"}, "{}"},
		{"pkg.get_repo", []any{"deb http://deb.debian.org/debian bookworm"}, "{'file': '" + list + "', 'comps': ['main', 'contrib'], *"},
	} {
		got := value.Repr(call(t, ctx, tc.fun, tc.args))
		if p, ok := strings.CutSuffix(tc.want, "*"); !(got == tc.want || ok && strings.HasPrefix(got, p)) {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	if _, err := exec.LookPath("apt-cache"); err == nil {
		got := value.Repr(call(t, ctx, "pkg.show", []any{"bash"}, "filter", "essential,priority"))
		if !strings.HasPrefix(got, "{'bash': {'") || !strings.Contains(got, "{'Essential': 'yes', 'Priority': 'required'}") {
			t.Errorf("pkg.show bash = %s", got)
		}
	}
}

// TestAptOutputs reads what apt-get prints, from a stand-in apt-get on
// the PATH that prints recorded output and the arguments it was given.
func TestAptOutputs(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"$*\" >> " + bin + "/calls\ncase \"$*\" in\n" +
		"*just-print*) printf 'Inst libc6 [2.36-9] (2.36-9+deb12u4 Debian:12.5/stable [amd64])\\nConf libc6 (2.36-9+deb12u4 Debian:12.5/stable [amd64])\\nConf tzdata (2024a-0+deb12u1 Debian:12.5/stable [all])\\n' ;;\n" +
		"*autoremove*) printf 'Reading package lists...\\nThe following packages will be REMOVED:\\n  libfoo1 libbar2\\n  libbaz3\\n0 upgraded, 0 newly installed, 3 to remove.\\nAbort.\\n'; exit 1 ;;\n" +
		"esac\n"
	if err := os.WriteFile(bin+"/apt-get", []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	ctx := testContext()
	for _, tc := range []struct {
		fun  string
		kw   []any
		want string
	}{
		{"pkg.list_upgrades", []any{"refresh", false}, "{'libc6': '2.36-9+deb12u4', 'tzdata': '2024a-0+deb12u1'}"},
		{"pkg.autoremove", []any{"list_only", true, "purge", true}, "['libbar2', 'libbaz3', 'libfoo1']"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, nil, tc.kw...)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.kw, got, tc.want)
		}
	}
	if calls, _ := os.ReadFile(bin + "/calls"); string(calls) != "--just-print dist-upgrade\n--assume-no --purge autoremove\n" {
		t.Errorf("apt-get was run with:\n%s", calls)
	}
}
