package modules

// git.go is salt/modules/git.py: git run through cmd.run_all as the given
// user, with Salt's argument handling (opts and git_opts split as a shell
// would, cwd relative to the user's home), return values and error texts
// ("Command 'git ...' failed: <stderr>").

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/system"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

func init() {
	for name, f := range map[string]execmod.Func{
		"add": gitAdd, "branch": gitBranch, "checkout": gitCheckout, "clone": gitClone, "commit": gitCommit,
		"config_get": gitConfigGet, "config_get_regexp": gitConfigGetRegexp, "config_get_regex": gitConfigGetRegexp,
		"config_set": gitConfigSet, "config_unset": gitConfigUnset, "current_branch": gitCurrentBranch,
		"describe": gitDescribe, "diff": gitDiff, "discard_local_changes": gitDiscard, "fetch": gitFetch,
		"init": gitInit, "is_worktree": gitIsWorktree, "list_branches": gitListBranches, "list_tags": gitListTags,
		"ls_remote": gitLsRemote, "merge": gitMerge, "merge_base": gitMergeBase, "pull": gitPull, "push": gitPush,
		"rebase": gitRebase, "remote_get": gitRemoteGet, "remote_set": gitRemoteSet, "remotes": gitRemotes,
		"reset": gitReset, "rev_parse": gitRevParse, "revision": gitRevision, "rm": gitRm, "stash": gitStash,
		"status": gitStatus, "symbolic_ref": gitSymbolicRef, "tag": gitTag, "version": gitVersion,
		"archive": gitArchive, "merge_tree": gitMergeTree, "remote_refs": gitRemoteRefs, "submodule": gitSubmodule,
		"list_worktrees": gitListWorktrees, "worktree_add": gitWorktreeAdd, "worktree_prune": gitWorktreePrune, "worktree_rm": gitWorktreeRm,
	} {
		execmod.Register("git."+name, f, gitDocs[name])
	}
}

var gitDocs = map[string]string{
	"add":                   "git add --verbose -- filename; its output.",
	"branch":                "git branch [opts] [name]; True.",
	"checkout":              "git checkout [--force] [opts] rev; its output.",
	"clone":                 "Clone url into cwd (or cwd/name); True.",
	"commit":                "git commit -m message [opts] [-- filename]; its output.",
	"config_get":            "Return the value of a git config key (all=True: every value); None when unset.",
	"config_get_regexp":     "Return {key: [values]} of the git config keys matching a regex.",
	"config_get_regex":      "Alias of git.config_get_regexp.",
	"config_set":            "Set a git config key (value, or multivar values); the key's values afterwards.",
	"config_unset":          "Unset a git config key; True.",
	"current_branch":        "Return the checked-out branch of cwd.",
	"describe":              "git describe --always rev.",
	"diff":                  "git diff of two revisions, the index (cached) or two paths (no_index).",
	"discard_local_changes": "git checkout -- path; its output.",
	"fetch":                 "git fetch; {'new branches', 'new tags', 'updated branches', 'updated tags'} as reported.",
	"init":                  "git init (bare, template, separate_git_dir, shared) of cwd; its output.",
	"is_worktree":           "True when cwd is a linked worktree.",
	"list_branches":         "Return the local (or remote) branches.",
	"list_tags":             "Return the tags.",
	"ls_remote":             "Return {ref: sha1} of a remote.",
	"merge":                 "git merge [opts] [rev]; its output.",
	"merge_base":            "git merge-base of refs (is_ancestor: True/False; all: every base).",
	"pull":                  "git pull [opts]; its output.",
	"push":                  "git push [opts] remote ref; its output.",
	"rebase":                "git rebase [opts] rev (not interactive); its output.",
	"remote_get":            "Return {'fetch': url, 'push': url} of a remote.",
	"remote_set":            "(Re)add a remote with url (and push_url); its URLs.",
	"remotes":               "Return {remote: {'fetch': url, 'push': url}}.",
	"reset":                 "git reset [opts]; its output.",
	"rev_parse":             "git rev-parse [opts] [rev]; its output.",
	"revision":              "Return the commit of rev (short: abbreviated).",
	"rm":                    "git rm [opts] -- filename; its output.",
	"stash":                 "git stash action [opts]; its output.",
	"status":                "Return {'modified', 'new', 'deleted', 'untracked': [files]} of cwd.",
	"symbolic_ref":          "git symbolic-ref ref [value]; its output.",
	"tag":                   "git tag name ref; its output.",
	"version":               "Return the git version (versioninfo=True: as a list).",
	"archive":               "git archive rev into output (prefix, format=); True.",
	"merge_tree":            "git merge-tree of ref1 and ref2 over their merge base (or base); its output.",
	"remote_refs":           "Return {ref: sha1} of a remote URL (heads, tags, filter=).",
	"submodule":             "git submodule command [opts]; its output.",
	"list_worktrees":        "Return the worktrees of cwd: {path: {'stale', 'HEAD', 'detached', 'branch'[, 'tags']}} (stale=, all=).",
	"worktree_add":          "git worktree add worktree_path [ref] on a new branch (or detached); its output.",
	"worktree_prune":        "git worktree prune (dry_run, verbose, expire); its report.",
	"worktree_rm":           "Remove the linked worktree cwd (its directory); True.",
}

// invalidKwargs is salt.utils.args.invalid_kwargs for what is left of
// the keyword arguments (nil when nothing is).
func invalidKwargs(rest *value.Map) error {
	if rest.Len() == 0 {
		return nil
	}
	var kv []string
	rest.Range(func(k, v any) bool {
		kv = append(kv, value.Str(k)+"="+value.Str(v))
		return true
	})
	return &execmod.InvocationError{Msg: "The following keyword arguments are not valid: " + strings.Join(kv, ", ")}
}

// popKwarg removes k from rest and returns it (nil when absent).
func popKwarg(rest *value.Map, k string) any {
	v, _ := rest.GetString(k)
	rest.Delete(k)
	return v
}

// gitArgs are a call's bound arguments by name.
type gitArgs map[string]any

func (a gitArgs) str(k string) string { return execmod.String(a[k]) }

func gitBind(fun string, args []any, kwargs *value.Map, params ...execmod.Param) (gitArgs, *value.Map, error) {
	v, rest, err := execmod.Bind(fun, args, kwargs, params...)
	if err != nil {
		return nil, nil, err
	}
	out := gitArgs{}
	for i, p := range params {
		out[p.Name] = v[i]
	}
	return out, rest, nil
}

// gitBindOpts is gitBind with the opts argument formatted.
func gitBindOpts(fun string, args []any, kwargs *value.Map, params ...execmod.Param) (gitArgs, []string, error) {
	a, _, err := gitBind(fun, args, kwargs, params...)
	if err != nil {
		return nil, nil, err
	}
	opts, err := gitFormatOpts(a["opts"])
	return a, opts, err
}

