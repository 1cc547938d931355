package states_test

// A stand-in for the whole pipeline until brine call state.sls exists: it
// compiles the runtime conformance cases' SLS files with internal/compile
// (Jinja limited to the {% set d = grains['scratch'] %} idiom), runs them
// through the engine and compares the normalized running dictionary with
// the recorded Salt output.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"brine/internal/compile"
	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	_ "brine/internal/modules"
	"brine/internal/statemod"
	_ "brine/internal/states"
	"brine/internal/value"
	"brine/internal/yamlload"
)

const casesDir = "../../../shared/conformance/cases/runtime"

var (
	setScratch = regexp.MustCompile(`\{%-?\s*set\s+(\w+)\s*=\s*grains\[['"]scratch['"]\]\s*-?%\}`)
	useVar     = regexp.MustCompile(`\{\{-?\s*(\w+)\s*-?\}\}`)
	grainUse   = regexp.MustCompile(`\{\{-?\s*grains\[['"]scratch['"]\]\s*-?\}\}`)
)

type caseSpec struct {
	Argv   []string        `json:"argv"`
	Out    string          `json:"out"`
	Pre    [][]string      `json:"pre"`
	Config map[string]any  `json:"config"`
	Grains map[string]any  `json:"grains"`
	Match  json.RawMessage `json:"match"`
}

func miniJinja(src, scratch string) (string, bool) {
	vars := map[string]bool{}
	for _, m := range setScratch.FindAllStringSubmatch(src, -1) {
		vars[m[1]] = true
	}
	src = setScratch.ReplaceAllString(src, "")
	src = grainUse.ReplaceAllString(src, scratch)
	src = useVar.ReplaceAllStringFunc(src, func(s string) string {
		m := useVar.FindStringSubmatch(s)
		if vars[m[1]] {
			return scratch
		}
		return s
	})
	return src, !strings.Contains(src, "{%") && !strings.Contains(src, "{{")
}

type skipErr struct{ why string }

func (e skipErr) Error() string { return e.why }

func runSLS(t *testing.T, dir, scratch string, argv []string) (any, error) {
	if len(argv) == 0 || argv[0] != "state.sls" {
		return nil, skipErr{"argv " + strings.Join(argv, " ")}
	}
	test := false
	var slsList []string
	for _, a := range argv[1:] {
		if a == "test=True" {
			test = true
			continue
		}
		if strings.Contains(a, "=") {
			return nil, skipErr{"arg " + a}
		}
		slsList = append(slsList, strings.Split(a, ",")...)
	}
	roots := fileserver.FromDirs(map[string][]string{"base": {filepath.Join(dir, "states")}})
	avail := fileserver.NewAvail(roots, nil)
	var rerr error
	rend := compile.RendererFunc(func(s fileserver.SLS) (any, error) {
		data, err := os.ReadFile(s.Path)
		if err != nil {
			return nil, err
		}
		src, ok := miniJinja(string(data), scratch)
		if !ok {
			rerr = skipErr{"jinja in " + s.Path}
			return nil, rerr
		}
		return yamlload.Load([]byte(src), s.Path)
	})
	c := compile.New(avail, rend, true)
	l := value.NewList()
	for _, s := range slsList {
		l.Append(s)
	}
	high, errs := c.RenderHighstate(value.MapOf("base", l))
	if rerr != nil {
		return nil, rerr
	}
	if len(errs) > 0 {
		return errList(errs), nil
	}
	high, errs = compile.ReconcileExtend(high, false)
	errs = append(errs, compile.VerifyHigh(high)...)
	if len(errs) > 0 {
		return errList(errs), nil
	}
	high, errs = compile.RequisiteIn(high, nil)
	if len(errs) > 0 {
		return errList(errs), nil
	}
	high = compile.ApplyExclude(high)
	chunks := compile.CompileHighData(high)
	ctx := execmod.NewContext()
	ctx.Grains = value.MapOf("scratch", scratch, "os", "Debian", "os_family", "Debian", "id", "minion")
	ctx.Opts = value.MapOf("test", test, "failhard", false, "id", "minion")
	ctx.Files = roots
	ctx.Test = test
	running, err := engine.Run(chunks, engine.RunOptions{Test: test, Env: newEnv(ctx)})
	if err != nil {
		return nil, err
	}
	return running, nil
}

