package grains

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"brine/internal/value"
)

// systemdCache is the file holding the last `systemctl --version` answer,
// under the user's cache directory ($XDG_CACHE_HOME/brine, else
// ~/.cache/brine); "" when there is none.
func systemdCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "brine", "systemd-version.json")
}

// fileIdentity names the file at path as it is now: its path, device,
// inode, size and modification time. A package upgrade replaces the
// binary, which changes the identity.
func fileIdentity(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	id := fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(" %d %d", st.Dev, st.Ino)
	}
	return id
}

type systemdEntry struct {
	Key      string `json:"key"`
	Version  string `json:"version"`
	Features string `json:"features"`
}

// readSystemdCache returns the cached systemd grain when it was written
// for the binary of identity key.
func readSystemdCache(key string) *value.Map {
	path := systemdCache()
	if key == "" || path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var e systemdEntry
	if json.Unmarshal(data, &e) != nil || e.Key != key || e.Version == "" {
		return nil
	}
	return value.MapOf("version", e.Version, "features", e.Features)
}

// writeSystemdCache stores the systemd grain of the binary of identity
// key (best effort: a cache that cannot be written only costs the next
// run a process). The file is replaced whole, never half-written.
func writeSystemdCache(key, version, features string) {
	path := systemdCache()
	if key == "" || path == "" {
		return
	}
	data, err := json.Marshal(systemdEntry{Key: key, Version: version, Features: features})
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".systemd-version-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		_ = os.Remove(tmp.Name())
	}
}