// gitCommon are the trailing parameters most git functions share.
func gitCommon(extra ...execmod.Param) []execmod.Param {
	return append(extra, execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil))
}

func gitOptsParams(lead ...execmod.Param) []execmod.Param {
	return gitCommon(append(lead, execmod.Opt("opts", ""), execmod.Opt("git_opts", ""))...)
}

// gitExpand is Salt's _expand_path: cwd relative to the user's home.
func gitExpand(cwd any, user any) string {
	c := value.Str(cwd)
	if filepath.IsAbs(c) {
		return c
	}
	home := "~"
	if value.Truthy(user) {
		home += value.Str(user)
	}
	return filepath.Join(fileops.ExpandUser(home), c)
}

// gitFormatOpts is Salt's _format_opts.
func gitFormatOpts(opts any) ([]string, error) {
	var out []string
	switch o := opts.(type) {
	case nil:
		return nil, nil
	case *value.List:
		for _, x := range o.Items {
			out = append(out, value.Str(x))
		}
		return out, nil
	case string:
		s, err := system.ShlexSplit(o)
		if err != nil {
			return nil, &execmod.InvocationError{Msg: err.Error()}
		}
		out = s
	default:
		out = []string{value.Str(opts)}
	}
	if n := len(out); n > 0 && out[n-1] == "--" {
		out = out[:n-1]
	}
	return out, nil
}

// gitCmd starts a command line: git, the git_opts, then the subcommand.
func gitCmd(a gitArgs, sub ...string) ([]string, error) {
	gopts, err := gitFormatOpts(a["git_opts"])
	if err != nil {
		return nil, err
	}
	return append(append([]string{"git"}, gopts...), sub...), nil
}

// gitCmdOpts is gitCmd with the formatted opts appended.
func gitCmdOpts(a gitArgs, sub ...string) ([]string, error) {
	argv, err := gitCmd(a, sub...)
	if err != nil {
		return nil, err
	}
	opts, err := gitFormatOpts(a["opts"])
	if err != nil {
		return nil, err
	}
	return append(argv, opts...), nil
}

type gitRunOpts struct {
	cwd       string // "" for none
	redirect  bool
	nofail    bool // Salt's failhard=False
	identity  any
	runKwargs []any
}

// gitRun is Salt's _git_run: the cmd.run_all result, or Salt's
// CommandExecutionError when the command failed (unless nofail).
func gitRun(ctx *execmod.Context, argv []string, a gitArgs, o gitRunOpts) (*value.Map, error) {
	kw := []any{"runas", a["user"], "password", a["password"], "ignore_retcode", value.Truthy(a["ignore_retcode"]),
		"redirect_stderr", o.redirect, "output_encoding", a["output_encoding"]}
	if o.cwd != "" {
		kw = append(kw, "cwd", o.cwd)
	}
	ids := gitIdentities(ctx, o.identity)
	if len(ids) == 0 && value.Truthy(o.identity) {
		return nil, execmod.Errorf("Unable to authenticate using identity file:\n\n")
	}
	if len(ids) == 0 {
		ids = []string{""}
	}
	var m *value.Map
	var errs []string
	for _, id := range ids {
		k := kw
		if id != "" {
			k = append(append([]any(nil), kw...), "env", value.MapOf("GIT_SSH_COMMAND",
				"ssh -oStrictHostKeyChecking=no -oPasswordAuthentication=no -oKbdInteractiveAuthentication=no -oChallengeResponseAuthentication=no -i "+shellQuote(id)))
		}
		res, err := runArgv(ctx, "cmd.run_all", argv, append(k, o.runKwargs...)...)
		if err != nil {
			return nil, err
		}
		m, _ = res.(*value.Map)
		if value.Equal(cmdGet(m, "retcode"), int64(0)) {
			return m, nil
		}
		if e := gitErrText(m, o.redirect); e != "" {
			errs = append(errs, redactAuth(e))
		}
	}
	if o.nofail {
		return m, nil
	}
	if ids[0] != "" {
		return nil, execmod.Errorf("Unable to authenticate using identity file:\n\n%s", strings.Join(errs, "\n"))
	}
	msg := fmt.Sprintf("Command '%s' failed", redactAuth(strings.Join(argv, " ")))
	if e := gitErrText(m, o.redirect); e != "" {
		msg += ": " + redactAuth(e)
	}
	return nil, execmod.Errorf("%s", msg)
}

func gitErrText(m *value.Map, redirect bool) string {
	if redirect {
		return execmod.String(cmdGet(m, "stdout"))
	}
	return execmod.String(cmdGet(m, "stderr"))
}

// gitIdentities resolves the identity argument to local files (salt://
// ones cached first); missing files are skipped as Salt skips them.
func gitIdentities(ctx *execmod.Context, identity any) []string {
	var ids []string
	switch x := identity.(type) {
	case nil:
		return nil
	case *value.List:
		for _, i := range x.Items {
			ids = append(ids, value.Str(i))
		}
	default:
		if !value.Truthy(x) {
			return nil
		}
		ids = []string{value.Str(x)}
	}
	var out []string
	for _, id := range ids {
		if strings.Contains(id, "salt://") {
			p, err := ctx.Call("cp.cache_file", []any{id}, nil)
			if err != nil || !value.Truthy(p) {
				continue
			}
			id = execmod.String(p)
		}
		if _, err := os.Stat(id); err == nil {
			out = append(out, id)
		}
	}
	return out
}

var authRE = regexp.MustCompile(`(?i)(https?)://.*@`)

// redactAuth is salt.utils.url.redact_http_basic_auth.
func redactAuth(s string) string { return authRE.ReplaceAllString(s, "${1}://<redacted>@") }

// addBasicAuth is salt.utils.url.add_http_basic_auth with https_only.
func addBasicAuth(raw string, user, pass any) (string, error) {
	if user == nil && pass == nil {
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" {
		return "", &execmod.InvocationError{Msg: "Basic Auth only supported for HTTPS"}
	}
	if pass == nil {
		u.User = url.User(value.Str(user))
	} else {
		u.User = url.UserPassword(value.Str(user), value.Str(pass))
	}
	return u.String(), nil
}

func gitStdout(m *value.Map) string { return execmod.String(cmdGet(m, "stdout")) }

// gitSimple runs sub with opts appended and then tail, in cwd: the
// stdout of most functions.
func gitSimple(ctx *execmod.Context, a gitArgs, sub []string, tail []string, redirect bool) (any, error) {
	argv, err := gitCmdOpts(a, sub...)
	if err != nil {
		return nil, err
	}
	argv = append(argv, tail...)
	m, err := gitRun(ctx, argv, a, gitRunOpts{cwd: gitExpand(a["cwd"], a["user"]), redirect: redirect, identity: a["identity"]})
	if err != nil {
		return nil, err
	}
	return gitStdout(m), nil
}

func gitAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, opts, err := gitBindOpts("add", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Req("filename"))...)
	if err != nil {
		return nil, err
	}
	var keep []any
	for _, o := range opts {
		if o != "-v" && o != "--verbose" {
			keep = append(keep, o)
		}
	}
	a["opts"] = value.NewList(keep...)
	return gitSimple(ctx, a, []string{"add", "--verbose"}, []string{"--", a.str("filename")}, false)
}

func gitRm(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("rm_", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Req("filename"))...)
	if err != nil {
		return nil, err
	}
	return gitSimple(ctx, a, []string{"rm"}, []string{"--", a.str("filename")}, false)
}

func gitBranch(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("branch", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("name", nil))...)
	if err != nil {
		return nil, err
	}
	var tail []string
	if a["name"] != nil {
		tail = []string{a.str("name")}
	}
	if _, err := gitSimple(ctx, a, []string{"branch"}, tail, false); err != nil {
		return nil, err
	}
	return true, nil
}

func gitCheckout(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("checkout", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("rev", nil), execmod.Opt("force", false))...)
	if err != nil {
		return nil, err
	}
	sub := []string{"checkout"}
	if value.Truthy(a["force"]) {
		sub = append(sub, "--force")
	}
	opts, err := gitFormatOpts(a["opts"])
	if err != nil {
		return nil, err
	}
	var tail []string
	if a["rev"] == nil {
		if !contains(opts, "-b") && !contains(opts, "-B") {
			return nil, &execmod.InvocationError{Msg: "'rev' argument is required unless -b or -B in opts"}
		}
	} else {
		tail = []string{a.str("rev")}
	}
	return gitSimple(ctx, a, sub, tail, true)
}

func gitCommit(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("commit", args, kwargs, execmod.Req("cwd"), execmod.Req("message"), execmod.Opt("opts", ""),
		execmod.Opt("git_opts", ""), execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("filename", nil),
		execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	var tail []string
	if value.Truthy(a["filename"]) {
		tail = []string{"--", a.str("filename")}
	}
	return gitSimple(ctx, a, []string{"commit", "-m", a.str("message")}, tail, false)
}

func gitClone(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("clone", args, kwargs, execmod.Req("cwd"), execmod.Opt("url", nil), execmod.Opt("name", nil), execmod.Opt("opts", ""),
		execmod.Opt("git_opts", ""), execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("identity", nil),
		execmod.Opt("https_user", nil), execmod.Opt("https_pass", nil), execmod.Opt("ignore_retcode", false),
		execmod.Opt("saltenv", "base"), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	cwd := gitExpand(a["cwd"], a["user"])
	if !value.Truthy(a["url"]) {
		return nil, &execmod.InvocationError{Msg: "Missing 'url' argument"}
	}
	u, err := addBasicAuth(a.str("url"), a["https_user"], a["https_pass"])
	if err != nil {
		return nil, err
	}
	argv, err := gitCmdOpts(a, "clone")
	if err != nil {
		return nil, err
	}
	argv = append(argv, "--", u)
	runIn := "/tmp"
	if a["name"] != nil {
		argv = append(argv, a.str("name"))
		if err := os.MkdirAll(cwd, 0o755); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		runIn = cwd
	} else {
		argv = append(argv, cwd)
	}
	if _, err := gitRun(ctx, argv, a, gitRunOpts{cwd: runIn, identity: a["identity"]}); err != nil {
		return nil, err
	}
	return true, nil
}

// gitConfigArgs binds the config functions: key first, then the
// parameters, global and all as keyword arguments.
func gitConfigArgs(fun string, args []any, kwargs *value.Map, params ...execmod.Param) (gitArgs, error) {
	a, rest, err := gitBind(fun, args, kwargs, append(params, gitCommon(execmod.Opt("cwd", nil))...)...)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"global", "all", "add"} {
		v, _ := rest.GetString(k)
		a[k] = v
		rest.Delete(k)
	}
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	if a["cwd"] == nil {
		if !value.Truthy(a["global"]) {
			return nil, &execmod.InvocationError{Msg: "'cwd' argument required unless global=True"}
		}
	} else {
		a["cwd"] = gitExpand(a["cwd"], a["user"])
	}
	return a, nil
}

func gitScope(a gitArgs) string {
	if value.Truthy(a["global"]) {
		return "--global"
	}
	return "--local"
}

func gitConfigGetter(ctx *execmod.Context, a gitArgs, opt string, regex any) (*value.Map, error) {
	argv := []string{"git", "config", gitScope(a), opt, a.str("key")}
	if regex != nil {
		argv = append(argv, value.Str(regex))
	}
	return gitRun(ctx, argv, a, gitRunOpts{cwd: a.str("cwd"), nofail: true})
}

func gitConfigGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := gitConfigArgs("config_get", args, kwargs, execmod.Req("key"))
	if err != nil {
		return nil, err
	}
	return gitConfigValues(ctx, a)
}

func gitConfigValues(ctx *execmod.Context, a gitArgs) (any, error) {
	m, err := gitConfigGetter(ctx, a, "--get-all", nil)
	if err != nil {
		return nil, err
	}
	if value.Equal(cmdGet(m, "retcode"), int64(1)) {
		return nil, nil
	}
	lines := splitLinesPy(gitStdout(m))
	if value.Truthy(a["all"]) {
		return strList(lines), nil
	}
	if len(lines) == 0 {
		return "", nil
	}
	return lines[len(lines)-1], nil
}

