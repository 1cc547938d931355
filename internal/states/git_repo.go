package states

// git_repo.go holds the rest of salt/states/git.py: git.present (init a
// bare or non-bare repository), git.detached (a commit or tag checked out
// on a detached HEAD), git.cloned (clone once, optionally on a branch),
// git.config_set and git.config_unset. They work through the git
// execution functions, as Salt's do through __salt__.

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	common := []statemod.Param{statemod.Opt("user", nil), statemod.Opt("password", nil), statemod.Opt("output_encoding", nil)}
	with := func(ps ...statemod.Param) []statemod.Param { return append(ps, common...) }
	statemod.Register(&statemod.Function{Name: "git.present",
		Params: with(statemod.Req("name"), statemod.Opt("force", false), statemod.Opt("bare", true), statemod.Opt("template", nil),
			statemod.Opt("separate_git_dir", nil), statemod.Opt("shared", nil)),
		Doc: "Ensure that a git repository (bare by default) exists in the directory name.", Run: gitPresent})
	statemod.Register(&statemod.Function{Name: "git.detached",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("rev"), statemod.Req("target"), statemod.Opt("remote", "origin"),
			statemod.Opt("user", nil), statemod.Opt("password", nil), statemod.Opt("force_clone", false),
			statemod.Opt("force_checkout", false), statemod.Opt("fetch_remote", true), statemod.Opt("hard_reset", false),
			statemod.Opt("submodules", false), statemod.Opt("identity", nil), statemod.Opt("https_user", nil),
			statemod.Opt("https_pass", nil), statemod.Opt("output_encoding", nil)},
		Kwargs: true, Doc: "Ensure that the repository name is cloned to target with rev checked out on a detached HEAD.", Run: gitDetached})
	statemod.Register(&statemod.Function{Name: "git.cloned",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("target"), statemod.Opt("branch", nil),
			statemod.Opt("user", nil), statemod.Opt("password", nil), statemod.Opt("identity", nil),
			statemod.Opt("https_user", nil), statemod.Opt("https_pass", nil), statemod.Opt("output_encoding", nil)},
		Doc: "Ensure that the repository name has been cloned to target (and is on branch, when given).", Run: gitCloned})
	statemod.Register(&statemod.Function{Name: "git.config_unset",
		Params: with(statemod.Req("name"), statemod.Opt("value_regex", nil), statemod.Opt("repo", nil)),
		Kwargs: true, Doc: "Ensure that the git config keys matching name (and value_regex) are unset (global=True: ~/.gitconfig).", Run: gitConfigUnsetState})
	statemod.Register(&statemod.Function{Name: "git.config_set",
		Params: with(statemod.Req("name"), statemod.Opt("value", nil), statemod.Opt("multivar", nil), statemod.Opt("repo", nil)),
		Kwargs: true, Doc: "Ensure that a git config key has the given value (or multivar values).", Run: gitConfigSetState})
}

// gitKw is the user/password/output_encoding keyword set every git call
// passes on, plus extra key/value pairs.
func gitKw(c *statemod.Call, kv ...any) *value.Map {
	m := value.MapOf("user", c.Get("user"), "password", c.Get("password"), "output_encoding", c.Get("output_encoding"))
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return m
}

// gitFail is the states module's _fail: result False, and the changes
// made so far appended to the message.
func gitFail(ret *value.Map, msg string, comments []string) (*value.Map, error) {
	if len(comments) > 0 {
		msg += "\n\nChanges already made: " + formatComments(comments)
	}
	ret.Set("result", false)
	ret.Set("comment", msg)
	return ret, nil
}

func gitNeutral(ret *value.Map, msg string) (*value.Map, error) {
	ret.Set("result", nil)
	ret.Set("comment", msg)
	return ret, nil
}

var gitCmdPrefix = regexp.MustCompile(`^Command ['"].+['"] failed: `)

// stripGitExc drops the "Command '...' failed: " lead of a git error.
func stripGitExc(err error) string { return gitCmdPrefix.ReplaceAllString(err.Error(), "") }

