package check

import (
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/pillar"
	"brine/internal/value"
)

const casesDir = "../../../shared/conformance/cases"

// caseGrains are the conformance cases' default grains.
const caseGrains = `{"os": "Debian", "os_family": "Debian", "osfinger": "Debian-12", "osfullname": "Debian GNU/Linux",
"osmajorrelease": 12, "osrelease": "12", "osrelease_info": [12], "oscodename": "bookworm", "osarch": "amd64",
"cpuarch": "x86_64", "kernel": "Linux", "init": "systemd", "virtual": "physical", "num_cpus": 2, "mem_total": 4096,
"host": "minion", "nodename": "minion", "localhost": "minion", "domain": "example.test", "fqdn": "minion.example.test",
"ipv4": ["127.0.0.1", "192.0.2.10"], "roles": []}`

// compileFuns are the functions whose list return is a compile error.
var compileFuns = map[string]bool{
	"state.apply": true, "state.sls": true, "state.highstate": true, "state.test": true,
	"state.show_sls": true, "state.show_highstate": true, "state.show_lowstate": true,
	"state.show_low_sls": true,
}

var slsFuns = map[string]bool{
	"state.apply": true, "state.sls": true, "state.test": true,
	"state.show_sls": true, "state.show_low_sls": true,
}

// TestConformanceSweep runs check over every conformance case tree: it
// must never panic, and a tree Salt fails to compile (its recorded return
// is a list of error strings) must give at least one error.
func TestConformanceSweep(t *testing.T) {
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer slog.SetDefault(old)
	dirs, _ := filepath.Glob(filepath.Join(casesDir, "*", "*", "case.json"))
	if len(dirs) == 0 {
		t.Skip("no conformance cases")
	}
	missed := 0
	for _, cj := range dirs {
		dir := filepath.Dir(cj)
		name := strings.TrimPrefix(dir, casesDir+"/")
		t.Run(name, func(t *testing.T) {
			// a copy: a case's gpg keyring must not get the agent's
			// sockets (the pillar tests copy these trees)
			c := loadSweepCase(t, copyCase(t, dir))
			if c == nil {
				t.Skip("not a case")
			}
			var res *Result
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("check panicked: %v", r)
					}
				}()
				res = Run(Options{Ctx: c.ctx, SLS: c.sls, Saltenv: c.saltenv, BaseDir: dir})
			}()
			if c.wantError && !res.Diags.HasErrors() {
				missed++
				t.Errorf("Salt's compile fails (%v) but check found no error", c.argv)
			}
		})
	}
	if missed > 0 {
		t.Logf("%d compile-error cases without an error diagnostic", missed)
	}
}

type sweepCase struct {
	argv      []string
	ctx       *execmod.Context
	sls       []string
	saltenv   string
	wantError bool
}

func loadSweepCase(t *testing.T, dir string) *sweepCase {
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil
	}
	cv, err := value.FromJSON(raw)
	if err != nil {
		return nil
	}
	cm, ok := cv.(*value.Map)
	if !ok {
		return nil
	}
	c := &sweepCase{}
	if l, ok := mget(cm, "argv").(*value.List); ok {
		for _, a := range l.Items {
			c.argv = append(c.argv, value.Str(a))
		}
	}
	id := "minion"
	if v, ok := cm.Get("id"); ok {
		id = value.Str(v)
	}
	g, _ := value.FromJSON([]byte(caseGrains))
	grains := g.(*value.Map)
	if gm, ok := mget(cm, "grains").(*value.Map); ok {
		gm.Range(func(k, x any) bool {
			if x == nil {
				grains.Delete(k)
			} else {
				grains.Set(k, x)
			}
			return true
		})
	}
	grains.Set("id", id)
	scratch := t.TempDir()
	grains.Set("scratch", scratch)
	opts := config.MinionDefaults()
	opts.Set("id", id)
	opts.Set("file_client", "local")
	opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "states"))))
	opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "pillar"))))
	opts.Set("cachedir", filepath.Join(scratch, "cache"))
	if cfg, ok := mget(cm, "config").(*value.Map); ok {
		cfg.Range(func(k, v any) bool {
			v = expand(v, dir, scratch)
			if k == "file_roots" || k == "pillar_roots" {
				v = absRoots(v, dir)
			}
			opts.Set(k, v)
			return true
		})
	}
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = grains
	if fr, ok := opts.Get("file_roots"); ok {
		if m, ok := fr.(*value.Map); ok {
			ctx.Files = &execmod.CachedFiles{Src: fileserver.New(m), Cachedir: filepath.Join(scratch, "cache")}
		}
	}
	svc := pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}
	ctx.SetService("pillar", svc)
	pil, err := svc.Compile(opts, grains, id, "", "", nil, nil)
	if err != nil || pil == nil {
		pil = value.NewMap(0)
	}
	ctx.Pillar = pil
	c.ctx = ctx
	if len(c.argv) == 0 || !compileFuns[c.argv[0]] {
		return c
	}
	for _, a := range c.argv[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			if k == "saltenv" {
				c.saltenv = v
			}
			continue
		}
		if slsFuns[c.argv[0]] && c.sls == nil {
			c.sls = strings.Split(a, ",")
		}
	}
	raw, err = os.ReadFile(filepath.Join(dir, "expected.json"))
	if err == nil {
		if ev, err := value.FromJSON(raw); err == nil {
			if em, ok := ev.(*value.Map); ok {
				if l, ok := mget(em, "return").(*value.List); ok && l.Len() > 0 {
					if _, isStr := l.Items[0].(string); isStr {
						c.wantError = true
					}
				}
			}
		}
	}
	return c
}

func expand(v any, dir, scratch string) any {
	switch x := v.(type) {
	case string:
		return strings.NewReplacer("{root}", dir, "{scratch}", scratch, "{conf}", scratch).Replace(x)
	case *value.List:
		l := value.NewList()
		for _, e := range x.Items {
			l.Append(expand(e, dir, scratch))
		}
		return l
	case *value.Map:
		m := value.NewMap(x.Len())
		x.Range(func(k, e any) bool {
			m.Set(k, expand(e, dir, scratch))
			return true
		})
		return m
	}
	return v
}

func absRoots(v any, dir string) any {
	m, ok := v.(*value.Map)
	if !ok {
		return v
	}
	out := value.NewMap(m.Len())
	m.Range(func(k, x any) bool {
		l := value.NewList()
		if xl, ok := x.(*value.List); ok {
			for _, d := range xl.Items {
				s := value.Str(d)
				if !filepath.IsAbs(s) {
					s = filepath.Join(dir, s)
				}
				l.Append(s)
			}
		}
		out.Set(k, l)
		return true
	})
	return out
}

var _ = fmt.Sprint

// copyCase copies a case's files, directories and symlinks into a
// temporary directory and returns it.
func copyCase(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o600)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		}
		return nil // sockets (a gpg agent's): not part of a case
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
