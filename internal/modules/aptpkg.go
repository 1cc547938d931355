package modules

// aptpkg.go is the Debian-only part of salt/modules/aptpkg.py (with
// dpkg_lowpkg's file_list and file_dict): package names and
// architectures, dpkg selections and holds, and the files of installed
// packages. On other families these functions are not available, as Salt
// loads another pkg module there.

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/system/aptsrc"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	for name, f := range map[string]struct {
		fn  execmod.Func
		doc string
	}{
		"normalize_name":        {aptNormalizeName, "Return the package name without an architecture suffix of this machine (or all/any)."},
		"parse_arch":            {aptParseArch, "Split name:arch into {'name', 'arch'} (arch None without one)."},
		"get_selections":        {aptGetSelections, "Return dpkg's selections as {state: [packages]} (pattern, state filter)."},
		"set_selections":        {aptSetSelections, "Set dpkg selections from a {state: [packages]} selection or a file; {package: {'old', 'new'}} of the changes."},
		"hold":                  {aptHold(true), "Hold packages (name, pkgs or sources): {package: {'name', 'changes', 'result', 'comment'}}."},
		"unhold":                {aptHold(false), "Release held packages (name, pkgs or sources): {package: {'name', 'changes', 'result', 'comment'}}."},
		"owner":                 {aptOwner, "Return the package owning each path ('' for none; a mapping for several paths)."},
		"file_list":             {aptFileList(false), "Return {'errors', 'files'}: the files of the installed packages named (or all)."},
		"file_dict":             {aptFileList(true), "Return {'errors', 'packages': {package: [files]}} for the installed packages named (or all)."},
		"list_repos":            {aptListRepos, "Return the apt sources by URI: [{'file', 'comps', 'disabled', 'enabled', 'dist', 'type', 'uri', 'line', 'architectures', 'signedby'}]."},
		"get_repo":              {aptGetRepo, "Return the source of list_repos matching the definition repo ('deb uri dist comps'), or {}."},
		"info_installed":        {aptInfoInstalled, "Return dpkg's information about installed packages (all without names): {name: {field: value}} (attr=, all_versions=, failhard=)."},
		"list_upgrades":         {aptListUpgrades, "Return {name: version} of the packages an upgrade (dist_upgrade=True) would install (refresh=True refreshes first)."},
		"autoremove":            {aptAutoremove, "Remove packages no longer needed (purge); list_only: the names it would remove. The changes as {name: {'old', 'new'}}."},
		"services_need_restart": {aptServicesNeedRestart, "Return the services running outdated files (checkrestart, from debian-goodies)."},
		"show":                  {aptShow, "Return apt-cache show of the packages as {name: {version: {field: value}}} (filter=, refresh=)."},
	} {
		execmod.Register("pkg."+name, debianOnly("pkg."+name, f.fn), f.doc)
	}
}

func debianOnly(name string, f execmod.Func) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if fam := execmod.String(ctxGrain(ctx, "os_family")); fam != "" && fam != "Debian" {
			return nil, &execmod.CommandExecutionError{Msg: "'" + name + "' is not available."}
		}
		return f(ctx, args, kwargs)
	}
}

func aptNormalizeName(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("normalize_name", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := value.Str(v[0])
	osarch := execmod.String(ctxGrain(ctx, "osarch"))
	pkg, arch := name, osarch
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		pkg, arch = name[:i], name[i+1:]
	}
	if arch == osarch || arch == "all" || arch == "any" {
		return pkg, nil
	}
	return name, nil
}

func aptParseArch(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("parse_arch", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := value.Str(v[0])
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		return value.MapOf("name", name[:i], "arch", name[i+1:]), nil
	}
	return value.MapOf("name", name, "arch", nil), nil
}

// parseSelections is Salt's _parse_selections: "pkg state" lines to
// {state: [pkgs]}.
func parseSelections(lines []string) (*value.Map, error) {
	ret := value.NewMap(0)
	for _, line := range lines {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, execmod.Errorf("not enough values to unpack (expected 2, got %d)", len(f))
		}
		l, ok := ret.GetString(f[1])
		if !ok {
			l = value.NewList()
			ret.Set(f[1], l)
		}
		l.(*value.List).Append(f[0])
	}
	return ret, nil
}