func splitLinesPy(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func gitConfigGetRegexp(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := gitConfigArgs("config_get_regexp", args, kwargs, execmod.Req("key"), execmod.Opt("value_regex", nil))
	if err != nil {
		return nil, err
	}
	m, err := gitConfigGetter(ctx, a, "--get-regexp", a["value_regex"])
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	if value.Equal(cmdGet(m, "retcode"), int64(1)) {
		return ret, nil
	}
	for _, line := range splitLinesPy(gitStdout(m)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		_, val, _ := strings.Cut(strings.TrimLeft(line, " \t"), f[0])
		val = strings.TrimLeft(val, " \t")
		l, ok := ret.GetString(f[0])
		if !ok {
			l = value.NewList()
			ret.Set(f[0], l)
		}
		l.(*value.List).Append(val)
	}
	return ret, nil
}

func gitConfigSet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := gitConfigArgs("config_set", args, kwargs, execmod.Req("key"), execmod.Opt("value", nil), execmod.Opt("multivar", nil))
	if err != nil {
		return nil, err
	}
	if a["value"] != nil && a["multivar"] != nil {
		return nil, &execmod.InvocationError{Msg: "Only one of 'value' and 'multivar' is permitted"}
	}
	prefix := []string{"git", "config"}
	if value.Truthy(a["global"]) {
		prefix = append(prefix, "--global")
	}
	var cmds [][]string
	if a["value"] != nil {
		mode := "--replace-all"
		if value.Truthy(a["add"]) {
			mode = "--add"
		}
		cmds = append(cmds, append(append([]string(nil), prefix...), mode, a.str("key"), value.Str(a["value"])))
	} else {
		var vals []string
		if l, ok := a["multivar"].(*value.List); ok {
			for _, x := range l.Items {
				vals = append(vals, value.Str(x))
			}
		} else {
			vals = strings.Split(value.Str(a["multivar"]), ",")
		}
		for i, v := range vals {
			mode := "--add"
			if i == 0 {
				mode = "--replace-all"
			}
			cmds = append(cmds, append(append([]string(nil), prefix...), mode, a.str("key"), v))
		}
	}
	for _, argv := range cmds {
		if _, err := gitRun(ctx, argv, a, gitRunOpts{cwd: a.str("cwd")}); err != nil {
			return nil, err
		}
	}
	a["all"] = true
	return gitConfigValues(ctx, a)
}

func gitConfigUnset(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := gitConfigArgs("config_unset", args, kwargs, execmod.Req("key"), execmod.Opt("value_regex", nil))
	if err != nil {
		return nil, err
	}
	mode := "--unset"
	if value.Truthy(a["all"]) {
		mode = "--unset-all"
	}
	argv := []string{"git", "config", mode, gitScope(a), a.str("key")}
	if a["value_regex"] != nil {
		argv = append(argv, value.Str(a["value_regex"]))
	}
	m, err := gitRun(ctx, argv, a, gitRunOpts{cwd: a.str("cwd"), nofail: true})
	if err != nil {
		return nil, err
	}
	rc, _ := cmdGet(m, "retcode").(int64)
	key := a.str("key")
	switch rc {
	case 0:
		return true, nil
	case 1:
		return nil, execmod.Errorf("Section or key is invalid")
	case 5:
		a["all"] = false
		cur, err := gitConfigValues(ctx, a)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			return nil, execmod.Errorf("Key '%s' does not exist", key)
		}
		msg := fmt.Sprintf("Multiple values exist for key '%s'", key)
		if a["value_regex"] != nil {
			msg += " and value_regex matches multiple values"
		}
		return nil, execmod.Errorf("%s", msg)
	case 6:
		return nil, execmod.Errorf("The value_regex is invalid")
	}
	msg := fmt.Sprintf("Failed to unset key '%s', git config returned exit code %d", key, rc)
	if e := execmod.String(cmdGet(m, "stderr")); e != "" {
		msg += "; " + e
	}
	return nil, execmod.Errorf("%s", msg)
}

// gitPlain runs a fixed command in cwd and returns its stdout.
func gitPlain(ctx *execmod.Context, a gitArgs, redirect bool, argv ...string) (string, error) {
	m, err := gitRun(ctx, argv, a, gitRunOpts{cwd: gitExpand(a["cwd"], a["user"]), redirect: redirect})
	if err != nil {
		return "", err
	}
	return gitStdout(m), nil
}

func gitCurrentBranch(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("current_branch", args, kwargs, gitCommon(execmod.Req("cwd"))...)
	if err != nil {
		return nil, err
	}
	return gitPlain(ctx, a, false, "git", "rev-parse", "--abbrev-ref", "HEAD")
}

func gitDescribe(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("describe", args, kwargs, gitCommon(execmod.Req("cwd"), execmod.Opt("rev", "HEAD"))...)
	if err != nil {
		return nil, err
	}
	return gitPlain(ctx, a, false, "git", "describe", "--always", a.str("rev"))
}

func gitDiscard(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("discard_local_changes", args, kwargs, gitCommon(execmod.Req("cwd"), execmod.Opt("path", "."))...)
	if err != nil {
		return nil, err
	}
	return gitPlain(ctx, a, true, "git", "checkout", "--", a.str("path"))
}

func gitRevision(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("revision", args, kwargs, gitCommon(execmod.Req("cwd"), execmod.Opt("rev", "HEAD"), execmod.Opt("short", false))...)
	if err != nil {
		return nil, err
	}
	argv := []string{"git", "rev-parse"}
	if value.Truthy(a["short"]) {
		argv = append(argv, "--short")
	}
	return gitPlain(ctx, a, false, append(argv, a.str("rev"))...)
}

func gitRefList(ctx *execmod.Context, a gitArgs, refs string) (any, error) {
	out, err := gitPlain(ctx, a, false, "git", "for-each-ref", "--format", "%(refname:short)", refs)
	if err != nil {
		return nil, err
	}
	return strList(splitLinesPy(out)), nil
}

func gitListBranches(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("list_branches", args, kwargs, gitCommon(execmod.Req("cwd"), execmod.Opt("remote", false))...)
	if err != nil {
		return nil, err
	}
	if value.Truthy(a["remote"]) {
		return gitRefList(ctx, a, "refs/remotes/")
	}
	return gitRefList(ctx, a, "refs/heads/")
}

func gitListTags(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("list_tags", args, kwargs, gitCommon(execmod.Req("cwd"))...)
	if err != nil {
		return nil, err
	}
	return gitRefList(ctx, a, "refs/tags/")
}

