package states_test

// user_salt_test.go replays the cases of testdata/usergroup: each sets up
// throwaway users and groups named brinegold*, applies user and group
// states, and compares the running dictionary (and the output of an
// optional check script) with what Salt 3006 returned on the same machine
// (recorded by testdata/usergroup/record.py). It changes the real user
// database, so it runs only as root, and removes every brinegold* user
// and group after each case.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"brine/internal/compile"
	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/statemod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// recordHome is the scratch directory record.py gives the cases.
const recordHome = "/tmp/brinegold-home"

func TestUserGroupSaltGoldens(t *testing.T) {
	needRootTools(t, "useradd", "usermod", "userdel", "groupadd", "groupdel", "gpasswd", "chage", "getent", "bash")
	if ids := brinegoldIDs(t); len(ids.names) > 0 {
		t.Skipf("brinegold* users or groups exist already (%v): not touching them", ids.names)
	}
	files, _ := filepath.Glob("testdata/usergroup/*.txtar")
	if len(files) == 0 {
		t.Fatal("no cases")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string]string{}
			for _, af := range ar.Files {
				sec[af.Name] = string(af.Data)
			}
			test := strings.Contains(string(ar.Comment), "args: test=True")
			home := t.TempDir()
			t.Cleanup(func() { removeCaseUsers(t) })
			setup(t, strings.ReplaceAll(sec["setup.sh"], "{home}", home))
			got := applySLS(t, strings.ReplaceAll(sec["init.sls"], "{home}", home), test)
			ids := brinegoldIDs(t)
			check := ""
			if sec["check.sh"] != "" {
				check = runShell(t, strings.ReplaceAll(sec["check.sh"], "{home}", home))
			}

			wantRaw, err := value.FromJSON([]byte(sec["salt.json"]))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := wantRaw.(*value.Map).Get("local")
			wantIDs := parseIDs(sec["salt.ids"])
			gotJSON := value.ToJSON(normRun(got, ids, home), value.JSONOptions{Indent: 1})
			wantJSON := value.ToJSON(normRun(want, wantIDs, recordHome), value.JSONOptions{Indent: 1})
			if gotJSON != wantJSON {
				t.Errorf("running dict differs from Salt's\n--- brine\n%s\n--- salt\n%s", gotJSON, wantJSON)
			}
			if g, w := normText(check, ids, home), normText(sec["salt.check"], wantIDs, recordHome); g != w {
				t.Errorf("check.sh output differs from Salt's\n--- brine\n%s--- salt\n%s", g, w)
			}
		})
	}
}

// applySLS compiles one SLS file and runs it as state.apply would.
func applySLS(t *testing.T, sls string, test bool) *value.Map {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "case.sls"), []byte(sls), 0o644); err != nil {
		t.Fatal(err)
	}
	roots := fileserver.FromDirs(map[string][]string{"base": {dir}})
	rend := compile.RendererFunc(func(s fileserver.SLS) (any, error) {
		data, err := os.ReadFile(s.Path)
		if err != nil {
			return nil, err
		}
		return yamlload.Load(data, s.Path)
	})
	c := compile.New(fileserver.NewAvail(roots, nil), rend, true)
	high, errs := c.RenderHighstate(value.MapOf("base", value.NewList("case")))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	high, errs = compile.ReconcileExtend(high, false)
	errs = append(errs, compile.VerifyHigh(high)...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx := execmod.NewContext()
	ctx.Grains = value.MapOf("os", "Debian", "os_family", "Debian", "kernel", "Linux", "id", "minion")
	ctx.Opts = value.MapOf("test", test, "id", "minion")
	ctx.Test = test
	running, err := engine.Run(compile.CompileHighData(high), engine.RunOptions{Test: test,
		Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}})
	if err != nil {
		t.Fatal(err)
	}
	return running
}