func selections(ctx *execmod.Context, pattern string) (*value.Map, error) {
	if pattern == "" {
		pattern = "*"
	}
	out, err := runArgv(ctx, "cmd.run_stdout", []string{"dpkg", "--get-selections", pattern}, "output_loglevel", "trace")
	if err != nil {
		return nil, err
	}
	return parseSelections(strings.Split(execmod.String(out), "\n"))
}

func aptGetSelections(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_selections", args, kwargs, execmod.Opt("pattern", nil), execmod.Opt("state", nil))
	if err != nil {
		return nil, err
	}
	sel, err := selections(ctx, execmod.String(v[0]))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[1]) {
		l, ok := sel.Get(v[1])
		if !ok {
			l = value.NewList()
		}
		return value.MapOf(v[1], l), nil
	}
	return sel, nil
}

func aptSetSelections(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_selections", args, kwargs, execmod.Opt("path", nil), execmod.Opt("selection", nil),
		execmod.Opt("clear", false), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	return setSelections(ctx, v[0], v[1], value.Truthy(v[2]), v[3])
}

func setSelections(ctx *execmod.Context, path, selection any, clear bool, saltenv any) (*value.Map, error) {
	ret := value.NewMap(0)
	if !value.Truthy(path) && !value.Truthy(selection) {
		return ret, nil
	}
	if value.Truthy(path) && value.Truthy(selection) {
		return nil, &execmod.InvocationError{Msg: "The 'selection' and 'path' arguments to pkg.set_selections are mutually exclusive, and cannot be specified together"}
	}
	if s, ok := selection.(string); ok {
		parsed, err := yamlload.SafeLoad([]byte(s), "<selection>")
		if err != nil {
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("Improperly-formatted selection: %s", err)}
		}
		selection = parsed
	}
	if value.Truthy(path) {
		p, err := ctx.Call("cp.cache_file", []any{path, saltenv}, nil)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(execmod.String(p))
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		if selection, err = parseSelections(strings.Split(string(data), "\n")); err != nil {
			return nil, err
		}
	}
	sel, ok := selection.(*value.Map)
	if !ok || sel.Len() == 0 {
		return ret, nil
	}
	var bad []string
	sel.Range(func(k, _ any) bool {
		switch value.Str(k) {
		case "install", "hold", "deinstall", "purge":
		default:
			bad = append(bad, value.Str(k))
		}
		return true
	})
	if len(bad) > 0 {
		return nil, &execmod.InvocationError{Msg: "Invalid state(s): " + strings.Join(bad, ", ")}
	}
	if clear && !ctx.Test {
		res, err := runArgv(ctx, "cmd.run_all", []string{"dpkg", "--clear-selections"})
		if err != nil {
			return nil, err
		}
		if m, _ := res.(*value.Map); !value.Equal(cmdGet(m, "retcode"), int64(0)) {
			return nil, execmod.Errorf("Running dpkg --clear-selections failed: %s", execmod.String(cmdGet(m, "stderr")))
		}
	}
	cur, err := selections(ctx, "")
	if err != nil {
		return nil, err
	}
	rev := map[string]string{}
	cur.Range(func(k, l any) bool {
		for _, p := range l.(*value.List).Items {
			rev[value.Str(p)] = value.Str(k)
		}
		return true
	})
	var runErr error
	sel.Range(func(k, l any) bool {
		state := value.Str(k)
		for _, p := range splitComma(l) {
			if rev[p] == state || ctx.Test {
				continue
			}
			res, err := runArgv(ctx, "cmd.run_all", []string{"dpkg", "--set-selections"}, "stdin", p+" "+state)
			if err != nil {
				runErr = err
				return false
			}
			if m, _ := res.(*value.Map); value.Equal(cmdGet(m, "retcode"), int64(0)) {
				var old any
				if o, ok := rev[p]; ok {
					old = o
				}
				ret.Set(p, value.MapOf("old", old, "new", state))
			}
		}
		return true
	})
	return ret, runErr
}