// isCmdExecErr reports whether err is a CommandExecutionError (what Salt's
// states catch; anything else is an exception of the state).
func isCmdExecErr(err error) bool {
	var ce *execmod.CommandExecutionError
	return errors.As(err, &ce)
}

// gitExtraKwargs is salt.utils.args.clean_kwargs of the state's **kwargs.
func gitExtraKwargs(c *statemod.Call) *value.Map {
	kw := c.ExtraKwargs()
	for _, k := range kw.Keys() {
		if ks, _ := k.(string); strings.HasPrefix(ks, "__") {
			kw.Delete(k)
		}
	}
	return kw
}

// invalidKwargsText is salt.utils.args.invalid_kwargs's message.
func invalidKwargsText(kw *value.Map) string {
	var kv []string
	kw.Range(func(k, v any) bool {
		kv = append(kv, value.Str(k)+"="+value.Str(v))
		return true
	})
	return "The following keyword arguments are not valid: " + strings.Join(kv, ", ")
}

func gitPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	bare := c.Bool("bare")
	ret := value.MapOf("name", c.Get("name"), "result", true, "comment", "", "changes", value.NewMap(0))
	changes := getv(ret, "changes").(*value.Map)
	kind := ""
	if bare {
		kind = "bare "
	}
	if isDir(name) {
		switch {
		case bare && isFile(filepath.Join(name, "HEAD")):
			return ret, nil
		case !bare && isDir(filepath.Join(name, ".git")):
			return ret, nil
		}
		if !bare {
			wt, err := c.Salt("git.is_worktree", []any{name}, gitKw(c))
			if err != nil {
				return nil, err
			}
			if wt == true {
				return ret, nil
			}
		}
		if c.Bool("force") {
			if c.Test {
				changes.Set("new", name)
				changes.Set("forced init", true)
				return gitNeutral(ret, fmt.Sprintf("Target directory %[1]s exists. Since force=True, the contents of %[1]s would be deleted, and a %[2]srepository would be initialized in its place.", name, kind))
			}
			if err := os.RemoveAll(name); err != nil {
				return gitFail(ret, fmt.Sprintf("Unable to remove %s: %s", name, pyOSErr(err)), nil)
			}
			changes.Set("forced init", true)
		} else if ents, _ := os.ReadDir(name); len(ents) > 0 {
			return gitFail(ret, fmt.Sprintf("Target '%s' exists, is non-empty, and is not a git repository. Set the 'force' option to True to remove this directory's contents and proceed with initializing a repository", name), nil)
		}
	}
	if c.Test {
		changes.Set("new", name)
		return gitNeutral(ret, "New "+kind+"repository would be created")
	}
	if _, err := c.Salt("git.init", nil, gitKw(c, "cwd", name, "bare", bare, "template", c.Get("template"),
		"separate_git_dir", c.Get("separate_git_dir"), "shared", c.Get("shared"))); err != nil {
		return nil, err
	}
	actions := []string{"Initialized " + kind + "repository in " + name}
	if c.Bool("template") {
		actions = append(actions, "Template directory set to "+c.Str("template"))
	}
	if c.Bool("separate_git_dir") {
		actions = append(actions, "Gitdir set to "+c.Str("separate_git_dir"))
	}
	changes.Set("new", name)
	ret.Set("comment", formatComments(actions))
	return ret, nil
}

// pyOSErr renders a Go file error the way Python prints an OSError.
func pyOSErr(err error) string { return fileops.PyOSError(err).Error() }

// checkHTTPSAuth is the check of salt.utils.url.add_http_basic_auth with
// https_only: credentials go only with an https URL.
func checkHTTPSAuth(raw string, user, pass any) error {
	if user == nil && pass == nil {
		return nil
	}
	if u, err := url.Parse(raw); err != nil || u.Scheme != "https" {
		return errors.New("Basic Auth only supported for HTTPS")
	}
	return nil
}

