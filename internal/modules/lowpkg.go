package modules

// lowpkg.go is salt/modules/dpkg_lowpkg.py (virtual lowpkg on Debian):
// dpkg's view of installed packages and of .deb files, without apt.

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	for name, f := range map[string]struct {
		fn  execmod.Func
		doc string
	}{
		"bin_pkg_info": {lowpkgBinPkgInfo, "Return {'name', 'version', 'arch'} of a .deb file (a local path or a salt:// URL; saltenv=)."},
		"unpurge":      {lowpkgUnpurge, "Set the dpkg selection of the packages to install; the changes of list_pkgs(purge_desired=True)."},
		"list_pkgs":    {lowpkgListPkgs, "Return {name: version} of the installed packages (all, or those named), from dpkg-query."},
		"file_list":    {aptFileList(false), "Return {'errors', 'files'}: the files of the installed packages named (or all)."},
		"file_dict":    {aptFileList(true), "Return {'errors', 'packages': {package: [files]}} for the installed packages named (or all)."},
		"info":         {lowpkgInfo, "Return dpkg's information about installed packages (all without names): {name: {field: value}} (failhard=True, attr=)."},
	} {
		execmod.Register("lowpkg."+name, lowpkgOnly("lowpkg."+name, f.fn), f.doc)
	}
}

// lowpkgOnly makes f unavailable outside the Debian family, where Salt
// loads another lowpkg.
func lowpkgOnly(name string, f execmod.Func) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if fam := execmod.String(ctxGrain(ctx, "os_family")); fam != "" && fam != "Debian" {
			return nil, &execmod.CommandExecutionError{Msg: "'" + name + "' is not available."}
		}
		return f(ctx, args, kwargs)
	}
}

var (
	debPackageRE = regexp.MustCompile(`^Package[ ]*:`)
	debVersionRE = regexp.MustCompile(`^Version[ ]*:`)
	debArchRE    = regexp.MustCompile(`^Architecture[ ]*:`)
)

func lowpkgBinPkgInfo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("bin_pkg_info", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	path := value.Str(v[0])
	proto, err := ctx.Call("config.valid_fileproto", []any{path}, nil)
	if err != nil {
		return nil, err
	}
	if value.Truthy(proto) {
		cached, err := ctx.Call("cp.cache_file", []any{path, v[1]}, nil)
		if err != nil {
			return nil, err
		}
		if !value.Truthy(cached) {
			return nil, execmod.Errorf("Unable to retrieve %s from saltenv '%s'", path, value.Str(v[1]))
		}
		path = execmod.String(cached)
	} else if !fileExists(path) {
		return nil, execmod.Errorf("%s does not exist on minion", path)
	} else if !filepath.IsAbs(path) {
		return nil, &execmod.InvocationError{Msg: path + " does not exist on minion"}
	}
	res, err := runArgv(ctx, "cmd.run_all", []string{"dpkg", "-I", path}, "output_loglevel", "trace")
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		msg := "Unable to get info for " + path
		if s := execmod.String(cmdGet(m, "stderr")); s != "" {
			msg += ": " + s
		}
		return nil, execmod.Errorf("%s", msg)
	}
	ret := value.NewMap(0)
	for _, line := range splitLinesPy(execmod.String(cmdGet(m, "stdout"))) {
		line = strings.TrimSpace(line)
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case debPackageRE.MatchString(line):
			ret.Set("name", f[len(f)-1])
		case debVersionRE.MatchString(line):
			ret.Set("version", f[len(f)-1])
		case debArchRE.MatchString(line):
			ret.Set("arch", f[len(f)-1])
		}
	}
	var missing []string
	for _, k := range []string{"name", "version", "arch"} {
		if _, ok := ret.GetString(k); !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, execmod.Errorf("Unable to get %s for %s", strings.Join(missing, ", "), path)
	}
	if execmod.String(ctxGrain(ctx, "cpuarch")) == "x86_64" {
		osarch, arch := execmod.String(ctxGrain(ctx, "osarch")), value.Str(mapGet(ret, "arch"))
		if arch != "all" && osarch == "amd64" && osarch != arch {
			ret.Set("name", value.Str(mapGet(ret, "name"))+":"+arch)
		}
	}
	return ret, nil
}

