package modules

// locale.go is salt/modules/localemod.py for Debian-family systems: the
// compiled locales (locale -a), the system locale (localectl on systemd
// hosts, /etc/default/locale otherwise) and generation through
// /etc/locale.gen and locale-gen (internal/system/locale, shared with the
// locale states).

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/locale"
	"brine/internal/value"
)

func init() {
	execmod.Register("locale.list_avail", localeListAvail, "Return the compiled locales (locale -a).")
	execmod.Register("locale.get_locale", localeGetLocale, "Return the system locale (LANG).")
	execmod.Register("locale.set_locale", localeSetLocale, "Set the system locale (LANG); True on success.")
	execmod.Register("locale.avail", localeAvail, "True when the locale is compiled (names compared normalised).")
	execmod.Register("locale.gen_locale", localeGenLocale, "Generate a locale listed in /usr/share/i18n/SUPPORTED; True on success (verbose: cmd.run_all's result).")
}

func localeRoot(ctx *execmod.Context, p string) string { return filepath.Join("/", sysRoot(ctx), p) }

func systemdBooted(ctx *execmod.Context) bool {
	_, err := os.Stat(localeRoot(ctx, "/run/systemd/system"))
	return err == nil
}

func localeList(ctx *execmod.Context) ([]string, error) {
	out, err := ctx.Call("cmd.run", []any{"locale -a"}, nil)
	if err != nil {
		return nil, err
	}
	return strings.Split(execmod.String(out), "\n"), nil
}

func localeListAvail(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("list_avail", args, kwargs); err != nil {
		return nil, err
	}
	l, err := localeList(ctx)
	if err != nil {
		return nil, err
	}
	return strList(l), nil
}

// localectlStatus is Salt's _localectl_status.
func localectlStatus(ctx *execmod.Context) (*value.Map, error) {
	if _, err := exec.LookPath("localectl"); err != nil {
		return nil, execmod.Errorf(`Unable to find "localectl"`)
	}
	out, err := ctx.Call("cmd.run", []any{"localectl status"}, nil)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	key := ""
	for _, line := range strings.Split(strings.TrimSpace(execmod.String(out)), "\n") {
		data := strings.TrimSpace(line)
		if k, d, ok := strings.Cut(line, ": "); ok {
			key, data = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), " ", "_"), d
		}
		if data == "" || key == "" {
			continue
		}
		if strings.Contains(data, "=") {
			if kv := strings.Split(data, "="); len(kv) == 2 {
				m, ok := ret.GetString(key)
				mm, isMap := m.(*value.Map)
				if !ok || !isMap {
					mm = value.NewMap(0)
					ret.Set(key, mm)
				}
				mm.Set(kv[0], kv[1])
			}
		} else if data == "n/a" {
			ret.Set(key, value.MapOf("data", nil))
		} else {
			ret.Set(key, value.MapOf("data", data))
		}
	}
	if ret.Len() == 0 {
		return nil, execmod.Errorf(`Unable to parse result of "localectl"`)
	}
	return ret, nil
}

func localeGetLocale(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_locale", args, kwargs); err != nil {
		return nil, err
	}
	if systemdBooted(ctx) {
		st, err := localectlStatus(ctx)
		if err != nil {
			return nil, err
		}
		sl, ok := st.GetString("system_locale")
		if !ok {
			return nil, execmod.Errorf("'system_locale'")
		}
		if m, ok := sl.(*value.Map); ok {
			if v, ok := m.GetString("LANG"); ok {
				return v, nil
			}
		}
		return "", nil
	}
	// Debian without systemd: Salt greps the file through cmd.run, so
	// grep's exit status (1 without a LANG line) is the call's retcode.
	path := localeRoot(ctx, "/etc/default/locale")
	out, err := ctx.Call("cmd.run", []any{value.NewList("grep", "^LANG=", path)}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	parts := strings.Split(execmod.String(out), "=")
	if len(parts) < 2 {
		slog.Error(fmt.Sprintf(`Error occurred while running "grep "^LANG=" %s": list index out of range`, path))
		return "", nil
	}
	return strings.ReplaceAll(parts[1], `"`, ""), nil
}

func localeSetLocale(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_locale", args, kwargs, execmod.Req("locale"))
	if err != nil {
		return nil, err
	}
	loc := value.Str(v[0])
	if systemdBooted(ctx) {
		params := value.NewMap(0)
		if st, err := localectlStatus(ctx); err == nil {
			if m, ok := st.GetString("system_locale"); ok {
				if mm, ok := m.(*value.Map); ok {
					params = mm
				}
			}
		}
		params.Set("LANG", loc)
		argv := []string{"localectl", "set-locale"}
		params.Range(func(k, val any) bool {
			if val != nil {
				argv = append(argv, value.Str(k)+"="+value.Str(val))
			}
			return true
		})
		rc, err := runArgv(ctx, "cmd.retcode", argv)
		if err != nil {
			return nil, err
		}
		return value.Equal(rc, int64(0)), nil
	}
	if sysRoot(ctx) == "" {
		if _, err := exec.LookPath("update-locale"); err != nil {
			return nil, execmod.Errorf(`Cannot set locale: "update-locale" was not found.`)
		}
		if _, err := ctx.Call("cmd.run", []any{"update-locale"}, nil); err != nil {
			return nil, err
		}
	}
	if err := locale.SetLang(localeRoot(ctx, "/etc/default/locale"), loc); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return true, nil
}

func localeAvail(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("avail", args, kwargs, execmod.Req("locale"))
	if err != nil {
		return nil, err
	}
	l, err := localeList(ctx)
	if err != nil {
		return nil, err
	}
	return locale.Avail(l, value.Str(v[0])), nil
}

func localeGenLocale(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("gen_locale", args, kwargs, execmod.Req("locale"))
	if err != nil {
		return nil, err
	}
	verbose, _ := kw.GetString("verbose")
	ubuntu := value.Equal(ctxGrain(ctx, "os"), "Ubuntu")
	loc := value.Str(v[0])
	comps := locale.Split(loc)
	if !ubuntu {
		loc = locale.WithCharmap(loc)
	}
	search := localeRoot(ctx, "/usr/share/i18n/SUPPORTED")
	ok, err := locale.Supported(search, loc)
	if err != nil && !os.IsNotExist(err) {
		return nil, execmod.Errorf("%s", err)
	}
	if !ok {
		return false, nil
	}
	if gen := localeRoot(ctx, "/etc/locale.gen"); fileExists(gen) {
		if err := locale.EnableGen(gen, loc); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	var argv []string
	switch {
	case hasCmd("locale-gen"):
		argv = []string{"locale-gen", loc}
		if ubuntu {
			argv[1] = locale.Normalize(loc)
		}
	case hasCmd("localedef"):
		ls := comps.Language + "_" + comps.Territory
		flag := "--quiet"
		if value.Truthy(verbose) {
			flag = "--verbose"
		}
		argv = []string{"localedef", "--force", "-i", ls, "-f", comps.Codeset, ls + "." + comps.Codeset, flag}
	default:
		return nil, execmod.Errorf(`Command "locale-gen" or "localedef" was not found on this system.`)
	}
	res, err := runArgv(ctx, "cmd.run_all", argv)
	if err != nil {
		return nil, err
	}
	if value.Truthy(verbose) {
		return res, nil
	}
	m, _ := res.(*value.Map)
	return value.Equal(cmdGet(m, "retcode"), int64(0)), nil
}

func ctxGrain(ctx *execmod.Context, k string) any {
	v, _ := ctx.Grains.GetString(k)
	return v
}

func hasCmd(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
