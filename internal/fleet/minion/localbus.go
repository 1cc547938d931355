package minion

// localbus.go is the minion's own event bus, Salt's minion-side IPC bus:
// a Unix socket in sock_dir that the minion daemon serves while it runs.
// Its job processes, and `brine call` on the same host, fire events on it
// (event.fire) and watch it (state.event). Like Salt's IPC sockets it is
// the minion user's alone (mode 0600): whoever may open it may see every
// event of this minion, and nothing of the master's bus travels on it.
//
// The protocol is lines of JSON. A client's first line is "pub" or "sub".
// A publisher then writes {"tag": ..., "data": ...} lines; the bus stamps
// each (_stamp, as Salt's fire_event does) and hands it to every
// subscriber. A subscriber gets "ok" once it is registered, then one
// event per line, in the order the bus received them.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"brine/internal/catalog"
	"brine/internal/fleet/events"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// LocalBusPath is the socket of minion opts' own bus (sock_dir/
// minion_event_<sha256 of the id, 10 hex digits>_pub.sock, after Salt's
// IPC name), "" when opts set no sock_dir.
func LocalBusPath(opts *value.Map) string {
	dir := optString(opts, "sock_dir")
	if dir == "" {
		return ""
	}
	h := sha256.Sum256([]byte(optString(opts, "id")))
	return filepath.Join(dir, "minion_event_"+hex.EncodeToString(h[:])[:10]+"_pub.sock")
}

// localEvent is one event on the local bus.
type localEvent struct {
	Tag  string          `json:"tag"`
	Data proto.ValueJSON `json:"data"`
}

// subscriberBuffer is how many events a slow subscriber may lag behind
// before it misses some (Salt's IPC drops them too).
const subscriberBuffer = 1024

// maxLocalLine bounds one line: an event of max_event_size with room for
// its tag and the encoding.
const maxLocalLine = events.MaxEventSize + 2*events.MaxTagLen + 1024

// localBus is the daemon's side of the bus.
type localBus struct {
	ln   net.Listener
	path string
	log  *slog.Logger

	mu    sync.Mutex
	subs  map[chan []byte]struct{}
	conns map[net.Conn]struct{}
	done  bool
	wg    sync.WaitGroup
}

// serveLocalBus starts the bus at path, replacing a stale socket.
func serveLocalBus(path string, log *slog.Logger) (*localBus, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	b := &localBus{ln: ln, path: path, log: log, subs: map[chan []byte]struct{}{}, conns: map[net.Conn]struct{}{}}
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

// Close stops the bus, ends its subscribers and removes the socket.
func (b *localBus) Close() {
	b.ln.Close()
	b.mu.Lock()
	b.done = true
	for ch := range b.subs {
		close(ch)
		delete(b.subs, ch)
	}
	for c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
	_ = os.Remove(b.path)
}

func (b *localBus) accept() {
	defer b.wg.Done()
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		if b.done {
			b.mu.Unlock()
			conn.Close()
			return
		}
		b.conns[conn] = struct{}{}
		b.mu.Unlock()
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.handle(conn)
			b.mu.Lock()
			delete(b.conns, conn)
			b.mu.Unlock()
			conn.Close()
		}()
	}
}

func (b *localBus) handle(conn net.Conn) {
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 0, 4096), maxLocalLine)
	if !sc.Scan() {
		return
	}
	switch sc.Text() {
	case "pub":
		for sc.Scan() {
			var ev localEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Tag == "" || len(ev.Tag) > events.MaxTagLen {
				b.log.Debug("local bus: dropped a malformed event")
				continue
			}
			b.broadcast(ev)
		}
	case "sub":
		ch := make(chan []byte, subscriberBuffer)
		b.mu.Lock()
		if b.done {
			b.mu.Unlock()
			return
		}
		b.subs[ch] = struct{}{}
		b.mu.Unlock()
		defer b.unsubscribe(ch)
		if _, err := conn.Write([]byte("ok\n")); err != nil {
			return
		}
		// the subscriber's closing ends the read
		gone := make(chan struct{})
		go func() {
			_, _ = conn.Read(make([]byte, 1))
			close(gone)
		}()
		for {
			select {
			case line, ok := <-ch:
				if !ok {
					return
				}
				if _, err := conn.Write(line); err != nil {
					return
				}
			case <-gone:
				return
			}
		}
	}
}

func (b *localBus) unsubscribe(ch chan []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[ch]; ok {
		delete(b.subs, ch)
		close(ch)
	}
}

// broadcast stamps ev and queues it for every subscriber.
func (b *localBus) broadcast(ev localEvent) {
	data, ok := ev.Data.V.(*value.Map)
	if !ok {
		data = value.MapOf("data", ev.Data.V)
	}
	data.Set("_stamp", events.Stamp(time.Now()))
	line, err := json.Marshal(localEvent{Tag: ev.Tag, Data: proto.ValueJSON{V: data}})
	if err != nil {
		return
	}
	line = append(line, '\n')
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- line:
		default:
			b.log.Warn("local bus: a subscriber is too slow; event dropped", "tag", ev.Tag)
		}
	}
}

