// Package keys holds fleet identities: a key pair (a NATS user nkey) per
// minion and for the master, created on first start and kept on disk with
// mode 0600, and the master's key store, the salt-key directories of
// accepted, pending, rejected and denied minion keys.
package keys

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nkeys"
)

// LoadOrCreate reads the nkey seed in path, or creates a new user key pair
// and writes its seed there (mode 0600, parent directories 0700) and its
// public key beside it (path with ".pub" in place of the extension).
func LoadOrCreate(path string) (nkeys.KeyPair, error) {
	if kp, err := Load(path); err == nil {
		return kp, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, append(seed, '\n'), 0o600); err != nil {
		return nil, err
	}
	pub, _ := kp.PublicKey()
	_ = writeFileAtomic(PubPath(path), []byte(pub+"\n"), 0o644)
	return kp, nil
}

// Load reads an nkey seed file.
func Load(path string) (nkeys.KeyPair, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(string(data))))
	if err != nil {
		return nil, fmt.Errorf("%s: not an nkey seed: %w", path, err)
	}
	return kp, nil
}

// PubPath is where LoadOrCreate writes the public key of the seed in path.
func PubPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".pub"
}

// Fingerprint is the fingerprint (sha256) of the key file that holds pub:
// the public key followed by a newline, as LoadOrCreate and Store write
// it. It equals `sha256sum` of that file, in salt-key's colon-separated
// form.
func Fingerprint(pub string) string {
	f, _ := Finger([]byte(pub+"\n"), "sha256")
	return f
}

// hashes are the hash_type values Finger knows (Salt's default is sha256).
var hashes = map[string]func() hash.Hash{
	"sha256": sha256.New,
	"sha384": sha512.New384,
	"sha512": sha512.New,
}

// Finger hashes data with hashType ("" is sha256) and writes the digest
// as salt-key does: lowercase hex pairs joined by colons. Stripped of its
// colons, it is what sha256sum (sha384sum, sha512sum) prints for a file
// holding data.
func Finger(data []byte, hashType string) (string, error) {
	if hashType == "" {
		hashType = "sha256"
	}
	mk, ok := hashes[strings.ToLower(hashType)]
	if !ok {
		return "", fmt.Errorf("unsupported hash_type %q (sha256, sha384 or sha512)", hashType)
	}
	h := mk()
	h.Write(data)
	sum := hex.EncodeToString(h.Sum(nil))
	var b strings.Builder
	for i := 0; i < len(sum); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(sum[i : i+2])
	}
	return b.String(), nil
}

// FileFinger is Finger of the file at path, byte for byte.
func FileFinger(path, hashType string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return Finger(data, hashType)
}

// SameFinger reports whether two fingerprints are equal, ignoring case and
// the separators, so a configured master_finger may be written as
// salt-key prints it, as sha256sum prints it or as openssl prints it
// (upper case, "sha256 Fingerprint=" prefix).
func SameFinger(a, b string) bool {
	na, nb := normFinger(a), normFinger(b)
	return na != "" && na == nb
}

func normFinger(s string) string {
	if i := strings.LastIndexByte(s, '='); i >= 0 {
		s = s[i+1:]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= '0' && r <= '9', r >= 'a' && r <= 'f':
			b.WriteRune(r)
		case r == ':' || r == ' ' || r == '\t' || r == '\n' || r == '\r':
		default:
			return "" // not a hex fingerprint
		}
	}
	return b.String()
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	return os.Rename(name, path)
}
