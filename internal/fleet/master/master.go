// Package master is the brine master: it runs (or connects to) the NATS
// server, admits minion keys, publishes jobs to the minions a target
// selects, stores job records and returns in JetStream, and serves each
// minion its files (confined to the file roots) and its own pillar,
// compiled on the master.
package master

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"brine/internal/config"
	"brine/internal/fleet/events"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/fleet/reactor"
	"brine/internal/highstate"
	"brine/internal/value"
)

// Master is a running master.
type Master struct {
	Cfg   *config.Config
	Opts  *value.Map
	Store *keys.Store
	Key   nkeys.KeyPair // signs jobs and replies; the master's NATS user
	Files *FileServer
	Log   *slog.Logger
	// Runner runs the reactor's runner.* reactions; set it before Start
	// (nil: such reactions log that runners are unavailable).
	Runner reactor.RunnerCaller

	reactor  *reactor.Reactor
	ns       *server.Server // nil with an external NATS server
	baseOpts *server.Options
	nc       *nats.Conn
	js       jetstream.JetStream
	jobs     jetstream.KeyValue
	rets     jetstream.KeyValue
	minions  jetstream.KeyValue
	guard    *proto.ReplayGuard
	reqs     *reqGuard // per-minion request bounds (guard.go)
	url      string
	tlsCA    string // CA of the embedded server's certificate ("" for system roots)

	mu       sync.Mutex
	accepted map[string]string // id -> key as given to the server
	keysGen  uint64            // counts changes of accepted
	cache    map[string]*MinionData

	presence extPresence // connected users of an external server, cached

	recentMu  sync.Mutex
	recent    []*recentJob          // the catch-up window, oldest first
	recentJID map[string]*recentJob // the same, by jid

	stop chan struct{}
	wg   sync.WaitGroup
}

// MinionData is what the master knows of a minion for targeting.
type MinionData struct {
	Grains *value.Map
	Pillar *value.Map
}

// Paths of the files a master keeps under pki_dir and cachedir.
func masterKeyPath(pki string) string { return filepath.Join(pki, "master.nk") }

// URLFile is where a running master writes its client URL, so the command
// line finds a master listening on an ephemeral port.
func URLFile(cachedir string) string { return filepath.Join(cachedir, "master.url") }

// KeyPath is the master's nkey seed (its NATS user and signing key).
func KeyPath(opts *value.Map) string { return masterKeyPath(optString(opts, "pki_dir")) }

