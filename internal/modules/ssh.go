package modules

// ssh.go is salt/modules/ssh.py: users' authorized_keys files and the
// known_hosts files, the latter through ssh-keygen and ssh-keyscan as Salt
// drives them. The line and key handling is internal/sshkeys, shared with
// the ssh_auth and ssh_known_hosts states.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/sshkeys"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("ssh."+name, f, doc) }
	reg("auth_keys", sshAuthKeys, "Return the authorized keys of user (all users when none): key -> enc, comment, options, fingerprint.")
	reg("check_key", sshCheckKey, "Whether a key is in user's authorized_keys: 'add', 'update' or 'exists'.")
	reg("set_auth_key", sshSetAuthKey, "Add or update a key in user's authorized_keys: 'new', 'replace', 'no change', 'fail' or 'invalid'.")
	reg("rm_auth_key", sshRmAuthKey, "Remove a key from user's authorized_keys.")
	reg("get_known_host_entries", sshGetKnownHostEntries, "Return the known_hosts entries of hostname (ssh-keygen -F), or None.")
	reg("recv_known_host_entries", sshRecvKnownHostEntries, "Return the host keys of a remote host (ssh-keyscan), or None.")
	reg("check_known_host", sshCheckKnownHost, "Whether hostname's key is known: 'add', 'update' or 'exists'.")
	reg("rm_known_host", sshRmKnownHost, "Remove hostname's entries from a known_hosts file (ssh-keygen -R).")
	reg("set_known_host", sshSetKnownHost, "Add or update hostname's key in a known_hosts file.")
	reg("hash_known_hosts", sshHashKnownHosts, "Hash the host names of a known_hosts file (ssh-keygen -H).")
	reg("key_is_encrypted", sshKeyIsEncrypted, "Whether the private key file at key is encrypted.")
}

func sshErr(msg string) *value.Map { return value.MapOf("status", "error", "error", msg) }