func aptHold(hold bool) execmod.Func {
	fun := "unhold"
	if hold {
		fun = "hold"
	}
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Opt("name", nil), execmod.Opt("pkgs", nil), execmod.Opt("sources", nil))
		if err != nil {
			return nil, err
		}
		if !value.Truthy(v[0]) && !value.Truthy(v[1]) && !value.Truthy(v[2]) {
			return nil, &execmod.InvocationError{Msg: "One of name, pkgs, or sources must be specified."}
		}
		if value.Truthy(v[1]) && value.Truthy(v[2]) {
			return nil, &execmod.InvocationError{Msg: "Only one of pkgs or sources can be specified."}
		}
		var targets []string
		first := func(x any) string {
			if m, ok := x.(*value.Map); ok && m.Len() > 0 {
				return value.Str(m.Keys()[0])
			}
			return value.Str(x)
		}
		switch {
		case value.Truthy(v[1]):
			if l, ok := v[1].(*value.List); ok {
				for _, x := range l.Items {
					targets = append(targets, first(x))
				}
			}
		case value.Truthy(v[2]):
			if l, ok := v[2].(*value.List); ok {
				for _, x := range l.Items {
					targets = append(targets, first(x))
				}
			}
		default:
			targets = []string{value.Str(v[0])}
		}
		ret := value.NewMap(0)
		for _, t := range targets {
			r := value.MapOf("name", t, "changes", value.NewMap(0), "result", false, "comment", "")
			ret.Set(t, r)
			sel, err := selections(ctx, t)
			if err != nil {
				return nil, err
			}
			held := false
			if l, ok := sel.GetString("hold"); ok && l.(*value.List).Len() > 0 {
				held = true
			}
			// Salt asks for the hold selection only when holding, so an
			// unknown package is held too (dpkg then ignores it).
			switch {
			case !hold && sel.Len() == 0:
				r.Set("comment", "Package "+t+" does not have a state.")
			case hold == held:
				r.Set("result", true)
				if hold {
					r.Set("comment", "Package "+t+" is already set to be held.")
				} else {
					r.Set("comment", "Package "+t+" is already set not to be held.")
				}
			case ctx.Test:
				r.Set("result", nil)
				if hold {
					r.Set("comment", "Package "+t+" is set to be held.")
				} else {
					r.Set("comment", "Package "+t+" is set not to be held.")
				}
			default:
				state := "install"
				if hold {
					state = "hold"
				}
				changes, err := setSelections(ctx, nil, value.MapOf(state, value.NewList(t)), false, "base")
				if err != nil {
					return nil, err
				}
				c, ok := changes.GetString(t)
				if !ok {
					return nil, execmod.Errorf("'%s'", t)
				}
				r.Set("changes", c)
				r.Set("result", true)
				if hold {
					r.Set("comment", "Package "+t+" is now being held.")
				} else {
					r.Set("comment", "Package "+t+" is no longer being held.")
				}
			}
		}
		return ret, nil
	}
}

func aptOwner(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) == 0 {
		return "", nil
	}
	ret := value.NewMap(0)
	for _, p := range args {
		path := value.Str(p)
		out, err := runArgv(ctx, "cmd.run_stdout", []string{"dpkg", "-S", path}, "output_loglevel", "trace")
		if err != nil {
			return nil, err
		}
		owner, _, _ := strings.Cut(execmod.String(out), ":")
		if strings.Contains(strings.ToLower(owner), "no path found") {
			owner = ""
		}
		ret.Set(path, owner)
	}
	if ret.Len() == 1 {
		v, _ := ret.Get(ret.Keys()[0])
		return v, nil
	}
	return ret, nil
}

func aptFileList(byPackage bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
		argv := []string{"dpkg-query", "-f=${db:Status-Status}\t${binary:Package}\n", "-W"}
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
		files := map[string]bool{}
		pkgs := value.NewMap(0)
		for _, line := range splitLinesPy(execmod.String(cmdGet(m, "stdout"))) {
			status, pkg, ok := strings.Cut(line, "\t")
			if !ok || status != "installed" {
				continue
			}
			out, err := runArgv(ctx, "cmd.run", []string{"dpkg", "-L", pkg})
			if err != nil {
				return nil, err
			}
			lines := splitLinesPy(execmod.String(out))
			pkgs.Set(pkg, strList(lines))
			for _, l := range lines {
				files[l] = true
			}
		}
		if byPackage {
			return value.MapOf("errors", value.NewList(), "packages", pkgs), nil
		}
		return value.MapOf("errors", value.NewList(), "files", strList(kmodSorted(files))), nil
	}
}

