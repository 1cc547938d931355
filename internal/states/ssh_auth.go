package states

// ssh_auth.go is salt/states/ssh_auth.py (ssh_auth.present and
// ssh_auth.absent for keys given inline) with the authorized_keys handling
// of salt/modules/ssh.py: lines "[options ]enc key comment", the file
// relative to the user's home unless absolute, created with mode 0600 in
// a 0700 .ssh directory owned by the user.

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/sshkeys"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	params := []statemod.Param{statemod.Req("name"), statemod.Req("user"), statemod.Opt("enc", "ssh-rsa"),
		statemod.Opt("comment", ""), statemod.Opt("source", ""), statemod.Opt("options", nil),
		statemod.Opt("config", ".ssh/authorized_keys"), statemod.Opt("fingerprint_hash_type", nil)}
	statemod.Register(&statemod.Function{Name: "ssh_auth.present", Params: params, Kwargs: true,
		Doc: "Ensure that the SSH public key is in the user's authorized keys.", Run: sshAuthPresent})
	statemod.Register(&statemod.Function{Name: "ssh_auth.absent", Params: params,
		Doc: "Ensure that the SSH public key is not in the user's authorized keys.", Run: sshAuthAbsent})
}

var sshKeyRE = regexp.MustCompile(`^(.*?)\s?((?:sk-)?(?:ssh\-|ecds)[\w-]+\s.+)$`)

// sshKey is one parsed key.
type sshKey = sshkeys.Key

// refineEnc is ssh._refine_enc; an unknown type is kept as given.
func refineEnc(enc string) string {
	e, _ := sshkeys.RefineEnc(enc)
	return e
}

// parseAuthLine parses a key line (an empty key for comments and junk).
func parseAuthLine(line string) sshKey {
	k, _ := sshkeys.ParseLine(line)
	return k
}

// sshArgs reads the key from the arguments, as the state does: name may
// be a whole "options enc key comment" line.
func sshArgs(c *statemod.Call) sshKey {
	k := sshKey{Key: c.Name(), Enc: c.Str("enc"), Comment: c.Str("comment"), Options: listStrings(c.Get("options"))}
	if m := sshKeyRE.FindStringSubmatch(k.Key); m != nil {
		if m[1] != "" {
			k.Options = strings.Split(m[1], ",")
		}
		comps := strings.SplitN(strings.TrimSpace(m[2]), " ", 3)
		k.Enc, k.Key = comps[0], comps[1]
		if len(comps) == 3 {
			k.Comment = comps[2]
		}
	} else if f := strings.SplitN(strings.TrimSpace(k.Key), " ", 2); len(f) == 2 {
		k.Key, k.Comment = f[0], strings.TrimSpace(f[1])
	}
	k.Enc = refineEnc(k.Enc)
	return k
}

// authKeysPath resolves config for user; ok is false for an unknown user.
func authKeysPath(c *statemod.Call, user string) (path string, uid, gid int, ok bool) {
	u, found, _ := userDB(c).User(user)
	if !found {
		return "", 0, 0, false
	}
	cfg := strings.ReplaceAll(strings.ReplaceAll(c.Str("config"), "%h", u.Home), "%u", user)
	if !filepath.IsAbs(cfg) {
		cfg = filepath.Join(u.Home, cfg)
	}
	return cfg, int(u.UID), int(u.GID), true
}

// sshCheck is ssh.check_key: add, update or exists.
func sshCheck(lines []string, k sshKey) string {
	for _, l := range lines {
		cur := parseAuthLine(l)
		if cur.Key != k.Key {
			continue
		}
		if cur.Line() != k.Line() {
			return "update"
		}
		return "exists"
	}
	return "add"
}

