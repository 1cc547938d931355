// Package client is the administrative side of a brine master used by the
// command line (`brine run`, `brine jobs`, `brine key`): it connects to
// the master's NATS server with the master's own key, read from the
// master's pki_dir, so only users who can read that key can command
// minions.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Client is an administrative connection to a master.
type Client struct {
	NC  *nats.Conn
	Key nkeys.KeyPair
	js  jetstream.JetStream
}

func optString(opts *value.Map, k string) string {
	v, _ := opts.Get(k)
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return value.Str(v)
}

// URL returns the master's client URL for opts (master options): the
// external nats_url, else what the running master wrote to
// cachedir/master.url, else tls://127.0.0.1:ret_port.
func URL(opts *value.Map) string {
	if u := optString(opts, "nats_url"); u != "" {
		return u
	}
	if data, err := os.ReadFile(strings.TrimRight(optString(opts, "cachedir"), "/") + "/master.url"); err == nil {
		if u := strings.TrimSpace(string(data)); u != "" {
			return u
		}
	}
	port := int64(4506)
	if v, ok := opts.Get("ret_port"); ok {
		if p, ok := v.(int64); ok {
			port = p
		}
	}
	scheme := "tls"
	if v, ok := opts.Get("tls"); ok && !value.Truthy(v) {
		scheme = "nats"
	}
	return fmt.Sprintf("%s://127.0.0.1:%d", scheme, port)
}

// Dial connects with the master options opts.
func Dial(opts *value.Map) (*Client, error) {
	pki := optString(opts, "pki_dir")
	keyPath := pki + "/master.nk"
	if c := optString(opts, "nats_creds"); c != "" && optString(opts, "nats_url") != "" {
		keyPath = c
	}
	kp, err := keys.Load(keyPath)
	if err != nil {
		return nil, fmt.Errorf("reading the master key (is this the master, and may you read %s?): %w", keyPath, err)
	}
	pub, _ := kp.PublicKey()
	url := URL(opts)
	no := []nats.Option{nats.Name("brine-cli"), nats.Nkey(pub, kp.Sign), nats.Timeout(10 * time.Second)}
	if strings.HasPrefix(url, "tls://") {
		ca := optString(opts, "tls_ca")
		if ca == "" {
			ca = pki + "/tls/ca.crt"
		}
		no = append(no, nats.RootCAs(ca))
	}
	nc, err := nats.Connect(url, no...)
	if err != nil {
		return nil, fmt.Errorf("connecting to the master at %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &Client{NC: nc, Key: kp, js: js}, nil
}

// Close closes the connection.
func (c *Client) Close() { c.NC.Close() }

// request sends an administrative request and checks the signed reply.
func (c *Client) request(kind string, body, out any, timeout time.Duration) error {
	req, data, err := proto.NewRequest(body)
	if err != nil {
		return err
	}
	msg, err := c.NC.Request(proto.AdminSubject(kind), data, timeout)
	if err != nil {
		return fmt.Errorf("%s request to the master: %w", kind, err)
	}
	pub, _ := c.Key.PublicKey()
	var rep proto.Reply
	if _, err := proto.Open(msg.Data, pub, &rep); err != nil {
		return err
	}
	if rep.Nonce != req.Nonce {
		return proto.ErrReplay
	}
	if rep.Error != "" {
		return errors.New(rep.Error)
	}
	if out != nil && len(rep.Body) > 0 {
		return json.Unmarshal(rep.Body, out)
	}
	return nil
}

// Publish asks the master to publish a job.
func (c *Client) Publish(req proto.PublishRequest) (proto.PublishReply, error) {
	var rep proto.PublishReply
	err := c.request(proto.AdminPublish, req, &rep, 30*time.Second)
	return rep, err
}

// Resolve returns the minions a target selects.
func (c *Client) Resolve(tgt, tgtType string) ([]string, error) {
	var rep proto.PublishReply
	err := c.request(proto.AdminResolve, proto.PublishRequest{Tgt: tgt, TgtType: tgtType, Fun: "-"}, &rep, 30*time.Second)
	return rep.Minions, err
}

// ReloadKeys tells the master the key store changed.
func (c *Client) ReloadKeys() error { return c.request(proto.AdminKeys, nil, nil, 10*time.Second) }

func (c *Client) bucket(ctx context.Context, name string) (jetstream.KeyValue, error) {
	return c.js.KeyValue(ctx, name)
}

// Returns collects the returns of jid until every minion in want has
// returned or ctx ends; each return is passed to each as it arrives
// (existing ones first). It returns the returns by minion id.
func (c *Client) Returns(ctx context.Context, jid string, want []string, each func(proto.Return)) (map[string]proto.Return, error) {
	kv, err := c.bucket(ctx, proto.ReturnBucket)
	if err != nil {
		return nil, err
	}
	w, err := kv.Watch(ctx, jid+".*", jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	got := map[string]proto.Return{}
	pending := map[string]bool{}
	for _, id := range want {
		pending[id] = true
	}
	for {
		if want != nil && len(pending) == 0 {
			return got, nil
		}
		select {
		case <-ctx.Done():
			return got, nil
		case e, ok := <-w.Updates():
			if !ok {
				return got, nil
			}
			if e == nil { // the stored returns have all been seen
				if want == nil {
					return got, nil
				}
				continue
			}
			var r proto.Return
			if json.Unmarshal(e.Value(), &r) != nil {
				continue
			}
			tok := strings.TrimPrefix(e.Key(), jid+".")
			id, err := proto.IDFromToken(tok)
			if err != nil || id != r.ID {
				continue // a return stored under another minion's name
			}
			got[id] = r
			delete(pending, id)
			if each != nil {
				each(r)
			}
		}
	}
}

// Job returns the record of jid.
func (c *Client) Job(ctx context.Context, jid string) (proto.Job, error) {
	var job proto.Job
	kv, err := c.bucket(ctx, proto.JobBucket)
	if err != nil {
		return job, err
	}
	e, err := kv.Get(ctx, jid)
	if err != nil {
		return job, fmt.Errorf("job %s: %w", jid, err)
	}
	pub, _ := c.Key.PublicKey()
	_, err = proto.Open(e.Value(), pub, &job)
	return job, err
}

// Jobs lists the stored jobs, oldest first.
func (c *Client) Jobs(ctx context.Context) ([]proto.Job, error) {
	kv, err := c.bucket(ctx, proto.JobBucket)
	if err != nil {
		return nil, err
	}
	lister, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var jids []string
	for k := range lister.Keys() {
		jids = append(jids, k)
	}
	sort.Strings(jids)
	var out []proto.Job
	for _, j := range jids {
		if job, err := c.Job(ctx, j); err == nil {
			out = append(out, job)
		}
	}
	return out, nil
}