// localRev is the revision half of _get_local_rev_and_branch (nil when
// the repository has no commit).
func localRev(c *statemod.Call, target string) any {
	rev, err := c.Salt("git.revision", []any{target}, gitKw(c, "ignore_retcode", true))
	if err != nil {
		return nil
	}
	return rev
}

func gitDetached(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "result", true, "comment", "", "changes", value.NewMap(0))
	changes := getv(ret, "changes").(*value.Map)
	if kw := gitExtraKwargs(c); kw.Len() > 0 {
		return gitFail(ret, invalidKwargsText(kw), nil)
	}
	if !c.Bool("rev") {
		return gitFail(ret, fmt.Sprintf("'%s' is not a valid value for the 'rev' argument", value.Str(c.Get("rev"))), nil)
	}
	if !c.Bool("target") {
		// Salt names rev here, not target.
		return gitFail(ret, fmt.Sprintf("'%s' is not a valid value for the 'target' argument", value.Str(c.Get("rev"))), nil)
	}
	rev, target, remote := c.Str("rev"), c.Str("target"), c.Str("remote")
	if !filepath.IsAbs(target) {
		return gitFail(ret, fmt.Sprintf("Target '%s' is not an absolute path", target), nil)
	}
	identity := c.Get("identity")
	if identity != nil {
		var ids []string
		switch x := identity.(type) {
		case string:
			ids = []string{x}
		case *value.List:
			for _, it := range x.Items {
				ids = append(ids, value.Str(it))
			}
		default:
			return gitFail(ret, "Identity must be either a list or a string", nil)
		}
		l := value.NewList()
		for _, id := range ids {
			id = fileops.ExpandUser(id)
			if !strings.Contains(id, "salt://") && !filepath.IsAbs(id) {
				return gitFail(ret, fmt.Sprintf("Identity '%s' is not an absolute path", id), nil)
			}
			l.Append(id)
		}
		identity = l
	}
	if isFile(target) {
		return gitFail(ret, fmt.Sprintf("Target '%s' exists and is a regular file, cannot proceed", target), nil)
	}
	if err := checkHTTPSAuth(name, c.Get("https_user"), c.Get("https_pass")); err != nil {
		return gitFail(ret, err.Error(), nil)
	}
	isHash := isHexRev(rev)
	if isHash {
		rev = strings.ToLower(rev)
	}
	var comments []string
	hashLocal := false
	var localCommit any
	wt := false
	if !isDir(filepath.Join(target, ".git")) {
		v, err := c.Salt("git.is_worktree", []any{target}, gitKw(c))
		if err != nil {
			return nil, err
		}
		wt = v == true
	}
	if isDir(filepath.Join(target, ".git")) || wt {
		localCommit = localRev(c, target)
		if isHash {
			_, err := c.Salt("git.describe", []any{target, rev}, gitKw(c, "ignore_retcode", true))
			if err != nil && !isCmdExecErr(err) {
				return nil, err
			}
			hashLocal = err == nil
		} else {
			rv, err := c.Salt("git.remotes", []any{target}, gitKw(c, "redact_auth", false))
			if err != nil {
				return nil, err
			}
			remotes, _ := rv.(*value.Map)
			var cur any
			ok := false
			if remotes != nil {
				if r, has := remotes.GetString(remote); has {
					if rm, _ := r.(*value.Map); rm != nil {
						cur, _ = rm.GetString("fetch")
						ok = strings.Contains(value.Str(cur), name)
					}
				}
			}
			if !ok {
				if c.Test {
					return gitNeutral(ret, fmt.Sprintf("Remote %s would be set to %s", remote, name))
				}
				if _, err := c.Salt("git.remote_set", []any{target}, gitKw(c, "url", name, "remote", remote,
					"https_user", c.Get("https_user"), "https_pass", c.Get("https_pass"))); err != nil {
					return nil, err
				}
				comments = append(comments, fmt.Sprintf("Remote %s updated from '%s' to '%s'", remote, value.Str(cur), name))
			}
		}
	} else {
		if isDir(target) {
			ents, _ := os.ReadDir(target)
			if c.Bool("force_clone") {
				if c.Test {
					return gitNeutral(ret, fmt.Sprintf("Target directory %[1]s exists. Since force_clone=True, the contents of %[1]s would be deleted, and %[2]s would be cloned into this directory.", target, name))
				}
				var errs []string
				for _, e := range ents {
					p := filepath.Join(target, e.Name())
					if err := os.RemoveAll(p); err != nil {
						errs = append(errs, "  "+p+"\n    "+pyOSErr(err))
					}
				}
				if len(errs) > 0 {
					return gitFail(ret, "Unable to remove\n"+strings.Join(errs, "\n"), comments)
				}
				changes.Set("forced clone", true)
			} else if len(ents) > 0 {
				return gitFail(ret, fmt.Sprintf("Target '%s' exists, is non-empty and is not a git repository. Set the 'force_clone' option to True to remove this directory's contents and proceed with cloning the remote repository", target), nil)
			}
		}
		if c.Test {
			return gitNeutral(ret, fmt.Sprintf("Repository %s would be cloned to %s", name, target))
		}
		opts := value.NewList("--no-checkout")
		if remote != "origin" {
			opts.Append("--origin", remote)
		}
		if _, err := c.Salt("git.clone", []any{target, name}, gitKw(c, "opts", opts, "identity", identity,
			"https_user", c.Get("https_user"), "https_pass", c.Get("https_pass"), "saltenv", c.Saltenv)); err != nil {
			msg := err.Error()
			if isCmdExecErr(err) {
				msg = stripGitExc(err)
			}
			return gitFail(ret, msg, comments)
		}
		comments = append(comments, name+" cloned to "+target)
	}
	if !hashLocal && c.Get("fetch_remote") != false {
		if c.Test {
			return gitNeutral(ret, "Repository remote "+remote+" would be fetched")
		}
		refspecs := value.NewList("refs/heads/*:refs/remotes/"+remote+"/*", "+refs/tags/*:refs/tags/*")
		fc, err := c.Salt("git.fetch", []any{target}, gitKw(c, "remote", remote, "force", true, "refspecs", refspecs,
			"identity", identity, "saltenv", c.Saltenv))
		if err != nil {
			if !isCmdExecErr(err) {
				return nil, err
			}
			return gitFail(ret, "Fetch failed:\n\n"+err.Error(), comments)
		}
		if value.Truthy(fc) {
			comments = append(comments, "Remote "+remote+" was fetched, resulting in updated refs")
		}
	}
	checkout := ""
	if isHash {
		d, err := c.Salt("git.describe", []any{target, rev}, gitKw(c))
		if err != nil {
			return nil, err
		}
		if !value.Truthy(d) {
			return gitFail(ret, fmt.Sprintf("Revision '%s' does not exist", rev), nil)
		}
		checkout = rev
	} else {
		rv, err := c.Salt("git.remote_refs", []any{target}, gitKw(c, "identity", identity, "https_user", c.Get("https_user"),
			"https_pass", c.Get("https_pass"), "ignore_retcode", false))
		if err != nil {
			if !isCmdExecErr(err) {
				return nil, err
			}
			return gitFail(ret, fmt.Sprintf("Failed to list refs for %s: %s", remote, stripGitExc(err)), nil)
		}
		refs, _ := rv.(*value.Map)
		if refs == nil {
			refs = value.NewMap(0)
		}
		if v, ok := refs.GetString("refs/remotes/" + remote + "/" + rev); ok {
			checkout = value.Str(v)
		} else if v, ok := refs.GetString("refs/tags/" + rev); ok {
			checkout = value.Str(v)
		} else {
			return gitFail(ret, fmt.Sprintf("Revision '%s' does not exist", rev), nil)
		}
	}
	if c.Bool("hard_reset") {
		if c.Test {
			return gitNeutral(ret, "Hard reset to HEAD would be performed on "+target)
		}
		if _, err := c.Salt("git.reset", []any{target}, gitKw(c, "opts", value.NewList("--hard", "HEAD"))); err != nil {
			return nil, err
		}
		comments = append(comments, "Repository was reset to HEAD before checking out revision")
	}
	var newRev any
	if localCommit == nil || value.Str(localCommit) != checkout {
		if c.Test {
			changes.Set("HEAD", value.MapOf("old", localCommit, "new", checkout))
			return gitNeutral(ret, fmt.Sprintf("Commit ID %s would be checked out at %s", checkout, target))
		}
		if _, err := c.Salt("git.checkout", []any{target, checkout}, gitKw(c, "force", c.Bool("force_checkout"))); err != nil {
			return nil, err
		}
		comments = append(comments, fmt.Sprintf("Commit ID %s was checked out at %s", checkout, target))
		newRev = localRev(c, target)
	}
	if c.Bool("submodules") {
		if _, err := c.Salt("git.submodule", []any{target, "update"}, gitKw(c, "opts", value.NewList("--init", "--recursive"), "identity", identity)); err != nil {
			return nil, err
		}
		comments = append(comments, "Submodules were updated")
	}
	if newRev != nil {
		changes.Set("HEAD", value.MapOf("old", localCommit, "new", newRev))
	} else {
		comments = append(comments, "Already checked out at correct revision")
	}
	ret.Set("comment", formatComments(comments))
	return ret, nil
}