func optString(opts *value.Map, k string) string {
	v, _ := opts.Get(k)
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

// optFloat reads a number option, integer or float.
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

func optInt(opts *value.Map, k string, def int64) int64 {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return def
}

// New prepares a master from its configuration.
func New(cfg *config.Config, log *slog.Logger) (*Master, error) {
	if log == nil {
		log = slog.Default()
	}
	opts := cfg.Opts()
	pki := optString(opts, "pki_dir")
	store, err := keys.OpenStore(pki)
	if err != nil {
		return nil, fmt.Errorf("key store: %w", err)
	}
	kp, err := keys.LoadOrCreate(masterKeyPath(pki))
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	return &Master{
		Cfg:   cfg,
		Opts:  opts,
		Store: store,
		Key:   kp,
		Files: &FileServer{Roots: highstate.FileRoots(cfg.Opts()), Dirs: rootDirs(cfg.Map("file_roots"))},
		Log:   log,
		guard: proto.NewReplayGuard(2 * time.Minute),
		reqs:  newReqGuard(),
		cache: map[string]*MinionData{},
		stop:  make(chan struct{}),

		recentJID: map[string]*recentJob{},
		keysGen:   1, // 0 means "changed" to Master.resolve
	}, nil
}

// URL returns the client URL minions should use.
func (m *Master) URL() string { return m.url }

// Conn returns the master's own NATS connection.
func (m *Master) Conn() *nats.Conn { return m.nc }

// Start starts the embedded NATS server (unless nats_url names an
// external one), connects, opens the JetStream buckets and serves.
func (m *Master) Start() error {
	pub, _ := m.Key.PublicKey()
	sign := func(nonce []byte) ([]byte, error) { return m.Key.Sign(nonce) }
	copts := []nats.Option{nats.Name("brine-master"), nats.Nkey(pub, sign), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}
	if ext := optString(m.Opts, "nats_url"); ext != "" {
		if creds := optString(m.Opts, "nats_creds"); creds != "" {
			kp, err := keys.Load(creds)
			if err != nil {
				return err
			}
			cpub, _ := kp.PublicKey()
			copts[1] = nats.Nkey(cpub, kp.Sign)
		}
		if ca := optString(m.Opts, "tls_ca"); ca != "" {
			copts = append(copts, nats.RootCAs(ca))
		}
		nc, err := nats.Connect(ext, copts...)
		if err != nil {
			return fmt.Errorf("connecting to %s: %w", ext, err)
		}
		m.nc = nc
		m.url = ext
		accepted, err := m.Store.Accepted()
		if err != nil {
			nc.Close()
			return err
		}
		m.accepted = accepted
		if err := m.WriteNATSAuth(accepted); err != nil {
			m.Log.Warn("writing the NATS authorization file", "err", err)
		}
	} else {
		if err := m.startServer(pub); err != nil {
			return err
		}
		// The master talks to its own server in process: no socket, no
		// TLS, for the connection every request and return goes through.
		copts = append(copts, nats.InProcessServer(m.ns))
		nc, err := nats.Connect("nats://in-process", copts...)
		if err != nil {
			m.ns.Shutdown()
			return fmt.Errorf("connecting to the embedded server: %w", err)
		}
		m.nc = nc
	}
	if err := m.openBuckets(); err != nil {
		m.Close()
		return err
	}
	m.loadMinionCache()
	m.loadRecent()
	if err := m.subscribe(); err != nil {
		m.Close()
		return err
	}
	if err := m.startEvents(); err != nil {
		m.Close()
		return err
	}
	if cd := optString(m.Opts, "cachedir"); cd != "" {
		if err := os.MkdirAll(cd, 0o755); err == nil {
			_ = os.WriteFile(URLFile(cd), []byte(m.url+"\n"), 0o644)
		}
	}
	m.warnGrainPillar()
	m.wg.Add(1)
	go m.watchKeys()
	m.Log.Info("brine master started", "url", m.url)
	m.logFinger()
	return nil
}

// startServer starts the embedded nats-server.
func (m *Master) startServer(masterPub string) error {
	host := optString(m.Opts, "interface")
	if host == "" {
		host = "0.0.0.0"
	}
	port := int(optInt(m.Opts, "ret_port", 4506))
	if port == 0 {
		port = -1
	}
	sd := optString(m.Opts, "jetstream_dir")
	if sd == "" {
		sd = filepath.Join(optString(m.Opts, "cachedir"), "jetstream")
	}
	so := &server.Options{
		ServerName: "brine-master",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   sd,
		MaxPayload: 8 << 20,
		NoSigs:     true,
		NoLog:      os.Getenv("BRINE_NATS_LOG") == "",
	}
	scheme := "nats"
	if value.Truthy(mustGet(m.Opts, "tls")) {
		files := TLSFiles{CA: optString(m.Opts, "tls_ca"), Cert: optString(m.Opts, "tls_cert"), Key: optString(m.Opts, "tls_key")}
		if files.Cert == "" {
			var err error
			files, err = EnsureTLS(optString(m.Opts, "pki_dir"), host)
			if err != nil {
				return fmt.Errorf("generating TLS certificates: %w", err)
			}
		}
		m.tlsCA = files.CA
		tc, err := ServerTLSConfig(files)
		if err != nil {
			return err
		}
		so.TLS = true
		so.TLSConfig = tc
		so.TLSTimeout = 5
		scheme = "tls"
	}
	m.baseOpts = so.Clone()
	accepted, err := m.Store.Accepted()
	if err != nil {
		return err
	}
	if err := applyAuth(so, masterPub, accepted); err != nil {
		return err
	}
	// The key-request account joins at the first reload, in
	// enableKeyRequests: configured at start beside the global account, it
	// would leave the global account without JetStream.
	so.Accounts, so.Users = nil, nil
	ns, err := server.NewServer(so)
	if err != nil {
		return fmt.Errorf("nats server: %w", err)
	}
	if !so.NoLog {
		ns.ConfigureLogger()
	}
	ns.Start()
	if !ns.ReadyForConnections(20 * time.Second) {
		ns.Shutdown()
		return errors.New("nats server did not start")
	}
	m.ns = ns
	m.accepted = accepted
	// Reloads must keep the port actually bound.
	if addr, ok := ns.Addr().(*net.TCPAddr); ok {
		m.baseOpts.Port = addr.Port
	}
	if err := m.enableKeyRequests(masterPub, accepted); err != nil {
		ns.Shutdown()
		m.ns = nil
		return fmt.Errorf("nats server: key-request account: %w", err)
	}
	urlHost := host
	if urlHost == "0.0.0.0" || urlHost == "" {
		urlHost = "127.0.0.1"
	}
	m.url = fmt.Sprintf("%s://%s:%d", scheme, urlHost, m.baseOpts.Port)
	return nil
}

func mustGet(m *value.Map, k string) any { v, _ := m.Get(k); return v }

// MinionPermissions are the NATS permissions of minion id: publish only
// its own requests (returns included: the master validates and stores
// them, so a minion never writes to JetStream) and its own events (which
// the master checks and relays to the bus, see internal/fleet/events),
// subscribe only its own jobs, the jobs sent to every minion (see
// Master.Publish) and its inbox: never the event bus.
func MinionPermissions(id string) *server.Permissions {
	tok := proto.Token(id)
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			"brine.req." + tok + ".*",
			events.MinionPublishAllow(id),
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{
			"brine.job." + tok + ".>",
			proto.BroadcastWildcard,
			proto.InboxPrefix(id) + ".>",
		}},
	}
}