func gitDiff(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("diff", args, kwargs, execmod.Req("cwd"), execmod.Opt("item1", nil), execmod.Opt("item2", nil),
		execmod.Opt("opts", ""), execmod.Opt("git_opts", ""), execmod.Opt("user", nil), execmod.Opt("password", nil),
		execmod.Opt("no_index", false), execmod.Opt("cached", false), execmod.Opt("paths", nil), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	noIndex, cached := value.Truthy(a["no_index"]), value.Truthy(a["cached"])
	if noIndex && cached {
		return nil, execmod.Errorf("The 'no_index' and 'cached' options cannot be used together")
	}
	argv, err := gitCmdOpts(a, "diff")
	if err != nil {
		return nil, err
	}
	var paths []string
	switch p := a["paths"].(type) {
	case nil:
	case *value.List:
		for _, x := range p.Items {
			paths = append(paths, value.Str(x))
		}
	default:
		paths = strings.Split(value.Str(p), ",")
	}
	ro := gitRunOpts{cwd: a.str("cwd"), redirect: true}
	switch {
	case noIndex:
		a["ignore_retcode"], ro.nofail = true, true
		argv = append(argv, "--no-index")
	case cached:
		argv = append(argv, "--cached")
		if value.Truthy(a["item1"]) {
			argv = append(argv, a.str("item1"))
		}
	default:
		for _, k := range []string{"item1", "item2"} {
			if value.Truthy(a[k]) {
				argv = append(argv, a.str(k))
			}
		}
	}
	if len(paths) > 0 {
		argv = append(append(argv, "--"), paths...)
	}
	m, err := gitRun(ctx, argv, a, ro)
	if err != nil {
		return nil, err
	}
	return gitStdout(m), nil
}

var fetchRE = regexp.MustCompile(`^[\s*]*(?:([0-9a-f]+)\.\.([0-9a-f]+)|\[(?:new (tag|branch)|tag update)\])\s+(.+)->`)

func gitFetch(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("fetch", args, kwargs, execmod.Req("cwd"), execmod.Opt("remote", nil), execmod.Opt("force", false),
		execmod.Opt("refspecs", nil), execmod.Opt("opts", ""), execmod.Opt("git_opts", ""), execmod.Opt("user", nil),
		execmod.Opt("password", nil), execmod.Opt("identity", nil), execmod.Opt("ignore_retcode", false),
		execmod.Opt("saltenv", "base"), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	argv, err := gitCmd(a, "fetch")
	if err != nil {
		return nil, err
	}
	if value.Truthy(a["force"]) {
		argv = append(argv, "--force")
	}
	opts, err := gitFormatOpts(a["opts"])
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		if o != "-f" && o != "--force" {
			argv = append(argv, o)
		}
	}
	if value.Truthy(a["remote"]) {
		argv = append(argv, a.str("remote"))
	}
	switch r := a["refspecs"].(type) {
	case nil:
	case *value.List:
		for _, x := range r.Items {
			argv = append(argv, value.Str(x))
		}
	default:
		argv = append(argv, strings.Split(value.Str(r), ",")...)
	}
	m, err := gitRun(ctx, argv, a, gitRunOpts{cwd: gitExpand(a["cwd"], a["user"]), redirect: true, identity: a["identity"]})
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	appendTo := func(k, v string) {
		l, ok := ret.GetString(k)
		if !ok {
			l = value.NewList()
			ret.Set(k, l)
		}
		l.(*value.List).Append(v)
	}
	for _, line := range strings.Split(gitStdout(m), "\n") {
		g := fetchRE.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		ref := strings.TrimRight(g[4], " \t")
		switch {
		case g[3] == "tag":
			appendTo("new tags", ref)
		case g[3] != "":
			appendTo("new branches", ref)
		case g[1] != "":
			u, ok := ret.GetString("updated branches")
			if !ok {
				u = value.NewMap(0)
				ret.Set("updated branches", u)
			}
			u.(*value.Map).Set(ref, value.MapOf("old", g[1], "new", g[2]))
		default:
			appendTo("updated tags", ref)
		}
	}
	return ret, nil
}

func gitInit(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("init", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("bare", false), execmod.Opt("template", nil),
		execmod.Opt("separate_git_dir", nil), execmod.Opt("shared", nil))...)
	if err != nil {
		return nil, err
	}
	cwd := gitExpand(a["cwd"], a["user"])
	argv, err := gitCmd(a, "init")
	if err != nil {
		return nil, err
	}
	if value.Truthy(a["bare"]) {
		argv = append(argv, "--bare")
	}
	if a["template"] != nil {
		argv = append(argv, "--template="+value.Str(a["template"]))
	}
	if a["separate_git_dir"] != nil {
		argv = append(argv, "--separate-git-dir="+value.Str(a["separate_git_dir"]))
	}
	switch sh := a["shared"].(type) {
	case nil:
	case int64:
		argv = append(argv, "--shared=0"+strconv.FormatInt(sh, 10))
	case string:
		argv = append(argv, "--shared="+sh)
	default:
		argv = append(argv, "--shared="+strings.ToLower(value.Str(sh)))
	}
	opts, err := gitFormatOpts(a["opts"])
	if err != nil {
		return nil, err
	}
	m, err := gitRun(ctx, append(append(argv, opts...), cwd), a, gitRunOpts{})
	if err != nil {
		return nil, err
	}
	return gitStdout(m), nil
}

func gitIsWorktree(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("is_worktree", args, kwargs, execmod.Req("cwd"), execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	top, err := gitPlain(ctx, a, false, "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return false, nil
	}
	data, err := os.ReadFile(filepath.Join(top, ".git"))
	if err != nil {
		return false, nil
	}
	first, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(first)
	if len(f) < 2 {
		return false, nil
	}
	label, path := f[0], strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(first, " \t"), f[0]), " \t")
	return label == "gitdir:" && filepath.IsAbs(path), nil
}