func gitCloned(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := value.MapOf("name", c.Get("name"), "result", false, "comment", "", "changes", value.NewMap(0))
	changes := getv(ret, "changes").(*value.Map)
	if c.Get("target") == nil {
		ret.Set("comment", "'target' argument is required")
		return ret, nil
	}
	target := c.Str("target")
	if !filepath.IsAbs(target) {
		ret.Set("comment", "'target' path must be absolute")
		return ret, nil
	}
	hasBranch := c.Get("branch") != nil
	branch := c.Str("branch")
	if hasBranch && branch == "" {
		ret.Set("comment", "Invalid 'branch' argument")
		return ret, nil
	}
	withBranch := ""
	if hasBranch {
		withBranch = " with branch '" + branch + "'"
	}
	if !exists(target) {
		if c.Test {
			changes.Set("new", name+" => "+target)
			return gitNeutral(ret, name+" would be cloned to "+target+withBranch)
		}
		var opts any
		if hasBranch {
			opts = value.NewList("--branch", branch)
		}
		if _, err := c.Salt("git.clone", []any{target, name}, gitKw(c, "opts", opts, "identity", c.Get("identity"),
			"https_user", c.Get("https_user"), "https_pass", c.Get("https_pass"))); err != nil {
			if !isCmdExecErr(err) {
				return nil, err
			}
			return gitFail(ret, "Clone failed: "+stripGitExc(err), nil)
		}
		changes.Set("new", name+" => "+target)
		ret.Set("comment", name+" cloned to "+target+withBranch)
		ret.Set("result", true)
		return ret, nil
	}
	if _, err := c.Salt("git.status", []any{target}, gitKw(c)); err != nil {
		ret.Set("comment", err.Error())
		return ret, nil
	}
	already := func() (*value.Map, error) {
		ret.Set("result", true)
		msg := "Repository already exists at " + target
		if branch != "" {
			msg += " and is checked out to branch '" + branch + "'"
		}
		ret.Set("comment", msg)
		return ret, nil
	}
	if !hasBranch {
		return already()
	}
	cur, err := c.Salt("git.current_branch", []any{target}, gitKw(c))
	if err != nil {
		return nil, err
	}
	if value.Str(cur) == branch {
		return already()
	}
	if c.Test {
		changes.Set("branch", value.MapOf("old", cur, "new", branch))
		return gitNeutral(ret, "Branch would be changed to '"+branch+"'")
	}
	rev, opts := any(branch), any(nil)
	if _, err := c.Salt("git.rev_parse", []any{target}, gitKw(c, "rev", branch, "ignore_retcode", true)); err != nil {
		if !isCmdExecErr(err) {
			return nil, err
		}
		rev, opts = "origin/"+branch, value.NewList("-b", branch)
	}
	if _, err := c.Salt("git.checkout", []any{target}, gitKw(c, "rev", rev, "opts", opts)); err != nil {
		if !isCmdExecErr(err) {
			return nil, err
		}
		return gitFail(ret, fmt.Sprintf("Failed to change branch to '%s': %s", branch, err.Error()), nil)
	}
	changes.Set("branch", value.MapOf("old", cur, "new", branch))
	ret.Set("comment", "Branch changed to '"+branch+"'")
	ret.Set("result", true)
	return ret, nil
}