// ErrNoLocalBus is a bus that is not there: no minion daemon runs with
// these options on this host.
var ErrNoLocalBus = errors.New("no minion event bus")

func dialLocalBus(path, role string) (net.Conn, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: sock_dir is not set", ErrNoLocalBus)
	}
	conn, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%w at %s (is the minion daemon running?): %v", ErrNoLocalBus, path, err)
	}
	if _, err := conn.Write([]byte(role + "\n")); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// publishLocal fires one event on the bus at path.
func publishLocal(path, tag string, data *value.Map) error {
	if tag == "" || len(tag) > events.MaxTagLen {
		return events.ErrBadTag
	}
	line, err := json.Marshal(localEvent{Tag: tag, Data: proto.ValueJSON{V: data}})
	if err != nil {
		return err
	}
	conn, err := dialLocalBus(path, "pub")
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write(append(line, '\n'))
	return err
}

// LocalSubscription receives the events of a minion's own bus.
type LocalSubscription struct {
	conn net.Conn
	sc   *bufio.Scanner
}

// SubscribeLocal watches the bus at path; the events fired from the
// moment it returns arrive through Next.
func SubscribeLocal(path string) (*LocalSubscription, error) {
	conn, err := dialLocalBus(path, "sub")
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 0, 4096), maxLocalLine)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if !sc.Scan() || sc.Text() != "ok" {
		conn.Close()
		return nil, fmt.Errorf("%w at %s: no answer", ErrNoLocalBus, path)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return &LocalSubscription{conn: conn, sc: sc}, nil
}

// Next waits for the next event; it fails once the bus or Close ends the
// subscription.
func (s *LocalSubscription) Next() (string, any, error) {
	for s.sc.Scan() {
		var ev localEvent
		if err := json.Unmarshal(s.sc.Bytes(), &ev); err == nil {
			return ev.Tag, ev.Data.V, nil
		}
	}
	if err := s.sc.Err(); err != nil {
		return "", nil, err
	}
	return "", nil, errors.New("the minion event bus closed")
}

// Close ends the subscription.
func (s *LocalSubscription) Close() error { return s.conn.Close() }

// Subscribe watches node's event bus for state.event: "minion" is this
// minion's own bus (the daemon's socket). A minion may not read its
// master's bus, so "master" is refused.
func (e eventService) Subscribe(node, sockDir string) (next func() (string, any, error), stop func(), err error) {
	return subscribeNode(e.s.Opts, node, sockDir)
}

// A run without a session (brine call --local) watches the bus of the
// daemon with its options, as salt-call --local does.
func init() { catalog.SetLocalBus(subscribeNode) }

// subscribeNode watches node's bus for the minion of opts.
func subscribeNode(opts *value.Map, node, sockDir string) (next func() (string, any, error), stop func(), err error) {
	switch node {
	case "minion":
	case "master":
		return nil, nil, errors.New("node=master: a minion may not watch its master's event bus; watch it on the master (salt-run state.event, brine event listen)")
	default:
		return nil, nil, fmt.Errorf("node must be minion or master, not %q", node)
	}
	if sockDir != "" {
		opts = opts.Copy()
		opts.Set("sock_dir", sockDir)
	}
	sub, err := SubscribeLocal(LocalBusPath(opts))
	if err != nil {
		return nil, nil, err
	}
	return sub.Next, func() { sub.Close() }, nil
}

// startLocalBus serves the bus when the options ask for it; a bus that
// cannot start is logged, the minion runs without it.
func (m *Minion) startLocalBus() *localBus {
	path := LocalBusPath(m.o.Opts)
	if !m.o.LocalBus || path == "" {
		return nil
	}
	bus, err := serveLocalBus(path, m.log)
	if err != nil {
		m.log.Warn("cannot serve the minion event bus", "path", path, "err", err)
		return nil
	}
	return bus
}

// ServeLocalBus serves the bus of minion opts until the returned closer
// is closed (the daemon does it in Run when Options.LocalBus is set).
func ServeLocalBus(opts *value.Map, log *slog.Logger) (io.Closer, error) {
	path := LocalBusPath(opts)
	if path == "" {
		return nil, fmt.Errorf("%w: sock_dir is not set", ErrNoLocalBus)
	}
	if log == nil {
		log = slog.Default()
	}
	b, err := serveLocalBus(path, log)
	if err != nil {
		return nil, err
	}
	return closerFunc(b.Close), nil
}

type closerFunc func()

func (f closerFunc) Close() error { f(); return nil }
