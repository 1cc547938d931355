package modules

// aptpkg_repo.go is the repository half of salt/modules/aptpkg.py: the
// packages the apt cache offers, adding, changing and deleting one-line
// sources (modelled as Salt does without python-apt, internal/system/aptsrc)
// and the keys apt trusts (apt-key, or keyring files with gpg).

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/system/aptsrc"
	"brine/internal/value"
)

func init() {
	for name, f := range map[string]struct {
		fn  execmod.Func
		doc string
	}{
		"list_repo_pkgs":  {aptListRepoPkgs, "Return {name: [versions]} of the packages apt knows (all, or the names given), in apt-cache's order."},
		"del_repo":        {aptDelRepo, "Delete the components of a repository definition from the sources (the file too when nothing is left in it); the report."},
		"mod_repo":        {aptModRepo, "Create or change a source (comps, architectures, disabled, file, dist, keyserver+keyid, key_url, key_text, comments, consolidate, refresh); {repo: its fields}."},
		"expand_repo_def": {aptExpandRepoDef, "Expand repo= (with comps, architectures, disabled, ...) into the fields list_repos reports."},
		"get_repo_keys":   {aptGetRepoKeys, "Return the keys apt trusts by key id (apt-key, or the keyrings of keydir with aptkey=False)."},
		"add_repo_key":    {aptAddRepoKey, "Add a repository key from path, text, or keyserver+keyid (apt-key, or a keyring in keydir with aptkey=False); True when added."},
		"del_repo_key":    {aptDelRepoKey, "Delete the repository key keyid (apt-key, or its keyring file in keydir with aptkey=False); the key id."},
		"list_downloaded": {aptListDownloaded, "Return the .deb files in apt's cache as {name: {version: {'path', 'size', 'creation_date_time_t', 'creation_date_time'}}} (root=)."},
	} {
		execmod.Register("pkg."+name, debianOnly("pkg."+name, f.fn), f.doc)
	}
}

var aptNewPkgRE = regexp.MustCompile(`^Package: (.+)`)

func aptListRepoPkgs(ctx *execmod.Context, args []any, _ *value.Map) (any, error) {
	argv := []string{"apt-cache", "dump"}
	if len(args) > 0 {
		argv = []string{"apt-cache", "show"}
		for _, a := range args {
			argv = append(argv, value.Str(a))
		}
	}
	m, err := callApt(ctx, argv, "ignore_retcode", true)
	if err != nil {
		return nil, err
	}
	return parseRepoPkgs(execmod.String(cmdGet(m, "stdout"))), nil
}

// parseRepoPkgs reads apt-cache show/dump output: the Version: lines of
// each Package: stanza.
func parseRepoPkgs(out string) *value.Map {
	ret := value.NewMap(0)
	var pkg any
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if g := aptNewPkgRE.FindStringSubmatch(line); g != nil && g[1] != pkg {
			pkg = g[1]
			continue
		}
		f := strings.Fields(line)
		if f[0] == "Version:" {
			_, ver, _ := strings.Cut(strings.TrimSpace(line), "Version:")
			l, ok := ret.Get(pkg)
			if !ok {
				l = value.NewList()
				ret.Set(pkg, l)
			}
			l.(*value.List).Append(strings.TrimSpace(ver))
		}
	}
	return ret
}

const (
	lpSrcFormat    = "deb http://ppa.launchpad.net/%s/%s/ubuntu %s main"
	lpPvtSrcFormat = "deb https://%sprivate-ppa.launchpad.net/%s/%s/ubuntu %s main"
)

func ppaOS(ctx *execmod.Context) bool {
	switch execmod.String(ctxGrain(ctx, "os")) {
	case "Ubuntu", "Mint", "neon":
		return true
	}
	return false
}

