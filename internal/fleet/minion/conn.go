package minion

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// KeyPath is the minion's nkey seed under its pki_dir.
func KeyPath(pki string) string { return filepath.Join(pki, "minion.nk") }

// masterKeyPath is where the master's signing key is pinned on first
// contact (Salt's minion_master.pub).
func masterKeyPath(pki string) string { return filepath.Join(pki, "minion_master.pub") }

// masterCAPath is where the master's CA is pinned on first contact when
// no master_tls_ca is configured.
func masterCAPath(pki string) string { return filepath.Join(pki, "master_ca.crt") }

func optString(opts *value.Map, k string) string {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return value.Str(v)
}

func optFloat(opts *value.Map, k string, def float64) float64 {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return def
}

// MasterURL is the NATS URL of the minion's master: the master option
// when it holds a URL, else tls://master:master_port (nats:// with
// master_tls: False).
func MasterURL(opts *value.Map) string {
	m := optString(opts, "master")
	if strings.Contains(m, "://") {
		return m
	}
	port := int64(optFloat(opts, "master_port", 4506))
	scheme := "tls"
	if v, ok := opts.Get("master_tls"); ok && !value.Truthy(v) {
		scheme = "nats"
	}
	return scheme + "://" + net.JoinHostPort(m, strconv.FormatInt(port, 10))
}

// ErrNotAccepted is returned while the master has not accepted the key.
var ErrNotAccepted = errors.New("minion key not accepted by the master")

// Conn is a minion's authenticated connection to its master.
type Conn struct {
	NC  *nats.Conn
	ID  string
	Key nkeys.KeyPair

	pki       string
	mu        sync.Mutex
	masterKey string // pinned master signing key ("" before first contact)
}

// tlsConfig returns the TLS settings for url: the configured CA, else the
// CA pinned on first contact, else trust on first use (the master's CA is
// then saved and required from then on). With master_finger set, the CA
// the master's certificate chains to must have that fingerprint (see
// CheckMasterFinger), on first contact and on every connection after it.
// Since only the master may publish on a minion's inbox, a verified
// server also vouches for the signing key pinned from the first signed
// reply.
func tlsConfig(opts *value.Map, pki string) (*tls.Config, error) {
	finger, hashType := optString(opts, "master_finger"), optString(opts, "hash_type")
	check := func(ca *x509.Certificate) error {
		if finger == "" {
			return nil
		}
		return CheckMasterFinger(ca, finger, hashType)
	}
	path := optString(opts, "master_tls_ca")
	if path == "" {
		if _, err := os.Stat(masterCAPath(pki)); err == nil {
			path = masterCAPath(pki)
		}
	}
	if path != "" {
		tc, err := caConfig(path)
		if err != nil {
			return nil, err
		}
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
				return errors.New("master certificate not verified")
			}
			chain := cs.VerifiedChains[0]
			if err := check(chain[len(chain)-1]); err != nil {
				if path == masterCAPath(pki) {
					return fmt.Errorf("%w; the CA pinned in %s does not match: if the master's CA changed, remove that file", err, path)
				}
				return fmt.Errorf("%w; CA of master_tls_ca %s", err, path)
			}
			return nil
		}
		return tc, nil
	}
	pinned := masterCAPath(pki)
	// First contact: accept the chain the master presents, verify it
	// against its own last certificate (the CA), and pin that CA.
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			chain := cs.PeerCertificates
			if len(chain) < 2 {
				return errors.New("master presents no CA certificate to pin; set master_tls_ca")
			}
			ca := chain[len(chain)-1]
			pool := x509.NewCertPool()
			pool.AddCert(ca)
			if _, err := chain[0].Verify(x509.VerifyOptions{Roots: pool}); err != nil {
				return err
			}
			if err := check(ca); err != nil {
				return err
			}
			_ = os.MkdirAll(pki, 0o700)
			return os.WriteFile(pinned, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}), 0o644)
		},
	}, nil
}

// ErrMasterFinger is returned when the master's CA does not have the
// fingerprint of master_finger.
var ErrMasterFinger = errors.New("master_finger mismatch")

// CheckMasterFinger compares the fingerprint of the master's CA
// certificate (hash_type of its DER encoding, which `brine key -F` and
// the master's start log print) with master_finger.
func CheckMasterFinger(ca *x509.Certificate, finger, hashType string) error {
	got, err := keys.Finger(ca.Raw, hashType)
	if err != nil {
		return err
	}
	if !keys.SameFinger(got, finger) {
		return fmt.Errorf("%w: the master's CA has fingerprint %s, master_finger is %s "+
			"(compare with `brine key -F` on the master; another host may be posing as the master)", ErrMasterFinger, got, finger)
	}
	return nil
}

// secureOption returns the TLS option for url, and refuses a plain
// connection when master_finger asks to verify the master.
func secureOption(opts *value.Map, url string) ([]nats.Option, error) {
	if !strings.HasPrefix(url, "tls://") {
		if optString(opts, "master_finger") != "" {
			return nil, fmt.Errorf("%w: master_finger is set but %s is not a TLS URL", ErrMasterFinger, url)
		}
		return nil, nil
	}
	tc, err := tlsConfig(opts, optString(opts, "pki_dir"))
	if err != nil {
		return nil, err
	}
	return []nats.Option{nats.Secure(tc)}, nil
}

