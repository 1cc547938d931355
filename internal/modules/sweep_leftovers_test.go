package modules

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/system"
	"brine/internal/system/svcmgr"
	"brine/internal/value"
)

// sweepGolden is Salt 3006's record for key in
// testdata/sweep_leftovers/salt.json (written by record.sh there).
func sweepGolden(t *testing.T, key string) *value.Map {
	t.Helper()
	data, err := os.ReadFile("testdata/sweep_leftovers/salt.json")
	if err != nil {
		t.Fatal(err)
	}
	all, err := value.FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := all.(*value.Map).Get(key)
	if !ok {
		t.Fatalf("no golden %s", key)
	}
	if m, ok := v.(*value.Map); ok {
		return m
	}
	return value.MapOf("return", v)
}

func goldenField(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

// TestCpListMinionSweep: Salt walks a cache directory that does not exist
// by its parent (the recorded case: files/dev instead of files/base).
func TestCpListMinionSweep(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(root, "var/cache/salt/minion")
	writeTree(t, cache, map[string]string{"files/dev/sub/x.sls": "x\n", "localfiles/y.txt": "y\n"})
	ctx := testContext()
	ctx.Opts = value.MapOf("cachedir", cache)
	got, err := ctx.Call("cp.list_minion", nil, value.MapOf("saltenv", "base"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(value.Repr(goldenField(sweepGolden(t, "cp.list_minion"), "return")), "{root}", root)
	if value.Repr(got) != want {
		t.Errorf("got %s\nwant %s", value.Repr(got), want)
	}
	// Without localfiles the whole cachedir is listed.
	os.RemoveAll(filepath.Join(cache, "localfiles"))
	writeTree(t, cache, map[string]string{"proc/123": "", "files/base/top.sls": ""})
	got, err = ctx.Call("cp.list_minion", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = value.Repr(value.NewList(cache+"/files/base/top.sls", cache+"/files/dev/sub/x.sls", cache+"/proc/123"))
	if value.Repr(got) != want {
		t.Errorf("without localfiles: got %s\nwant %s", value.Repr(got), want)
	}
}

// TestGetLocaleRetcode: without systemd Salt greps /etc/default/locale
// through cmd.run, so grep's status is the call's retcode.
func TestGetLocaleRetcode(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("no grep")
	}
	g := sweepGolden(t, "locale.get_locale")
	recorded := value.Str(goldenField(sweepGolden(t, "/etc/default/locale"), "return"))
	for _, tc := range []struct {
		name, file string // file "" means no file
		want       any
		rc         int
	}{
		{"recorded", recorded, goldenField(g, "return"), int(goldenField(g, "retcode").(int64))},
		{"lang", "LANG=\"de_DE.UTF-8\"\nLANGUAGE=de\n", "de_DE.UTF-8", 0},
		{"missing", "", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.file != "" {
				writeTree(t, root, map[string]string{"etc/default/locale": tc.file})
			}
			ctx := testContext()
			ctx.SetService(SysRootService, root)
			got, err := ctx.Call("locale.get_locale", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !value.Equal(got, tc.want) || ctx.Retcode() != tc.rc {
				t.Errorf("got %s rc %d, want %s rc %d", value.Repr(got), ctx.Retcode(), value.Repr(tc.want), tc.rc)
			}
		})
	}
}

// TestServiceShowRetcode: systemctl show's exit status is the retcode.
func TestServiceShowRetcode(t *testing.T) {
	for _, code := range []int{0, 1} {
		rec := &system.Recorder{Reply: func(c system.Cmd) (system.Result, bool) {
			return system.Result{Stdout: "Id=cron.service\n", Code: code}, true
		}}
		ctx := testContext()
		ctx.SetService(SvcManagerService, svcmgr.NewSystemd(rec))
		got, err := ctx.Call("service.show", []any{"cron"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if value.Repr(got) != "{'Id': 'cron.service'}" || ctx.Retcode() != code {
			t.Errorf("code %d: got %s rc %d", code, value.Repr(got), ctx.Retcode())
		}
	}
	// This machine's systemctl, compared with Salt's answer when it fails
	// the same way as where the golden was recorded (no systemd as PID 1).
	out, err := exec.Command("systemctl", "show", "cron.service").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(string(out), "not been booted with systemd") {
		t.Skip("systemctl show does not fail here as where the golden was recorded")
	}
	ctx := testContext()
	ctx.SetService(SvcManagerService, svcmgr.NewSystemd(system.Exec{}))
	got, err := ctx.Call("service.show", []any{"cron"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := sweepGolden(t, "service.show")
	if value.Repr(got) != value.Repr(goldenField(g, "return")) || int64(ctx.Retcode()) != goldenField(g, "retcode") {
		t.Errorf("got %s rc %d, want %s", value.Repr(got), ctx.Retcode(), value.Repr(g))
	}
}

// TestServicesNeedRestartNotFound: without checkrestart the error is
// Salt's CommandNotFoundError with its text.
func TestServicesNeedRestartNotFound(t *testing.T) {
	if _, err := exec.LookPath("checkrestart"); err == nil {
		t.Skip("checkrestart is installed")
	}
	_, err := testContext().Call("pkg.services_need_restart", nil, nil)
	var c interface{ SaltExceptionClass() string }
	if !errors.As(err, &c) || c.SaltExceptionClass() != "salt.exceptions.CommandNotFoundError" {
		t.Fatalf("got %T %v", err, err)
	}
	want := value.Str(goldenField(sweepGolden(t, "pkg.services_need_restart"), "stderr"))
	if got := "Command required for 'pkg.services_need_restart' not found: " + err.Error(); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