func gitLsRemote(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("ls_remote", args, kwargs, execmod.Opt("cwd", nil), execmod.Opt("remote", "origin"), execmod.Opt("ref", nil),
		execmod.Opt("opts", ""), execmod.Opt("git_opts", ""), execmod.Opt("user", nil), execmod.Opt("password", nil),
		execmod.Opt("identity", nil), execmod.Opt("https_user", nil), execmod.Opt("https_pass", nil),
		execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	cwd := ""
	if a["cwd"] != nil {
		cwd = gitExpand(a["cwd"], a["user"])
	}
	remote, err := addBasicAuth(a.str("remote"), a["https_user"], a["https_pass"])
	if err != nil {
		return nil, err
	}
	argv, err := gitCmdOpts(a, "ls-remote")
	if err != nil {
		return nil, err
	}
	argv = append(argv, remote)
	if value.Truthy(a["ref"]) {
		argv = append(argv, a.str("ref"))
	}
	m, err := gitRun(ctx, argv, a, gitRunOpts{cwd: cwd, identity: a["identity"]})
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, line := range splitLinesPy(gitStdout(m)) {
		if sha, name, ok := strings.Cut(line, "\t"); ok {
			ret.Set(strings.TrimSpace(name), sha)
		}
	}
	return ret, nil
}

func gitMerge(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("merge", args, kwargs, execmod.Req("cwd"), execmod.Opt("rev", nil), execmod.Opt("opts", ""), execmod.Opt("git_opts", ""),
		execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("identity", nil), execmod.Opt("ignore_retcode", false),
		execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	var tail []string
	if value.Truthy(a["rev"]) {
		tail = []string{a.str("rev")}
	}
	return gitSimple(ctx, a, []string{"merge"}, tail, false)
}

func gitMergeBase(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, rest, err := gitBind("merge_base", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("refs", nil), execmod.Opt("octopus", false),
		execmod.Opt("is_ancestor", false), execmod.Opt("independent", false), execmod.Opt("fork_point", nil))...)
	if err != nil {
		return nil, err
	}
	all, _ := rest.GetString("all")
	isAnc, indep, fork, oct := value.Truthy(a["is_ancestor"]), value.Truthy(a["independent"]), a["fork_point"], value.Truthy(a["octopus"])
	if value.Truthy(all) && (indep || isAnc || value.Truthy(fork)) {
		return nil, &execmod.InvocationError{Msg: "The 'all' argument is not compatible with 'independent', 'is_ancestor', or 'fork_point'"}
	}
	var refs []string
	switch r := a["refs"].(type) {
	case nil:
	case *value.List:
		for _, x := range r.Items {
			refs = append(refs, value.Str(x))
		}
	default:
		for _, x := range strings.Split(value.Str(r), ",") {
			refs = append(refs, strings.TrimSpace(x))
		}
	}
	n := 0
	for _, b := range []bool{oct, indep, isAnc, value.Truthy(fork)} {
		if b {
			n++
		}
	}
	switch {
	case n > 1:
		return nil, &execmod.InvocationError{Msg: "Only one of 'octopus', 'independent', 'is_ancestor', and 'fork_point' is permitted"}
	case isAnc && len(refs) != 2:
		return nil, &execmod.InvocationError{Msg: "Two refs/commits are required if 'is_ancestor' is True"}
	case value.Truthy(fork) && len(refs) > 1:
		return nil, &execmod.InvocationError{Msg: "At most one ref/commit can be passed if 'fork_point' is specified"}
	case value.Truthy(fork) && len(refs) == 0:
		refs = []string{"HEAD"}
	}
	argv, err := gitCmdOpts(a, "merge-base")
	if err != nil {
		return nil, err
	}
	if value.Truthy(all) {
		argv = append(argv, "--all")
	}
	switch {
	case oct:
		argv = append(argv, "--octopus")
	case isAnc:
		argv = append(argv, "--is-ancestor")
	case indep:
		argv = append(argv, "--independent")
	case value.Truthy(fork):
		argv = append(argv, "--fork-point", value.Str(fork))
	}
	m, err := gitRun(ctx, append(argv, refs...), a, gitRunOpts{cwd: gitExpand(a["cwd"], a["user"]), nofail: isAnc})
	if err != nil {
		return nil, err
	}
	if isAnc {
		return value.Equal(cmdGet(m, "retcode"), int64(0)), nil
	}
	bases := splitLinesPy(gitStdout(m))
	if value.Truthy(all) {
		return strList(bases), nil
	}
	if len(bases) == 0 {
		return nil, execmod.Errorf("list index out of range")
	}
	return bases[0], nil
}

func gitRemoteParams(lead ...execmod.Param) []execmod.Param {
	return append(lead, execmod.Opt("opts", ""), execmod.Opt("git_opts", ""), execmod.Opt("user", nil), execmod.Opt("password", nil),
		execmod.Opt("identity", nil), execmod.Opt("ignore_retcode", false), execmod.Opt("saltenv", "base"), execmod.Opt("output_encoding", nil))
}

func gitPull(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("pull", args, kwargs, gitRemoteParams(execmod.Req("cwd"))...)
	if err != nil {
		return nil, err
	}
	return gitSimple(ctx, a, []string{"pull"}, nil, false)
}

func gitPush(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("push", args, kwargs, gitRemoteParams(execmod.Req("cwd"), execmod.Opt("remote", nil), execmod.Opt("ref", nil))...)
	if err != nil {
		return nil, err
	}
	var tail []string
	for _, k := range []string{"remote", "ref"} {
		if a[k] != nil {
			tail = append(tail, a.str(k))
		}
	}
	return gitSimple(ctx, a, []string{"push"}, tail, false)
}

func gitRebase(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, opts, err := gitBindOpts("rebase", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("rev", "master"))...)
	if err != nil {
		return nil, err
	}
	if contains(opts, "-i") || contains(opts, "--interactive") {
		return nil, &execmod.InvocationError{Msg: "Interactive rebases are not supported"}
	}
	rev, err := system.ShlexSplit(value.Str(a["rev"]))
	if err != nil {
		return nil, &execmod.InvocationError{Msg: err.Error()}
	}
	return gitSimple(ctx, a, []string{"rebase"}, rev, false)
}

func gitRemotesMap(ctx *execmod.Context, a gitArgs, redact bool) (*value.Map, error) {
	out, err := gitPlain(ctx, a, false, "git", "remote", "--verbose")
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		action := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(f[len(f)-1], "("), ")"))
		if action != "fetch" && action != "push" {
			continue
		}
		u := strings.Join(f[1:len(f)-1], " ")
		if redact {
			u = redactAuth(u)
		}
		r, ok := ret.GetString(f[0])
		if !ok {
			r = value.NewMap(0)
			ret.Set(f[0], r)
		}
		r.(*value.Map).Set(action, u)
	}
	return ret, nil
}

func gitRemotes(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("remotes", args, kwargs, execmod.Req("cwd"), execmod.Opt("user", nil), execmod.Opt("password", nil),
		execmod.Opt("redact_auth", true), execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	return gitRemotesMap(ctx, a, value.Truthy(a["redact_auth"]))
}

func gitRemoteGetOne(ctx *execmod.Context, a gitArgs, remote string, redact bool) (any, error) {
	all, err := gitRemotesMap(ctx, a, redact)
	if err != nil {
		return nil, err
	}
	r, ok := all.GetString(remote)
	if !ok {
		return nil, execmod.Errorf("Remote '%s' not present in git checkout located at %s", remote, gitExpand(a["cwd"], a["user"]))
	}
	return r, nil
}

func gitRemoteGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("remote_get", args, kwargs, execmod.Req("cwd"), execmod.Opt("remote", "origin"), execmod.Opt("user", nil),
		execmod.Opt("password", nil), execmod.Opt("redact_auth", true), execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	return gitRemoteGetOne(ctx, a, a.str("remote"), value.Truthy(a["redact_auth"]))
}

func gitRemoteSet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("remote_set", args, kwargs, execmod.Req("cwd"), execmod.Req("url"), execmod.Opt("remote", "origin"),
		execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("https_user", nil), execmod.Opt("https_pass", nil),
		execmod.Opt("push_url", nil), execmod.Opt("push_https_user", nil), execmod.Opt("push_https_pass", nil),
		execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	remote := a.str("remote")
	all, err := gitRemotesMap(ctx, a, true)
	if err != nil {
		return nil, err
	}
	if _, ok := all.GetString(remote); ok {
		if _, err := gitPlain(ctx, a, false, "git", "remote", "rm", remote); err != nil {
			return nil, err
		}
	}
	u, err := addBasicAuth(a.str("url"), a["https_user"], a["https_pass"])
	if err != nil {
		return nil, err
	}
	if _, err := gitPlain(ctx, a, false, "git", "remote", "add", remote, u); err != nil {
		return nil, err
	}
	if value.Truthy(a["push_url"]) {
		pu, err := addBasicAuth(value.Str(a["push_url"]), a["push_https_user"], a["push_https_pass"])
		if err != nil {
			return nil, err
		}
		if _, err := gitPlain(ctx, a, false, "git", "remote", "set-url", "--push", remote, pu); err != nil {
			return nil, err
		}
	}
	return gitRemoteGetOne(ctx, a, remote, true)
}

func gitReset(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("reset", args, kwargs, execmod.Req("cwd"), execmod.Opt("opts", ""), execmod.Opt("git_opts", ""),
		execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("identity", nil), execmod.Opt("ignore_retcode", false),
		execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	return gitSimple(ctx, a, []string{"reset"}, nil, false)
}

func gitRevParse(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("rev_parse", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("rev", nil))...)
	if err != nil {
		return nil, err
	}
	var tail []string
	if a["rev"] != nil {
		tail = []string{a.str("rev")}
	}
	return gitSimple(ctx, a, []string{"rev-parse"}, tail, false)
}

func gitStash(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("stash", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("action", "save"))...)
	if err != nil {
		return nil, err
	}
	return gitSimple(ctx, a, []string{"stash", a.str("action")}, nil, false)
}