// aptRepoMap is one source as list_repos reports it.
func aptRepoMap(e aptsrc.Entry) *value.Map {
	return value.MapOf("file", e.File, "comps", strList(aptNonNil(e.Comps)), "disabled", e.Disabled, "enabled", !e.Disabled,
		"dist", e.Dist, "type", e.Type, "uri", e.URI, "line", strings.TrimSpace(e.Line), "architectures", strList(aptNonNil(e.Architectures)),
		"signedby", e.SignedBy)
}

// aptRepos is list_repos: the valid sources by URI, in file order.
func aptRepos(ctx *execmod.Context) *value.Map {
	ret := value.NewMap(0)
	for _, e := range aptsrc.Load(sysRoot(ctx)).Entries {
		if e.Invalid {
			continue
		}
		l, ok := ret.GetString(e.URI)
		if !ok {
			l = value.NewList()
			ret.Set(e.URI, l)
		}
		l.(*value.List).Append(aptRepoMap(e))
	}
	return ret
}

func aptListRepos(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	return aptRepos(ctx), nil
}

func aptGetRepo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("get_repo", args, kwargs, execmod.Req("repo"))
	if err != nil {
		return nil, err
	}
	repo := value.Str(v[0])
	auth, hasAuth := rest.GetString("ppa_auth")
	if strings.HasPrefix(repo, "ppa:") && ppaOS(ctx) {
		if !hasAuth {
			auth = nil
		}
		if repo, err = expandPPA(repo, execmod.String(ctxGrain(ctx, "oscodename")), auth); err != nil {
			return nil, err
		}
	}
	want := aptsrc.ParseEntry(repo, "")
	uri := want.URI
	if hasAuth && value.Truthy(auth) {
		if scheme, host, ok := strings.Cut(uri, "://"); ok && (scheme == "http" || scheme == "https") && !strings.HasPrefix(host, value.Str(auth)) {
			uri = scheme + "://" + value.Str(auth) + "@" + host
		}
	}
	for _, e := range aptsrc.Load(sysRoot(ctx)).Entries {
		if e.Invalid || e.Type != want.Type || e.URI != uri || e.Dist != want.Dist {
			continue
		}
		if len(want.Comps) == 0 {
			return aptRepoMap(e), nil
		}
		for _, c := range want.Comps {
			if contains(e.Comps, c) {
				return aptRepoMap(e), nil
			}
		}
	}
	return value.NewMap(0), nil
}

func aptShow(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, rest, err := execmod.Bind("show", nil, kwargs)
	if err != nil {
		return nil, err
	}
	refresh := popKwarg(rest, "refresh")
	filter := map[string]bool{}
	for _, f := range splitComma(popKwarg(rest, "filter")) {
		filter[strings.ToLower(f)] = true
	}
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	if value.Truthy(refresh) {
		if _, err := ctx.Call("pkg.refresh_db", nil, nil); err != nil {
			return nil, err
		}
	}
	ret := value.NewMap(0)
	if len(args) == 0 {
		return ret, nil
	}
	argv := []string{"apt-cache", "show"}
	for _, a := range args {
		argv = append(argv, value.Str(a))
	}
	res, err := runArgv(ctx, "cmd.run_all", argv, "ignore_retcode", true)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	info := value.NewMap(0)
	add := func() {
		name, nok := info.GetString("Package")
		ver, vok := info.GetString("Version")
		info.Delete("Package")
		info.Delete("Version")
		if nok && vok {
			byName, ok := ret.Get(name)
			if !ok {
				byName = value.NewMap(0)
				ret.Set(name, byName)
			}
			byVer, ok := byName.(*value.Map).Get(ver)
			if !ok {
				byVer = value.NewMap(0)
				byName.(*value.Map).Set(ver, byVer)
			}
			byVer.(*value.Map).Update(info)
		}
		info = value.NewMap(0)
	}
	for _, line := range strings.Split(execmod.String(cmdGet(m, "stdout")), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			add()
			continue
		}
		k, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		lk := strings.ToLower(k)
		if lk == "package" || lk == "version" || len(filter) == 0 || filter[lk] {
			info.Set(k, strings.TrimSpace(val))
		}
	}
	add()
	return ret, nil
}

