package states

// pkgrepo_apt.go is the apt side of salt/states/pkgrepo.py: managed and
// absent compare and change sources through pkg.get_repo, pkg.mod_repo,
// pkg.del_repo and pkg.list_repos as Salt's states do, and managed
// derives the wanted entry through pkg.expand_repo_def (aptpkg's
// _expand_repo_def), all as Salt runs without python-apt.

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// aptStripURI is salt.utils.pkg.deb.strip_uri: http(s)/ftp URIs of a
// definition lose their trailing slashes.
func aptStripURI(repo string) string {
	f := strings.Fields(repo)
	for i, w := range f {
		if strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "ftp://") {
			f[i] = strings.TrimRight(w, "/")
		}
	}
	return strings.Join(f, " ")
}

// pkgrepoKwargs are the state's keyword arguments (Salt's **kwargs).
func pkgrepoKwargs(c *statemod.Call) *value.Map {
	kw := value.NewMap(0)
	c.Args.Range(func(k, v any) bool {
		switch k {
		case "name", "ppa", "copr", "aptkey":
		default:
			kw.Set(k, v)
		}
		return true
	})
	return kw
}

// execErrText is what Salt shows for an execution function's exception.
func execErrText(err error) string {
	return err.Error()
}

func mapOrEmpty(v any) *value.Map {
	if m, ok := v.(*value.Map); ok {
		return m
	}
	return value.NewMap(0)
}

func ubuntuLike(c *statemod.Call) bool {
	v, _ := c.Grains().Get("os")
	os := value.Str(v)
	return os == "Ubuntu" || os == "Mint"
}

// aptSanitized is _expand_repo_def's result (pkg.expand_repo_def with the
// minion's os and oscodename), the ordered mapping the state compares.
func aptSanitized(c *statemod.Call, repo string, kw *value.Map) (*value.Map, error) {
	args := value.DeepCopy(kw).(*value.Map)
	args.Set("os_name", mapGet(c.Grains(), "os"))
	args.Set("os_codename", mapGet(c.Grains(), "oscodename"))
	args.Set("repo", repo)
	v, err := c.Salt("pkg.expand_repo_def", nil, args)
	if err != nil {
		return nil, err
	}
	return mapOrEmpty(v), nil
}

func sortedStrs(v any) []string {
	out := listStrings(v)
	sort.Strings(out)
	return out
}

// aptRepoUnchanged is managed's comparison of the expanded definition
// with the configured repository pre.
func aptRepoUnchanged(sanitized, pre, kw *value.Map) bool {
	same := true
	sanitized.Range(func(k, v any) bool {
		key := value.Str(k)
		old, ok := pre.Get(k)
		switch {
		case !ok:
			if key == "comps" || key == "key_url" || key == "enabled" {
				same = false
			}
		case key == "comps":
			same = strings.Join(sortedStrs(v), "\x00") == strings.Join(sortedStrs(old), "\x00")
		case key == "line":
			if !value.Truthy(mapGet(sanitized, "disabled")) {
				want := strings.Fields(value.Str(v))
				if len(want) > 3 {
					sort.Strings(want[3:])
				}
				body, comments, _ := strings.Cut(value.Str(old), "#")
				have := strings.Fields(body)
				if len(have) > 3 {
					sort.Strings(have[3:])
				}
				if strings.Join(want, " ") != strings.Join(have, " ") || len(want) != len(have) {
					same = false
				} else if cm, ok := kw.GetString("comments"); ok && strings.TrimSpace(comments) != aptCombineComments(cm) {
					same = false
				}
			}
		case key == "architectures" && value.Truthy(v):
			a, b := sortedStrs(v), sortedStrs(old)
			same = strings.Join(uniqStrs(a), "\x00") == strings.Join(uniqStrs(b), "\x00")
		default:
			same = value.Repr(v) == value.Repr(old)
		}
		return same
	})
	return same
}

func uniqStrs(xs []string) []string {
	var out []string
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}