// expandPPA turns ppa:owner/name into its Launchpad source line (the
// private form with ppaAuth).
func expandPPA(repo, dist string, ppaAuth any) (string, error) {
	owner, name, ok := strings.Cut(repo[4:], "/")
	if !ok || strings.Contains(name, "/") {
		return "", execmod.Errorf("Unable to get PPA info from argument. Expected format \"<PPA_OWNER>/<PPA_NAME>\" (e.g. saltstack/salt) not found.  Received '%s' instead.", repo[4:])
	}
	if ppaAuth != nil {
		return fmt.Sprintf(lpPvtSrcFormat, value.Str(ppaAuth)+"@", owner, name, dist), nil
	}
	return fmt.Sprintf(lpSrcFormat, owner, name, dist), nil
}

func aptSameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func aptRefresh(ctx *execmod.Context) error {
	_, err := ctx.Call("pkg.refresh_db", nil, nil)
	return err
}

func aptDelRepo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("del_repo", args, kwargs, execmod.Req("repo"))
	if err != nil {
		return nil, err
	}
	repo := value.Str(v[0])
	isPPA := false
	if strings.HasPrefix(repo, "ppa:") && ppaOS(ctx) {
		isPPA = true
		auth, _ := rest.GetString("ppa_auth")
		if repo, err = expandPPA(repo, execmod.String(ctxGrain(ctx, "oscodename")), auth); err != nil {
			return nil, err
		}
	}
	sl := aptsrc.Load(sysRoot(ctx))
	want := aptsrc.ParseEntry(repo, "")
	var deletedFrom []string
	hasValid := false
	for _, e := range sl.Entries {
		if !e.Invalid {
			hasValid = true
		}
	}
	if hasValid {
		for i := 0; i < len(sl.Entries); i++ {
			e := &sl.Entries[i]
			if e.Invalid {
				continue
			}
			match := e.Type == want.Type && aptSameStrings(e.Architectures, want.Architectures) && e.URI == want.URI && e.Dist == want.Dist
			ppaSrc := isPPA && want.Type == "deb" && e.Type == "deb-src" && e.URI == want.URI && e.Dist == want.Dist
			if !match && !ppaSrc {
				continue
			}
			var left []string
			hit := false
			for _, c := range e.Comps {
				if contains(want.Comps, c) {
					hit = true
				} else if !contains(left, c) {
					left = append(left, c)
				}
			}
			if !hit {
				continue
			}
			if !contains(deletedFrom, e.File) {
				deletedFrom = append(deletedFrom, e.File)
			}
			e.Comps = left
			if len(left) == 0 {
				sl.Remove(i)
				i--
			}
		}
		if err := sl.Save(); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	if len(deletedFrom) == 0 {
		return nil, execmod.Errorf("Repo %s doesn't exist in the sources.list(s)", repo)
	}
	var b strings.Builder
	for _, f := range deletedFrom {
		n := 0
		for _, e := range sl.Entries {
			if e.File == f {
				n++
			}
		}
		if n == 0 && strings.Contains(f, "sources.list.d/") && fileExists(sl.Path(f)) {
			os.Remove(sl.Path(f))
			b.WriteString("File " + f + " containing repo '" + repo + "' has been removed.")
			continue
		}
		b.WriteString("Repo '" + repo + "' has been removed from " + f + ".\n")
	}
	if err := aptRefresh(ctx); err != nil {
		return nil, err
	}
	return b.String(), nil
}

// aptHasKeyCmd says whether apt-key is installed (Salt then defaults to
// it for keys).
func aptHasKeyCmd() bool { return hasCmd("apt-key") }

