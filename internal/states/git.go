package states

// git.go is the common path of salt/states/git.py's git.latest with the
// real git command: clone, fetch and fast-forward (or hard-reset with
// force_reset) to the remote revision (HEAD, a branch, a tag or a commit),
// remote URL updates, and force_clone of a non-repository target.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "git.latest",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("rev", "HEAD"), statemod.Opt("target", nil),
			statemod.Opt("branch", nil), statemod.Opt("user", nil), statemod.Opt("password", nil),
			statemod.Opt("update_head", true), statemod.Opt("force_checkout", false), statemod.Opt("force_clone", false),
			statemod.Opt("force_fetch", false), statemod.Opt("force_reset", false), statemod.Opt("submodules", false),
			statemod.Opt("bare", false), statemod.Opt("mirror", false), statemod.Opt("remote", "origin"),
			statemod.Opt("fetch_tags", true), statemod.Opt("sync_tags", true), statemod.Opt("depth", nil),
			statemod.Opt("identity", nil), statemod.Opt("https_user", nil), statemod.Opt("https_pass", nil),
			statemod.Opt("refspec_branch", "*"), statemod.Opt("refspec_tag", "*"), statemod.Opt("output_encoding", nil)},
		Kwargs: true,
		Doc:    "Ensure that a git repository is cloned to target and at the latest remote revision.",
		Run:    gitLatest})
}

// gitUser is the account git runs as (the state's user argument).
type gitUser struct {
	uid, gid uint32
	home     string
}

// lookupGitUser resolves the user argument ("" for the current user).
func lookupGitUser(name string) (*gitUser, error) {
	if name == "" {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("User '%s' does not exist", name)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == os.Geteuid() {
		return nil, nil
	}
	return &gitUser{uint32(uid), uint32(gid), u.HomeDir}, nil
}

// gitCmd is git with args in dir, run as u when set, never prompting.
func gitCmd(u *gitUser, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	if u != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid}}
		cmd.Env = append(cmd.Env, "HOME="+u.home)
	}
	return cmd
}

