// Package proto is the wire contract between a brine master, its minions
// and its command-line clients: NATS subjects, message types (JSON, with a
// version field), and the binding of replies to requests and of jobs to
// the master's key (signatures and nonces against replay).
//
// Subjects (prefix "brine"); <tok> is a minion id as a subject token (see
// Token), <jid> a job id:
//
//	brine.keyreq                 key requests from minions not yet accepted
//	brine.job.<tok>.<jid>        a job for one minion (master -> minion)
//	brine.all.<jid>              a job for every accepted minion
//	brine.req.<tok>.<kind>       minion requests (hello, pillar, files, catchup,
//	                             return)
//	$KV.BRINE_RET.<jid>.<tok>    a return, stored in JetStream by the master
//	brine.master.<kind>          administrative requests (publish, resolve, keys)
//	brine.ev.<tag>               the event bus (see internal/fleet/events)
//	brine.mev.<tok>.<tag>        events a minion fires to the master
//	_INBOX_<tok>.>               a minion's reply inbox
package proto

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Version is the protocol version carried by every message.
const Version = 1

// Subject building blocks.
const (
	Prefix        = "brine"
	KeyReqSubject = Prefix + ".keyreq"
	// ReturnBucket is the JetStream key-value bucket of job returns
	// (key <jid>.<tok>); JobBucket holds job records (key <jid>);
	// MinionBucket the grains and pillar last seen per minion (key <tok>).
	ReturnBucket = "BRINE_RET"
	JobBucket    = "BRINE_JOBS"
	MinionBucket = "BRINE_MINIONS"
	// KeyReqUser is the user name (and password) of the connection
	// minions without an accepted key use for their key request.
	KeyReqUser = "brine-keyreq"
)

// Request kinds a minion may send under brine.req.<tok>.
const (
	ReqHello   = "hello"
	ReqPillar  = "pillar"
	ReqFiles   = "files"
	ReqFile    = "file"
	ReqCatchup = "catchup"
	// ReqReturn carries a job's return; the master checks it and
	// stores it (minions cannot write to JetStream themselves).
	ReqReturn = "return"
)

// Administrative request kinds under brine.master.
const (
	AdminPublish = "publish"
	AdminResolve = "resolve"
	AdminKeys    = "keys"
)

var plainToken = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Token turns a minion id into one subject token. Ids made of letters,
// digits, '_' and '-' are used as they are; any other id (with dots,
// wildcards, spaces, ...) becomes "=" and its unpadded base64url
// encoding, so no id can reach into another's subjects.
func Token(id string) string {
	if plainToken.MatchString(id) {
		return id
	}
	return "=" + base64.RawURLEncoding.EncodeToString([]byte(id))
}

// IDFromToken reverses Token.
func IDFromToken(tok string) (string, error) {
	if rest, ok := strings.CutPrefix(tok, "="); ok {
		b, err := base64.RawURLEncoding.DecodeString(rest)
		if err != nil {
			return "", fmt.Errorf("bad minion token %q: %w", tok, err)
		}
		return string(b), nil
	}
	if !plainToken.MatchString(tok) {
		return "", fmt.Errorf("bad minion token %q", tok)
	}
	return tok, nil
}

// ValidID reports whether id can name a minion: not empty, at most 255
// bytes, no NUL, no path separators, no leading dot (ids name key files,
// and the key store leaves dot files, its temporary files, out of its
// listings and counts).
func ValidID(id string) bool {
	return id != "" && len(id) <= 255 && !strings.ContainsAny(id, "\x00/\\") && !strings.HasPrefix(id, ".")
}

// JobSubject is the subject of job jid for minion id.
func JobSubject(id, jid string) string { return Prefix + ".job." + Token(id) + "." + jid }

// JobWildcard is what minion id subscribes to.
func JobWildcard(id string) string { return Prefix + ".job." + Token(id) + ".>" }

// BroadcastSubject is the subject of job jid when it targets every
// accepted minion; BroadcastWildcard is what every minion subscribes to.
func BroadcastSubject(jid string) string { return Prefix + ".all." + jid }