func gitStatus(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("status", args, kwargs, gitCommon(execmod.Req("cwd"))...)
	if err != nil {
		return nil, err
	}
	out, err := gitPlain(ctx, a, false, "git", "status", "-z", "--porcelain")
	if err != nil {
		return nil, err
	}
	names := map[string]string{"M": "modified", "A": "new", "D": "deleted", "??": "untracked"}
	ret := value.NewMap(0)
	for _, line := range strings.Split(out, "\x00") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		state := f[0]
		file := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(line, " \t"), state), " \t")
		if n, ok := names[state]; ok {
			state = n
		}
		l, ok := ret.GetString(state)
		if !ok {
			l = value.NewList()
			ret.Set(state, l)
		}
		l.(*value.List).Append(file)
	}
	return ret, nil
}

func gitSymbolicRef(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, opts, err := gitBindOpts("symbolic_ref", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Req("ref"), execmod.Opt("value", nil))...)
	if err != nil {
		return nil, err
	}
	if a["value"] != nil && (contains(opts, "-d") || contains(opts, "--delete")) {
		return nil, &execmod.InvocationError{Msg: "Value cannot be set for symbolic ref if -d/--delete is included in opts"}
	}
	tail := []string{a.str("ref")}
	if value.Truthy(a["value"]) {
		tail = append(tail, a.str("value"))
	}
	return gitSimple(ctx, a, []string{"symbolic-ref"}, tail, false)
}

func gitTag(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, opts, err := gitBindOpts("tag", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Req("name"), execmod.Opt("ref", "HEAD"), execmod.Opt("message", nil))...)
	if err != nil {
		return nil, err
	}
	var keep []any
	del := false
	for _, o := range opts {
		if o == "-m" || strings.Contains(o, "--message") {
			return nil, &execmod.InvocationError{Msg: `Tag messages must be passed in the "message" argument`}
		}
		if o == "-d" || o == "--delete" {
			del = true
		}
		if o != "-a" && o != "--annotate" {
			keep = append(keep, o)
		}
	}
	a["opts"] = value.NewList(keep...)
	tail := []string{a.str("name")}
	if !del {
		tail = append(tail, a.str("ref"))
	}
	return gitSimple(ctx, a, []string{"tag"}, tail, true)
}

func gitVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("version", args, kwargs, execmod.Opt("versioninfo", false))
	if err != nil {
		return nil, err
	}
	ver, ok := ctx.Cache().Get("git.version").(string)
	if !ok {
		ver = "unknown"
		if m, err := gitRun(ctx, []string{"git", "--version"}, gitArgs{}, gitRunOpts{}); err == nil {
			s := gitStdout(m)
			s, _, _ = strings.Cut(s, "(")
			s, _, _ = strings.Cut(s, ".windows")
			if f := strings.Fields(s); len(f) > 0 {
				ver = f[len(f)-1]
			}
		}
		ctx.Cache().Store("git.version", ver)
	}
	if !value.Truthy(v[0]) {
		return ver, nil
	}
	info := value.NewList()
	for _, p := range strings.Split(ver, ".") {
		if n, err := strconv.ParseInt(p, 10, 64); err == nil {
			info.Append(n)
		} else {
			info.Append(p)
		}
	}
	return info, nil
}

func gitArchive(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, rest, err := gitBind("archive", args, kwargs, execmod.Req("cwd"), execmod.Req("output"), execmod.Opt("rev", "HEAD"),
		execmod.Opt("prefix", nil), execmod.Opt("git_opts", ""), execmod.Opt("user", nil), execmod.Opt("password", nil),
		execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	format := popKwarg(rest, "format")
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	cwd := gitExpand(a["cwd"], a["user"])
	argv, err := gitCmd(a, "archive")
	if err != nil {
		return nil, err
	}
	if a["prefix"] != "" {
		prefix := a.str("prefix")
		if !value.Truthy(a["prefix"]) {
			prefix = filepath.Base(cwd) + "/"
		}
		argv = append(argv, "--prefix", prefix)
	}
	if value.Truthy(format) {
		argv = append(argv, "--format", value.Str(format))
	}
	argv = append(argv, "--output", gitExpand(a["output"], a["user"]), a.str("rev"))
	if _, err := gitRun(ctx, argv, a, gitRunOpts{cwd: cwd}); err != nil {
		return nil, err
	}
	return true, nil
}

func gitMergeTree(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("merge_tree", args, kwargs, gitCommon(execmod.Req("cwd"), execmod.Req("ref1"), execmod.Req("ref2"), execmod.Opt("base", nil))...)
	if err != nil {
		return nil, err
	}
	base := a.str("base")
	if a["base"] == nil {
		b, err := ctx.Call("git.merge_base", []any{a["cwd"]}, value.MapOf("refs", value.NewList(a["ref1"], a["ref2"]), "output_encoding", a["output_encoding"]))
		if err != nil {
			return nil, execmod.Errorf("Unable to determine merge base for %s and %s", a.str("ref1"), a.str("ref2"))
		}
		base = value.Str(b)
	}
	return gitPlain(ctx, a, false, "git", "merge-tree", base, a.str("ref1"), a.str("ref2"))
}

func gitRemoteRefs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, rest, err := gitBind("remote_refs", args, kwargs, execmod.Req("url"), execmod.Opt("heads", false), execmod.Opt("tags", false),
		execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("identity", nil), execmod.Opt("https_user", nil),
		execmod.Opt("https_pass", nil), execmod.Opt("ignore_retcode", false), execmod.Opt("output_encoding", nil), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	filter := popKwarg(rest, "filter")
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	argv := []string{"git", "ls-remote"}
	if value.Truthy(a["heads"]) {
		argv = append(argv, "--heads")
	}
	if value.Truthy(a["tags"]) {
		argv = append(argv, "--tags")
	}
	u, err := addBasicAuth(a.str("url"), a["https_user"], a["https_pass"])
	if err != nil {
		return nil, err
	}
	argv = append(argv, u)
	if value.Truthy(filter) {
		argv = append(argv, value.Str(filter))
	}
	m, err := gitRun(ctx, argv, a, gitRunOpts{identity: a["identity"]})
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, line := range strings.Split(gitStdout(m), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			ret.Set(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), f[0])), f[0])
		}
	}
	return ret, nil
}