func aptModRepo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("mod_repo", args, kwargs, execmod.Req("repo"), execmod.Opt("saltenv", "base"), execmod.Opt("aptkey", true))
	if err != nil {
		return nil, err
	}
	repo, saltenv := value.Str(v[0]), v[1]
	aptkey := value.Truthy(v[2]) && aptHasKeyCmd()
	refresh := true
	if r, ok := kw.GetString("refresh_db"); ok {
		refresh = value.Truthy(r)
	} else if r, ok := kw.GetString("refresh"); ok {
		refresh = value.Truthy(r)
	}
	has := func(k string) bool { _, ok := kw.GetString(k); return ok }
	if strings.HasPrefix(repo, "ppa:") {
		if !ppaOS(ctx) {
			return nil, execmod.Errorf("cannot parse \"ppa:\" style repo definitions: %s", repo)
		}
		// Salt asks Launchpad for the PPA's signing key here; brine
		// expands the definition and expects keyid/keyserver to be given.
		if !has("file") {
			owner, name, _ := strings.Cut(repo[4:], "/")
			kw.Set("file", "/etc/apt/sources.list.d/"+owner+"-"+name+"-"+execmod.String(ctxGrain(ctx, "oscodename"))+".list")
		}
		auth, _ := kw.GetString("ppa_auth")
		if repo, err = expandPPA(repo, execmod.String(ctxGrain(ctx, "oscodename")), auth); err != nil {
			return nil, err
		}
		kw.Set("dist", execmod.String(ctxGrain(ctx, "oscodename")))
	}
	root := sysRoot(ctx)
	sl := aptsrc.Load(root)
	if value.Truthy(mapGet(kw, "consolidate")) {
		if err := sl.Consolidate(); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	want := aptsrc.ParseEntry(repo, "")
	if want.Invalid {
		return nil, execmod.Errorf("Error: repo '%s' not a well formatted definition", repo)
	}
	signedBy := want.SignedBy
	if !aptkey && signedBy == "" {
		return nil, &execmod.InvocationError{Msg: "missing 'signedby' option when apt-key is missing"}
	}
	switch {
	case has("keyid"):
		if err := modRepoKeyserver(ctx, kw, aptkey, signedBy); err != nil {
			return nil, err
		}
	case has("key_url"):
		ok, err := modRepoKeyURL(ctx, value.Str(mapGet(kw, "key_url")), saltenv, aptkey, signedBy)
		if err != nil || !ok {
			return ok, err
		}
	case has("key_text"):
		text := value.Str(mapGet(kw, "key_text"))
		out, err := runArgv(ctx, "cmd.run_stdout", []string{"apt-key", "add", "-"}, "stdin", text)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(strings.ToUpper(execmod.String(out)), "OK") {
			return nil, execmod.Errorf("Error: failed to add key:\n%s", text)
		}
	}
	fullComps := append([]string(nil), want.Comps...)
	comps := want.Comps
	if c, ok := kw.GetString("comps"); ok {
		comps = nil
		for _, x := range strings.Split(value.Str(c), ",") {
			comps = append(comps, strings.TrimSpace(x))
			if !contains(fullComps, strings.TrimSpace(x)) {
				fullComps = append(fullComps, strings.TrimSpace(x))
			}
		}
	}
	archs := want.Architectures
	if a, ok := kw.GetString("architectures"); ok {
		archs = strings.Split(value.Str(a), ",")
	}
	var disabled *bool
	if d, ok := kw.GetString("disabled"); ok {
		b := pkgIsTrue(d)
		disabled = &b
	} else if e, ok := kw.GetString("enabled"); ok {
		b := !pkgIsTrue(e)
		disabled = &b
	}
	kwType, typeOK := kw.GetString("type")
	kwDist, distOK := kw.GetString("dist")
	var mod *aptsrc.Entry
	for i := range sl.Entries {
		e := &sl.Entries[i]
		if e.Invalid {
			continue
		}
		repoMatches := e.Type == want.Type && strings.TrimRight(e.URI, "/") == strings.TrimRight(want.URI, "/") && e.Dist == want.Dist
		kwMatches := typeOK && distOK && e.Dist == value.Str(kwDist) && e.Type == value.Str(kwType)
		if !repoMatches && !kwMatches {
			continue
		}
		for _, c := range fullComps {
			if contains(e.Comps, c) {
				mod = e
			}
		}
		if len(e.Comps) == 0 || !aptSameStrings(archs, e.Architectures) {
			mod = e
		}
		if mod != nil {
			break
		}
	}
	comment, hasComment := "", has("comments")
	if hasComment {
		comment = combineComments(mapGet(kw, "comments"))
	}
	if mod == nil {
		sl.Entries = append(sl.Entries, want)
		mod = &sl.Entries[len(sl.Entries)-1]
	}
	if hasComment {
		mod.Comment = comment
	}
	if !strings.HasSuffix(mod.Line, "\n") {
		mod.Line += "\n"
	}
	mod.Comps = comps
	mod.Architectures = archs
	mod.SignedBy = signedBy
	if disabled != nil {
		mod.Disabled = *disabled
	}
	if f, ok := kw.GetString("file"); ok {
		mod.File = value.Str(f)
	}
	if distOK {
		mod.Dist = value.Str(kwDist)
	}
	if mod.URI != want.URI {
		mod.URI = want.URI
		mod.Line = mod.RepoLine()
	}
	if err := sl.Save(); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if refresh {
		if err := aptRefresh(ctx); err != nil {
			return nil, err
		}
	}
	return value.MapOf(repo, value.MapOf("architectures", strList(aptNonNil(mod.Architectures)), "comps", strList(aptNonNil(mod.Comps)),
		"disabled", mod.Disabled, "file", mod.File, "type", mod.Type, "uri", mod.URI, "line", mod.Line, "signedby", mod.SignedBy)), nil
}

func aptNonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// pkgIsTrue is salt.utils.data.is_true.
func pkgIsTrue(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x > 0
	case float64:
		return x > 0
	case string:
		if n, err := strconv.ParseFloat(x, 64); err == nil {
			return n > 0
		}
		return strings.EqualFold(x, "true")
	}
	return false
}

// combineComments is salt.utils.pkg.deb.combine_comments.
func combineComments(c any) string {
	var parts []string
	if l, ok := c.(*value.List); ok {
		for _, x := range l.Items {
			parts = append(parts, execmod.String(x))
		}
	} else {
		parts = []string{execmod.String(c)}
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// modRepoKeyserver imports each keyid of kw from its keyserver unless apt
// (or signedBy's keyring directory) already has it.
func modRepoKeyserver(ctx *execmod.Context, kw *value.Map, aptkey bool, signedBy string) error {
	keyids, keyserver := popKwarg(kw, "keyid"), popKwarg(kw, "keyserver")
	if !value.Truthy(keyids) || !value.Truthy(keyserver) {
		return execmod.Errorf("both keyserver and keyid options required.")
	}
	l, ok := keyids.(*value.List)
	if !ok {
		l = value.NewList(keyids)
	}
	for _, k := range l.Items {
		key := execmod.String(k)
		if n, ok := k.(int64); ok {
			key = "0x" + strconv.FormatInt(n, 16)
		}
		if !aptkey {
			keys, err := repoKeysFromDir(ctx, filepath.Dir(signedBy))
			if err != nil {
				return err
			}
			if m, ok := keys.(*value.Map); ok {
				if _, ok := m.GetString(key); ok {
					continue
				}
			}
			if _, err := addRepoKeyServer(ctx, value.Str(keyserver), key, false, filepath.Dir(signedBy), signedBy); err != nil {
				return err
			}
			continue
		}
		out, err := runArgv(ctx, "cmd.run_stdout", []string{"apt-key", "export", key})
		if err != nil {
			return err
		}
		if strings.HasPrefix(execmod.String(out), "-----BEGIN PGP") {
			continue
		}
		m, err := callApt(ctx, []string{"apt-key", "adv", "--batch", "--keyserver", value.Str(keyserver), "--logger-fd", "1", "--recv-keys", key})
		if err != nil {
			return err
		}
		if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
			return execmod.Errorf("Error: key retrieval failed: %s", execmod.String(cmdGet(m, "stdout")))
		}
	}
	return nil
}

// modRepoKeyURL adds the key at keyURL (renamed after signedBy's file).
func modRepoKeyURL(ctx *execmod.Context, keyURL string, saltenv any, aptkey bool, signedBy string) (bool, error) {
	cached, err := ctx.Call("cp.cache_file", []any{keyURL, saltenv}, nil)
	if err != nil {
		return false, err
	}
	fn := execmod.String(cached)
	if !value.Truthy(cached) {
		return false, execmod.Errorf("Error: file not found: %s", keyURL)
	}
	if signedBy != "" && filepath.Base(fn) != filepath.Base(signedBy) {
		np := filepath.Join(filepath.Dir(fn), filepath.Base(signedBy))
		if err := os.Rename(fn, np); err != nil {
			return false, execmod.Errorf("%s", err)
		}
		fn = np
	}
	if !aptkey {
		keydir := ""
		if signedBy != "" {
			keydir = filepath.Dir(signedBy)
		}
		return addRepoKeyPath(ctx, fn, "base", false, keydir, "")
	}
	out, err := runArgv(ctx, "cmd.run_stdout", []string{"apt-key", "add", fn})
	if err != nil {
		return false, err
	}
	if !strings.HasPrefix(strings.ToUpper(execmod.String(out)), "OK") {
		return false, execmod.Errorf("Error: failed to add key from %s", keyURL)
	}
	return true, nil
}

func aptExpandRepoDef(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, kw, err := execmod.Bind("expand_repo_def", args, kwargs)
	if err != nil {
		return nil, err
	}
	osName := ctxGrain(ctx, "os")
	if v, ok := kw.GetString("os_name"); ok {
		osName = v
	}
	codename := ctxGrain(ctx, "oscodename")
	if v, ok := kw.GetString("os_codename"); ok {
		codename = v
	} else if v, ok := kw.GetString("lsb_distrib_codename"); ok {
		codename = v
	}
	r, ok := kw.GetString("repo")
	if !ok {
		return nil, &execmod.InvocationError{Msg: "missing 'repo' argument"}
	}
	repo := value.Str(r)
	switch value.Str(osName) {
	case "Ubuntu", "Mint", "neon":
		if strings.HasPrefix(repo, "ppa:") {
			auth, _ := kw.GetString("ppa_auth")
			if repo, err = expandPPA(repo, execmod.String(codename), auth); err != nil {
				return nil, err
			}
		}
	}
	src := aptsrc.ParseEntry(repo, "")
	if a, ok := kw.GetString("architectures"); ok {
		src.Architectures = nil
		for _, x := range strings.Split(value.Str(a), ",") {
			src.Architectures = append(src.Architectures, strings.TrimSpace(x))
		}
	}
	if c, ok := kw.GetString("comps"); ok {
		src.Comps = nil
		for _, x := range strings.Split(value.Str(c), ",") {
			src.Comps = append(src.Comps, strings.TrimSpace(x))
		}
	}
	for _, k := range []string{"uri", "dist", "signedby"} {
		if x, ok := kw.GetString(k); ok {
			switch k {
			case "uri":
				src.URI = value.Str(x)
			case "dist":
				src.Dist = value.Str(x)
			case "signedby":
				src.SignedBy = value.Str(x)
			}
		}
	}
	var disabled any = src.Disabled
	if d, ok := kw.GetString("disabled"); ok {
		disabled = d
	}
	out := aptsrc.NewEntry(src.Type, src.URI, src.Dist, src.Comps, src.Architectures, src.SignedBy)
	out.Disabled = value.Truthy(disabled)
	line := out.RepoLine()
	return value.MapOf("file", out.File, "comps", strList(aptNonNil(out.Comps)), "disabled", disabled, "dist", out.Dist, "type", out.Type,
		"uri", out.URI, "line", strings.TrimSpace(line), "architectures", strList(aptNonNil(out.Architectures)), "signedby", src.SignedBy), nil
}

// aptColonIntRE matches what Python's int(str(s)) accepts.
var aptColonIntRE = regexp.MustCompile(`^[+-]?[0-9]+(_[0-9]+)*$`)

// colonItem is _convert_if_int of one field of gpg's colon output: nil
// for an empty field, an integer when it reads as one.
func colonItem(s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if aptColonIntRE.MatchString(s) {
		if n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64); err == nil {
			return n
		}
	}
	return s
}