// sshConfigFile is ssh._get_config_file: user's authorized_keys path.
func sshConfigFile(user, config string) (string, error) {
	u, ok, err := userDB(nil).User(user)
	if err != nil || !ok {
		return "", execmod.Errorf("User '%s' does not exist", user)
	}
	p, err := sshkeys.ExpandPath(config, user, u.Home)
	if err != nil {
		return "", execmod.Errorf("%s", err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(u.Home, p)
	}
	return p, nil
}

func optStr(v any) string {
	if v == nil {
		return ""
	}
	return value.Str(v)
}

// authKeysOf is auth_keys for one user: the entries of the file, nil when
// the user or file is missing.
func authKeysOf(user, config, hashType string) ([]sshkeys.Entry, error) {
	full, err := sshConfigFile(user, config)
	if err != nil {
		return nil, nil
	}
	if fi, err := os.Stat(full); err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	entries, err := sshkeys.ReadKeys(full, hashType)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return entries, nil
}

func keysMap(entries []sshkeys.Entry) *value.Map {
	out := value.NewMap(len(entries))
	for _, e := range entries {
		opts := value.NewList()
		for _, o := range e.Options {
			opts.Append(o)
		}
		out.Set(e.Key.Key, value.MapOf("enc", e.Enc, "comment", e.Comment, "options", opts, "fingerprint", e.Fingerprint))
	}
	return out
}

func sshAuthKeys(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("auth_keys", args, kwargs, execmod.Opt("user", nil), execmod.Opt("config", ".ssh/authorized_keys"),
		execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	var users []string
	single := false
	switch u := v[0].(type) {
	case *value.List:
		for _, it := range u.Items {
			users = append(users, value.Str(it))
		}
	default:
		if !value.Truthy(u) {
			all, err := userDB(nil).Users()
			if err != nil {
				return nil, err
			}
			for _, x := range all {
				users = append(users, x.Name)
			}
		} else {
			users, single = []string{value.Str(u)}, true
		}
	}
	out := value.NewMap(len(users))
	for _, u := range users {
		full, err := sshConfigFile(u, execmod.String(v[1]))
		if err != nil {
			continue
		}
		if fi, err := os.Stat(full); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		entries, err := sshkeys.ReadKeys(full, optStr(v[2]))
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		out.Set(u, keysMap(entries))
	}
	if single {
		if m, ok := out.Get(users[0]); ok {
			return m, nil
		}
		return value.NewMap(0), nil
	}
	return out, nil
}

// optionList is the options argument as a list of strings.
func optionList(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case *value.List:
		out := make([]string, len(x.Items))
		for i, it := range x.Items {
			out[i] = value.Str(it)
		}
		return out
	case string:
		if x == "" {
			return nil
		}
		return []string{x}
	}
	return []string{value.Str(v)}
}

// checkKey is ssh.check_key.
func checkKey(user string, k sshkeys.Key, config, hashType string) (string, error) {
	enc, err := sshkeys.RefineEnc(k.Enc)
	if err != nil {
		return "", execmod.Errorf("%s", err)
	}
	k.Enc = enc
	cur, err := authKeysOf(user, config, hashType)
	if err != nil {
		return "", err
	}
	for _, e := range cur {
		if e.Key.Key == k.Key {
			if e.Key.Line() != k.Line() {
				return "update", nil
			}
			return "exists", nil
		}
	}
	return "add", nil
}

func sshCheckKey(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_key", args, kwargs, execmod.Req("user"), execmod.Req("key"), execmod.Req("enc"),
		execmod.Req("comment"), execmod.Req("options"), execmod.Opt("config", ".ssh/authorized_keys"),
		execmod.Opt("cache_keys", nil), execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	k := sshkeys.Key{Enc: value.Str(v[2]), Key: value.Str(v[1]), Comment: value.Str(v[3]), Options: optionList(v[4])}
	return checkKey(value.Str(v[0]), k, execmod.String(v[5]), optStr(v[7]))
}

// keyFileLines reads an authorized_keys file as Salt rewrites it: lines
// stripped, blank ones dropped, each ending in a newline.
func keyFileLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l+"\n")
		}
	}
	return out, nil
}

func sshSetAuthKey(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_auth_key", args, kwargs, execmod.Req("user"), execmod.Req("key"), execmod.Opt("enc", "ssh-rsa"),
		execmod.Opt("comment", ""), execmod.Opt("options", nil), execmod.Opt("config", ".ssh/authorized_keys"),
		execmod.Opt("cache_keys", nil), execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	user, key, config, hashType := value.Str(v[0]), value.Str(v[1]), execmod.String(v[5]), optStr(v[7])
	if len(strings.Fields(key)) > 1 {
		return "invalid", nil
	}
	enc, err := sshkeys.RefineEnc(value.Str(v[2]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	u, ok, _ := userDB(nil).User(user)
	if !ok {
		return "fail", nil
	}
	if _, valid, err := sshkeys.Fingerprint(key, hashType); err != nil {
		return nil, execmod.Errorf("%s", err)
	} else if !valid {
		return "Invalid public key", nil
	}
	k := sshkeys.Key{Enc: enc, Key: key, Comment: value.Str(v[3]), Options: optionList(v[4])}
	status, err := checkKey(user, k, config, hashType)
	if err != nil {
		return nil, err
	}
	full, err := sshConfigFile(user, config)
	if err != nil {
		return nil, err
	}
	switch status {
	case "exists":
		return "no change", nil
	case "update":
		lines, err := keyFileLines(full)
		if err != nil {
			return nil, execmod.Errorf("Problem reading or writing to key file: %v", err)
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, "#") {
				if cur, ok := sshkeys.ParseLine(l); ok && cur.Key == key {
					lines[i] = k.Line()
				}
			}
		}
		if err := writeText(full, strings.Join(lines, "")); err != nil {
			return nil, execmod.Errorf("Problem reading or writing to key file: %v", err)
		}
		return "replace", nil
	}
	if strings.HasPrefix(full, u.Home) && !isDirPath(u.Home) {
		return "fail", nil
	}
	if dir := filepath.Dir(full); !isDirPath(dir) {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return nil, err
		}
		if os.Geteuid() == 0 {
			_ = os.Chown(dir, int(u.UID), int(u.GID))
		}
		_ = os.Chmod(dir, 0o700)
	}
	newFile := !existsPath(full)
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return nil, execmod.Errorf("Could not write to key file: %v", err)
	}
	line := k.Line()
	if !newFile {
		if data, err := os.ReadFile(full); err == nil && len(data) > 0 && data[len(data)-1] != '\n' {
			line = "\n" + line
		}
	}
	_, werr := f.WriteString(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, execmod.Errorf("Could not write to key file: %v", werr)
	}
	if newFile {
		if os.Geteuid() == 0 {
			_ = os.Chown(full, int(u.UID), int(u.GID))
		}
		_ = os.Chmod(full, 0o600)
	}
	return "new", nil
}