func gitSubmodule(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, rest, err := gitBind("submodule", args, kwargs, execmod.Req("cwd"), execmod.Req("command"), execmod.Opt("opts", ""), execmod.Opt("git_opts", ""),
		execmod.Opt("user", nil), execmod.Opt("password", nil), execmod.Opt("identity", nil), execmod.Opt("ignore_retcode", false),
		execmod.Opt("saltenv", "base"), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	init := popKwarg(rest, "init")
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	if value.Truthy(init) {
		return nil, &execmod.InvocationError{Msg: "The 'init' argument is no longer supported. Either set 'command' to 'init', or include '--init' in the 'opts' argument and set 'command' to 'update'."}
	}
	return gitSimple(ctx, a, []string{"submodule", a.str("command")}, nil, false)
}

func gitListWorktrees(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, rest, err := gitBind("list_worktrees", args, kwargs, execmod.Req("cwd"), execmod.Opt("stale", false), execmod.Opt("user", nil),
		execmod.Opt("password", nil), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	all := value.Truthy(popKwarg(rest, "all"))
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	stale := value.Truthy(a["stale"])
	if all && stale {
		return nil, execmod.Errorf("'all' and 'stale' cannot both be set to True")
	}
	m, err := gitRun(ctx, []string{"git", "worktree", "list", "--porcelain"}, a, gitRunOpts{cwd: gitExpand(a["cwd"], a["user"])})
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, block := range strings.Split(strings.TrimSpace(gitStdout(m)), "\n\n") {
		data := map[string]string{}
		for _, line := range strings.Split(block, "\n") {
			typ, val, ok := strings.Cut(strings.TrimSpace(line), " ")
			if !ok {
				if line != "detached" {
					continue
				}
				typ, val = "branch", "detached"
			}
			if (typ == "worktree" || typ == "HEAD" || typ == "branch") && data[typ] == "" {
				data[typ] = strings.TrimSpace(val)
			}
		}
		if data["worktree"] == "" || data["HEAD"] == "" || data["branch"] == "" {
			continue
		}
		st, err := os.Stat(data["worktree"])
		isStale := err != nil || !st.IsDir()
		if isStale && !all && !stale || !isStale && stale {
			continue
		}
		wt := value.MapOf("stale", isStale, "HEAD", data["HEAD"], "detached", data["branch"] == "detached")
		if data["branch"] == "detached" {
			wt.Set("branch", nil)
			tags, err := gitPlain(ctx, a, false, "git", "tag", "--points-at", data["HEAD"])
			if err != nil {
				return nil, err
			}
			if t := splitLinesPy(tags); len(t) > 0 {
				wt.Set("tags", strList(t))
			}
		} else {
			wt.Set("branch", strings.Replace(data["branch"], "refs/heads/", "", 1))
		}
		ret.Set(data["worktree"], wt)
	}
	return ret, nil
}

func gitWorktreeAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, rest, err := gitBind("worktree_add", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Req("worktree_path"), execmod.Opt("ref", nil),
		execmod.Opt("reset_branch", nil), execmod.Opt("force", nil), execmod.Opt("detach", false))...)
	if err != nil {
		return nil, err
	}
	branch := popKwarg(rest, "branch")
	if err := invalidKwargs(rest); err != nil {
		return nil, err
	}
	if value.Truthy(branch) && value.Truthy(a["detach"]) {
		return nil, &execmod.InvocationError{Msg: "Only one of 'branch' and 'detach' is allowed"}
	}
	sub := []string{"worktree", "add"}
	if value.Truthy(a["detach"]) {
		sub = append(sub, "--detach")
	} else {
		b := value.Str(branch)
		if !value.Truthy(branch) {
			b = filepath.Base(a.str("worktree_path"))
		}
		flag := "-b"
		if value.Truthy(a["reset_branch"]) {
			flag = "-B"
		}
		sub = append(sub, flag, b)
		if value.Truthy(a["force"]) {
			sub = append(sub, "--force")
		}
	}
	tail := []string{a.str("worktree_path")}
	if value.Truthy(a["ref"]) {
		tail = append(tail, a.str("ref"))
	}
	return gitSimple(ctx, a, sub, tail, true)
}

func gitWorktreePrune(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("worktree_prune", args, kwargs, gitOptsParams(execmod.Req("cwd"), execmod.Opt("dry_run", false),
		execmod.Opt("verbose", true), execmod.Opt("expire", nil))...)
	if err != nil {
		return nil, err
	}
	sub := []string{"worktree", "prune"}
	if value.Truthy(a["dry_run"]) {
		sub = append(sub, "--dry-run")
	}
	if value.Truthy(a["verbose"]) {
		sub = append(sub, "--verbose")
	}
	if value.Truthy(a["expire"]) {
		sub = append(sub, "--expire", a.str("expire"))
	}
	argv, err := gitCmdOpts(a, sub...)
	if err != nil {
		return nil, err
	}
	m, err := gitRun(ctx, argv, a, gitRunOpts{cwd: gitExpand(a["cwd"], a["user"])})
	if err != nil {
		return nil, err
	}
	ver, err := gitVersion(ctx, nil, value.NewMap(0))
	if err == nil && pkgmgr.CompareDebian(value.Str(ver), "2.35.0") > 0 {
		return cmdGet(m, "stderr"), nil
	}
	return gitStdout(m), nil
}

func gitWorktreeRm(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("worktree_rm", args, kwargs, execmod.Req("cwd"), execmod.Opt("user", nil), execmod.Opt("output_encoding", nil))
	if err != nil {
		return nil, err
	}
	cwd := gitExpand(a["cwd"], a["user"])
	if _, err := os.Stat(cwd); err != nil {
		return nil, execmod.Errorf("%s does not exist", cwd)
	}
	wt, err := ctx.Call("git.is_worktree", []any{cwd}, value.MapOf("output_encoding", a["output_encoding"]))
	if err != nil {
		return nil, err
	}
	if wt != true {
		return nil, execmod.Errorf("%s is not a git worktree", cwd)
	}
	if err := os.RemoveAll(cwd); err != nil {
		return nil, execmod.Errorf("Unable to remove %s: %s", cwd, err)
	}
	return true, nil
}