// parseRepoKeys is _parse_repo_keys_output: gpg's colon listing to
// {keyid: {fields, 'subkey': {...}}}.
func parseRepoKeys(out string) *value.Map {
	var keys []*value.Map
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		raw := strings.Split(line, ":")
		if len(raw) < 2 {
			continue
		}
		items := make([]any, len(raw))
		for i, r := range raw {
			items[i] = colonItem(r)
		}
		at := func(i int) any {
			if i < len(items) {
				return items[i]
			}
			return nil
		}
		switch value.Str(items[0]) {
		case "pub", "sub":
			props := value.MapOf("algorithm", at(3), "bits", at(2), "capability", at(11), "date_creation", at(5),
				"date_expiration", at(6), "keyid", pkgPyStr(at(4)), "validity", at(1))
			if items[0] == "pub" {
				keys = append(keys, props)
			} else if len(keys) > 0 {
				keys[len(keys)-1].Set("subkey", props)
			}
		case "fpr":
			if len(keys) > 0 {
				last := keys[len(keys)-1]
				if sub, ok := last.GetString("subkey"); ok && value.Truthy(sub) {
					sub.(*value.Map).Set("fingerprint", at(9))
				} else {
					last.Set("fingerprint", at(9))
				}
			}
		case "uid":
			if len(keys) > 0 {
				keys[len(keys)-1].Set("uid", at(9))
				keys[len(keys)-1].Set("uid_hash", at(7))
			}
		}
	}
	ret := value.NewMap(0)
	for _, k := range keys {
		ret.Set(mapGet(k, "keyid"), k)
	}
	return ret
}