func lowpkgUnpurge(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	if len(args) == 0 {
		return value.NewMap(0), nil
	}
	purgeDesired := value.MapOf("purge_desired", true)
	old, err := ctx.Call("pkg.list_pkgs", nil, purgeDesired)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, a := range args {
		lines = append(lines, value.Str(a)+" install")
	}
	// Salt joins the lines with a literal backslash-n, which dpkg reads as
	// one bad line when several packages are given; brine uses newlines.
	if _, err := runArgv(ctx, "cmd.run", []string{"dpkg", "--set-selections"}, "stdin", strings.Join(lines, "\n"), "output_loglevel", "trace"); err != nil {
		return nil, err
	}
	ctx.Cache().Delete(PkgListCacheKey)
	cur, err := ctx.Call("pkg.list_pkgs", nil, purgeDesired)
	if err != nil {
		return nil, err
	}
	om, _ := old.(*value.Map)
	cm, _ := cur.(*value.Map)
	if om == nil || cm == nil {
		return value.NewMap(0), nil
	}
	return compareDicts(om, cm), nil
}

func lowpkgListPkgs(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	argv := []string{"dpkg-query", "-f=${db:Status-Status}\t${binary:Package}\t${Version}\n", "-W"}
	for _, a := range args {
		argv = append(argv, value.Str(a))
	}
	res, err := runArgv(ctx, "cmd.run_all", argv)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		msg := "Error:  " + execmod.String(cmdGet(m, "stderr"))
		slog.Error(msg)
		return msg, nil
	}
	ret := value.NewMap(0)
	for _, line := range splitLinesPy(execmod.String(cmdGet(m, "stdout"))) {
		status, rest, ok := strings.Cut(line, "\t")
		if !ok || status != "installed" {
			continue
		}
		name, ver, ok := strings.Cut(rest, "\t")
		if !ok || strings.Contains(ver, "\t") {
			return nil, execmod.Errorf("dictionary update sequence element has wrong length")
		}
		ret.Set(name, ver)
	}
	return ret, nil
}

func lowpkgInfo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, rest, err := execmod.Bind("info", nil, kwargs)
	if err != nil {
		return nil, err
	}
	failhard := true
	if f, ok := rest.GetString("failhard"); ok {
		failhard = value.Truthy(f)
		rest.Delete("failhard")
	}
	var attr []string
	if a := popKwarg(rest, "attr"); value.Truthy(a) {
		attr = strings.Split(value.Str(a), ",")
	}
	for _, k := range append([]any(nil), rest.Keys()...) {
		if strings.HasPrefix(value.Str(k), "__") {
			rest.Delete(k)
		}
	}
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	var names []string
	for _, a := range args {
		names = append(names, value.Str(a))
	}
	return dpkgInfo(ctx, names, failhard, attr)
}

// dselectAvail is _get_pkg_ds_avail: the records of dselect's available
// file (only when dselect is installed), by package, lowercased keys.
func dselectAvail() map[string]*value.Map {
	const avail = "/var/lib/dpkg/available"
	if !hasCmd("dselect") {
		return nil
	}
	data, err := os.ReadFile(avail)
	if err != nil {
		return nil
	}
	ret := map[string]*value.Map{}
	for _, rec := range strings.Split(string(data), "Package:") {
		nfo := value.NewMap(0)
		for _, line := range strings.Split("Package:"+rec, "\n") {
			k, v, ok := strings.Cut(line, ": ")
			if !ok || strings.TrimSpace(v) == "" {
				continue
			}
			nfo.Set(strings.ToLower(k), v)
		}
		if name, ok := nfo.GetString("package"); ok && value.Truthy(name) {
			ret[value.Str(name)] = nfo
		}
	}
	return ret
}
