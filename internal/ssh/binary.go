package ssh

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"brine/internal/value"
)

// unameArch is `uname -m` of the machines each Go architecture runs on.
var unameArch = map[string][]string{
	"amd64":   {"x86_64", "amd64"},
	"arm64":   {"aarch64", "arm64"},
	"386":     {"i386", "i486", "i586", "i686"},
	"arm":     {"armv6l", "armv7l", "armv7", "armhf"},
	"ppc64le": {"ppc64le"},
	"s390x":   {"s390x"},
	"riscv64": {"riscv64"},
}

// ownArch reports whether a target whose `uname -m` is machine can run
// this brine binary.
func ownArch(machine string) bool {
	for _, m := range unameArch[runtime.GOARCH] {
		if m == machine {
			return true
		}
	}
	return false
}

// binary is a brine executable to send to targets.
type binary struct {
	Path string
	Hash string // sha256 of the content, hex (the first 16 digits name it on targets)
	Size int64
}

// binaries finds and hashes the executables once per run.
type binaries struct {
	// configured maps `uname -m` to a local brine for that machine
	// (the master option ssh_brine_binaries).
	configured map[string]string
	mu         sync.Mutex
	byPath     map[string]*binary
}

func newBinaries(opts *value.Map) *binaries {
	b := &binaries{configured: map[string]string{}, byPath: map[string]*binary{}}
	if m, ok := get(opts, "ssh_brine_binaries").(*value.Map); ok {
		for _, k := range m.Keys() {
			v, _ := m.Get(k)
			b.configured[value.Str(k)] = value.Str(v)
		}
	}
	return b
}

// errNoBinary is a target of an architecture brine has no binary for.
type errNoBinary struct{ machine string }

func (e errNoBinary) Error() string {
	return fmt.Sprintf("no brine binary for the target's architecture %s (this brine is built for %s): build one (GOARCH=... make install) and name it in the master option ssh_brine_binaries: {%s: /path/to/brine}",
		e.machine, runtime.GOARCH, e.machine)
}

// For returns the binary for a target whose `uname -m` is machine: the
// configured one, else the running executable when it fits.
func (b *binaries) For(machine string) (*binary, error) {
	path, ok := b.configured[machine]
	if !ok {
		if !ownArch(machine) {
			return nil, errNoBinary{machine}
		}
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding brine's own executable: %w", err)
		}
		path = exe
	}
	return b.load(path)
}

func (b *binaries) load(path string) (*binary, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bin := b.byPath[path]; bin != nil {
		return bin, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("brine binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("brine binary %s: %w", path, err)
	}
	bin := &binary{Path: path, Hash: hex.EncodeToString(h.Sum(nil)), Size: n}
	b.byPath[path] = bin
	return bin, nil
}

// compressed returns the binary gzipped (fastest level), kept under the
// master's cachedir as ssh/brine-HASH.gz so that it is compressed once
// per brine version, not once per run.
func (b *binaries) compressed(bin *binary, cachedir string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	path := filepath.Join(cachedir, "ssh", bin.Name()+".gz")
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	in, err := os.Open(bin.Path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".brine-gz-")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	zw, _ := gzip.NewWriterLevel(tmp, gzip.BestSpeed)
	if _, err := io.Copy(zw, in); err != nil {
		tmp.Close()
		return "", err
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	// Old versions go: one compressed binary per machine is kept.
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "brine-*.gz"))
	for _, o := range old {
		_ = os.Remove(o)
	}
	return path, os.Rename(tmp.Name(), path)
}

// Name is the binary's file name in the thin dir.
func (bin *binary) Name() string { return "brine-" + bin.Hash[:16] }

func goarch() string { return runtime.GOARCH }