// pkgPyStr is Python's str() of a value (None as 'None').
func pkgPyStr(v any) string {
	if v == nil {
		return "None"
	}
	return execmod.String(v)
}

const aptKeyringDir = "/etc/apt/keyrings"

// repoKeysFromDir lists the keys of every keyring file in keydir, or
// False when keydir is no directory.
func repoKeysFromDir(ctx *execmod.Context, keydir string) (any, error) {
	if keydir == "" {
		keydir = aptKeyringDir
	}
	ents, err := os.ReadDir(keydir)
	if err != nil {
		slog.Error(fmt.Sprintf("The directory %s does not exist. Please create this directory only writable by root", keydir))
		return false, nil
	}
	var outs []string
	for _, e := range ents {
		res, err := runArgv(ctx, "cmd.run_all", []string{"gpg", "--no-default-keyring", "--keyring", filepath.Join(keydir, e.Name()), "--list-keys", "--with-colons"})
		if err != nil {
			return nil, err
		}
		m, _ := res.(*value.Map)
		outs = append(outs, execmod.String(cmdGet(m, "stdout")))
	}
	return parseRepoKeys(strings.Join(outs, " ")), nil
}

func aptGetRepoKeys(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_repo_keys", args, kwargs, execmod.Opt("aptkey", true), execmod.Opt("keydir", nil))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[0]) || !aptHasKeyCmd() {
		return repoKeysFromDir(ctx, execmod.String(v[1]))
	}
	m, err := callApt(ctx, []string{"apt-key", "adv", "--batch", "--list-public-keys", "--with-fingerprint", "--with-fingerprint", "--with-colons", "--fixed-list-mode"})
	if err != nil {
		return nil, err
	}
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		slog.Error(execmod.String(cmdGet(m, "stderr")))
		return value.NewMap(0), nil
	}
	return parseRepoKeys(execmod.String(cmdGet(m, "stdout"))), nil
}

// dearmorKey is _decrypt_key: an ASCII-armored key file is dearmored next
// to it (path.decrypted); "" when gpg is missing.
func dearmorKey(ctx *execmod.Context, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", execmod.Errorf("%s", err)
	}
	if !bytes.HasPrefix(bytes.TrimLeft(data, "-"), []byte("BEGIN PGP")) {
		return path, nil
	}
	if !hasCmd("gpg") {
		slog.Error(fmt.Sprintf("Detected an ASCII armored key %s and the gpg binary is not available. Not decrypting the key.", path))
		return "", nil
	}
	out := path + ".decrypted"
	if _, err := runArgv(ctx, "cmd.run_all", []string{"gpg", "--yes", "--output", out, "--dearmor", path}); err != nil {
		return "", err
	}
	return out, nil
}