func readKeyLines(path string) ([]string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	lines := strings.SplitAfter(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines, true
}

func sshAuthPresent(c *statemod.Call) (*value.Map, error) {
	user := c.Str("user")
	ret := statemod.Ret(c.Get("name"), true, "")
	if c.Str("source") != "" {
		return statemod.Ret(c.Get("name"), false, "ssh_auth: keys from a source file are not supported by brine yet"), nil
	}
	k := sshArgs(c)
	path, uid, gid, ok := authKeysPath(c, user)
	lines, _ := readKeyLines(path)
	if c.Test {
		switch sshCheck(lines, k) {
		case "update":
			ret.Set("result", nil)
			ret.Set("comment", "Key "+k.Key+" for user "+user+" is set to be updated")
		case "add":
			ret.Set("result", nil)
			ret.Set("comment", "Key "+k.Key+" for user "+user+" is set to be added")
		default:
			ret.Set("comment", "The authorized host key "+k.Key+" is already present for user "+user)
		}
		return ret, nil
	}
	if !ok {
		ret.Set("result", false)
		ret.Set("comment", "Failed to add the ssh key. Is the home directory available, and/or does the key file exist?")
		return ret, nil
	}
	if strings.ContainsAny(k.Key, " \t") {
		ret.Set("result", false)
		ret.Set("comment", "Invalid public ssh key, most likely has spaces or invalid syntax")
		return ret, nil
	}
	if _, err := base64.StdEncoding.DecodeString(k.Key); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Invalid public ssh key, most likely has spaces or invalid syntax")
		return ret, nil
	}
	status := sshCheck(lines, k)
	switch status {
	case "exists":
		ret.Set("comment", "The authorized host key "+k.Key+" is already present for user "+user)
		return ret, nil
	case "update":
		for i, l := range lines {
			if parseAuthLine(l).Key == k.Key {
				lines[i] = k.Line()
			}
		}
	default:
		if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
			lines[n-1] += "\n"
		}
		lines = append(lines, k.Line())
	}
	dir := filepath.Dir(path)
	if !isDir(dir) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			ret.Set("result", false)
			ret.Set("comment", "Failed to add the ssh key. Is the home directory available, and/or does the key file exist?")
			return ret, nil
		}
		os.Chown(dir, uid, gid)
	}
	isNew := !exists(path)
	if err := writeInPlace(path, []byte(strings.Join(lines, ""))); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to add the ssh key. Is the home directory available, and/or does the key file exist?")
		return ret, nil
	}
	if isNew {
		os.Chmod(path, 0o600)
		os.Chown(path, uid, gid)
	}
	changes := getv(ret, "changes").(*value.Map)
	if status == "update" {
		changes.Set(k.Key, "Updated")
		ret.Set("comment", "The authorized host key "+k.Key+" for user "+user+" was updated")
	} else {
		changes.Set(k.Key, "New")
		ret.Set("comment", "The authorized host key "+k.Key+" for user "+user+" was added")
	}
	return ret, nil
}

func sshAuthAbsent(c *statemod.Call) (*value.Map, error) {
	user := c.Str("user")
	ret := statemod.Ret(c.Get("name"), true, "")
	if c.Str("source") != "" {
		return statemod.Ret(c.Get("name"), false, "ssh_auth: keys from a source file are not supported by brine yet"), nil
	}
	k := sshArgs(c)
	path, _, _, _ := authKeysPath(c, user)
	lines, found := readKeyLines(path)
	if c.Test {
		switch sshCheck(lines, k) {
		case "update", "exists":
			ret.Set("result", nil)
			ret.Set("comment", "Key "+k.Key+" for user "+user+" is set for removal")
		default:
			ret.Set("comment", "Key is already absent")
		}
		return ret, nil
	}
	// A missing file holds no keys: Salt's ssh.rm_auth_key says "Key not
	// present" before it ever opens the file.
	if !found {
		ret.Set("comment", "Key not present")
		return ret, nil
	}
	var keep []string
	removed := false
	for _, l := range lines {
		if parseAuthLine(l).Key == k.Key {
			removed = true
			continue
		}
		keep = append(keep, l)
	}
	if !removed {
		ret.Set("comment", "Key not present")
		return ret, nil
	}
	if err := writeInPlace(path, []byte(strings.Join(keep, ""))); err != nil {
		ret.Set("result", false)
		ret.Set("comment", err.Error())
		return ret, nil
	}
	ret.Set("comment", "Key removed")
	getv(ret, "changes").(*value.Map).Set(k.Key, "Removed")
	return ret, nil
}

// writeInPlace rewrites an existing file through its own inode, as Salt's
// ssh module does (open with "w"), so the owner and mode stay what they
// were; a new file gets 0600 before the caller chowns it.
func writeInPlace(path string, data []byte) error {
	return os.WriteFile(path, data, 0o600)
}