// KeyReqPermissions are those of the anonymous key-request user: publish a
// key request, nothing else. On the embedded server the user is in an
// account of its own (see keyreq.go); with an external server it shares
// the master's account, and these are all that confine it.
func KeyReqPermissions() *server.Permissions {
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: []string{proto.KeyReqSubject}},
		Subscribe: &server.SubjectPermission{Deny: []string{">"}},
	}
}

// applyAuth sets the users of the server: the master (everything), each
// accepted minion (its own subjects) and the key-request user, in its own
// account whose requests reach the master with the requester's address.
func applyAuth(so *server.Options, masterPub string, accepted map[string]string) error {
	users := make([]*server.NkeyUser, 0, len(accepted)+1)
	users = append(users, &server.NkeyUser{Nkey: masterPub})
	ids := make([]string, 0, len(accepted))
	for id := range accepted {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	seen := map[string]bool{masterPub: true}
	for _, id := range ids {
		k := accepted[id]
		if seen[k] {
			continue // one key, one identity
		}
		seen[k] = true
		users = append(users, &server.NkeyUser{Nkey: k, Permissions: MinionPermissions(id)})
	}
	so.Nkeys = users
	acc, kru, err := keyReqAuth()
	if err != nil {
		return err
	}
	so.Accounts = []*server.Account{acc}
	so.Users = []*server.User{kru}
	return nil
}

// ReloadKeys re-reads the accepted keys and, when they changed, reloads
// the server's users. Connections of removed keys are closed.
func (m *Master) ReloadKeys() error {
	accepted, err := m.Store.Accepted()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if sameKeys(accepted, m.accepted) {
		return nil
	}
	if m.ns != nil {
		so := m.baseOpts.Clone()
		pub, _ := m.Key.PublicKey()
		if err := applyAuth(so, pub, accepted); err != nil {
			return fmt.Errorf("reloading keys: %w", err)
		}
		if err := m.ns.ReloadOptions(so); err != nil {
			return fmt.Errorf("reloading keys: %w", err)
		}
	} else if err := m.WriteNATSAuth(accepted); err != nil {
		return fmt.Errorf("writing the NATS authorization file: %w", err)
	}
	m.fireKeyChanges(m.accepted, accepted)
	m.accepted = accepted
	m.keysGen++
	m.Log.Info("accepted keys reloaded", "count", len(accepted))
	return nil
}

func sameKeys(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// watchKeys picks up changes `brine key` made on disk.
func (m *Master) watchKeys() {
	defer m.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	dir := filepath.Join(m.Store.Dir, string(keys.Accepted))
	var lastMod time.Time
	lastFull := time.Now()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			// The accepted directory's mtime changes when a key is added,
			// moved or removed; a full re-read every minute covers the rest.
			st, err := os.Stat(dir)
			if err == nil && st.ModTime().Equal(lastMod) && time.Since(lastFull) < time.Minute {
				continue
			}
			if err == nil {
				lastMod = st.ModTime()
			}
			lastFull = time.Now()
			if err := m.ReloadKeys(); err != nil {
				m.Log.Error("key reload failed", "err", err)
			}
		}
	}
}

// openBuckets creates (or opens) the JetStream buckets.
func (m *Master) openBuckets() error {
	js, err := jetstream.New(m.nc)
	if err != nil {
		return err
	}
	m.js = js
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	keep := time.Duration(optInt(m.Opts, "keep_jobs", 24)) * time.Hour
	for _, b := range []struct {
		name string
		ttl  time.Duration
		dst  *jetstream.KeyValue
	}{
		{proto.JobBucket, keep, &m.jobs},
		{proto.ReturnBucket, keep, &m.rets},
		{proto.MinionBucket, 0, &m.minions},
	} {
		kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: b.name, TTL: b.ttl, Storage: jetstream.FileStorage, History: 1})
		if err != nil {
			return fmt.Errorf("jetstream bucket %s: %w", b.name, err)
		}
		*b.dst = kv
	}
	return nil
}

// Close stops serving and shuts the embedded server down.
func (m *Master) Close() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	m.wg.Wait()
	if m.reactor != nil {
		m.reactor.Close()
	}
	if m.nc != nil {
		m.nc.Drain()
		m.nc.Close()
	}
	if m.ns != nil {
		m.ns.Shutdown()
		m.ns.WaitForShutdown()
	}
}

// Server returns the embedded NATS server (nil with an external one).
func (m *Master) Server() *server.Server { return m.ns }

// rootDirs reads file_roots: environment -> directories.
func rootDirs(roots *value.Map) map[string][]string {
	out := map[string][]string{}
	roots.Range(func(k, v any) bool {
		env := value.Str(k)
		switch d := v.(type) {
		case string:
			out[env] = append(out[env], d)
		case *value.List:
			for _, e := range d.Items {
				if s, ok := e.(string); ok {
					out[env] = append(out[env], s)
				}
			}
		}
		return true
	})
	return out
}