// gitScopeKwargs pops global (and all, when allowAll) from the state's
// **kwargs; what is left is an error message.
func gitScopeKwargs(c *statemod.Call, allowAll bool) (global, all any, bad string) {
	kw := gitExtraKwargs(c)
	global, all = false, false
	if v, ok := kw.GetString("global"); ok {
		global = v
		kw.Delete("global")
	}
	if allowAll {
		if v, ok := kw.GetString("all"); ok {
			all = v
			kw.Delete("all")
		}
	}
	if kw.Len() > 0 {
		return global, all, invalidKwargsText(kw)
	}
	return global, all, ""
}

func gitConfigUnsetState(c *statemod.Call) (*value.Map, error) {
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true, "comment", "No matching keys are set")
	global, all, bad := gitScopeKwargs(c, true)
	if bad != "" {
		return gitFail(ret, bad, nil)
	}
	if !value.Truthy(global) && !c.Bool("repo") {
		return gitFail(ret, "Non-global config options require the 'repo' argument to be set", nil)
	}
	name := c.Name()
	var vre any
	if c.Get("value_regex") != nil {
		vre = c.Str("value_regex")
	}
	key := "^" + strings.TrimRight(strings.TrimLeft(name, "^"), "$") + "$"
	get := func(regex any) (*value.Map, error) {
		v, err := c.Salt("git.config_get_regexp", nil, gitKw(c, "cwd", c.Get("repo"), "key", key, "value_regex", regex,
			"ignore_retcode", true, "global", global))
		if err != nil {
			return nil, err
		}
		m, _ := v.(*value.Map)
		if m == nil {
			m = value.NewMap(0)
		}
		return m, nil
	}
	preMatches, err := get(vre)
	if err != nil {
		return nil, err
	}
	if preMatches.Len() == 0 {
		return ret, nil
	}
	listed := func(m *value.Map, greedyOnly bool) []string {
		var out []string
		m.Range(func(k, v any) bool {
			l, _ := v.(*value.List)
			if l != nil && (!greedyOnly || len(l.Items) > 1) {
				vals := make([]string, len(l.Items))
				for i, x := range l.Items {
					vals[i] = value.Str(x)
				}
				out = append(out, fmt.Sprintf("%s (%s)", value.Str(k), strings.Join(vals, ", ")))
			}
			return true
		})
		return out
	}
	if !value.Truthy(all) {
		if greedy := listed(preMatches, true); len(greedy) > 0 {
			if vre != nil {
				return gitFail(ret, "Multiple values are matched by value_regex for the following keys (set 'all' to True to force removal): "+strings.Join(greedy, "; "), nil)
			}
			return gitFail(ret, "Multivar(s) matched by the key expression (set 'all' to True to force removal): "+strings.Join(greedy, "; "), nil)
		}
	}
	if c.Test {
		ret.Set("changes", preMatches)
		return gitNeutral(ret, fmt.Sprintf("%d key(s) would have value(s) unset", preMatches.Len()))
	}
	pre := preMatches
	if vre != nil {
		if pre, err = get(nil); err != nil {
			return nil, err
		}
	}
	var failed []string
	for _, k := range preMatches.Keys() {
		_, err := c.Salt("git.config_unset", nil, gitKw(c, "cwd", c.Get("repo"), "key", name, "value_regex", vre,
			"all", all, "global", global))
		if err != nil {
			if !isCmdExecErr(err) {
				return nil, err
			}
			failed = append(failed, value.Str(k))
		}
	}
	if len(failed) > 0 {
		return gitFail(ret, "Error(s) occurred unsetting values for the following keys (see the minion log for details): "+strings.Join(failed, ", "), nil)
	}
	post, err := get(nil)
	if err != nil {
		return nil, err
	}
	changes := getv(ret, "changes").(*value.Map)
	pre.Range(func(k, v any) bool {
		pv, ok := post.Get(k)
		if !ok {
			changes.Set(k, v)
			return true
		}
		pl, _ := pv.(*value.List)
		unset := value.NewList()
		if l, _ := v.(*value.List); l != nil {
			for _, x := range l.Items {
				if pl == nil || !listHas(pl, x) {
					unset.Append(x)
				}
			}
		}
		if len(unset.Items) > 0 {
			changes.Set(k, unset)
		}
		return true
	})
	postMatches := post
	if vre != nil {
		if postMatches, err = get(vre); err != nil {
			return nil, err
		}
	}
	if postMatches.Len() > 0 {
		return gitFail(ret, "Failed to unset value(s): "+strings.Join(listed(postMatches, false), "; "), nil)
	}
	ret.Set("comment", "Value(s) successfully unset")
	return ret, nil
}