func sshRmAuthKey(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_auth_key", args, kwargs, execmod.Req("user"), execmod.Req("key"),
		execmod.Opt("config", ".ssh/authorized_keys"), execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	user, key, config := value.Str(v[0]), value.Str(v[1]), execmod.String(v[2])
	cur, err := authKeysOf(user, config, optStr(v[3]))
	if err != nil {
		return nil, err
	}
	present := false
	for _, e := range cur {
		present = present || e.Key.Key == key
	}
	if !present {
		return "Key not present", nil
	}
	full, err := sshConfigFile(user, config)
	if err != nil {
		return nil, err
	}
	lines, err := keyFileLines(full)
	if err != nil {
		return "Key not removed", nil
	}
	var keep []string
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			keep = append(keep, l)
			continue
		}
		k, ok := sshkeys.ParseLine(l)
		if !ok || k.Key == key {
			continue
		}
		keep = append(keep, l)
	}
	if err := writeText(full, strings.Join(keep, "")); err != nil {
		return "Key not removed", nil
	}
	return "Key removed", nil
}

// knownHostsFile is ssh._get_known_hosts_file: the path, or Salt's error
// dict.
func knownHostsFile(config, user any) (string, *value.Map) {
	cfg := optStr(config)
	if value.Truthy(user) {
		if cfg == "" {
			cfg = ".ssh/known_hosts"
		}
	} else if cfg == "" {
		cfg = "/etc/ssh/ssh_known_hosts"
	}
	if filepath.IsAbs(cfg) {
		return cfg, nil
	}
	if !value.Truthy(user) {
		return "", sshErr("Cannot determine absolute path to file.")
	}
	u, ok, _ := userDB(nil).User(value.Str(user))
	if !ok {
		return "", sshErr(fmt.Sprintf("User %s does not exist", value.Str(user)))
	}
	return filepath.Join(u.Home, cfg), nil
}

// needCommand is salt.utils.decorators.path.which: the error a function
// raises when its command is missing.
func needCommand(cmd string) error {
	if lookPath(cmd) == "" {
		return &execmod.CommandExecutionError{Msg: fmt.Sprintf("The '%s' binary was not found in $PATH.", cmd)}
	}
	return nil
}

func cmdRunLines(ctx *execmod.Context, cmd []string, kw ...any) ([]string, error) {
	out, err := ctx.Call("cmd.run", []any{value.NewList(toAny(cmd)...)}, value.MapOf(append([]any{"python_shell", false}, kw...)...))
	if err != nil {
		return nil, err
	}
	s := value.Str(out)
	if s == "" {
		return nil, nil
	}
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), nil
}

func hostEntriesList(es []sshkeys.HostEntry) any {
	if len(es) == 0 {
		return nil
	}
	out := value.NewList()
	for _, e := range es {
		out.Append(value.MapOf("hostname", e.Hostname, "key", e.Key, "enc", e.Enc, "fingerprint", e.Fingerprint))
	}
	return out
}

