package modules

// debconf.go is salt/modules/debconfmod.py: debconf answers read with
// debconf-get-selections and set with debconf-set-selections. Like Salt's
// module it is there only on Debian-family systems with debconf-utils
// (which provides debconf-get-selections) installed.

import (
	"os"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/debconf"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register(name, debconfAvailable(name, f), doc) }
	reg("debconf.get_selections", debconfGetSelections, "Return every debconf answer as {package: [[question, type, value], ...]} (fetchempty=False drops empty ones).")
	reg("debconf.show", debconfShow, "Return the debconf answers of a package as [[question, type, value], ...], or None.")
	reg("debconf.set", debconfSet, "Set the answer of a debconf question of a package (debconf-set-selections); True.")
	reg("debconf.set_file", debconfSetFile, "Set debconf answers from a file (salt:// or local) with debconf-set-selections; False when it cannot be cached.")
	reg("debconf.set_template", debconfSetTemplate, "Render a template of debconf answers (cp.get_template) and set them as set_file does.")
}

// debconfAvailable is the module's __virtual__: Debian family and
// debconf-get-selections in the path. Salt keys its reason under the file
// name (debconfmod), so a call only says the function is not available.
func debconfAvailable(name string, f execmod.Func) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if fam := execmod.String(ctxGrain(ctx, "os_family")); (fam != "" && fam != "Debian") || !hasCmd("debconf-get-selections") {
			return nil, &execmod.UnavailableError{Module: "debconf", Function: name}
		}
		return f(ctx, args, kwargs)
	}
}

func debconfSelections(ctx *execmod.Context) ([]debconf.Selection, error) {
	out, err := ctx.Call("cmd.run_stdout", []any{"debconf-get-selections"}, nil)
	if err != nil {
		return nil, err
	}
	return debconf.Parse(execmod.String(out)), nil
}

func debconfGetSelections(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_selections", args, kwargs, execmod.Opt("fetchempty", true))
	if err != nil {
		return nil, err
	}
	sel, err := debconfSelections(ctx)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, s := range sel {
		if !value.Truthy(v[0]) && s.Value == "" {
			continue
		}
		l, ok := ret.GetString(s.Package)
		if !ok {
			l = value.NewList()
			ret.Set(s.Package, l)
		}
		l.(*value.List).Append(value.NewList(s.Question, s.Type, s.Value))
	}
	return ret, nil
}

func debconfShow(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("show", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	all, err := debconfGetSelections(ctx, nil, value.NewMap(0))
	if err != nil {
		return nil, err
	}
	r, _ := all.(*value.Map).GetString(execmod.String(v[0]))
	return r, nil
}

// debconfLoad runs debconf-set-selections on path.
func debconfLoad(ctx *execmod.Context, path string) error {
	_, err := runArgv(ctx, "cmd.run_stdout", []string{"debconf-set-selections", path})
	return err
}

func debconfSet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) > 4 {
		extra := make([]string, 0, len(args)-3)
		for _, a := range args[3:] {
			extra = append(extra, value.Str(a))
		}
		args = append(args[:3:3], strings.Join(extra, " "))
	}
	v, _, err := execmod.Bind("set_", args, kwargs, execmod.Req("package"), execmod.Req("question"), execmod.Req("type"), execmod.Req("value"))
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "salt-")
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	defer os.Remove(f.Name())
	line := value.Str(v[0]) + " " + value.Str(v[1]) + " " + value.Str(v[2]) + " " + value.Str(v[3])
	_, werr := f.WriteString(line)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return nil, execmod.Errorf("writing %s failed", f.Name())
	}
	if err := debconfLoad(ctx, f.Name()); err != nil {
		return nil, err
	}
	return true, nil
}

func debconfSetFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_file", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	return debconfApplyFile(ctx, v[0], v[1])
}

func debconfApplyFile(ctx *execmod.Context, path, saltenv any) (any, error) {
	cached, err := ctx.Call("cp.cache_file", []any{path, saltenv}, nil)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(cached) {
		return false, nil
	}
	if err := debconfLoad(ctx, execmod.String(cached)); err != nil {
		return nil, err
	}
	return true, nil
}

func debconfSetTemplate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("set_template", args, kwargs, execmod.Req("path"), execmod.Req("template"),
		execmod.Req("context"), execmod.Req("defaults"), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	kw := value.MapOf("path", v[0], "dest", nil, "template", v[1], "saltenv", v[4], "context", v[2], "defaults", v[3])
	rest.Range(func(k, x any) bool {
		kw.Set(k, x)
		return true
	})
	path, err := ctx.Call("cp.get_template", nil, kw)
	if err != nil {
		return nil, err
	}
	return debconfApplyFile(ctx, path, v[4])
}