// setup runs a case's setup script from a clean slate. Other tests may
// hold the lock of /etc/passwd for a moment, so a failing setup is
// retried a few times before the case fails.
func setup(t *testing.T, script string) {
	t.Helper()
	var out []byte
	var err error
	for try := 0; try < 5; try++ {
		removeCaseUsers(t)
		out, err = exec.Command("bash", "-e", "-c", script).CombinedOutput()
		if err == nil {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("setup: %v\n%s", err, out)
}

func runShell(t *testing.T, script string) string {
	t.Helper()
	out, _ := exec.Command("bash", "-c", script).Output()
	return string(out)
}

// idMap names the ids of the brinegold* users and groups after a run.
type idMap struct {
	uid, gid map[int64]string
	names    []string
	today    int64
}

func brinegoldIDs(t *testing.T) idMap {
	var b strings.Builder
	for _, db := range []string{"passwd", "group"} {
		out, err := exec.Command("getent", db).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "brinegold") {
				b.WriteString(db + ":" + l + "\n")
			}
		}
	}
	b.WriteString("today:" + strconv.FormatInt(time.Now().Unix()/86400, 10) + "\n")
	return parseIDs(b.String())
}

func parseIDs(s string) idMap {
	m := idMap{uid: map[int64]string{}, gid: map[int64]string{}}
	for _, l := range strings.Split(s, "\n") {
		f := strings.Split(l, ":")
		switch {
		case f[0] == "today" && len(f) == 2:
			m.today, _ = strconv.ParseInt(f[1], 10, 64)
		case f[0] == "passwd" && len(f) > 4:
			n, _ := strconv.ParseInt(f[3], 10, 64)
			m.uid[n] = f[1]
			m.names = append(m.names, f[1])
		case f[0] == "group" && len(f) > 4:
			n, _ := strconv.ParseInt(f[3], 10, 64)
			m.gid[n] = f[1]
			m.names = append(m.names, f[1])
		}
	}
	return m
}

var numberToken = regexp.MustCompile(`\b\d{3,}\b`)

// normText replaces the scratch home, today's day number and the ids of
// brinegold* users and groups (which depend on the machine: in text a uid
// and a gid may coincide, so both become {id}).
func normText(s string, ids idMap, home string) string {
	s = strings.ReplaceAll(s, home, "{home}")
	return numberToken.ReplaceAllStringFunc(s, func(tok string) string {
		n, _ := strconv.ParseInt(tok, 10, 64)
		_, isUID := ids.uid[n]
		_, isGID := ids.gid[n]
		switch {
		case isUID || isGID:
			return "{id}"
		case n == ids.today:
			return "{today}"
		}
		return tok
	})
}

// normID names the id of a uid or gid field.
func normID(k string, n int64, ids idMap) string {
	m := map[string]map[int64]string{"uid": ids.uid, "gid": ids.gid}[k]
	if name, ok := m[n]; ok {
		return "{" + k + " " + name + "}"
	}
	if k == "lstchg" && n == ids.today {
		return "{today}"
	}
	return strconv.FormatInt(n, 10)
}

// normRun drops the timing and source keys of a running dictionary and
// normalises ids, days and paths as normText does.
func normRun(v any, ids idMap, home string) any {
	switch x := v.(type) {
	case string:
		return normText(x, ids, home)
	case *value.List:
		out := value.NewList()
		for _, it := range x.Items {
			out.Append(normRun(it, ids, home))
		}
		return out
	case *value.Map:
		out := value.NewMap(x.Len())
		x.Range(func(k, val any) bool {
			switch ks := value.Str(k); ks {
			case "duration", "start_time", "__sls__", "__id__":
			case "uid", "gid", "lstchg":
				if n, ok := val.(int64); ok {
					out.Set(ks, normID(ks, n, ids))
					break
				}
				out.Set(ks, normRun(val, ids, home))
			default:
				out.Set(ks, normRun(val, ids, home))
			}
			return true
		})
		return out
	}
	return v
}

// removeCaseUsers deletes every brinegold* user (with its home) and group.
func removeCaseUsers(t *testing.T) {
	ids := brinegoldIDs(t)
	for _, n := range ids.uid {
		exec.Command("userdel", "-rf", n).Run()
	}
	for _, n := range brinegoldIDs(t).gid {
		exec.Command("groupdel", n).Run()
	}
}