// BroadcastWildcard matches every broadcast job.
const BroadcastWildcard = Prefix + ".all.*"

// ReqSubject is the subject of a request of kind from minion id.
func ReqSubject(id, kind string) string { return Prefix + ".req." + Token(id) + "." + kind }

// ReqWildcard is what the master serves.
const ReqWildcard = Prefix + ".req.*.*"

// ParseReqSubject returns the minion id and kind of a request subject.
func ParseReqSubject(subj string) (id, kind string, err error) {
	parts := strings.Split(subj, ".")
	if len(parts) != 4 || parts[0] != Prefix || parts[1] != "req" {
		return "", "", fmt.Errorf("bad request subject %q", subj)
	}
	id, err = IDFromToken(parts[2])
	return id, parts[3], err
}

// AdminSubject is the subject of an administrative request.
func AdminSubject(kind string) string { return Prefix + ".master." + kind }

// InboxPrefix is minion id's reply inbox prefix.
func InboxPrefix(id string) string { return "_INBOX_" + Token(id) }

// ReturnKey is the key of minion id's return of job jid in ReturnBucket.
func ReturnKey(jid, id string) string { return jid + "." + Token(id) }

// ErrDuplicateReturn is the master's answer to a return it holds already,
// byte for byte: a minion retrying a return whose first delivery went
// through (its reply was lost) takes it as success. A different return in
// the slot is refused with another error, or replaced when it is not a
// return of that minion for that job.
var ErrDuplicateReturn = errors.New("return already stored")

// jid allocation: Salt's %Y%m%d%H%M%S%f, made unique within the process.
var (
	jidMu   sync.Mutex
	lastJID string
)

// NewJID returns a new job id in Salt's format (20 digits of UTC time).
func NewJID(now time.Time) string {
	jidMu.Lock()
	defer jidMu.Unlock()
	t := now.UTC()
	j := t.Format("20060102150405") + fmt.Sprintf("%06d", t.Nanosecond()/1000)
	if j <= lastJID {
		j = incJID(lastJID)
	}
	lastJID = j
	return j
}

func incJID(j string) string {
	b := []byte(j)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < '9' {
			b[i]++
			return string(b)
		}
		b[i] = '0'
	}
	return "1" + string(b)
}

// ValidJID reports whether s looks like a job id (digits only, 20 long).
func ValidJID(s string) bool {
	if len(s) != 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// JIDTime returns the time a job id encodes.
func JIDTime(jid string) (time.Time, error) {
	if !ValidJID(jid) {
		return time.Time{}, fmt.Errorf("bad jid %q", jid)
	}
	t, err := time.Parse("20060102150405", jid[:14])
	if err != nil {
		return time.Time{}, err
	}
	var us int
	fmt.Sscanf(jid[14:], "%d", &us)
	return t.Add(time.Duration(us) * time.Microsecond), nil
}

// NewNonce returns 16 random bytes in hex.
func NewNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ErrReplay is returned for a request or job seen before or too old.
var ErrReplay = errors.New("replayed or stale message")

// ReplayGuard remembers nonces for a window and refuses a nonce seen
// twice or a timestamp outside the window. It is safe for concurrent use.
type ReplayGuard struct {
	Window time.Duration
	mu     sync.Mutex
	seen   map[string]time.Time
	sweep  time.Time
}

// NewReplayGuard returns a guard with the given window.
func NewReplayGuard(window time.Duration) *ReplayGuard {
	return &ReplayGuard{Window: window, seen: map[string]time.Time{}}
}

// Check accepts (key, ts) once within the window.
func (g *ReplayGuard) Check(key string, ts time.Time, now time.Time) error {
	if ts.Before(now.Add(-g.Window)) || ts.After(now.Add(g.Window)) {
		return ErrReplay
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Sub(g.sweep) > g.Window {
		for k, t := range g.seen {
			if now.Sub(t) > 2*g.Window {
				delete(g.seen, k)
			}
		}
		g.sweep = now
	}
	if _, dup := g.seen[key]; dup {
		return ErrReplay
	}
	g.seen[key] = now
	return nil
}