// addRepoKeyPath adds the key file at path: copied (dearmored) into
// keydir as keyfile, or with apt-key add.
func addRepoKeyPath(ctx *execmod.Context, path string, saltenv any, aptkey bool, keydir, keyfile string) (bool, error) {
	cached, err := ctx.Call("cp.cache_file", []any{path, saltenv}, nil)
	if err != nil {
		return false, err
	}
	if !value.Truthy(cached) {
		slog.Error("Unable to get cached copy of file: " + path)
		return false, nil
	}
	if aptkey {
		return runAptKey(ctx, []string{"apt-key", "add", execmod.String(cached)})
	}
	key, err := dearmorKey(ctx, execmod.String(cached))
	if err != nil || key == "" {
		return false, err
	}
	if keyfile == "" {
		keyfile = strings.TrimSuffix(filepath.Base(key), ".decrypted")
	}
	if keydir == "" {
		keydir = aptKeyringDir
	}
	data, err := os.ReadFile(key)
	if err != nil {
		return false, execmod.Errorf("%s", err)
	}
	if err := os.WriteFile(aptKeyPath(keydir, keyfile), data, 0o644); err != nil {
		return false, execmod.Errorf("%s", err)
	}
	return true, nil
}

// aptKeyPath is Python's keydir / keyfile (an absolute keyfile wins).
func aptKeyPath(keydir, keyfile string) string {
	if filepath.IsAbs(keyfile) {
		return keyfile
	}
	return filepath.Join(keydir, keyfile)
}

func addRepoKeyServer(ctx *execmod.Context, keyserver, keyid string, aptkey bool, keydir, keyfile string) (bool, error) {
	if keyid == "" {
		return false, &execmod.InvocationError{Msg: "No keyid or keyid too short for keyserver: " + keyserver}
	}
	if aptkey {
		return runAptKey(ctx, []string{"apt-key", "adv", "--batch", "--keyserver", keyserver, "--recv", keyid})
	}
	if keyfile == "" {
		slog.Error("You must define the name of the key file to save the key. See keyfile argument")
		return false, nil
	}
	if keydir == "" {
		keydir = aptKeyringDir
	}
	return runAptKey(ctx, []string{"gpg", "--no-default-keyring", "--keyring", aptKeyPath(keydir, keyfile), "--keyserver", keyserver, "--recv-keys", keyid})
}

func runAptKey(ctx *execmod.Context, argv []string, kw ...any) (bool, error) {
	m, err := callApt(ctx, argv, kw...)
	if err != nil {
		return false, err
	}
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		slog.Error("Unable to add repo key: " + execmod.String(cmdGet(m, "stderr")))
		return false, nil
	}
	return true, nil
}

func aptAddRepoKey(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("add_repo_key", args, kwargs, execmod.Opt("path", nil), execmod.Opt("text", nil), execmod.Opt("keyserver", nil),
		execmod.Opt("keyid", nil), execmod.Opt("saltenv", "base"), execmod.Opt("aptkey", true), execmod.Opt("keydir", nil), execmod.Opt("keyfile", nil))
	if err != nil {
		return nil, err
	}
	keydir := execmod.String(v[6])
	if keydir == "" {
		keydir = aptKeyringDir
	}
	aptkey := value.Truthy(v[5])
	if st, err := os.Stat(keydir); !aptkey && (err != nil || !st.IsDir()) {
		slog.Error(fmt.Sprintf("The directory %s does not exist. Please create this directory only writable by root", keydir))
		return false, nil
	}
	aptkey = aptkey && aptHasKeyCmd()
	keyid, keyfile := execmod.String(v[3]), execmod.String(v[7])
	if value.Truthy(v[3]) {
		keys, err := aptGetRepoKeys(ctx, nil, value.MapOf("aptkey", aptkey, "keydir", keydir))
		if err != nil {
			return nil, err
		}
		if m, ok := keys.(*value.Map); ok {
			for _, k := range m.Keys() {
				if cur := value.Str(k); len(cur) >= len(keyid) && cur[len(cur)-len(keyid):] == keyid {
					return true, nil
				}
			}
		}
	}
	switch {
	case value.Truthy(v[0]):
		return addRepoKeyPath(ctx, value.Str(v[0]), v[4], aptkey, keydir, keyfile)
	case value.Truthy(v[1]):
		return runAptKey(ctx, []string{"apt-key", "add", "-"}, "stdin", value.Str(v[1]))
	case value.Truthy(v[2]):
		return addRepoKeyServer(ctx, value.Str(v[2]), keyid, aptkey, keydir, keyfile)
	case value.Truthy(v[3]):
		return nil, &execmod.InvocationError{Msg: "No keyserver specified for keyid: " + keyid}
	}
	return nil, &execmod.InvocationError{Msg: "add_repo_key() takes at least 1 argument (0 given)"}
}

