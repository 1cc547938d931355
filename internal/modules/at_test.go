package modules

import (
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// needAt skips when at(1) is missing (.ci/run installs the "at" package).
// Queueing a job does not need atd: at(1) writes the spool itself.
func needAt(t *testing.T) {
	t.Helper()
	for _, c := range []string{"at", "atq"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not installed", c)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to use at(1)")
	}
}

// atJobIDs lists the numbers of the queued jobs tagged tag (read with
// atq and at -c directly, not through the module).
func atJobIDs(t *testing.T, tag string) []string {
	t.Helper()
	out, err := exec.Command("atq").Output()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, _, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		script, _ := exec.Command("at", "-c", id).Output()
		if strings.Contains(string(script), "\n### SALT: "+tag+"\n") {
			ids = append(ids, id)
		}
	}
	return ids
}

// atCleanup removes whatever jobs tagged tag a test leaves behind.
func atCleanup(t *testing.T, tag string) {
	t.Cleanup(func() {
		if ids := atJobIDs(t, tag); len(ids) > 0 {
			_ = exec.Command("at", append([]string{"-d"}, ids...)...).Run()
		}
	})
}

// TestAt queues real jobs years ahead with a tag of its own, reads them
// back through every function, and removes them. The calls and the
// replies wanted are Salt 3006's, recorded on this machine in
// testdata/at_salt.txt (job numbers and the tag as placeholders).
func TestAt(t *testing.T) {
	needAt(t)
	tag := "brinetest" + strconv.Itoa(os.Getpid())
	atCleanup(t, tag)
	ctx := testContext()
	data, err := os.ReadFile("testdata/at_salt.txt")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{"{tag}": tag}
	subst := func(s string) string {
		for k, v := range ids {
			s = strings.ReplaceAll(s, k, v)
		}
		return s
	}
	var id1 string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		argsJSON, want, _ := strings.Cut(line, "\t")
		var argv []string
		if err := json.Unmarshal([]byte(argsJSON), &argv); err != nil {
			t.Fatal(err)
		}
		for i := range argv {
			argv[i] = subst(argv[i])
		}
		pos, kw := yamlload.ParseInput(argv[1:], nil)
		got, err := ctx.Call(argv[0], pos, kw)
		if err != nil {
			t.Errorf("%v: %v", argv, err)
			continue
		}
		if id1 == "" {
			// The first case queues job {id1}; queue {id2} the same way.
			id1 = value.Str(getMap(getMap(got, "jobs").(*value.List).Items[0], "job"))
			ids["{id1}"] = id1
			second := call(t, ctx, "at.at", []any{"10:00 12/25/2040", "echo two"}, "tag", tag)
			jobs, _ := second.(*value.Map).Get("jobs")
			ids["{id2}"] = value.Str(getMap(jobs.(*value.List).Items[0], "job"))
		}
		wantV, err := value.FromJSON([]byte(subst(want)))
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if g, w := value.Repr(atSorted(got)), value.Repr(atSorted(wantV)); g != w {
			t.Errorf("%v:\n got %s\nwant %s", argv, g, w)
		}
	}

	if _, err := ctx.Call("at.jobcheck", nil, value.MapOf("tag", tag, "hour", "ten")); err == nil ||
		err.Error() != "invalid literal for int() with base 10: 'ten'" {
		t.Errorf("at.jobcheck hour=ten: %v", err)
	}
	if got := call(t, ctx, "at.jobcheck", nil); value.Repr(got) != "{'error': 'You have given a condition'}" {
		t.Errorf("at.jobcheck without conditions: %s", value.Repr(got))
	}
	id2 := ids["{id2}"]
	script := call(t, ctx, "at.atc", []any{id2})
	if s, _ := script.(string); !strings.HasSuffix(s, "\n### SALT: "+tag+"\necho two") {
		t.Errorf("at.atc %s ends %q", id2, s[max(0, len(s)-60):])
	}
	third := call(t, ctx, "at.at", []any{"10:00 12/25/2040", "echo three"}, "tag", tag).(*value.Map)
	jobs, _ := third.Get("jobs")
	n3 := value.Str(getMap(jobs.(*value.List).Items[0], "job"))
	// Several jobs go in one at -d (Salt joins them into one argument,
	// which at rejects; brine removes them all).
	if got, want := value.Repr(atSorted(call(t, ctx, "at.atrm", []any{"all", tag}))), "{'jobs': {'removed': ['"+id2+"', '"+n3+"'], 'tag': '"+tag+"'}}"; got != want {
		t.Errorf("at.atrm all %s:\n got %s\nwant %s", tag, got, want)
	}
	if left := atJobIDs(t, tag); len(left) > 0 {
		t.Errorf("jobs left after at.atrm all %s: %v", tag, left)
	}
}

// atSorted orders the job lists of an at.* return by job number (atq
// lists jobs in its spool's directory order).
func atSorted(v any) any {
	m, ok := v.(*value.Map)
	if !ok {
		return v
	}
	num := func(x any) int64 {
		if j, ok := x.(*value.Map); ok {
			x, _ = j.Get("job")
		}
		n, _ := strconv.ParseInt(value.Str(x), 10, 64)
		return n
	}
	for _, l := range []any{getMap(m, "jobs"), getMap(getMap(m, "jobs"), "removed")} {
		if l, ok := l.(*value.List); ok {
			sort.Slice(l.Items, func(i, j int) bool { return num(l.Items[i]) < num(l.Items[j]) })
		}
	}
	return v
}

func getMap(m any, k string) any {
	mm, ok := m.(*value.Map)
	if !ok {
		return nil
	}
	v, _ := mm.Get(k)
	return v
}
