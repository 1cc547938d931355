package states

// pkgrepo.go is salt/states/pkgrepo.py (pkgrepo.managed, pkgrepo.absent)
// for apt sources (a one-line "deb [options] uri dist comps" entry in
// file, default /etc/apt/sources.list, with key_url or key_text saved to
// the signed-by keyring) and yum/dnf .repo files, with the repository
// handling of aptpkg.mod_repo/get_repo/del_repo and yumpkg.mod_repo.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/aptsrc"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pkgrepo.managed",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("ppa", nil), statemod.Opt("copr", nil), statemod.Opt("aptkey", true)},
		Kwargs: true, Doc: "Ensure that a package repository is configured.", Run: pkgrepoManaged})
	statemod.Register(&statemod.Function{Name: "pkgrepo.absent", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Ensure that a package repository is not configured.", Run: pkgrepoAbsent})
}

// debSource is one apt source line.
type debSource = aptsrc.Source

// installAptKey saves the key for the source: to its signed-by keyring
// (dearmored for a .gpg path), else to /etc/apt/trusted.gpg.d.
func installAptKey(c *statemod.Call, src debSource, key []byte, name string) (string, error) {
	path := src.Option("signed-by")
	if path == "" {
		base := strings.NewReplacer("/", "_", ":", "_").Replace(strings.TrimPrefix(strings.TrimPrefix(src.URI, "https://"), "http://"))
		path = "/etc/apt/trusted.gpg.d/" + strings.Trim(base, "_") + ".asc"
	}
	armored := bytes.Contains(key, []byte("-----BEGIN PGP PUBLIC KEY BLOCK-----"))
	if strings.HasSuffix(path, ".gpg") && armored {
		if _, err := exec.LookPath("gpg"); err != nil {
			return "", fmt.Errorf("gpg is needed to dearmor the key for %s", path)
		}
		cmd := exec.Command("gpg", "--dearmor")
		cmd.Stdin = bytes.NewReader(key)
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("gpg --dearmor: %w", err)
		}
		key = out
	}
	full := rootPath(c, path)
	if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, key) {
		return "", nil
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return "", err
	}
	if err := writeFileAtomic(full, key); err != nil {
		return "", err
	}
	os.Chmod(full, 0o644)
	return path, nil
}

// recvAptKey fetches keyid from keyserver (keyserver.ubuntu.com by
// default) into the source's signed-by keyring, or a keyring of its own
// in /etc/apt/trusted.gpg.d, with gpg.
func recvAptKey(c *statemod.Call, src debSource, keyid, keyserver string) error {
	if keyserver == "" || keyserver == "None" {
		keyserver = "keyserver.ubuntu.com"
	}
	path := src.Option("signed-by")
	if path == "" {
		path = "/etc/apt/trusted.gpg.d/" + strings.ToLower(keyid) + ".gpg"
	}
	full := rootPath(c, path)
	if exists(full) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "brine-gpg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	out, err := exec.Command("gpg", "--batch", "--homedir", home, "--no-default-keyring", "--keyring", full,
		"--keyserver", keyserver, "--recv-keys", keyid).CombinedOutput()
	if err != nil {
		os.Remove(full)
		return fmt.Errorf("Error: key retrieval failed: %s", strings.TrimSpace(string(out)))
	}
	os.Chmod(full, 0o644)
	return nil
}

func pkgrepoRefresh(c *statemod.Call) error {
	if v, ok := c.Args.Get("refresh"); ok && !value.Truthy(v) {
		return nil
	}
	if v, ok := c.Args.Get("refresh_db"); ok && !value.Truthy(v) {
		return nil
	}
	m, err := pkgManager(c)
	if err != nil {
		return err
	}
	_, err = m.Refresh(bg(c))
	return err
}

func osFamily(c *statemod.Call) string {
	v, _ := c.Grains().Get("os_family")
	return value.Str(v)
}