// knownHostEntries is get_known_host_entries; errMap is Salt's error dict.
func knownHostEntries(ctx *execmod.Context, user, hostname, config, port any, hashType string) ([]sshkeys.HostEntry, *value.Map, error) {
	if err := needCommand("ssh-keygen"); err != nil {
		return nil, nil, err
	}
	full, emap := knownHostsFile(config, user)
	if emap != nil {
		return nil, emap, nil
	}
	lines, err := cmdRunLines(ctx, []string{"ssh-keygen", "-F", sshkeys.SSHHostname(value.Str(hostname), port), "-f", full}, "ignore_retcode", true)
	if err != nil {
		return nil, nil, err
	}
	es, err := sshkeys.ParseHostLines(lines, hashType)
	if err != nil {
		return nil, nil, execmod.Errorf("%s", err)
	}
	return es, nil, nil
}

func sshGetKnownHostEntries(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_known_host_entries", args, kwargs, execmod.Req("user"), execmod.Req("hostname"),
		execmod.Opt("config", nil), execmod.Opt("port", nil), execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	es, emap, err := knownHostEntries(ctx, v[0], v[1], v[2], v[3], optStr(v[4]))
	if err != nil || emap != nil {
		return emap, err
	}
	return hostEntriesList(es), nil
}

// recvHostEntries is recv_known_host_entries.
func recvHostEntries(ctx *execmod.Context, hostname string, enc, port any, hash bool, timeout any, hashType string) ([]sshkeys.HostEntry, error) {
	if err := needCommand("ssh-keyscan"); err != nil {
		return nil, err
	}
	cmd := []string{"ssh-keyscan"}
	if value.Truthy(port) {
		cmd = append(cmd, "-p", value.Str(port))
	}
	if value.Truthy(enc) {
		cmd = append(cmd, "-t", value.Str(enc))
	}
	if hash {
		cmd = append(cmd, "-H")
	}
	cmd = append(cmd, "-T", value.Str(timeout), hostname)
	var lines []string
	for attempt := 0; attempt < 5 && len(lines) == 0; attempt++ {
		l, err := cmdRunLines(ctx, cmd)
		if err != nil {
			return nil, err
		}
		lines = l
	}
	es, err := sshkeys.ParseHostLines(lines, hashType)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return es, nil
}

func sshRecvKnownHostEntries(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("recv_known_host_entries", args, kwargs, execmod.Req("hostname"), execmod.Opt("enc", nil),
		execmod.Opt("port", nil), execmod.Opt("hash_known_hosts", true), execmod.Opt("timeout", int64(5)),
		execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	es, err := recvHostEntries(ctx, value.Str(v[0]), v[1], v[2], value.Truthy(v[3]), v[4], optStr(v[5]))
	if err != nil {
		return nil, err
	}
	return hostEntriesList(es), nil
}

func sshCheckKnownHost(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_known_host", args, kwargs, execmod.Opt("user", nil), execmod.Opt("hostname", nil),
		execmod.Opt("key", nil), execmod.Opt("fingerprint", nil), execmod.Opt("config", nil), execmod.Opt("port", nil),
		execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		return sshErr("hostname argument required"), nil
	}
	config := v[4]
	if !value.Truthy(config) {
		config = "/etc/ssh/ssh_known_hosts"
		if value.Truthy(v[0]) {
			config = ".ssh/known_hosts"
		}
	}
	es, emap, err := knownHostEntries(ctx, v[0], v[1], config, v[5], optStr(v[6]))
	if err != nil {
		return nil, err
	}
	if emap != nil || len(es) == 0 {
		return "add", nil
	}
	switch {
	case value.Truthy(v[2]):
		for _, e := range es {
			if e.Key == value.Str(v[2]) {
				return "exists", nil
			}
		}
		return "update", nil
	case value.Truthy(v[3]):
		for _, e := range es {
			if e.Fingerprint == value.Str(v[3]) {
				return "exists", nil
			}
		}
		return "update", nil
	}
	return "exists", nil
}

