package keys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/nats-io/nkeys"
)

// State is where a minion key sits in the store.
type State string

// The key states, with Salt's directory names.
const (
	Accepted State = "minions"
	Pending  State = "minions_pre"
	Rejected State = "minions_rejected"
	Denied   State = "minions_denied"
)

// States lists the states in salt-key's display order.
var States = []State{Accepted, Denied, Pending, Rejected}

// Title is salt-key's heading for the state.
func (s State) Title() string {
	switch s {
	case Accepted:
		return "Accepted Keys"
	case Pending:
		return "Unaccepted Keys"
	case Rejected:
		return "Rejected Keys"
	case Denied:
		return "Denied Keys"
	}
	return string(s)
}

// Store is the master's key directory: one file per minion id, holding
// its public nkey, under <dir>/<state>/. Several processes (the master and
// `brine key`) share it; each operation reads the disk afresh.
type Store struct {
	Dir string
	mu  sync.Mutex
}

// OpenStore creates the state directories under dir.
func OpenStore(dir string) (*Store, error) {
	for _, s := range States {
		if err := os.MkdirAll(filepath.Join(dir, string(s)), 0o700); err != nil {
			return nil, err
		}
	}
	return &Store{Dir: dir}, nil
}

func (s *Store) path(st State, id string) string { return filepath.Join(s.Dir, string(st), id) }

// validID refuses ids that cannot be file names, and those starting with
// a dot: listings skip dot files (temporary files), so such keys would be
// neither counted against max_pending_keys nor shown.
func validID(id string) error {
	if id == "" || strings.HasPrefix(id, ".") || len(id) > 255 || strings.ContainsAny(id, "/\\\x00") {
		return fmt.Errorf("invalid minion id %q", id)
	}
	return nil
}

// List returns the sorted minion ids in state st.
func (s *Store) List(st State) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.Dir, string(st)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Key returns the public key stored for id in state st.
func (s *Store) Key(st State, id string) (string, error) {
	if err := validID(id); err != nil {
		return "", err
	}
	data, err := os.ReadFile(s.path(st, id))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// Find returns the state and key of id ("" when the store does not know
// it). A minion may have keys in several states (denied and accepted);
// the first in States order wins.
func (s *Store) Find(id string) (State, string) {
	for _, st := range States {
		if k, err := s.Key(st, id); err == nil {
			return st, k
		}
	}
	return "", ""
}

// Accepted returns id -> public key of every accepted minion.
func (s *Store) Accepted() (map[string]string, error) {
	ids, err := s.List(Accepted)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		if k, err := s.Key(Accepted, id); err == nil && nkeys.IsValidPublicUserKey(k) {
			out[id] = k
		}
	}
	return out, nil
}

// ErrTooManyPending refuses a key request for a new id while the pending
// directory already holds the maximum (the master's max_pending_keys).
var ErrTooManyPending = errors.New("too many pending keys")

// Submit records a key request from id with key pub and returns the
// resulting state: an accepted minion presenting its own key stays
// accepted; one presenting another key is denied (the key goes to the
// denied directory); a rejected key stays rejected; otherwise the key is
// pending, or accepted when autoAccept is set.
func (s *Store) Submit(id, pub string, autoAccept bool) (State, error) {
	st, _, err := s.SubmitLimit(id, pub, autoAccept, 0)
	return st, err
}

// SubmitLimit is Submit with at most maxPending keys pending (0: no
// limit): a request that would add a pending key beyond it gets
// ErrTooManyPending. changed reports whether the store was written: a
// request repeating what the store already holds (same id, same key, same
// state) writes nothing.
func (s *Store) SubmitLimit(id, pub string, autoAccept bool, maxPending int) (st State, changed bool, err error) {
	if err := validID(id); err != nil {
		return "", false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, err := s.Key(Accepted, id); err == nil {
		if k == pub {
			return Accepted, false, nil
		}
		return s.put(Denied, id, pub)
	}
	if k, err := s.Key(Rejected, id); err == nil && k == pub {
		return Rejected, false, nil
	}
	if k, err := s.Key(Pending, id); err == nil {
		if k != pub {
			// A different key for a pending id: Salt refuses it too.
			return s.put(Denied, id, pub)
		}
		if !autoAccept {
			return Pending, false, nil
		}
	} else if !autoAccept && maxPending > 0 {
		ids, err := s.List(Pending)
		if err != nil {
			return "", false, err
		}
		if len(ids) >= maxPending {
			return "", false, ErrTooManyPending
		}
	}
	if autoAccept {
		return s.put(Accepted, id, pub)
	}
	return s.put(Pending, id, pub)
}

// put writes pub as id's key in state st unless it is already there.
func (s *Store) put(st State, id, pub string) (State, bool, error) {
	if k, err := s.Key(st, id); err == nil && k == pub {
		return st, false, nil
	}
	return st, true, writeFileAtomic(s.path(st, id), []byte(pub+"\n"), 0o600)
}

// Move moves id's key from state from to state to.
func (s *Store) Move(id string, from, to State) error {
	if err := validID(id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return os.Rename(s.path(from, id), s.path(to, id))
}

// Delete removes id's keys in every state.
func (s *Store) Delete(id string) error {
	if err := validID(id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, st := range States {
		if err := os.Remove(s.path(st, id)); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = err
		}
	}
	return first
}

// Finger is the fingerprint of id's key file in state st, byte for byte
// (see Finger): what sha256sum prints for that file.
func (s *Store) Finger(st State, id, hashType string) (string, error) {
	if err := validID(id); err != nil {
		return "", err
	}
	return FileFinger(s.path(st, id), hashType)
}