// dpkgInfoFormat is the dpkg-query format of dpkg_lowpkg's _get_pkg_info;
// records end with a line of its own.
const dpkgInfoFormat = "package:${Package}\\nrevision:${binary:Revision}\\narch:${Architecture}\\nmaintainer:${Maintainer}\\n" +
	"summary:${Summary}\\nsource:${source:Package}\\nversion:${Version}\\nsection:${Section}\\ninstalled_size:${Installed-size}\\n" +
	"size:${Size}\\nMD5:${MD5sum}\\nSHA1:${SHA1}\\nSHA256:${SHA256}\\norigin:${Origin}\\nhomepage:${Homepage}\\n" +
	"status:${db:Status-Abbrev}\\ndescription:${Description}\\n\\n*/~^\\\\*\\n"

var dpkgRecordEnd = regexp.MustCompile(`\r?\n\*/~\^\\\*(\r?\n|)`)

// fileTime is a file's mtime as Salt's ISO form (with Z) and seconds.
func fileTime(p string) (string, int64, bool) {
	st, err := os.Stat(p)
	if err != nil {
		return "", 0, false
	}
	t := st.ModTime().UTC().Truncate(time.Second)
	return t.Format("2006-01-02T15:04:05") + "Z", t.Unix(), true
}

// dpkgInfo is dpkg_lowpkg.info: the fields of each installed package
// (with what dselect's available file adds).
func dpkgInfo(ctx *execmod.Context, names []string, failhard bool, attr []string) (*value.Map, error) {
	res, err := runArgv(ctx, "cmd.run_all", append([]string{"dpkg-query", "-W", "-f=" + dpkgInfoFormat}, names...))
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	ret := value.NewMap(0)
	avail := dselectAvail()
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		if failhard {
			return nil, execmod.Errorf("Error getting packages information: %s", execmod.String(cmdGet(m, "stderr")))
		}
		return ret, nil
	}
	for _, rec := range dpkgRecordEnd.Split(execmod.String(cmdGet(m, "stdout")), -1) {
		if strings.TrimSpace(rec) == "" {
			continue
		}
		head, descr, _ := strings.Cut(rec, "\ndescription:")
		pkg := value.NewMap(0)
		for _, line := range strings.Split(head, "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			if k, v, ok := strings.Cut(line, ":"); ok && v != "" {
				pkg.Set(k, v)
			}
		}
		name := execmod.String(mapGet(pkg, "package"))
		arch := execmod.String(mapGet(pkg, "arch"))
		locs := []string{}
		if arch != "" && arch != "all" {
			locs = append(locs, "/var/lib/dpkg/info/"+name+":"+arch+".list")
		}
		for _, l := range append(locs, "/var/lib/dpkg/info/"+name+".list") {
			if iso, sec, ok := fileTime(l); ok {
				pkg.Set("install_date", iso)
				pkg.Set("install_date_time_t", sec)
				break
			}
		}
		if iso, sec, ok := pkgBuildTime(ctx, name); ok {
			pkg.Set("build_date", iso)
			pkg.Set("build_date_time_t", sec)
		}
		pkg.Set("description", descr)
		if extra, ok := avail[name]; ok {
			extra.Range(func(k, v any) bool {
				if _, ok := pkg.Get(k); !ok {
					pkg.Set(k, v)
				}
				return true
			})
		}
		for _, k := range []string{"installed_size", "depends", "recommends", "provides", "replaces", "conflicts", "bugs", "description-md5", "task"} {
			pkg.Delete(k)
		}
		if lic := pkgLicense(name); lic != "" {
			pkg.Set("license", lic)
		}
		if len(attr) > 0 {
			for _, k := range append([]any(nil), pkg.Keys()...) {
				if !contains(attr, value.Str(k)) {
					pkg.Delete(k)
				}
			}
		}
		ret.Set(name, pkg)
	}
	return ret, nil
}