func pkgrepoManaged(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	fail := func(msg string) (*value.Map, error) {
		ret.Set("result", false)
		ret.Set("comment", msg)
		return ret, nil
	}
	if c.Args.Has("key_url") && (c.Args.Has("keyid") || c.Args.Has("keyserver")) {
		return fail(`You may not use both "keyid"/"keyserver" and "key_url" argument.`)
	}
	if c.Args.Has("key_text") && c.Args.Has("key_url") {
		return fail(`You may not use both "key_url" and "key_text" argument.`)
	}
	if c.Args.Has("repo") {
		return fail("'repo' is not a supported argument for this state. The 'name' argument is probably what was intended.")
	}
	enabled, hasEnabled := c.Args.Get("enabled")
	disabled, hasDisabled := c.Args.Get("disabled")
	if hasEnabled && hasDisabled {
		return fail("Only one of enabled/disabled is allowed")
	}
	isDisabled := (hasDisabled && value.Truthy(disabled)) || (hasEnabled && !value.Truthy(enabled))
	switch osFamily(c) {
	case "RedHat", "Suse":
		return yumRepoManaged(c, ret, !isDisabled)
	case "Debian":
	default:
		return fail("Repo management not implemented on this platform")
	}
	want, ok := aptsrc.Parse(name)
	if !ok {
		return fail(fmt.Sprintf("Failed to examine repo '%s': Invalid repo definition: %s", name, name))
	}
	if c.Args.Has("comps") {
		want.Comps = listStrings(kwOr(c, "comps", nil))
	}
	if v, ok := c.Args.Get("architectures"); ok && v != nil {
		want.Options = append(want.Options, "arch="+strings.Join(listStrings(v), ","))
	}
	if v, ok := c.Args.Get("signedby"); ok && v != nil && want.Option("signed-by") == "" {
		want.Options = append(want.Options, "signed-by="+value.Str(v))
	}
	want.Disabled = isDisabled
	file := rootPath(c, "/etc/apt/sources.list")
	if f := value.Str(kwOr(c, "file", "")); f != "" {
		file = rootPath(c, f)
	}
	var key []byte
	keySrc := ""
	if v, ok := c.Args.Get("key_url"); ok && v != nil {
		keySrc = value.Str(v)
	}
	if v, ok := c.Args.Get("key_text"); ok && v != nil {
		key = []byte(value.Str(v))
	}
	pre, hasPre := aptsrc.Find(sysRoot(c), want)
	keyMissing := false
	if keySrc != "" || key != nil {
		if p := want.Option("signed-by"); p != "" && !exists(rootPath(c, p)) {
			keyMissing = true
		}
	}
	if hasPre && pre.Equal(want) && pre.File == file && !keyMissing {
		ret.Set("result", true)
		ret.Set("comment", "Package repo '"+name+"' already configured")
		return ret, nil
	}
	changes := getv(ret, "changes").(*value.Map)
	if c.Test {
		ret.Set("comment", "Package repo '"+name+"' would be configured. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		if hasPre {
			if pre.Line() != want.Line() {
				changes.Set("line", value.MapOf("new", want.Line(), "old", pre.Line()))
			}
			if pre.File != file {
				changes.Set("file", value.MapOf("new", strings.TrimPrefix(file, sysRoot(c)), "old", strings.TrimPrefix(pre.File, sysRoot(c))))
			}
			if keyMissing {
				changes.Set("key_url", value.MapOf("new", keySrc, "old", nil))
			}
		} else {
			changes.Set("repo", name)
		}
		return ret, nil
	}
	if keySrc != "" {
		var err error
		if isRemote(keySrc) {
			key, err = fetchRemote(keySrc)
		} else {
			key, err = readSource(c, keySrc)
		}
		if err != nil {
			return fail(fmt.Sprintf("Failed to configure repo '%s': Error: failed to retrieve key from %s: %s", name, keySrc, err))
		}
	}
	if key != nil {
		if _, err := installAptKey(c, want, key, name); err != nil {
			return fail(fmt.Sprintf("Failed to configure repo '%s': %s", name, err))
		}
	}
	if keyid, ks := value.Str(kwOr(c, "keyid", "")), value.Str(kwOr(c, "keyserver", "")); keyid != "" && keyid != "None" {
		if err := recvAptKey(c, want, keyid, ks); err != nil {
			return fail(fmt.Sprintf("Failed to configure repo '%s': %s", name, err))
		}
	}
	if c.Bool("clean_file") {
		writeFileAtomic(file, nil)
	}
	var old *debSource
	if hasPre {
		old = &pre
	}
	if err := aptsrc.Write(file, want, old); err != nil {
		return fail(fmt.Sprintf("Failed to configure repo '%s': %s", name, err))
	}
	if err := pkgrepoRefresh(c); err != nil {
		return fail(fmt.Sprintf("Failed to configure repo '%s': %s", name, err))
	}
	if hasPre {
		if pre.Line() != want.Line() {
			changes.Set("line", value.MapOf("new", want.Line(), "old", pre.Line()))
		}
		if pre.File != file {
			changes.Set("file", value.MapOf("new", strings.TrimPrefix(file, sysRoot(c)), "old", strings.TrimPrefix(pre.File, sysRoot(c))))
		}
		if keyMissing {
			changes.Set("key_url", value.MapOf("new", keySrc, "old", nil))
		}
	} else {
		ret.Set("changes", value.MapOf("repo", name))
	}
	ret.Set("result", true)
	ret.Set("comment", "Configured package repo '"+name+"'")
	return ret, nil
}

func pkgrepoAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	if fam := osFamily(c); fam == "RedHat" || fam == "Suse" {
		return yumRepoAbsent(c, ret)
	}
	want, ok := aptsrc.Parse(name)
	if !ok {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to configure repo '%s': Invalid repo definition: %s", name, name))
		return ret, nil
	}
	pre, found := aptsrc.Find(sysRoot(c), want)
	if !found {
		ret.Set("result", true)
		ret.Set("comment", "Package repo "+name+" is absent")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Package repo '"+name+"' will be removed. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		return ret, nil
	}
	if err := aptsrc.Remove(pre.File, pre); err != nil {
		ret.Set("result", false)
		ret.Set("comment", err.Error())
		return ret, nil
	}
	// A sources.list.d file left empty is deleted, as del_repo does.
	if pre.File != rootPath(c, "/etc/apt/sources.list") {
		if data, err := os.ReadFile(pre.File); err == nil && strings.TrimSpace(string(data)) == "" {
			os.Remove(pre.File)
		}
	}
	getv(ret, "changes").(*value.Map).Set("repo", name)
	ret.Set("comment", "Removed repo "+name)
	ret.Set("result", true)
	return ret, nil
}

// yumRepoKeys are the .repo options pkgrepo.managed passes through.
var yumRepoKeys = []string{"name", "baseurl", "mirrorlist", "metalink", "gpgcheck", "gpgkey", "enabled", "skip_if_unavailable", "priority", "exclude", "includepkgs", "repo_gpgcheck", "sslverify", "proxy", "module_hotfixes", "cost", "failovermethod", "metadata_expire", "type"}

func yumRepoValue(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "1"
		}
		return "0"
	case *value.List:
		return strings.Join(listStrings(x), "\n ")
	}
	return value.Str(v)
}

func yumRepoFile(c *statemod.Call, repo string) string {
	if f := value.Str(kwOr(c, "file", "")); f != "" {
		return rootPath(c, f)
	}
	dir := "/etc/yum.repos.d"
	if v := value.Str(kwOr(c, "basedir", "")); v != "" {
		dir = v
	}
	return rootPath(c, filepath.Join(dir, repo+".repo"))
}

// findYumRepo is the .repo file under basedir holding a [repo] section,
// with that section and the whole file as ini.get_ini reads them.
func findYumRepo(c *statemod.Call, repo string) (file string, sect, whole *value.Map) {
	dir := rootPath(c, "/etc/yum.repos.d")
	if v := value.Str(kwOr(c, "basedir", "")); v != "" {
		dir = rootPath(c, v)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.repo"))
	for _, f := range files {
		ini, err := saltMap(c, "ini.get_ini", f)
		if err != nil {
			continue
		}
		if s, ok := mapGetAny(ini, repo).(*value.Map); ok {
			return f, s, ini
		}
	}
	return "", nil, nil
}

func yumRepoManaged(c *statemod.Call, ret *value.Map, enabled bool) (*value.Map, error) {
	repo := c.Name()
	want := value.NewMap(0)
	human := value.Str(kwOr(c, "humanname", repo))
	want.Set("name", human)
	for _, k := range yumRepoKeys[1:] {
		if v, ok := c.Args.Get(k); ok && v != nil {
			want.Set(k, yumRepoValue(v))
		}
	}
	want.Set("enabled", yumRepoValue(enabled))
	file, pre, _ := findYumRepo(c, repo)
	changes := getv(ret, "changes").(*value.Map)
	diff := value.NewMap(0)
	want.Range(func(k, v any) bool {
		var old any
		if pre != nil {
			old = mapGetAny(pre, k)
		}
		if old == nil || value.Str(old) != value.Str(v) {
			diff.Set(k, value.MapOf("new", v, "old", old))
		}
		return true
	})
	if pre != nil && diff.Len() == 0 {
		ret.Set("result", true)
		ret.Set("comment", "Package repo '"+repo+"' already configured")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Package repo '"+repo+"' would be configured. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		if pre != nil {
			changes.Update(diff)
		} else {
			changes.Set("repo", repo)
		}
		return ret, nil
	}
	if file == "" {
		file = yumRepoFile(c, repo)
	}
	os.MkdirAll(filepath.Dir(file), 0o755)
	if _, err := c.Salt("ini.set_option", []any{file, value.MapOf(repo, want)}, nil); err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to configure repo '%s': %s", repo, err))
		return ret, nil
	}
	if pre != nil {
		changes.Update(diff)
	} else {
		ret.Set("changes", value.MapOf("repo", repo))
	}
	ret.Set("result", true)
	ret.Set("comment", "Configured package repo '"+repo+"'")
	return ret, nil
}

func yumRepoAbsent(c *statemod.Call, ret *value.Map) (*value.Map, error) {
	repo := c.Name()
	file, pre, whole := findYumRepo(c, repo)
	if pre == nil {
		ret.Set("result", true)
		ret.Set("comment", "Package repo "+repo+" is absent")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Package repo '"+repo+"' will be removed. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		return ret, nil
	}
	var err error
	if whole.Len() == 1 {
		err = os.Remove(file)
	} else {
		_, err = c.Salt("ini.remove_section", []any{file, repo}, nil)
	}
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to remove repo "+repo)
		return ret, nil
	}
	getv(ret, "changes").(*value.Map).Set("repo", repo)
	ret.Set("comment", "Removed repo "+repo)
	ret.Set("result", true)
	return ret, nil
}
