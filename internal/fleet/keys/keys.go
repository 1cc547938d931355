// Package keys holds fleet identities: a key pair (a NATS user nkey) per
// minion and for the master, created on first start and kept on disk with
// mode 0600, and the master's key store, the salt-key directories of
// accepted, pending, rejected and denied minion keys.
package keys

import (
	"crypto/sha256"
	"errors"
	"fmt"
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

// Fingerprint is the SHA-256 of a public key's text, as colon-separated
// hex pairs (salt-key -f style).
func Fingerprint(pub string) string {
	sum := sha256.Sum256([]byte(pub))
	var b strings.Builder
	for i, c := range sum {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02x", c)
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