func chownToUser(path string, user any) {
	if os.Geteuid() != 0 || !value.Truthy(user) {
		return
	}
	if u, ok, _ := userDB(nil).User(value.Str(user)); ok {
		_ = os.Chown(path, int(u.UID), int(u.GID))
	}
}

func sshRmKnownHost(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_known_host", args, kwargs, execmod.Opt("user", nil), execmod.Opt("hostname", nil),
		execmod.Opt("config", nil), execmod.Opt("port", nil))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		return sshErr("hostname argument required"), nil
	}
	full, emap := knownHostsFile(v[2], v[0])
	if emap != nil {
		return emap, nil
	}
	if fi, err := os.Stat(full); err != nil || !fi.Mode().IsRegular() {
		return sshErr(fmt.Sprintf("Known hosts file %s does not exist", full)), nil
	}
	out, err := ctx.Call("cmd.run", []any{value.NewList("ssh-keygen", "-R", sshkeys.SSHHostname(value.Str(v[1]), v[3]), "-f", full)}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	chownToUser(full, v[0])
	return value.MapOf("status", "removed", "comment", out), nil
}

func sshHashKnownHosts(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("hash_known_hosts", args, kwargs, execmod.Opt("user", nil), execmod.Opt("config", nil))
	if err != nil {
		return nil, err
	}
	if err := needCommand("ssh-keygen"); err != nil {
		return nil, err
	}
	return hashKnownHosts(ctx, v[0], v[1])
}

