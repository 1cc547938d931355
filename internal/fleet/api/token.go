package api

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"brine/internal/value"
)

// Token is an eauth session token as Salt's localfs token store keeps it.
type Token struct {
	Token  string   `json:"token"`
	Start  float64  `json:"start"`
	Expire float64  `json:"expire"`
	Name   string   `json:"name"`
	Eauth  string   `json:"eauth"`
	Groups []string `json:"groups,omitempty"`
	// AuthList is the ACL kept in the token (keep_acl_in_token).
	AuthList *JSONValue `json:"auth_list,omitempty"`
}

// JSONValue carries a brine value through encoding/json.
type JSONValue struct{ V any }

// MarshalJSON encodes the value.
func (v JSONValue) MarshalJSON() ([]byte, error) { return []byte(toJSON(v.V)), nil }

// UnmarshalJSON decodes the value.
func (v *JSONValue) UnmarshalJSON(b []byte) error {
	x, err := value.FromJSON(b)
	v.V = x
	return err
}

func toJSON(v any) string {
	return value.ToJSON(v, value.JSONOptions{Indent: -1, ItemSep: ", ", KeySep: ": "})
}

// nowUnix is the clock of token expiry.
func nowUnix() int64 { return time.Now().Unix() }

func now() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// tokenStore keeps tokens as files under a directory (Salt's token_dir),
// so they outlive a restart of the master.
type tokenStore struct{ dir string }

// validToken reports whether tok looks like a token: hexadecimal, as
// salt-api requires, and so safe as a file name.
func validToken(tok string) bool {
	if len(tok) < 16 || len(tok) > 128 {
		return false
	}
	_, err := hex.DecodeString(tok)
	return err == nil
}

func (s tokenStore) create(t *Token) error {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	t.Token = hex.EncodeToString(b)
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.dir, t.Token), data, 0o600)
}

var errNoToken = errors.New("no such token")

// get returns the token tok; an expired one is removed and not returned.
func (s tokenStore) get(tok string) (*Token, error) {
	if !validToken(tok) {
		return nil, errNoToken
	}
	data, err := os.ReadFile(filepath.Join(s.dir, tok))
	if err != nil {
		return nil, errNoToken
	}
	var t Token
	if err := json.Unmarshal(data, &t); err != nil {
		_ = os.Remove(filepath.Join(s.dir, tok))
		return nil, fmt.Errorf("token %s: %w", tok, err)
	}
	if t.Expire < now() {
		_ = os.Remove(filepath.Join(s.dir, tok))
		return nil, errNoToken
	}
	return &t, nil
}

func (s tokenStore) remove(tok string) {
	if validToken(tok) {
		_ = os.Remove(filepath.Join(s.dir, tok))
	}
}
