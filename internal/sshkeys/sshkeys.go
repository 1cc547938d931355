// Package sshkeys holds the authorized_keys and known_hosts handling of
// salt/modules/ssh.py that the ssh execution functions and the ssh_auth and
// ssh_known_hosts states share: key lines, encryption names, fingerprints.
package sshkeys

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"

	"brine/internal/pyops"
)

// Key is one authorized key.
type Key struct {
	Enc, Key, Comment string
	Options           []string
}

// authLineRE is _validate_keys's and rm_auth_key's line pattern: options,
// then "enc key [comment]".
var authLineRE = regexp.MustCompile(`^(.*?)\s?((?:sk-)?(?:ssh\-|ecds)[\w@.-]+\s.+)$`)

// Line is ssh._format_auth_line.
func (k Key) Line() string {
	line := ""
	if len(k.Options) > 0 {
		line = strings.Join(k.Options, ",") + " "
	}
	return line + k.Enc + " " + k.Key + " " + k.Comment + "\n"
}

// ParseLine parses one authorized_keys line; ok is false for blank lines,
// comments and lines that are not keys.
func ParseLine(line string) (Key, bool) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return Key{}, false
	}
	m := authLineRE.FindStringSubmatch(line)
	if m == nil {
		return Key{}, false
	}
	comps := strings.Fields(m[2])
	if len(comps) < 2 {
		return Key{}, false
	}
	k := Key{Enc: comps[0], Key: comps[1], Comment: strings.Join(comps[2:], " ")}
	if m[1] != "" {
		k.Options = strings.Split(m[1], ",")
	}
	return k, true
}

var alsoAllowed = map[string]bool{
	"rsa-sha2-512": true, "rsa-sha2-256": true, "rsa-sha2-512-cert-v01@openssh.com": true,
	"rsa-sha2-256-cert-v01@openssh.com": true, "ssh-rsa-cert-v01@openssh.com": true,
	"ecdsa-sha2-nistp256-cert-v01@openssh.com": true, "ecdsa-sha2-nistp384-cert-v01@openssh.com": true,
	"ecdsa-sha2-nistp521-cert-v01@openssh.com": true, "sk-ecdsa-sha2-nistp256@openssh.com": true,
	"sk-ecdsa-sha2-nistp256-cert-v01@openssh.com": true, "ssh-ed25519-cert-v01@openssh.com": true,
	"sk-ssh-ed25519@openssh.com": true, "sk-ssh-ed25519-cert-v01@openssh.com": true,
}

// RefineEnc is ssh._refine_enc: the canonical name of a key type, or
// Salt's error for an unknown one (enc is returned unchanged with it).
func RefineEnc(enc string) (string, error) {
	switch enc {
	case "r", "rsa", "ssh-rsa":
		return "ssh-rsa", nil
	case "d", "dsa", "dss", "ssh-dss":
		return "ssh-dss", nil
	case "e", "ecdsa":
		return "ecdsa-sha2-nistp256", nil
	case "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp256":
		return enc, nil
	case "ed25519", "ssh-ed25519":
		return "ssh-ed25519", nil
	}
	if alsoAllowed[enc] {
		return enc, nil
	}
	return enc, fmt.Errorf("Incorrect encryption key type '%s'.", enc)
}

// Fingerprint is ssh._fingerprint: the colon-separated hex digest of the
// decoded key (sha256 unless hashType names another hashlib function); ok
// is false when the key is not valid base64. An unknown hash type is an
// error.
func Fingerprint(key, hashType string) (string, bool, error) {
	if hashType == "" {
		hashType = "sha256"
	}
	newHash, ok := pyops.Hashlib(strings.ToLower(hashType))
	if !ok {
		return "", false, fmt.Errorf("The fingerprint_hash_type %s is not supported.", strings.ToLower(hashType))
	}
	h := newHash()
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return "", false, nil
	}
	h.Write(raw)
	sum := hex.EncodeToString(h.Sum(nil))
	parts := make([]string, 0, len(sum)/2)
	for i := 0; i < len(sum); i += 2 {
		parts = append(parts, sum[i:i+2])
	}
	return strings.Join(parts, ":"), true, nil
}

// Entry is one key of a file as _validate_keys reports it.
type Entry struct {
	Key
	Fingerprint string
}

// ReadKeys is _validate_keys: the keys of an authorized_keys file in file
// order (a key given twice keeps its first place and last value).
func ReadKeys(path, hashType string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Problem reading ssh key file %s", path)
	}
	return ParseKeys(string(data), hashType)
}

// ParseKeys is ReadKeys on the text of a key file.
func ParseKeys(text, hashType string) ([]Entry, error) {
	var out []Entry
	index := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		k, ok := ParseLine(line)
		if !ok {
			continue
		}
		fp, ok, err := Fingerprint(k.Key, hashType)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		e := Entry{k, fp}
		if i, dup := index[k.Key]; dup {
			out[i] = e
			continue
		}
		index[k.Key] = len(out)
		out = append(out, e)
	}
	return out, nil
}

// ExpandPath is _expand_authorized_keys_path: %u, %h and %% in an
// AuthorizedKeysFile path.
func ExpandPath(path, user, home string) (string, error) {
	var b strings.Builder
	esc := false
	for _, r := range path {
		switch {
		case esc:
			esc = false
			switch r {
			case '%':
				b.WriteByte('%')
			case 'u':
				b.WriteString(user)
			case 'h':
				b.WriteString(home)
			default:
				return "", fmt.Errorf("AuthorizedKeysFile path: unknown token character \"%%%c\"", r)
			}
		case r == '%':
			esc = true
		default:
			b.WriteRune(r)
		}
	}
	if esc {
		return "", fmt.Errorf("AuthorizedKeysFile path: Last character can't be escape character")
	}
	return b.String(), nil
}

// HostEntry is one known_hosts entry as ssh-keygen -F or ssh-keyscan print
// it.
type HostEntry struct {
	Hostname, Enc, Key, Fingerprint string
}

// ParseHostLines is _parse_openssh_output: "hostname enc key" lines with a
// valid key.
func ParseHostLines(lines []string, hashType string) ([]HostEntry, error) {
	var out []HostEntry
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		fp, ok, err := Fingerprint(f[2], hashType)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		out = append(out, HostEntry{Hostname: f[0], Enc: f[1], Key: f[2], Fingerprint: fp})
	}
	return out, nil
}

// SSHHostname is _hostname_and_port_to_ssh_hostname.
func SSHHostname(hostname string, port any) string {
	switch p := port.(type) {
	case nil:
		return hostname
	case int64:
		if p == 0 || p == 22 {
			return hostname
		}
	case string:
		if p == "" {
			return hostname
		}
	}
	return fmt.Sprintf("[%s]:%v", hostname, port)
}

var privateKeyRE = regexp.MustCompile(`BEGIN (?:\w+\s)*PRIVATE KEY`)

// KeyIsEncrypted is salt.utils.ssh.key_is_encrypted.
func KeyIsEncrypted(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return false, fmt.Errorf("%s does not exist", path)
		}
		return false, err
	}
	if !privateKeyRE.Match(data) {
		return false, fmt.Errorf("%s is not a private key", path)
	}
	return strings.Contains(string(data), "ENCRYPTED"), nil
}