func hashKnownHosts(ctx *execmod.Context, user, config any) (any, error) {
	full, emap := knownHostsFile(config, user)
	if emap != nil {
		return emap, nil
	}
	fi, err := os.Stat(full)
	if err != nil || !fi.Mode().IsRegular() {
		return sshErr(fmt.Sprintf("Known hosts file %s does not exist", full)), nil
	}
	out, err := ctx.Call("cmd.run", []any{value.NewList("ssh-keygen", "-H", "-f", full)}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	_ = os.Chmod(full, fi.Mode())
	chownToUser(full, user)
	return value.MapOf("status", "updated", "comment", out), nil
}

func sshSetKnownHost(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_known_host", args, kwargs, execmod.Opt("user", nil), execmod.Opt("hostname", nil),
		execmod.Opt("fingerprint", nil), execmod.Opt("key", nil), execmod.Opt("port", nil), execmod.Opt("enc", nil),
		execmod.Opt("config", nil), execmod.Opt("hash_known_hosts", true), execmod.Opt("timeout", int64(5)),
		execmod.Opt("fingerprint_hash_type", nil))
	if err != nil {
		return nil, err
	}
	user, host, fp, key, port, enc, config := v[0], v[1], v[2], v[3], v[4], v[5], v[6]
	hash, hashType := value.Truthy(v[7]), optStr(v[9])
	if !value.Truthy(host) {
		return sshErr("hostname argument required"), nil
	}
	hostname := value.Str(host)
	if port != nil && !value.Equal(port, int64(22)) && hash {
		return sshErr("argument port can not be used in conjunction with argument hash_known_hosts"), nil
	}
	stored, emap, err := knownHostEntries(ctx, user, hostname, config, port, hashType)
	if err != nil {
		return nil, err
	}
	if emap != nil {
		stored = nil
	}
	has := func(es []sshkeys.HostEntry, want string, byFP bool) bool {
		for _, e := range es {
			if byFP && e.Fingerprint == want || !byFP && e.Key == want {
				return true
			}
		}
		return false
	}
	update, check := false, false
	switch {
	case len(stored) == 0:
		update = true
	case value.Truthy(fp) && !has(stored, value.Str(fp), true):
		update = true
	case value.Truthy(key) && !has(stored, value.Str(key), false):
		update = true
	case key == nil && fp == nil:
		check = true
	}
	storedKeys := func() *value.List {
		l := value.NewList()
		for _, e := range stored {
			l.Append(e.Key)
		}
		return l
	}
	if !update && !check {
		return value.MapOf("status", "exists", "keys", storedKeys()), nil
	}
	var remote []sshkeys.HostEntry
	if !value.Truthy(key) {
		remote, err = recvHostEntries(ctx, hostname, enc, port, hash, v[8], hashType)
		if err != nil {
			return nil, err
		}
		if len(remote) == 0 {
			return sshErr("Unable to receive remote host keys"), nil
		}
		if value.Truthy(fp) && !has(remote, value.Str(fp), true) {
			return sshErr("Remote host public keys found but none of their fingerprints match the one you have provided"), nil
		}
		if check {
			for _, r := range remote {
				if has(stored, r.Key, false) {
					return value.MapOf("status", "exists", "keys", storedKeys()), nil
				}
			}
		}
	}
	full, emap := knownHostsFile(config, user)
	if emap != nil {
		return emap, nil
	}
	var origMode os.FileMode
	if fi, err := os.Stat(full); err == nil && fi.Mode().IsRegular() {
		origMode = fi.Mode()
		if err := removeHostLines(ctx, full, hostname, port, enc); err != nil {
			return nil, err
		}
	}
	newEntries := value.NewList()
	var b strings.Builder
	if value.Truthy(key) {
		newEntries.Append(value.MapOf("hostname", hostname, "enc", enc, "key", key))
		remote = []sshkeys.HostEntry{{Hostname: hostname, Enc: optStr(enc), Key: value.Str(key)}}
	} else {
		newEntries = hostEntriesList(remote).(*value.List)
	}
	for _, e := range remote {
		if hash || port == nil || value.Equal(port, int64(22)) || strings.Contains(e.Hostname, ":") {
			fmt.Fprintf(&b, "%s %s %s\n", e.Hostname, e.Enc, e.Key)
		} else {
			fmt.Fprintf(&b, "[%s]:%s %s %s\n", e.Hostname, value.Str(port), e.Enc, e.Key)
		}
	}
	if dir := filepath.Dir(full); !isDirPath(dir) {
		if err := os.MkdirAll(dir, 0o777); err == nil && value.Truthy(user) {
			chownToUser(dir, user)
			_ = os.Chmod(dir, 0o700)
		}
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err == nil {
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, execmod.Errorf("Couldn't append to known hosts file: '%v'", err)
	}
	chownToUser(full, user)
	if origMode != 0 {
		_ = os.Chmod(full, origMode)
	} else {
		_ = os.Chmod(full, 0o600)
	}
	if value.Truthy(key) && hash {
		if _, err := hashKnownHosts(ctx, user, full); err != nil {
			return nil, err
		}
	}
	var old any
	if len(stored) > 0 {
		old = hostEntriesList(stored)
	}
	return value.MapOf("status", "updated", "old", old, "new", newEntries), nil
}

// removeHostLines drops the lines ssh-keygen -F finds for hostname with the
// key type enc (rsa when unset), as set_known_host does before appending.
func removeHostLines(ctx *execmod.Context, full, hostname string, port, enc any) error {
	lines, err := cmdRunLines(ctx, []string{"ssh-keygen", "-F", sshkeys.SSHHostname(hostname, port), "-f", full}, "ignore_retcode", true)
	if err != nil {
		return err
	}
	want := "rsa"
	if value.Truthy(enc) {
		want = value.Str(enc)
	}
	remove := map[int]bool{}
	for i := 0; i+1 < len(lines); i += 2 {
		f := strings.Fields(lines[i])
		g := strings.Fields(lines[i+1])
		if len(f) == 0 || len(g) < 2 {
			continue
		}
		var n int
		if _, err := fmt.Sscan(f[len(f)-1], &n); err != nil {
			continue
		}
		if g[len(g)-2] == want {
			remove[n] = true
		}
	}
	if len(remove) == 0 {
		return nil
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return execmod.Errorf("Couldn't remove old entry(ies) from known hosts file: '%v'", err)
	}
	all := strings.SplitAfter(string(data), "\n")
	var keep []string
	for i, l := range all {
		if l != "" && !remove[i+1] {
			keep = append(keep, l)
		}
	}
	if err := writeText(full, strings.Join(keep, "")); err != nil {
		return execmod.Errorf("Couldn't remove old entry(ies) from known hosts file: '%v'", err)
	}
	return nil
}

func sshKeyIsEncrypted(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("key_is_encrypted", args, kwargs, execmod.Req("key"))
	if err != nil {
		return nil, err
	}
	enc, err := sshkeys.KeyIsEncrypted(value.Str(v[0]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return enc, nil
}

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("ssh."+name, f, doc) }
	reg("user_keys", sshUserKeys, "Return the users' key files (~/.ssh/id_*[.pub], or pubfile/prvfile) by user and file name.")
	reg("host_keys", sshHostKeys, "Return the host keys in keydir (/etc/ssh): type -> key, '<type>.pub' for public ones.")
	reg("check_key_file", sshCheckKeyFile, "check_key for each key of a key file (a salt:// or local source).")
	reg("set_auth_key_from_file", sshSetAuthKeyFromFile, "set_auth_key for each key of a key file (a salt:// or local source).")
	reg("rm_auth_key_from_file", sshRmAuthKeyFromFile, "rm_auth_key for each key of a key file (a salt:// or local source).")
}

func sshUserKeys(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("user_keys", args, kwargs, execmod.Opt("user", nil), execmod.Opt("pubfile", nil), execmod.Opt("prvfile", nil))
	if err != nil {
		return nil, err
	}
	var users []string
	switch u := v[0].(type) {
	case *value.List:
		for _, it := range u.Items {
			users = append(users, value.Str(it))
		}
	default:
		if value.Truthy(u) {
			users = []string{value.Str(u)}
		} else {
			all, err := userDB(nil).Users()
			if err != nil {
				return nil, err
			}
			for _, x := range all {
				users = append(users, x.Name)
			}
		}
	}
	out := value.NewMap(0)
	for _, name := range users {
		u, ok, _ := userDB(nil).User(name)
		if !ok {
			continue
		}
		var files []string
		if value.Truthy(v[1]) {
			files = append(files, value.Str(v[1]))
		} else if v[1] != false {
			files = append(files, "id_rsa.pub", "id_dsa.pub", "id_ecdsa.pub", "id_ed25519.pub")
		}
		if value.Truthy(v[2]) {
			files = append(files, value.Str(v[2]))
		} else if v[2] != false {
			files = append(files, "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
		}
		keys := value.NewMap(0)
		for _, f := range files {
			keyname, fn := f, u.Home+"/.ssh/"+f
			if strings.HasPrefix(f, "/") {
				keyname, fn = filepath.Base(f), f
			}
			if data, err := os.ReadFile(fn); err == nil {
				keys.Set(keyname, strings.TrimSpace(string(data)))
			}
		}
		if keys.Len() > 0 {
			out.Set(name, keys)
		}
	}
	return out, nil
}

var hostKeyRE = regexp.MustCompile(`^ssh_host_(?P<type>.+)_key(?P<pub>(?P<cert>-cert)?\.pub)?`)

func sshHostKeys(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("host_keys", args, kwargs, execmod.Opt("keydir", nil), execmod.Opt("private", true), execmod.Opt("certs", true))
	if err != nil {
		return nil, err
	}
	dir := optStr(v[0])
	if dir == "" {
		if k, _ := ctx.Grains.Get("kernel"); k != nil && k != "Linux" {
			return nil, invocationf("ssh.host_keys: Please specify a keydir")
		}
		dir = "/etc/ssh"
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	out := value.NewMap(0)
	for _, fn := range names {
		m := hostKeyRE.FindStringSubmatch(fn)
		if m == nil {
			continue
		}
		typ, pub, cert := m[1], m[2], m[3]
		if pub == "" && v[1] == false || cert != "" && v[2] == false {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, fn))
		if err != nil {
			out.Set(typ+pub, "")
			continue
		}
		s := string(data)
		if strings.HasPrefix(s, "SSH PRIVATE KEY FILE FORMAT 1.1\n") {
			s = "SSH PRIVATE KEY FILE FORMAT 1.1\n"
		}
		out.Set(typ+pub, strings.TrimSpace(s))
	}
	return out, nil
}

// keyFileEntries reads the keys of a key file source; ok is false when the
// source cannot be read.
func keyFileEntries(ctx *execmod.Context, source, saltenv, hashType string) ([]sshkeys.Entry, bool, error) {
	data, err := fileops.ReadSource(ctx, saltenv, source)
	if err != nil {
		return nil, false, nil
	}
	es, err := sshkeys.ParseKeys(string(data), hashType)
	if err != nil {
		return nil, true, execmod.Errorf("%s", err)
	}
	if len(es) == 0 && ctx != nil {
		ctx.Cache().Store("ssh_auth.error", fmt.Sprintf("No keys detected in %s. Is file properly formatted?", source))
	}
	return es, true, nil
}

func sshFromFileArgs(fun string, args []any, kwargs *value.Map) ([]any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("user"), execmod.Req("source"), execmod.Opt("config", ".ssh/authorized_keys"),
		execmod.Opt("saltenv", "base"), execmod.Opt("fingerprint_hash_type", nil))
	return v, err
}

func sshCheckKeyFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := sshFromFileArgs("check_key_file", args, kwargs)
	if err != nil {
		return nil, err
	}
	es, ok, err := keyFileEntries(ctx, value.Str(v[1]), execmod.String(v[3]), optStr(v[4]))
	if err != nil || !ok || len(es) == 0 {
		return value.NewMap(0), err
	}
	out := value.NewMap(len(es))
	for _, e := range es {
		st, err := checkKey(value.Str(v[0]), e.Key, execmod.String(v[2]), optStr(v[4]))
		if err != nil {
			return nil, err
		}
		out.Set(e.Key.Key, st)
	}
	return out, nil
}

func sshSetAuthKeyFromFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := sshFromFileArgs("set_auth_key_from_file", args, kwargs)
	if err != nil {
		return nil, err
	}
	es, ok, err := keyFileEntries(ctx, value.Str(v[1]), execmod.String(v[3]), optStr(v[4]))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, execmod.Errorf("Failed to pull key file from salt file server")
	}
	if len(es) == 0 {
		return "fail", nil
	}
	var all strings.Builder
	for _, e := range es {
		opts := value.NewList()
		for _, o := range e.Options {
			opts.Append(o)
		}
		r, err := sshSetAuthKey(ctx, []any{v[0], e.Key.Key}, value.MapOf("enc", e.Enc, "comment", e.Comment, "options", opts,
			"config", v[2], "fingerprint_hash_type", v[4]))
		if err != nil {
			return nil, err
		}
		all.WriteString(value.Str(r))
	}
	for _, s := range []string{"fail", "replace", "new"} {
		if strings.Contains(all.String(), s) {
			return s, nil
		}
	}
	return "no change", nil
}

func sshRmAuthKeyFromFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := sshFromFileArgs("rm_auth_key_from_file", args, kwargs)
	if err != nil {
		return nil, err
	}
	es, ok, err := keyFileEntries(ctx, value.Str(v[1]), execmod.String(v[3]), optStr(v[4]))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, execmod.Errorf("Failed to pull key file from salt file server")
	}
	if len(es) == 0 {
		return "fail", nil
	}
	var all strings.Builder
	for _, e := range es {
		r, err := sshRmAuthKey(ctx, []any{v[0], e.Key.Key}, value.MapOf("config", v[2], "fingerprint_hash_type", v[4]))
		if err != nil {
			return nil, err
		}
		all.WriteString(value.Str(r))
	}
	switch {
	case strings.Contains(all.String(), "Key not removed"):
		return "Key not removed", nil
	case strings.Contains(all.String(), "Key removed"):
		return "Key removed", nil
	}
	return "Key not present", nil
}