// aptCombineComments is salt.utils.pkg.deb.combine_comments.
func aptCombineComments(v any) string {
	var parts []string
	if l, ok := v.(*value.List); ok {
		for _, x := range l.Items {
			parts = append(parts, value.Str(x))
		}
	} else {
		parts = []string{value.Str(v)}
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// aptRepoDiff is {key: {new, old}} for the keys of sanitized whose values
// differ between now and pre.
func aptRepoDiff(changes, sanitized, now, pre *value.Map) {
	sanitized.Range(func(k, _ any) bool {
		n, _ := now.Get(k)
		o, _ := pre.Get(k)
		if !value.Equal(n, o) {
			changes.Set(k, value.MapOf("new", n, "old", o))
		}
		return true
	})
}

func aptRepoManaged(c *statemod.Call, ret *value.Map) (*value.Map, error) {
	name := c.Name()
	fail := func(msg string) (*value.Map, error) {
		ret.Set("result", false)
		ret.Set("comment", msg)
		return ret, nil
	}
	aptkey := c.Bool("aptkey")
	if _, err := exec.LookPath("apt-key"); err != nil {
		aptkey = false
	}
	kw := pkgrepoKwargs(c)
	has := func(k string) bool { _, ok := kw.GetString(k); return ok }
	// Salt notes these conflicts and carries on.
	if has("key_url") && (has("keyid") || has("keyserver")) {
		ret.Set("result", false)
		ret.Set("comment", `You may not use both "keyid"/"keyserver" and "key_url" argument.`)
	}
	if has("key_text") && (has("keyid") || has("keyserver")) {
		ret.Set("result", false)
		ret.Set("comment", `You may not use both "keyid"/"keyserver" and "key_text" argument.`)
	}
	if has("key_text") && has("key_url") {
		ret.Set("result", false)
		ret.Set("comment", `You may not use both "key_url" and "key_text" argument.`)
	}
	if has("repo") {
		return fail("'repo' is not a supported argument for this state. The 'name' argument is probably what was intended.")
	}
	enabled, hasEnabled := kw.GetString("enabled")
	disabled, hasDisabled := kw.GetString("disabled")
	kw.Delete("enabled")
	kw.Delete("disabled")
	if hasEnabled && enabled != nil && hasDisabled && disabled != nil {
		return fail("Only one of enabled/disabled is allowed")
	}
	insecureOK := true
	if v, ok := kw.GetString("allow_insecure_key"); ok {
		insecureOK = value.Truthy(v)
		kw.Delete("allow_insecure_key")
	}
	if u, ok := kw.GetString("key_url"); ok && strings.HasPrefix(strings.TrimSpace(value.Str(u)), "http:") && !insecureOK {
		return fail("Cannot have 'key_url' using http with 'allow_insecure_key' set to True")
	}
	repo := name
	// Only Ubuntu and Mint pass enabled/disabled on to aptpkg: on Debian
	// Salt drops them, so a repository is never disabled or enabled here.
	if ubuntuLike(c) {
		if ppa := c.Get("ppa"); ppa != nil {
			repo = "ppa:" + value.Str(ppa)
		}
		switch {
		case hasEnabled && enabled != nil:
			kw.Set("disabled", !value.Truthy(enabled))
		case hasDisabled && disabled != nil:
			kw.Set("disabled", value.Truthy(disabled))
		default:
			kw.Set("disabled", false)
		}
	}
	preV, err := c.Salt("pkg.get_repo", []any{repo}, value.DeepCopy(kw).(*value.Map))
	if err != nil {
		return fail(fmt.Sprintf("Failed to examine repo '%s': %s", name, execErrText(err)))
	}
	pre := mapOrEmpty(preV)
	sanitized, err := aptSanitized(c, repo, kw)
	if err != nil {
		return nil, err
	}
	if pre.Len() > 0 {
		pre.Delete("file")
		sanitized.Delete("file")
		if aptRepoUnchanged(sanitized, pre, kw) {
			ret.Set("result", true)
			ret.Set("comment", "Package repo '"+name+"' already configured")
			return ret, nil
		}
	}
	changes := getv(ret, "changes").(*value.Map)
	if c.Test {
		ret.Set("comment", "Package repo '"+name+"' would be configured. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		if pre.Len() > 0 {
			aptRepoDiff(changes, sanitized, sanitized, pre)
		} else {
			changes.Set("repo", name)
		}
		return ret, nil
	}
	if value.Truthy(mapGet(kw, "clean_file")) {
		if f := value.Str(mapGet(kw, "file")); f != "" {
			writeFileAtomic(rootPath(c, f), nil)
		}
	}
	modKw := value.DeepCopy(kw).(*value.Map)
	modKw.Set("saltenv", c.Saltenv)
	modKw.Set("aptkey", aptkey)
	if _, err := c.Salt("pkg.mod_repo", []any{repo}, modKw); err != nil {
		return fail(fmt.Sprintf("Failed to configure repo '%s': %s", name, execErrText(err)))
	}
	postV, err := c.Salt("pkg.get_repo", []any{repo}, value.DeepCopy(kw).(*value.Map))
	if err != nil {
		return fail(fmt.Sprintf("Failed to confirm config of repo '%s': %s", name, execErrText(err)))
	}
	if pre.Len() > 0 {
		aptRepoDiff(changes, sanitized, mapOrEmpty(postV), pre)
	} else {
		ret.Set("changes", value.MapOf("repo", repo))
	}
	ret.Set("result", true)
	ret.Set("comment", "Configured package repo '"+name+"'")
	return ret, nil
}

func aptRepoAbsent(c *statemod.Call, ret *value.Map) (*value.Map, error) {
	name := c.Name()
	kw := pkgrepoKwargs(c)
	if ppa, ok := kw.GetString("ppa"); ok && ubuntuLike(c) {
		kw.Delete("ppa")
		name = value.Str(ppa)
		if !strings.HasPrefix(name, "ppa:") {
			name = "ppa:" + name
		}
	}
	fail := func(msg string) (*value.Map, error) {
		ret.Set("result", false)
		ret.Set("comment", msg)
		return ret, nil
	}
	removeKey := mapGet(kw, "keyid") != nil || mapGet(kw, "keyid_ppa") != nil
	strip := aptStripURI(name)
	repoV, err := c.Salt("pkg.get_repo", []any{strip}, value.DeepCopy(kw).(*value.Map))
	if err != nil {
		return fail(fmt.Sprintf("Failed to configure repo '%s': %s", name, execErrText(err)))
	}
	if mapOrEmpty(repoV).Len() == 0 {
		ret.Set("result", true)
		ret.Set("comment", "Package repo "+name+" is absent")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Package repo '"+name+"' will be removed. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.")
		return ret, nil
	}
	delKw := value.DeepCopy(kw).(*value.Map)
	delKw.Set("repo", strip)
	if _, err := c.Salt("pkg.del_repo", nil, delKw); err != nil {
		return fail(execErrText(err))
	}
	repos, err := c.Salt("pkg.list_repos", nil, nil)
	if err != nil {
		return nil, err
	}
	if _, listed := mapOrEmpty(repos).GetString(strip); listed {
		return fail("Failed to remove repo " + name)
	}
	changes := getv(ret, "changes").(*value.Map)
	changes.Set("repo", name)
	ret.Set("comment", "Removed repo "+name)
	if !removeKey {
		ret.Set("result", true)
		return ret, nil
	}
	keyKw := value.DeepCopy(kw).(*value.Map)
	keyid, err := c.Salt("pkg.del_repo_key", []any{strip}, keyKw)
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Removed repo %s, but failed to remove key: %s", name, execErrText(err)))
		return ret, nil
	}
	ret.Set("result", true)
	changes.Set("keyid", keyid)
	ret.Set("comment", fmt.Sprintf("Removed repo %s, and keyid %s", name, execmod.String(keyid)))
	return ret, nil
}
