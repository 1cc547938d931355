package states_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"brine/internal/beacons"
	_ "brine/internal/builtin"
	"brine/internal/cli"
	"brine/internal/value"
)

// beaconSkip are entries of the recorded runs that this test does not
// compare, with why: they are not the beacon states' business.
var beaconSkip = map[string]string{
	// Salt's service state runs in offline mode on a machine where
	// systemd is not PID 1; the service beacon added for it is compared.
	"service_|-svc_|-h1-nosuch-svc_|-running": "the service module without a booted systemd",
}

// TestBeaconStatesSalt runs the steps of testdata/beacon/steps.txt with
// brine call --local against beacons a minion daemon runs (this test's
// process stands in for the daemon), then without one, and compares each run and the
// beacons.conf that beacon.present/absent save write with what Salt 3006
// returned for the same steps on this machine (NN.salt.json, recorded by
// testdata/beacon/record.py with Salt's own minion daemon): the beacon
// states, the mod_beacon functions of file, service and pkg, and the
// engine's beacon pass after the run (tags, run numbers, requisites kept
// on the copies, a module without mod_beacon).
func TestBeaconStatesSalt(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("the recorded runs check a Debian package (pkg.installed bash)")
	}
	dir := t.TempDir()
	scratch := filepath.Join(dir, "scratch")
	conf := filepath.Join(dir, "conf")
	roots := filepath.Join(dir, "states")
	for _, d := range []string{scratch, filepath.Join(conf, "minion.d")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join("testdata", "beacon", "states")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out := filepath.Join(roots, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(strings.ReplaceAll(string(b), "SCRATCH", scratch)), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cachedir := filepath.Join(dir, "cache")
	minion := "id: rec\nfile_client: local\nmaster_type: disable\nroot_dir: " + dir + "\ncachedir: " + cachedir +
		"\nfile_roots:\n  base:\n    - " + roots + "\n"
	if err := os.WriteFile(filepath.Join(conf, "minion"), []byte(minion), 0o644); err != nil {
		t.Fatal(err)
	}
	st := beacons.Store{Opts: value.MapOf("cachedir", cachedir)}
	if err := st.Init(value.NewMap(0)); err != nil {
		t.Fatal(err)
	}
	defer st.Stop()

	f, err := os.Open(filepath.Join("testdata", "beacon", "steps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps [][]string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			steps = append(steps, strings.Fields(l))
		}
	}
	for i, step := range steps {
		if step[0] == "!stop-daemon" {
			st.Stop()
			continue
		}
		var want struct {
			Step        string  `json:"step"`
			Ret         any     `json:"ret"`
			BeaconsConf *string `json:"beacons_conf"`
		}
		b, err := os.ReadFile(filepath.Join("testdata", "beacon", fmt.Sprintf("%02d.salt.json", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if want.Step != strings.Join(step, " ") {
			t.Fatalf("step %d is %q, the golden's %q: run record.py", i+1, step, want.Step)
		}
		var stdout, stderr bytes.Buffer
		cli.Main(append([]string{"call", "-c", conf, "--local", "--out", "json"}, step...), &stdout, &stderr)
		got, err := beaconRet(stdout.Bytes(), scratch)
		if err != nil {
			t.Fatalf("step %d %v: %v\n%s%s", i+1, step, err, stdout.String(), stderr.String())
		}
		wantRet := want.Ret
		if m, ok := wantRet.(map[string]any); ok {
			gm, _ := got.(map[string]any)
			for tag := range beaconSkip {
				if _, ok := m[tag]; ok {
					delete(m, tag)
					delete(gm, tag)
				}
			}
			for tag, w := range m {
				if g := gm[tag]; !reflect.DeepEqual(g, w) {
					t.Errorf("step %d %v: %s\n got  %s\n Salt %s", i+1, step, tag, beaconJSON(g), beaconJSON(w))
				}
			}
			for tag := range gm {
				if _, ok := m[tag]; !ok {
					t.Errorf("step %d %v: extra %s: %s", i+1, step, tag, beaconJSON(gm[tag]))
				}
			}
		} else if !reflect.DeepEqual(got, wantRet) {
			t.Errorf("step %d %v:\n got  %s\n Salt %s", i+1, step, beaconJSON(got), beaconJSON(wantRet))
		}
		var conf *string
		if b, err := os.ReadFile(filepath.Join(dir, "conf", "minion.d", "beacons.conf")); err == nil {
			s := strings.ReplaceAll(string(b), scratch, "SCRATCH")
			conf = &s
		}
		if (conf == nil) != (want.BeaconsConf == nil) || conf != nil && *conf != *want.BeaconsConf {
			t.Errorf("step %d %v: beacons.conf\n got  %v\n Salt %v", i+1, step, beaconText(conf), beaconText(want.BeaconsConf))
		}
	}
}

func beaconText(s *string) string {
	if s == nil {
		return "(no file)"
	}
	return *s
}

func beaconJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// beaconRet is the "local" value of brine's JSON output with the scratch
// directory written SCRATCH and the durations and start times dropped.
func beaconRet(out []byte, scratch string) (any, error) {
	var doc struct {
		Local any `json:"local"`
	}
	if err := json.Unmarshal(bytes.ReplaceAll(out, []byte(scratch), []byte("SCRATCH")), &doc); err != nil {
		return nil, err
	}
	if m, ok := doc.Local.(map[string]any); ok {
		for _, v := range m {
			if r, ok := v.(map[string]any); ok {
				delete(r, "start_time")
				delete(r, "duration")
			}
		}
	}
	return doc.Local, nil
}
