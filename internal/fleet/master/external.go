package master

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/nats-io/nats-server/v2/server"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
)

// NATSAuthFile is where the master writes the authorization block an
// external nats-server includes (option nats_auth_file, default
// pki_dir/nats-auth.conf).
func (m *Master) NATSAuthFile() string {
	if p := optString(m.Opts, "nats_auth_file"); p != "" {
		return p
	}
	return filepath.Join(optString(m.Opts, "pki_dir"), "nats-auth.conf")
}

// masterUserKey is the public key of the master's NATS user: the
// nats_creds seed with an external server, else the master key.
func (m *Master) masterUserKey() (string, error) {
	if creds := optString(m.Opts, "nats_creds"); creds != "" {
		kp, err := keys.Load(creds)
		if err != nil {
			return "", err
		}
		return kp.PublicKey()
	}
	return m.Key.PublicKey()
}

// WriteNATSAuth writes the nats-server authorization block for the
// current accepted keys: the master with every right, each minion with
// the permissions of MinionPermissions, and the key-request user. An
// external nats-server includes the file and reloads it (SIGHUP); with
// nats_server_pid_file set, the master sends that signal itself.
func (m *Master) WriteNATSAuth(accepted map[string]string) error {
	pub, err := m.masterUserKey()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Written by brine master: the users of the fleet. Do not edit.\nauthorization {\n  users = [\n")
	fmt.Fprintf(&b, "    { nkey: %s }\n", pub)
	ids := make([]string, 0, len(accepted))
	for id := range accepted {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	seen := map[string]bool{pub: true}
	for _, id := range ids {
		k := accepted[id]
		if seen[k] {
			continue
		}
		seen[k] = true
		fmt.Fprintf(&b, "    { nkey: %s, permissions: %s }\n", k, permText(MinionPermissions(id)))
	}
	fmt.Fprintf(&b, "    { user: %s, password: %s, permissions: %s }\n", q(proto.KeyReqUser), q(proto.KeyReqUser), permText(KeyReqPermissions()))
	b.WriteString("  ]\n}\n")
	path := m.NATSAuthFile()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return m.signalExternal()
}

func q(s string) string { return strconv.Quote(s) }

func permText(p *server.Permissions) string {
	side := func(sp *server.SubjectPermission) string {
		var parts []string
		for _, l := range []struct {
			name string
			subs []string
		}{{"allow", sp.Allow}, {"deny", sp.Deny}} {
			if len(l.subs) == 0 {
				continue
			}
			qs := make([]string, len(l.subs))
			for i, s := range l.subs {
				qs[i] = q(s)
			}
			parts = append(parts, l.name+": ["+strings.Join(qs, ", ")+"]")
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return "{ publish: " + side(p.Publish) + ", subscribe: " + side(p.Subscribe) + " }"
}

// signalExternal asks the external nats-server to reload its
// configuration when nats_server_pid_file names its pid file.
func (m *Master) signalExternal() error {
	pf := optString(m.Opts, "nats_server_pid_file")
	if pf == "" {
		return nil
	}
	data, err := os.ReadFile(pf)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the server is not running yet; it reads the file at start
	}
	if err != nil {
		return fmt.Errorf("nats_server_pid_file: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return fmt.Errorf("nats_server_pid_file %s: %w", pf, err)
	}
	return syscall.Kill(pid, syscall.SIGHUP)
}