// gitRun runs git in dir (as u when set) and returns its trimmed stdout.
func gitRun(u *gitUser, dir string, args ...string) (string, error) {
	cmd := gitCmd(u, dir, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return strings.TrimSpace(out.String()), fmt.Errorf("%s", msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// gitRunCombined is gitRun with stderr in the output too (git fetch
// reports the refs it updated there).
func gitRunCombined(u *gitUser, dir string, args ...string) (string, error) {
	out, err := gitCmd(u, dir, args...).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return msg, fmt.Errorf("%s", msg)
	}
	return string(out), nil
}

// gitFetchUpdateRE matches a line of git fetch output naming an updated
// or new ref (the lines Salt's git.fetch turns into its changes).
var gitFetchUpdateRE = regexp.MustCompile(`(?m)^[\s*]*(?:[0-9a-f]+\.\.[0-9a-f]+|\[(?:new (?:tag|branch)|tag update)\])\s+.+->`)

// gitHasRemoteRev is git.latest's has_remote_rev: whether the checkout
// already holds the wanted remote revision, so that no fetch is needed.
func gitHasRemoteRev(gu *gitUser, target, remote, rev, revType, localRev, remoteRev, desiredUpstream string) bool {
	if remoteRev == "" {
		return false
	}
	if revType == "sha1" && localRev != "" && strings.HasPrefix(localRev, remoteRev) {
		return true
	}
	if _, err := gitRun(gu, target, "rev-parse", "--verify", "--quiet", remoteRev+"^{commit}"); err != nil {
		return false
	}
	switch revType {
	case "branch":
		remotes, _ := gitRun(gu, target, "remote")
		if !contains(strings.Split(remotes, "\n"), remote) {
			return false
		}
		local, err := gitRun(gu, target, "rev-parse", "--verify", "--quiet", desiredUpstream)
		return err == nil && local == remoteRev
	case "tag":
		tags, _ := gitRun(gu, target, "tag", "--list")
		if !contains(strings.Split(tags, "\n"), rev) {
			return false
		}
		local, err := gitRun(gu, target, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
		return err == nil && local == remoteRev
	}
	return revType == "sha1"
}

// pySetRepr is how Salt's JSON output prints a Python set of strings
// (it falls back to repr): {'a', 'b'}. Salt's own order is the set's hash
// order; brine's is sorted.
func pySetRepr(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = "'" + s + "'"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

func formatComments(cs []string) string {
	s := strings.Join(cs, ". ")
	if len(cs) > 1 {
		s += "."
	}
	return s
}

func isHexRev(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

func gitLatest(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	fail := func(msg string, comments []string) (*value.Map, error) {
		if len(comments) > 0 {
			msg += "\n\nChanges already made: " + formatComments(comments)
		}
		ret.Set("result", false)
		ret.Set("comment", msg)
		return ret, nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fail("git is not installed", nil)
	}
	target := c.Str("target")
	remote := c.Str("remote")
	rev := c.Str("rev")
	if rev == "" {
		rev = "HEAD"
	}
	if remote == "" {
		return fail("'remote' argument is required", nil)
	}
	if target == "" {
		return fail("'target' argument is required", nil)
	}
	if !filepath.IsAbs(target) {
		return fail(fmt.Sprintf("target '%s' is not an absolute path", target), nil)
	}
	changes := getv(ret, "changes").(*value.Map)
	gu, err := lookupGitUser(c.Str("user"))
	if err != nil {
		return fail(err.Error(), nil)
	}
	refsOut, err := gitRun(gu, "", "ls-remote", name)
	if err != nil {
		return fail("Failed to check remote refs: "+err.Error(), nil)
	}
	refs := map[string]string{}
	for _, line := range strings.Split(refsOut, "\n") {
		if sha, ref, ok := strings.Cut(line, "\t"); ok {
			refs[ref] = sha
		}
	}
	var remoteRev, revType, desiredUpstream string
	switch {
	case rev == "HEAD":
		remoteRev, revType = refs["HEAD"], "sha1"
	case refs["refs/heads/"+rev] != "":
		remoteRev, revType, desiredUpstream = refs["refs/heads/"+rev], "branch", remote+"/"+rev
	case refs["refs/tags/"+rev+"^{}"] != "":
		remoteRev, revType = refs["refs/tags/"+rev+"^{}"], "tag"
	case refs["refs/tags/"+rev] != "":
		remoteRev, revType = refs["refs/tags/"+rev], "tag"
	case isHexRev(rev):
		remoteRev, revType = strings.ToLower(rev), "sha1"
	}
	var remoteLoc string
	switch {
	case revType == "sha1" && rev == "HEAD":
		remoteLoc = "remote HEAD (" + shortSHA(remoteRev) + ")"
	case revType == "sha1":
		remoteLoc = shortSHA(remoteRev)
	case remoteRev != "":
		loc := rev
		if revType == "branch" {
			loc = desiredUpstream
		}
		remoteLoc = loc + " (" + shortSHA(remoteRev) + ")"
	}
	if remoteRev == "" && rev != "HEAD" {
		return fail(fmt.Sprintf("No revision matching '%s' exists in the remote repository", rev), nil)
	}
	depth := c.Int("depth", 0)
	if depth > 0 && revType != "branch" && revType != "tag" {
		return fail("When 'depth' is used, 'rev' must be set to the name of a branch or tag on the remote repository", nil)
	}
	var comments []string
	if _, err := os.Stat(filepath.Join(target, ".git")); err == nil {
		localRev, _ := gitRun(gu, target, "rev-parse", "HEAD")
		url, _ := gitRun(gu, target, "config", "--get", "remote."+remote+".url")
		status, _ := gitRun(gu, target, "status", "--porcelain", "-uno")
		localChanges := status != ""
		urlChange := url != name
		if localRev == remoteRev && !urlChange && (!localChanges || !c.Bool("force_reset")) {
			ret.Set("comment", "Repository "+target+" is up-to-date")
			if localChanges {
				ret.Set("comment", "Repository "+target+" is up-to-date, but with uncommitted changes. Set 'force_reset' to True to purge uncommitted changes.")
			}
			return ret, nil
		}
		// Is the remote revision a fast-forward of the local one? A
		// revision not fetched yet counts as one until the fetch shows
		// otherwise.
		ff := true
		if localRev != "" && remoteRev != "" {
			if _, err := gitRun(gu, target, "cat-file", "-e", remoteRev+"^{commit}"); err == nil {
				_, err := gitRun(gu, target, "merge-base", "--is-ancestor", localRev, remoteRev)
				ff = err == nil
			}
		}
		if c.Test {
			var actions []string
			if urlChange {
				actions = append(actions, fmt.Sprintf("Remote '%s' would be changed from %s to %s", remote, url, name))
			}
			if localRev != remoteRev {
				changes.Set("revision", value.MapOf("old", localRev, "new", remoteRev))
				switch {
				case ff && !localChanges:
					actions = append(actions, "Repository would be fast-forwarded from "+shortSHA(localRev)+" to "+shortSHA(remoteRev))
				case c.Bool("force_reset"):
					changes.Set("forced update", true)
					actions = append(actions, "Repository would be hard-reset from "+shortSHA(localRev)+" to "+shortSHA(remoteRev))
				default:
					actions = append(actions, "Repository would be updated from "+shortSHA(localRev)+" to "+shortSHA(remoteRev))
				}
			} else if localChanges && c.Bool("force_reset") {
				changes.Set("forced update", true)
				actions = append(actions, "Uncommitted changes would be discarded")
			}
			ret.Set("result", nil)
			ret.Set("comment", formatComments(actions))
			return ret, nil
		}
		if urlChange {
			if _, err := gitRun(gu, target, "remote", "set-url", remote, name); err != nil {
				return fail(err.Error(), comments)
			}
			changes.Set("new", name+" => "+remote)
			comments = append(comments, fmt.Sprintf("Remote '%s' changed from %s to %s", remote, url, name))
		}
		hasRemoteRev := gitHasRemoteRev(gu, target, remote, rev, revType, localRev, remoteRev, desiredUpstream)
		// Tags: a remote tag missing locally forces a fetch (changes
		// new_tags, printed as Salt prints a Python set); with sync_tags a
		// local tag gone from the remote is deleted.
		if c.Bool("fetch_tags") {
			localTags, _ := gitRun(gu, target, "tag", "--list")
			remoteOut, _ := gitRun(gu, target, "ls-remote", "--tags", remote)
			local, remoteTags := map[string]bool{}, map[string]bool{}
			for _, t := range strings.Split(localTags, "\n") {
				if t != "" {
					local[t] = true
				}
			}
			for _, l := range strings.Split(remoteOut, "\n") {
				if _, ref, ok := strings.Cut(l, "\t"); ok && !strings.Contains(ref, "^{}") {
					remoteTags[strings.TrimPrefix(ref, "refs/tags/")] = true
				}
			}
			var newTags, deleted []string
			for t := range remoteTags {
				if !local[t] {
					newTags = append(newTags, t)
				}
			}
			for t := range local {
				if !remoteTags[t] {
					deleted = append(deleted, t)
				}
			}
			sort.Strings(newTags)
			sort.Strings(deleted)
			if len(newTags) > 0 || len(deleted) > 0 {
				hasRemoteRev = false
			}
			if len(newTags) > 0 {
				changes.Set("new_tags", pySetRepr(newTags))
			}
			if c.Bool("sync_tags") && len(deleted) > 0 {
				var gone []string
				for _, t := range deleted {
					if _, err := gitRun(gu, target, "tag", "-d", t); err == nil {
						gone = append(gone, t)
					}
				}
				if len(gone) > 0 {
					l := value.NewList()
					for _, t := range gone {
						l.Append(t)
					}
					changes.Set("deleted_tags", l)
					comments = append(comments, "The following tags were removed from the local checkout: "+strings.Join(gone, ", "))
				}
			}
		}
		if !hasRemoteRev {
			fetch := []string{"fetch"}
			if c.Bool("force_fetch") {
				fetch = append(fetch, "--force")
			}
			fetch = append(fetch, remote)
			if c.Bool("fetch_tags") {
				fetch = append(fetch, fmt.Sprintf("refs/heads/%s:refs/remotes/%s/%s", c.Str("refspec_branch"), remote, c.Str("refspec_branch")),
					fmt.Sprintf("+refs/tags/%s:refs/tags/%s", c.Str("refspec_tag"), c.Str("refspec_tag")))
			}
			if out, err := gitRunCombined(gu, target, fetch...); err != nil {
				return fail("Fetch failed. Set 'force_fetch' to True to force the fetch if the failure was due to not being able to fast-forward. Output of the fetch command follows:\n\n"+err.Error(), comments)
			} else if gitFetchUpdateRE.MatchString(out) {
				comments = append(comments, name+" was fetched, resulting in updated refs")
			}
		}
		if localRev != "" && remoteRev != "" {
			_, err := gitRun(gu, target, "merge-base", "--is-ancestor", localRev, remoteRev)
			ff = err == nil
		}
		if (!ff || localChanges) && !c.Bool("force_reset") {
			why := "this is not a fast-forward merge"
			if localChanges {
				why = "there are uncommitted changes"
			}
			what := "to " + shortSHA(remoteRev)
			orRemote, discard := "", ""
			if localChanges {
				orRemote, discard = " (or 'remote-changes')", " and discard these changes"
				if shortSHA(localRev) != shortSHA(remoteRev) {
					what = "from " + shortSHA(localRev) + " " + what
				}
			}
			return fail(fmt.Sprintf("Repository would be updated %s, but %s. Set 'force_reset' to True%s to force this update%s.",
				what, why, orRemote, discard), comments)
		}
		if revType == "branch" {
			cur, _ := gitRun(gu, target, "rev-parse", "--abbrev-ref", "HEAD")
			branch := c.Str("branch")
			if branch == "" {
				branch = rev
			}
			if cur != branch {
				if _, err := gitRun(gu, target, "checkout", "-B", branch, remoteRev); err != nil {
					return fail(err.Error(), comments)
				}
				comments = append(comments, fmt.Sprintf("New branch '%s' was checked out, with %s as a starting point", branch, remoteLoc))
			}
		}
		if ff && !localChanges {
			if _, err := gitRun(gu, target, "merge", "--ff-only", remoteRev); err != nil {
				if _, err := gitRun(gu, target, "reset", "--hard", remoteRev); err != nil {
					return fail(err.Error(), comments)
				}
			}
			comments = append(comments, "Repository was fast-forwarded to "+remoteLoc)
		} else {
			if _, err := gitRun(gu, target, "reset", "--hard", remoteRev); err != nil {
				return fail(err.Error(), comments)
			}
			changes.Set("forced update", true)
			if localChanges {
				comments = append(comments, "Uncommitted changes were discarded")
			}
			comments = append(comments, "Repository was hard-reset to "+remoteLoc)
		}
		if c.Bool("submodules") {
			if _, err := gitRun(gu, target, "submodule", "update", "--init", "--recursive"); err != nil {
				return fail("Failed to update submodules: "+err.Error(), comments)
			}
		}
		newRev, _ := gitRun(gu, target, "rev-parse", "HEAD")
		if remoteRev != "" && newRev != remoteRev {
			return fail("Failed to update repository", comments)
		}
		if localRev != newRev {
			ret.Set("comment", formatComments(comments))
			changes.Set("revision", value.MapOf("old", localRev, "new", newRev))
		} else {
			ret.Set("comment", "Repository "+target+" is up-to-date")
			if len(comments) > 0 {
				ret.Set("comment", "Repository "+target+" is up-to-date\n\nChanges made: "+formatComments(comments))
			}
		}
		return ret, nil
	}
	// Clone.
	if ents, err := os.ReadDir(target); err == nil && len(ents) > 0 {
		if !c.Bool("force_clone") {
			return fail(fmt.Sprintf("Target '%s' exists, is non-empty and is not a git repository. Set the 'force_clone' option to True to remove this directory's contents and proceed with cloning the remote repository", target), nil)
		}
		if c.Test {
			changes.Set("forced clone", true)
			changes.Set("new", name+" => "+target)
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("Target directory %s exists. Since force_clone=True, the contents of %s would be deleted, and %s would be cloned into this directory.", target, target, name))
			return ret, nil
		}
		for _, e := range ents {
			if err := os.RemoveAll(filepath.Join(target, e.Name())); err != nil {
				return fail(fmt.Sprintf("Unable to remove %s: %s", target, err), nil)
			}
		}
		changes.Set("forced clone", true)
	} else if c.Test {
		changes.Set("new", name+" => "+target)
		ret.Set("result", nil)
		ret.Set("comment", "Repository "+name+" would be cloned to "+target)
		return ret, nil
	}
	// Salt clones the remote's default branch (only a shallow clone names
	// rev), then resets that branch to the wanted revision and fixes its
	// upstream: a tag or SHA1 leaves the default branch checked out at that
	// commit with no upstream.
	args := []string{"clone", "--origin", remote}
	if depth > 0 {
		args = append(args, "--depth", fmt.Sprint(depth), "--branch", rev)
	}
	if _, err := gitRun(gu, "", append(args, name, target)...); err != nil {
		return fail(fmt.Sprintf("Clone failed: %s", err), nil)
	}
	changes.Set("new", name+" => "+target)
	comments = append(comments, name+" cloned to "+target)
	if remoteRev != "" {
		if revType == "tag" {
			tags, _ := gitRun(gu, target, "tag", "--list")
			if !contains(strings.Split(tags, "\n"), rev) {
				return fail(fmt.Sprintf("Revision '%s' does not exist in clone", rev), comments)
			}
		}
		localBranches := func() []string {
			out, _ := gitRun(gu, target, "for-each-ref", "--format", "%(refname:short)", "refs/heads/")
			return strings.Split(out, "\n")
		}
		branch := c.Str("branch")
		if branch != "" && !contains(localBranches(), branch) {
			start := rev
			switch {
			case rev == "HEAD":
				start = remoteRev
			case desiredUpstream != "":
				start = desiredUpstream
			}
			if _, err := gitRun(gu, target, "checkout", "-b", branch, start); err != nil {
				return fail(err.Error(), comments)
			}
			comments = append(comments, fmt.Sprintf("Branch '%s' checked out, with %s as a starting point", branch, remoteLoc))
		}
		localRev, _ := gitRun(gu, target, "rev-parse", "HEAD")
		localBranch, _ := gitRun(gu, target, "rev-parse", "--abbrev-ref", "HEAD")
		same := localRev == remoteRev
		if revType == "sha1" {
			same = strings.HasPrefix(localRev, remoteRev)
		}
		if !same {
			if _, err := gitRun(gu, target, "reset", "--hard", remoteRev); err != nil {
				return fail(err.Error(), comments)
			}
			comments = append(comments, "Repository was reset to "+remoteLoc)
		}
		upstream, err := gitRun(gu, target, "rev-parse", "--abbrev-ref", localBranch+"@{upstream}")
		if err != nil {
			upstream = ""
		}
		// desiredUpstream is "" for a tag or SHA1 (Salt's False) and for
		// HEAD (Salt's None: whatever the clone set up is kept).
		var branchOpts []string
		action := ""
		switch {
		case upstream == "" && desiredUpstream != "":
			action = "Tracking branch was set to " + desiredUpstream
		case upstream != "" && desiredUpstream == "" && rev != "HEAD":
			action, branchOpts = "Tracking branch was unset", []string{"--unset-upstream"}
		case desiredUpstream != "" && upstream != desiredUpstream:
			action = "Tracking branch was updated to " + desiredUpstream
		}
		if action != "" && branchOpts == nil && (branch == "" || contains(localBranches(), branch)) {
			branchOpts = []string{"--set-upstream-to", desiredUpstream}
		}
		if branchOpts != nil {
			if _, err := gitRun(gu, target, append([]string{"branch"}, branchOpts...)...); err != nil {
				return fail(err.Error(), comments)
			}
			comments = append(comments, action)
		}
	}
	if c.Bool("submodules") {
		if _, err := gitRun(gu, target, "submodule", "update", "--init", "--recursive"); err != nil {
			return fail("Failed to update submodules: "+err.Error(), comments)
		}
	}
	ret.Set("comment", formatComments(comments))
	if newRev, err := gitRun(gu, target, "rev-parse", "HEAD"); err == nil {
		changes.Set("revision", value.MapOf("old", nil, "new", newRev))
	}
	return ret, nil
}
