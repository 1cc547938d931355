package api

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"

	"brine/internal/pyops"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

// An eauth backend checks a user's password (Salt's salt/auth/<name>.py
// auth function) and, optionally, names the user's groups.
type backend interface {
	auth(conf *value.Map, username, password string) bool
	groups(conf *value.Map, username string) []string
}

// backends are the eauth systems brine has, by Salt's names.
var backends = map[string]backend{
	"pam":  pamBackend{shadow: "/etc/shadow"},
	"file": fileBackend{},
}

// pamBackend authenticates system users. Salt's pam module asks PAM's
// "login" service; brine reads the shadow file and checks the password
// against its crypt hash ($6$, $5$, $1$ and bcrypt), refusing locked
// accounts: what pam_unix does for local users, without cgo.
type pamBackend struct{ shadow string }

func (b pamBackend) auth(_ *value.Map, username, password string) bool {
	if username == "" || password == "" {
		return false
	}
	f, err := os.Open(b.shadow)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 2 || fields[0] != username {
			continue
		}
		if expired(fields) {
			return false
		}
		return cryptMatch(password, fields[1])
	}
	return false
}

// expired reports whether a shadow entry's account expiry date (days
// since the epoch, field 8) has passed.
func expired(fields []string) bool {
	if len(fields) < 8 || fields[7] == "" {
		return false
	}
	days, err := strconv.ParseInt(fields[7], 10, 64)
	if err != nil {
		return false
	}
	return days*86400 < nowUnix()
}

// groups returns the user's groups, the primary one included (Salt's
// salt.utils.user.get_group_list).
func (pamBackend) groups(_ *value.Map, username string) []string {
	u, err := user.Lookup(username)
	if err != nil {
		return nil
	}
	ids, err := u.GroupIds()
	if err != nil {
		return nil
	}
	var out []string
	for _, id := range ids {
		if g, err := user.LookupGroupId(id); err == nil {
			out = append(out, g.Name)
		}
	}
	return out
}

// cryptMatch checks password against a crypt(3) hash (see
// usermgr.Verify: SHA-crypt, MD5-crypt and Apache's apr1, bcrypt,
// yescrypt, DES). A locked ("!...") or disabled ("*") entry matches
// nothing.
func cryptMatch(password, hash string) bool { return usermgr.Verify(password, hash) }

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// fileBackend is Salt's file eauth: a text file of user and password
// fields (the password plain or as a hex digest), an Apache htpasswd file
// or an htdigest file, configured by the ^-prefixed keys of
// external_auth:file.
type fileBackend struct{}

// fileConf holds the ^options of external_auth:file with Salt's defaults.
type fileConf struct {
	filename, filetype, hashtype, sep, realm string
	userField, passField                     int
}

func readFileConf(conf *value.Map) (fileConf, error) {
	c := fileConf{filetype: "text", hashtype: "plaintext", sep: ":", userField: 1, passField: 2}
	get := func(k string) (string, bool) {
		v, ok := conf.Get("^" + k)
		if !ok || v == nil {
			return "", false
		}
		return value.Str(v), true
	}
	if s, ok := get("filename"); ok {
		c.filename = s
	}
	if c.filename == "" {
		return c, fmt.Errorf("an authentication file must be specified via external_auth:file:^filename")
	}
	if s, ok := get("filetype"); ok {
		c.filetype = strings.ToLower(s)
	}
	if s, ok := get("hashtype"); ok {
		c.hashtype = s
	}
	if s, ok := get("field_separator"); ok {
		c.sep = s
	}
	if s, ok := get("realm"); ok {
		c.realm = s
	}
	for k, p := range map[string]*int{"username_field": &c.userField, "password_field": &c.passField} {
		if s, ok := get(k); ok {
			n, err := strconv.Atoi(s)
			if err != nil {
				return c, fmt.Errorf("external_auth:file:^%s: %q is not a number", k, s)
			}
			*p = n
		}
	}
	return c, nil
}

func (fileBackend) groups(*value.Map, string) []string { return nil }

func (fileBackend) auth(conf *value.Map, username, password string) bool {
	c, err := readFileConf(conf)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(c.filename)
	if err != nil {
		return false
	}
	lines := strings.Split(string(data), "\n")
	switch c.filetype {
	case "htpasswd":
		for _, line := range lines {
			name, h, ok := strings.Cut(strings.TrimSpace(line), ":")
			if ok && name == username {
				return htpasswdMatch(password, h)
			}
		}
		return false
	case "htdigest":
		if c.realm == "" {
			return false
		}
		for _, line := range lines {
			f := strings.Split(strings.TrimSpace(line), ":")
			if len(f) == 3 && f[0] == username && f[1] == c.realm {
				sum := md5.Sum([]byte(username + ":" + c.realm + ":" + password))
				return equal(hex.EncodeToString(sum[:]), f[2])
			}
		}
		return false
	}
	// text: the first line naming the user decides.
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, c.sep)
		if c.userField < 1 || c.passField < 1 || len(f) < c.userField || len(f) < c.passField {
			return false
		}
		if f[c.userField-1] != username {
			continue
		}
		want := f[c.passField-1]
		if c.hashtype == "plaintext" {
			return equal(want, password)
		}
		got, ok := digest(password, c.hashtype)
		return ok && equal(want, got)
	}
	return false
}

// digest is Salt's hashutil.digest: the hex digest of s.
func digest(s, kind string) (string, bool) {
	newHash, ok := pyops.Hashlib(kind)
	if !ok {
		return "", false
	}
	h := newHash()
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil)), true
}

// htpasswdMatch checks password against an htpasswd entry's hash: bcrypt,
// $apr1$, $1$, SHA-crypt or {SHA}.
func htpasswdMatch(password, h string) bool {
	if rest, ok := strings.CutPrefix(h, "{SHA}"); ok {
		sum := sha1.Sum([]byte(password))
		return equal(base64.StdEncoding.EncodeToString(sum[:]), rest)
	}
	return cryptMatch(password, h)
}