func mapGet(m *value.Map, k string) any {
	v, _ := m.GetString(k)
	return v
}

// pkgBuildTime is _get_pkg_build_time: the mtime of the first file of
// /usr/share/doc/<name>, else of a changelog the package lists.
func pkgBuildTime(ctx *execmod.Context, name string) (string, int64, bool) {
	// The first file in directory order (os.listdir's), not sorted.
	if d, err := os.Open(filepath.Join("/usr/share/doc", name)); err == nil {
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, e := range names {
			if iso, sec, ok := fileTime(filepath.Join("/usr/share/doc", name, e)); ok {
				return iso, sec, true
			}
		}
	}
	out, err := runArgv(ctx, "cmd.run", []string{"dpkg-query", "-L", name})
	if err != nil {
		return "", 0, false
	}
	for _, p := range strings.Split(execmod.String(out), "\n") {
		if strings.Contains(strings.ToLower(p), "changelog") {
			if iso, sec, ok := fileTime(p); ok {
				return iso, sec, true
			}
		}
	}
	return "", 0, false
}

// pkgLicense is _get_pkg_license: the License: fields of the package's
// copyright file.
func pkgLicense(name string) string {
	data, err := os.ReadFile(filepath.Join("/usr/share/doc", name, "copyright"))
	if err != nil {
		return ""
	}
	set := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "License:"); ok {
			set[strings.TrimSpace(v)] = true
		}
	}
	return strings.Join(kmodSorted(set), ", ")
}

func aptInfoInstalled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, rest, err := execmod.Bind("info_installed", nil, kwargs)
	if err != nil {
		return nil, err
	}
	failhard := true
	if f, ok := rest.GetString("failhard"); ok {
		failhard = value.Truthy(f)
		rest.Delete("failhard")
	}
	popKwarg(rest, "errors")
	var attr []string
	if a := popKwarg(rest, "attr"); value.Truthy(a) {
		set := map[string]bool{"status": true}
		for _, x := range strings.Split(value.Str(a), ",") {
			set[x] = true
		}
		attr = kmodSorted(set)
	}
	allVersions := value.Truthy(popKwarg(rest, "all_versions"))
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	var names []string
	for _, a := range args {
		names = append(names, value.Str(a))
	}
	info, err := dpkgInfo(ctx, names, failhard, attr)
	if err != nil {
		return nil, err
	}
	rename := map[string]string{"package": "name", "origin": "vendor", "section": "group", "maintainer": "packager", "homepage": "url"}
	ret := value.NewMap(0)
	info.Range(func(name, nfo any) bool {
		pm := nfo.(*value.Map)
		if st := execmod.String(mapGet(pm, "status")); len(st) > 1 && st[1] != 'i' {
			return true
		}
		out := value.NewMap(0)
		pm.Range(func(k, v any) bool {
			ks := value.Str(k)
			switch {
			case ks == "status":
			case rename[ks] != "":
				out.Set(rename[ks], v)
			default:
				out.Set(k, v)
			}
			return true
		})
		if allVersions {
			l, ok := ret.Get(name)
			if !ok {
				l = value.NewList()
				ret.Set(name, l)
			}
			l.(*value.List).Append(out)
		} else {
			ret.Set(name, out)
		}
		return true
	})
	return ret, nil
}