func gitConfigSetState(c *statemod.Call) (*value.Map, error) {
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true, "comment", "")
	if c.Get("value") != nil && c.Get("multivar") != nil {
		return gitFail(ret, "Only one of 'value' and 'multivar' is permitted", nil)
	}
	global, _, bad := gitScopeKwargs(c, false)
	if bad != "" {
		return gitFail(ret, bad, nil)
	}
	if !value.Truthy(global) && !c.Bool("repo") {
		return gitFail(ret, "Non-global config options require the 'repo' argument to be set", nil)
	}
	name := c.Name()
	var val, multivar any
	var valueComment string
	var desired *value.List
	if c.Get("value") != nil {
		s := c.Str("value")
		val, valueComment, desired = s, "'"+s+"'", value.NewList(s)
	}
	if mv := c.Get("multivar"); mv != nil {
		l := value.NewList()
		if ml, ok := mv.(*value.List); ok {
			for _, x := range ml.Items {
				l.Append(value.Str(x))
			}
		} else {
			for _, s := range strings.Split(value.Str(mv), ",") {
				l.Append(s)
			}
		}
		multivar, valueComment, desired = l, value.Repr(l), l
	}
	var desiredV any
	if desired != nil {
		desiredV = desired
	}
	scope := ""
	if value.Truthy(global) {
		scope = "Global key "
	}
	pre, err := c.Salt("git.config_get", nil, gitKw(c, "cwd", c.Get("repo"), "key", name, "ignore_retcode", true, "all", true, "global", global))
	if err != nil {
		return nil, err
	}
	if value.Equal(desiredV, pre) {
		ret.Set("comment", fmt.Sprintf("%s'%s' is already set to %s", scope, name, valueComment))
		return ret, nil
	}
	verb := "set to"
	if pre == nil {
		verb = "added as"
	}
	if c.Test {
		ret.Set("changes", value.MapOf("old", pre, "new", desiredV))
		return gitNeutral(ret, fmt.Sprintf("%s'%s' would be %s %s", scope, name, verb, valueComment))
	}
	post, err := c.Salt("git.config_set", nil, gitKw(c, "cwd", c.Get("repo"), "key", name, "value", val, "multivar", multivar, "global", global))
	if err != nil {
		if !isCmdExecErr(err) {
			return nil, err
		}
		return gitFail(ret, fmt.Sprintf("Failed to set %s'%s' to %s: %s", strings.ToLower(scope), name, valueComment, stripGitExc(err)), nil)
	}
	if !value.Equal(pre, post) {
		getv(ret, "changes").(*value.Map).Set(name, value.MapOf("old", pre, "new", post))
	}
	if !value.Equal(post, desiredV) {
		return gitFail(ret, fmt.Sprintf("Failed to set %s'%s' to %s", strings.ToLower(scope), name, valueComment), nil)
	}
	ret.Set("comment", fmt.Sprintf("%s'%s' was %s %s", scope, name, verb, valueComment))
	return ret, nil
}
