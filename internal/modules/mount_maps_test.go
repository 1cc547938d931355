package modules

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// saltRecord is a golden file written by testdata/saltrec/record.py:
// salt-call's answers for a sequence of calls on files in a scratch
// directory ("{d}").
type saltRecord struct {
	Files  map[string]string `json:"files"`
	Minion string            `json:"minion"`
	Steps  []struct {
		Name    string             `json:"name"`
		Argv    []string           `json:"argv"`
		Rc      int                `json:"rc"`
		Cwd     string             `json:"cwd"`
		Path    string             `json:"path"`
		Want    json.RawMessage    `json:"want"`
		Error   string             `json:"error"`
		Capture map[string]*string `json:"files"`
	} `json:"steps"`
}

// stepHook lets a test adjust one step's result and Salt's before they
// are compared (for values that differ between runs, such as process ids).
type stepHook func(name string, got, want any) (any, any)

var (
	pyAddrRE   = regexp.MustCompile(`0x[0-9a-f]+`)
	popenEnvRE = regexp.MustCompile(`'env': \{.*?\}, 'stdin'`)
	infoPidRE  = regexp.MustCompile(`\npid:\n    [0-9]+\n`)
)

// knownDiffs are the error lines where brine knowingly differs from Salt,
// by step name.
var knownDiffs = map[string]string{
	// brine's file.append reports the OSError without its class
	"set_automaster missing config": "Error running 'mount.set_automaster': [Errno 2] No such file or directory: '/etc/auto_master'",
}

// replaySaltRecord runs the steps of a golden file through brine, typing
// the arguments as brine call does, and compares each return value (as
// JSON), error line and captured file with what Salt gave.
func replaySaltRecord(t *testing.T, ctx *execmod.Context, golden string, hook stepHook) {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var rec saltRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	d := t.TempDir()
	for rel, text := range rec.Files {
		p := filepath.Join(d, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasPrefix(rel, "bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "{d}", d)), mode); err != nil {
			t.Fatal(err)
		}
	}
	origPath := os.Getenv("PATH")
	for _, st := range rec.Steps {
		argv := make([]string, len(st.Argv))
		for i, a := range st.Argv {
			argv[i] = strings.ReplaceAll(a, "{d}", d)
		}
		if st.Cwd != "" {
			t.Chdir(filepath.Join(d, st.Cwd))
		} else {
			t.Chdir(d)
		}
		if st.Path != "" {
			t.Setenv("PATH", strings.ReplaceAll(st.Path, "{d}", d)+":"+origPath)
		} else {
			t.Setenv("PATH", origPath)
		}
		args, kwargs := yamlload.ParseInput(argv[1:], nil)
		// salt-call's publication data, as brine call adds it
		kwargs.Set("__pub_fun", argv[0])
		kwargs.Set("__pub_pid", int64(os.Getpid()))
		kwargs.Set("__pub_jid", "20260101000000000000")
		kwargs.Set("__pub_tgt", "salt-call")
		ctx.SetRetcode(0)
		got, err := ctx.Call(argv[0], args, kwargs)
		if st.Error != "" || st.Want == nil {
			msg := "<no error>"
			if err != nil {
				msg = strings.ReplaceAll(errorLine(argv[0], err), d, "{d}")
			}
			want := st.Error
			if d, ok := knownDiffs[st.Name]; ok {
				want = d
			}
			// the environment and process ids are the test process's
			want, msg = infoPidRE.ReplaceAllString(want, "\npid:\n    N\n"), infoPidRE.ReplaceAllString(msg, "\npid:\n    N\n")
			want, msg = popenEnvRE.ReplaceAllString(want, "'env': {...}, 'stdin'"), popenEnvRE.ReplaceAllString(msg, "'env': {...}, 'stdin'")
			if strings.Contains(want, "<filter object at ") {
				want, msg = pyAddrRE.ReplaceAllString(want, "0x"), pyAddrRE.ReplaceAllString(msg, "0x")
			}
			if msg != want {
				t.Errorf("%s: error\n got %s\nwant %s", st.Name, msg, want)
			}
		} else if err != nil {
			t.Errorf("%s: %v", st.Name, err)
		} else {
			want, err := value.FromJSON(st.Want)
			if err != nil {
				t.Fatalf("%s: %v", st.Name, err)
			}
			if hook != nil {
				got, want = hook(st.Name, got, want)
			}
			if rc := callExitCode(ctx, got); rc != st.Rc {
				t.Errorf("%s: exit code %d, Salt's %d", st.Name, rc, st.Rc)
			}
			opts := value.JSONOptions{Indent: -1, SortKeys: true}
			g := strings.ReplaceAll(value.ToJSON(got, opts), d, "{d}")
			if w := value.ToJSON(want, opts); g != w {
				t.Errorf("%s:\n got %s\nwant %s", st.Name, g, w)
			}
		}
		for rel, want := range st.Capture {
			b, err := os.ReadFile(filepath.Join(d, rel))
			switch {
			case want == nil && err == nil:
				t.Errorf("%s: %s exists, Salt left none", st.Name, rel)
			case want != nil && err != nil:
				t.Errorf("%s: %v", st.Name, err)
			case want != nil && strings.ReplaceAll(string(b), d, "{d}") != *want:
				t.Errorf("%s: %s\n got %q\nwant %q", st.Name, rel, b, *want)
			}
		}
	}
}

// callExitCode is brine call's exit code for a return: 1 when the
// function set a non-zero return code or returned a mapping whose
// "result" or "success" is false.
func callExitCode(ctx *execmod.Context, ret any) int {
	if ctx.Retcode() != 0 {
		return 1
	}
	if m, ok := ret.(*value.Map); ok {
		for _, k := range []string{"result", "success"} {
			if v, has := m.Get(k); has && !value.Truthy(v) {
				return 1
			}
		}
	}
	return 0
}

// errorLine is the line salt-call ends with for an error: "Error running
// ..." for Salt's exceptions, the exception itself for any other.
func errorLine(fun string, err error) string {
	var c interface{ SaltExceptionClass() string }
	if errors.As(err, &c) && !strings.HasPrefix(c.SaltExceptionClass(), "salt.exceptions.") {
		return c.SaltExceptionClass() + ": " + err.Error()
	}
	return "Error running '" + fun + "': " + err.Error()
}

// TestMountMapsSalt replays Salt's answers for the automounter map, vfstab
// and filesystems functions (testdata/saltrec/mount.golden.json).
func TestMountMapsSalt(t *testing.T) {
	ctx := testContext()
	replaySaltRecord(t, ctx, "testdata/saltrec/mount.golden.json", nil)
}