// callApt is Salt's _call_apt: an apt command with its non-interactive
// environment, through cmd.run_all, again while the apt lock is held.
func callApt(ctx *execmod.Context, argv []string, kw ...any) (*value.Map, error) {
	env := value.MapOf("APT_LISTBUGS_FRONTEND", "none", "APT_LISTCHANGES_FRONTEND", "none", "DEBIAN_FRONTEND", "noninteractive", "UCF_FORCE_CONFFOLD", "1")
	for count := 0; ; count++ {
		res, err := runArgv(ctx, "cmd.run_all", argv, append([]any{"env", env}, kw...)...)
		if err != nil {
			return nil, err
		}
		m, _ := res.(*value.Map)
		// Like Salt, wait for another apt or dpkg holding the lock: ten
		// more tries, 2, 4, ... 1024 seconds apart.
		if count >= 10 || !strings.Contains(execmod.String(cmdGet(m, "stderr")), "Could not get lock") {
			return m, nil
		}
		slog.Warn(fmt.Sprintf("Waiting for dpkg lock release: retrying... %d/100", count+1))
		time.Sleep(time.Duration(1<<(count+1)) * time.Second)
	}
}

var aptConfRE = regexp.MustCompile(`(?m)^Conf ([^ ]+) \(([^ ]+)`)

func aptListUpgrades(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("list_upgrades", args, kwargs, execmod.Opt("refresh", true), execmod.Opt("dist_upgrade", true))
	if err != nil {
		return nil, err
	}
	cvt := popKwarg(rest, "cache_valid_time")
	if value.Truthy(v[0]) {
		kw := value.NewMap(0)
		if cvt != nil {
			kw.Set("cache_valid_time", cvt)
		}
		if _, err := ctx.Call("pkg.refresh_db", nil, kw); err != nil {
			return nil, err
		}
	}
	argv := []string{"apt-get", "--just-print", "upgrade"}
	if value.Truthy(v[1]) {
		argv[2] = "dist-upgrade"
	}
	if fr, ok := rest.GetString("fromrepo"); ok {
		argv = append(argv, "-o", "APT::Default-Release="+value.Str(fr))
	}
	m, err := callApt(ctx, argv)
	if err != nil {
		return nil, err
	}
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		msg := "Failed to get upgrades"
		for _, k := range []string{"stderr", "stdout"} {
			if s := execmod.String(cmdGet(m, k)); s != "" {
				msg += ": " + s
				break
			}
		}
		return nil, execmod.Errorf("%s", msg)
	}
	ret := value.NewMap(0)
	for _, g := range aptConfRE.FindAllStringSubmatch(execmod.String(cmdGet(m, "stdout")), -1) {
		ret.Set(g[1], g[2])
	}
	return ret, nil
}

func aptAutoremove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("autoremove", args, kwargs, execmod.Opt("list_only", false), execmod.Opt("purge", false))
	if err != nil {
		return nil, err
	}
	mode := "--assume-yes"
	if value.Truthy(v[0]) {
		mode = "--assume-no"
	}
	argv := []string{"apt-get", mode}
	if value.Truthy(v[1]) {
		argv = append(argv, "--purge")
	}
	argv = append(argv, "autoremove")
	if value.Truthy(v[0]) {
		m, err := callApt(ctx, argv, "ignore_retcode", true)
		if err != nil {
			return nil, err
		}
		var names []string
		found := false
		for _, line := range strings.Split(execmod.String(cmdGet(m, "stdout")), "\n") {
			switch {
			case found && strings.HasPrefix(line, " "):
				names = append(names, strings.Fields(line)...)
			case found:
				found = false
			case strings.Contains(line, "The following packages will be REMOVED:"):
				found = true
			}
		}
		sort.Strings(names)
		return strList(names), nil
	}
	old, err := ctx.Call("pkg.list_pkgs", nil, nil)
	if err != nil {
		return nil, err
	}
	if _, err := callApt(ctx, argv, "ignore_retcode", true); err != nil {
		return nil, err
	}
	cur, err := ctx.Call("pkg.list_pkgs", nil, nil)
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

func aptServicesNeedRestart(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	if !hasCmd("checkrestart") {
		return nil, &commandNotFound{msg: "'checkrestart' is needed. It is part of the 'debian-goodies' package which can be installed from official repositories."}
	}
	out, err := runArgv(ctx, "cmd.run_stdout", []string{"checkrestart", "--machine", "--package"})
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, line := range strings.Split(execmod.String(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "SERVICE:"); ok {
			name, _, _ := strings.Cut(rest, ",")
			set[name] = true
		}
	}
	return strList(kmodSorted(set)), nil
}