func aptDelRepoKey(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("del_repo_key", args, kwargs, execmod.Opt("name", nil), execmod.Opt("aptkey", true), execmod.Opt("keydir", nil))
	if err != nil {
		return nil, err
	}
	keydir := execmod.String(v[2])
	if keydir == "" {
		keydir = aptKeyringDir
	}
	aptkey := value.Truthy(v[1])
	if st, err := os.Stat(keydir); !aptkey && (err != nil || !st.IsDir()) {
		slog.Error(fmt.Sprintf("The directory %s does not exist. Please create this directory only writable by root", keydir))
		return false, nil
	}
	aptkey = aptkey && aptHasKeyCmd()
	if value.Truthy(mapGet(kw, "keyid_ppa")) {
		// Salt looks the PPA's key up on Launchpad; brine does not.
		return nil, &execmod.InvocationError{Msg: "keyid_ppa is not supported by brine: pass keyid"}
	}
	k, ok := kw.GetString("keyid")
	if !ok {
		return nil, &execmod.InvocationError{Msg: "keyid or keyid_ppa and PPA name must be passed"}
	}
	keyid := execmod.String(k)
	if !aptkey {
		if len(keyid) != 8 && len(keyid) != 16 {
			slog.Error("The keyid needs to be either 8 or 16 characters")
			return false, nil
		}
		ents, _ := os.ReadDir(keydir)
		for _, e := range ents {
			file := filepath.Join(keydir, e.Name())
			res, err := runArgv(ctx, "cmd.run_all", []string{"gpg", "--no-default-keyring", "--keyring", file, "--list-keys", "--with-colons"})
			if err != nil {
				return nil, err
			}
			m, _ := res.(*value.Map)
			found := false
			parseRepoKeys(execmod.String(cmdGet(m, "stdout"))).Range(func(_, p any) bool {
				if strings.HasSuffix(value.Str(mapGet(p.(*value.Map), "keyid")), keyid) {
					found = true
				}
				return !found
			})
			if found {
				if err := os.Remove(file); err != nil {
					return nil, execmod.Errorf("%s", err)
				}
				return keyid, nil
			}
		}
		slog.Error("Could not find the key file for keyid: " + keyid)
		return false, nil
	}
	m, err := callApt(ctx, []string{"apt-key", "del", keyid})
	if err != nil {
		return nil, err
	}
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		msg := "Failed to remove keyid " + keyid
		if s := execmod.String(cmdGet(m, "stderr")); s != "" {
			msg += ": " + s
		}
		return nil, execmod.Errorf("%s", msg)
	}
	return keyid, nil
}

func aptListDownloaded(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_downloaded", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	dir := "/var/cache/apt"
	if value.Truthy(v[0]) {
		dir = filepath.Join(value.Str(v[0]), "var/cache/apt")
	}
	var debs []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".deb") {
			debs = append(debs, p)
		}
		return nil
	})
	sort.Strings(debs)
	ret := value.NewMap(0)
	for _, p := range debs {
		info, err := ctx.Call("lowpkg.bin_pkg_info", []any{p}, nil)
		if err != nil {
			return nil, err
		}
		im, _ := info.(*value.Map)
		st, err := os.Stat(p)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		var ctime int64
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			ctime = sys.Ctim.Sec
		}
		byName, ok := ret.Get(mapGet(im, "name"))
		if !ok {
			byName = value.NewMap(0)
			ret.Set(mapGet(im, "name"), byName)
		}
		byName.(*value.Map).Set(mapGet(im, "version"), value.MapOf("path", p, "size", st.Size(),
			"creation_date_time_t", ctime, "creation_date_time", time.Unix(ctime, 0).UTC().Format("2006-01-02T15:04:05")))
	}
	return ret, nil
}
