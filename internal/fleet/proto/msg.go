package proto

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nkeys"

	"brine/internal/value"
)

// Signed is a message from the master: its data, the master's public key
// and the key's signature over the data bytes. Jobs and replies to minion
// requests travel signed, so a minion acts only on what its master wrote.
type Signed struct {
	V    int             `json:"v"`
	Data json.RawMessage `json:"data"`
	Key  string          `json:"key"`
	Sig  string          `json:"sig"`
}

// Sign wraps data (marshalled to JSON) signed by kp.
func Sign(kp nkeys.KeyPair, data any) ([]byte, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	sig, err := kp.Sign(raw)
	if err != nil {
		return nil, err
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, err
	}
	return json.Marshal(Signed{V: Version, Data: raw, Key: pub, Sig: base64.RawStdEncoding.EncodeToString(sig)})
}

// ErrBadSignature is returned when a signed message does not verify.
var ErrBadSignature = errors.New("bad signature")

// Open verifies msg and unmarshals its data into out. When wantKey is not
// empty the message must be signed by that key. It returns the signer.
func Open(msg []byte, wantKey string, out any) (string, error) {
	var s Signed
	if err := json.Unmarshal(msg, &s); err != nil {
		return "", fmt.Errorf("bad message: %w", err)
	}
	if s.V != Version {
		return "", fmt.Errorf("unsupported protocol version %d", s.V)
	}
	if wantKey != "" && s.Key != wantKey {
		return "", fmt.Errorf("%w: signed by %s, want the master key %s", ErrBadSignature, s.Key, wantKey)
	}
	pk, err := nkeys.FromPublicKey(s.Key)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	sig, err := base64.RawStdEncoding.DecodeString(s.Sig)
	if err != nil {
		return "", ErrBadSignature
	}
	if err := pk.Verify(s.Data, sig); err != nil {
		return "", ErrBadSignature
	}
	if out != nil {
		if err := json.Unmarshal(s.Data, out); err != nil {
			return "", fmt.Errorf("bad message data: %w", err)
		}
	}
	return s.Key, nil
}

// Request is a minion's request. Nonce and TS bind the reply to it and
// let the master refuse replays.
type Request struct {
	V     int             `json:"v"`
	Nonce string          `json:"nonce"`
	TS    int64           `json:"ts"` // Unix nanoseconds
	Body  json.RawMessage `json:"body,omitempty"`
}

// NewRequest builds a request carrying body.
func NewRequest(body any) (Request, []byte, error) {
	var raw json.RawMessage
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return Request{}, nil, err
		}
		raw = b
	}
	r := Request{V: Version, Nonce: NewNonce(), TS: time.Now().UnixNano(), Body: raw}
	data, err := json.Marshal(r)
	return r, data, err
}

// Reply is the master's answer to a Request; it travels Signed.
type Reply struct {
	Nonce string          `json:"nonce"`
	Error string          `json:"error,omitempty"`
	Body  json.RawMessage `json:"body,omitempty"`
}

// Job is one job for one or more minions.
type Job struct {
	JID     string    `json:"jid"`
	Fun     string    `json:"fun"`
	Arg     ValueJSON `json:"arg"`   // a list
	Kwarg   ValueJSON `json:"kwarg"` // a mapping
	Tgt     string    `json:"tgt"`
	TgtType string    `json:"tgt_type"`
	Minions []string  `json:"minions,omitempty"`
	User    string    `json:"user,omitempty"`
	TS      int64     `json:"ts"`
	Timeout float64   `json:"timeout,omitempty"`
	ReturnSpec
}

// Return is a minion's result for one job.
type Return struct {
	V       int       `json:"v"`
	JID     string    `json:"jid"`
	ID      string    `json:"id"`
	Fun     string    `json:"fun"`
	FunArgs ValueJSON `json:"fun_args"`
	Return  ValueJSON `json:"return"`
	Retcode int       `json:"retcode"`
	Success bool      `json:"success"`
	Out     string    `json:"out,omitempty"`
	TS      int64     `json:"ts"`
}

// ValueJSON carries a brine value (internal/value) as JSON, with Python's
// json semantics and mapping order kept.
type ValueJSON struct{ V any }

// MarshalJSON encodes the value.
func (v ValueJSON) MarshalJSON() ([]byte, error) {
	return []byte(value.ToJSON(v.V, value.JSONOptions{Indent: -1, ItemSep: ",", KeySep: ":"})), nil
}

// UnmarshalJSON decodes the value.
func (v *ValueJSON) UnmarshalJSON(b []byte) error {
	x, err := value.FromJSON(b)
	if err != nil {
		return err
	}
	v.V = x
	return nil
}

// Map returns the value as a mapping (an empty one when it is not).
func (v ValueJSON) Map() *value.Map {
	if m, ok := v.V.(*value.Map); ok {
		return m
	}
	return value.NewMap(0)
}

// List returns the value as a slice (nil when it is not a list).
func (v ValueJSON) List() []any {
	if l, ok := v.V.(*value.List); ok {
		return l.Items
	}
	return nil
}

// KeyRequest is what a minion without an accepted key sends on
// KeyReqSubject. Sig is the minion key's signature over ID, Key and TS,
// proving it holds the private key.
type KeyRequest struct {
	V   int    `json:"v"`
	ID  string `json:"id"`
	Key string `json:"key"`
	TS  int64  `json:"ts"`
	Sig string `json:"sig"`
}

func keyReqPayload(id, key string, ts int64) []byte {
	return fmt.Appendf(nil, "brine-keyreq\x00%s\x00%s\x00%d", id, key, ts)
}

// NewKeyRequest signs a key request for id with kp.
func NewKeyRequest(kp nkeys.KeyPair, id string) ([]byte, error) {
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, err
	}
	ts := time.Now().UnixNano()
	sig, err := kp.Sign(keyReqPayload(id, pub, ts))
	if err != nil {
		return nil, err
	}
	return json.Marshal(KeyRequest{V: Version, ID: id, Key: pub, TS: ts, Sig: base64.RawStdEncoding.EncodeToString(sig)})
}

// ParseKeyRequest decodes and verifies a key request.
func ParseKeyRequest(data []byte) (KeyRequest, error) {
	var kr KeyRequest
	if err := json.Unmarshal(data, &kr); err != nil {
		return kr, fmt.Errorf("bad key request: %w", err)
	}
	if kr.V != Version {
		return kr, fmt.Errorf("unsupported protocol version %d", kr.V)
	}
	if !ValidID(kr.ID) {
		return kr, fmt.Errorf("bad minion id %q", kr.ID)
	}
	if !nkeys.IsValidPublicUserKey(kr.Key) {
		return kr, fmt.Errorf("bad minion key %q", kr.Key)
	}
	pk, err := nkeys.FromPublicKey(kr.Key)
	if err != nil {
		return kr, err
	}
	sig, err := base64.RawStdEncoding.DecodeString(kr.Sig)
	if err != nil {
		return kr, ErrBadSignature
	}
	if err := pk.Verify(keyReqPayload(kr.ID, kr.Key, kr.TS), sig); err != nil {
		return kr, ErrBadSignature
	}
	return kr, nil
}
