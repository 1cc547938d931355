package states_test

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// writeWheel writes a minimal pure-Python wheel of brinedemo 1.0 to dir,
// so that pip installs it offline.
func writeWheel(t *testing.T, dir string) { writeWheelVersion(t, dir, "1.0") }

// writeWheelVersion writes a wheel of brinedemo ver to dir.
func writeWheelVersion(t *testing.T, dir, ver string) {
	f, err := os.Create(filepath.Join(dir, "brinedemo-"+ver+"-py3-none-any.whl"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	info := "brinedemo-" + ver + ".dist-info/"
	files := [][2]string{
		{"brinedemo/__init__.py", "VERSION = '" + ver + "'\n"},
		{info + "METADATA", "Metadata-Version: 2.1\nName: brinedemo\nVersion: " + ver + "\n"},
		{info + "WHEEL", "Wheel-Version: 1.0\nGenerator: brine-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
		{info + "RECORD", "brinedemo/__init__.py,,\n" + info + "METADATA,,\n" + info + "WHEEL,,\n" + info + "RECORD,,\n"},
	}
	for _, fl := range files {
		w, _ := zw.Create(fl[0])
		w.Write([]byte(fl[1]))
	}
	zw.Close()
	f.Close()
}

// TestVirtualenvAndPip creates a real virtualenv and installs a local
// wheel into it with pip, offline.
func TestVirtualenvAndPip(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: creating a virtualenv takes several seconds (ensurepip)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: virtualenv.managed and pip.installed need it")
	}
	if exec.Command("python3", "-c", "import venv, ensurepip").Run() != nil {
		t.Skip("python3 has no venv/ensurepip module (Debian package python3-venv)")
	}
	dir := t.TempDir()
	wheels := filepath.Join(dir, "wheels")
	os.MkdirAll(wheels, 0o755)
	writeWheel(t, wheels)
	venv := filepath.Join(dir, "venv")
	ctx := execmod.NewContext()
	sysCase{"virtualenv.managed", value.MapOf("name", venv), true, "Created new virtualenv"}.check(t, ctx)
	args := value.MapOf("name", "brinedemo", "bin_env", venv, "no_index", true, "find_links", wheels)
	ret := sysCase{"pip.installed", args, true, "All packages were successfully installed"}.check(t, ctx)
	if value.Repr(getMap(ret, "changes")) != "{'brinedemo==1.0': 'Installed'}" {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
	again := sysRun(t, ctx, "pip.installed", value.MapOf("name", "brinedemo>=1.0", "bin_env", venv), false)
	if str(again, "comment") != "Python package brinedemo>=1.0 was already installed\nAll specified packages are already installed" {
		t.Errorf("again: %s", value.Repr(again))
	}
	tr := sysRun(t, ctx, "pip.installed", value.MapOf("name", "brinedemo>=2.0", "bin_env", venv), true)
	if str(tr, "comment") != "Python package brinedemo>=2.0 is set to be installed" {
		t.Errorf("version spec test mode: %s", value.Repr(tr))
	}
	sysCase{"pip.removed", value.MapOf("name", "brinedemo", "bin_env", venv), true, "Package was successfully removed."}.check(t, ctx)
}