func caConfig(path string) (*tls.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s: no certificate", path)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// DialOptions tune Dial.
type DialOptions struct {
	Name        string
	Reconnected func()
	Disconnect  func(error)
	// Closed is called when the connection is closed for good.
	Closed func()
	// MaxReconnects is nats.MaxReconnects (-1: forever, the default).
	MaxReconnects *int
}

// Dial connects minion id with key kp to the master of opts. A refused
// key gives ErrNotAccepted.
func Dial(opts *value.Map, id string, kp nkeys.KeyPair, do DialOptions) (*Conn, error) {
	pki := optString(opts, "pki_dir")
	url := MasterURL(opts)
	pub, _ := kp.PublicKey()
	no := []nats.Option{
		nats.Name(do.Name),
		nats.Nkey(pub, kp.Sign),
		nats.CustomInboxPrefix(proto.InboxPrefix(id)),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(250*time.Millisecond, time.Second),
		nats.Timeout(10 * time.Second),
		nats.ReconnectBufSize(32 << 20),
	}
	if do.MaxReconnects != nil {
		no = append(no, nats.MaxReconnects(*do.MaxReconnects))
	}
	sec, err := secureOption(opts, url)
	if err != nil {
		return nil, err
	}
	no = append(no, sec...)
	if do.Reconnected != nil {
		no = append(no, nats.ReconnectHandler(func(*nats.Conn) { do.Reconnected() }))
	}
	if do.Disconnect != nil {
		no = append(no, nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { do.Disconnect(err) }))
	}
	if do.Closed != nil {
		no = append(no, nats.ClosedHandler(func(*nats.Conn) { do.Closed() }))
	}
	nc, err := nats.Connect(url, no...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
			return nil, ErrNotAccepted
		}
		return nil, err
	}
	c := &Conn{NC: nc, ID: id, Key: kp, pki: pki}
	if data, err := os.ReadFile(masterKeyPath(pki)); err == nil {
		c.masterKey = strings.TrimSpace(string(data))
	}
	return c, nil
}

// RequestKey sends a key request for id over the anonymous key-request
// user: the only thing a minion with an unaccepted key may do.
func RequestKey(opts *value.Map, id string, kp nkeys.KeyPair) error {
	url := MasterURL(opts)
	no := []nats.Option{nats.UserInfo(proto.KeyReqUser, proto.KeyReqUser), nats.Timeout(10 * time.Second), nats.NoReconnect()}
	sec, err := secureOption(opts, url)
	if err != nil {
		return err
	}
	no = append(no, sec...)
	nc, err := nats.Connect(url, no...)
	if err != nil {
		return err
	}
	defer nc.Close()
	msg, err := proto.NewKeyRequest(kp, id)
	if err != nil {
		return err
	}
	if err := nc.Publish(proto.KeyReqSubject, msg); err != nil {
		return err
	}
	return nc.Flush()
}

// MasterError is the master's refusal of a request (as opposed to a
// failure to reach the master, which may be retried).
type MasterError struct {
	Kind string // the request kind
	Msg  string // the master's message
}

func (e *MasterError) Error() string { return "master: " + e.Msg }

// Request sends a request of kind with body to the master and decodes the
// reply's body into out. The reply must carry the request's nonce and the
// pinned master key's signature (the key is pinned on first contact).
func (c *Conn) Request(kind string, body, out any, timeout time.Duration) error {
	req, data, err := proto.NewRequest(body)
	if err != nil {
		return err
	}
	msg, err := c.NC.Request(proto.ReqSubject(c.ID, kind), data, timeout)
	if err != nil {
		return fmt.Errorf("%s request to the master: %w", kind, err)
	}
	c.mu.Lock()
	want := c.masterKey
	c.mu.Unlock()
	var rep proto.Reply
	signer, err := proto.Open(msg.Data, want, &rep)
	if err != nil {
		return fmt.Errorf("%s reply: %w", kind, err)
	}
	if rep.Nonce != req.Nonce {
		return fmt.Errorf("%s reply: %w (nonce mismatch)", kind, proto.ErrReplay)
	}
	if want == "" {
		c.pinMaster(signer)
	}
	if rep.Error != "" {
		return &MasterError{Kind: kind, Msg: rep.Error}
	}
	if out != nil && len(rep.Body) > 0 {
		return json.Unmarshal(rep.Body, out)
	}
	return nil
}

func (c *Conn) pinMaster(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.masterKey != "" {
		return
	}
	c.masterKey = key
	if c.pki != "" {
		_ = os.MkdirAll(c.pki, 0o700)
		_ = os.WriteFile(masterKeyPath(c.pki), []byte(key+"\n"), 0o644)
	}
}

// MasterKey returns the pinned master key ("" before first contact).
func (c *Conn) MasterKey() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.masterKey
}

// Close closes the connection.
func (c *Conn) Close() { c.NC.Close() }

// LoadKey loads (creating on first start) the minion key of opts.
func LoadKey(opts *value.Map) (nkeys.KeyPair, error) {
	return keys.LoadOrCreate(KeyPath(optString(opts, "pki_dir")))
}