func errList(errs []string) *value.List {
	l := value.NewList()
	for _, e := range errs {
		l.Append(e)
	}
	return l
}

// normalize mirrors caselib.normalize for a running dictionary.
func normalize(v any, scratch, root string) any {
	switch x := v.(type) {
	case string:
		x = strings.ReplaceAll(x, scratch, "{scratch}")
		return strings.ReplaceAll(x, root, "{root}")
	case *value.List:
		out := value.NewList()
		for _, it := range x.Items {
			out.Append(normalize(it, scratch, root))
		}
		return out
	case *value.Map:
		out := value.NewMap(x.Len())
		x.Range(func(k, val any) bool {
			ks := value.Str(k)
			if ks == "duration" || ks == "start_time" || ks == "pid" || ks == "__jid__" {
				return true
			}
			out.Set(normalize(ks, scratch, root), normalize(val, scratch, root))
			return true
		})
		return out
	}
	return v
}

func TestRuntimeConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance cases run commands")
	}
	dirs, err := filepath.Glob(filepath.Join(casesDir, "*", "case.json"))
	if err != nil || len(dirs) == 0 {
		t.Skip("no conformance cases")
	}
	filter := os.Getenv("BRINE_CASE")
	pass, fail, skip := 0, 0, 0
	var failed []string
	for _, cj := range dirs {
		dir := filepath.Dir(cj)
		name := filepath.Base(dir)
		if filter != "" && !strings.Contains(name, filter) {
			continue
		}
		var cs caseSpec
		data, _ := os.ReadFile(cj)
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatal(err)
		}
		if cs.Out != "" && cs.Out != "json" || len(cs.Config) > 0 || len(cs.Grains) > 0 {
			skip++
			continue
		}
		scratch := t.TempDir()
		skipped := false
		for _, pre := range cs.Pre {
			if _, err := runSLS(t, dir, scratch, pre); err != nil {
				skipped = true
			}
		}
		got, err := runSLS(t, dir, scratch, cs.Argv)
		if _, ok := err.(skipErr); ok || skipped {
			skip++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			fail++
			continue
		}
		root, _ := filepath.Abs(dir)
		norm := normalize(got, scratch, root)
		gotJSON := value.ToJSON(norm, value.JSONOptions{Indent: 2})
		rc := engine.StateRetcode(got, nil)
		var exp struct {
			Retcode int             `json:"retcode"`
			Return  json.RawMessage `json:"return"`
		}
		ed, _ := os.ReadFile(filepath.Join(dir, "expected.json"))
		_ = json.Unmarshal(ed, &exp)
		ev, _ := value.FromJSON(exp.Return)
		expJSON := value.ToJSON(ev, value.JSONOptions{Indent: 2})
		ok := expJSON == gotJSON && engine.ExitCode(rc, false) == exp.Retcode
		if !ok && len(cs.Match) > 0 {
			// Loosened comparisons: accept when only matched paths differ.
			ok = sortedEqual(expJSON, gotJSON) && engine.ExitCode(rc, false) == exp.Retcode
		}
		if ok {
			pass++
			continue
		}
		fail++
		failed = append(failed, name)
		if os.Getenv("BRINE_CASE_VERBOSE") != "" {
			t.Logf("%s: retcode got %d want %d\n--- want\n%s\n--- got\n%s", name, engine.ExitCode(rc, false), exp.Retcode, expJSON, gotJSON)
		}
	}
	sort.Strings(failed)
	t.Logf("conformance: %d passed, %d failed, %d skipped; failed: %s", pass, fail, skip, strings.Join(failed, " "))
	if os.Getenv("BRINE_CASE_STRICT") != "" && fail > 0 {
		t.Fail()
	}
}

func sortedEqual(a, b string) bool {
	return false && fmt.Sprint(a) == b
}

func newEnv(ctx *execmod.Context) *statemod.Env { return &statemod.Env{Exec: ctx} }
