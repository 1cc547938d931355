package master

// mine.go is the master side of Salt's mine (salt/daemons/masterapi.py's
// _mine, _mine_delete, _mine_flush and _mine_get): each minion's mine data
// is one entry of the BRINE_MINE bucket, keyed by its id token. A minion
// reaches it only through ReqMine requests, which name no minion: the
// minion writes, deletes and flushes only its own entry, and reads others'
// entries only as mine_get (master side) and allow_tgt (minion side) let it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Keys of a mine entry stored with an access list (salt/utils/mine.py).
const (
	mineACLID   = "__saltmine_acl__"
	mineACLData = "__data__"
)

// mineBuckets holds each master's mine bucket once opened (the Master
// struct is shared with other features; the bucket is opened on first use).
var mineBuckets sync.Map // *Master -> jetstream.KeyValue

// mineMu serialises read-modify-write of one minion's entry.
var mineMu sync.Map // token -> *sync.Mutex

func (m *Master) mineKV(ctx context.Context) (jetstream.KeyValue, error) {
	if kv, ok := mineBuckets.Load(m); ok {
		return kv.(jetstream.KeyValue), nil
	}
	if m.js == nil {
		return nil, errors.New("the mine is not available: no JetStream")
	}
	kv, err := m.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: proto.MineBucket, Storage: jetstream.FileStorage, History: 1})
	if err != nil {
		return nil, fmt.Errorf("jetstream bucket %s: %w", proto.MineBucket, err)
	}
	mineBuckets.Store(m, kv)
	return kv, nil
}

// handleMine serves a ReqMine request of minion id.
func (m *Master) handleMine(id string, body json.RawMessage) (any, error) {
	var req proto.MineRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res any
	var err error
	switch req.Op {
	case proto.MineStore:
		res, err = m.mineStore(ctx, id, req)
	case proto.MineDelete:
		res, err = m.mineDelete(ctx, id, req)
	case proto.MineFlush:
		res, err = m.mineFlush(ctx, id)
	case proto.MineGet:
		res, err = m.MineGet(ctx, id, req.Tgt, req.Fun.V, req.TgtType)
	default:
		return nil, fmt.Errorf("unknown mine operation %q", req.Op)
	}
	if err != nil {
		return nil, err
	}
	return proto.MineReply{Result: proto.ValueJSON{V: res}}, nil
}

// mineCaching reports whether the master keeps mine data
// (minion_data_cache or enforce_mine_cache, as Salt's master).
func (m *Master) mineCaching() bool {
	v, ok := m.Opts.Get("minion_data_cache")
	return !ok || value.Truthy(v) || value.Truthy(mustGet(m.Opts, "enforce_mine_cache"))
}

func lockMine(tok string) func() {
	mu, _ := mineMu.LoadOrStore(tok, &sync.Mutex{})
	l := mu.(*sync.Mutex)
	l.Lock()
	return l.Unlock
}

// mineData reads minion id's mine data (an empty mapping when none).
func mineData(ctx context.Context, kv jetstream.KeyValue, id string) (*value.Map, error) {
	e, err := kv.Get(ctx, proto.Token(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return value.NewMap(0), nil
	}
	if err != nil {
		return nil, err
	}
	var v proto.ValueJSON
	if err := json.Unmarshal(e.Value(), &v); err != nil {
		return nil, err
	}
	return v.Map(), nil
}

func putMine(ctx context.Context, kv jetstream.KeyValue, id string, data *value.Map) error {
	b, err := json.Marshal(proto.ValueJSON{V: data})
	if err != nil {
		return err
	}
	_, err = kv.Put(ctx, proto.Token(id), b)
	return err
}

// mineStore is Salt's _mine: update (or with clear, replace) the minion's
// own data.
func (m *Master) mineStore(ctx context.Context, id string, req proto.MineRequest) (any, error) {
	newData, ok := req.Data.V.(*value.Map)
	if !ok {
		return false, nil
	}
	if !m.mineCaching() {
		return true, nil
	}
	kv, err := m.mineKV(ctx)
	if err != nil {
		return nil, err
	}
	defer lockMine(proto.Token(id))()
	data := newData
	if !req.Clear {
		old, err := mineData(ctx, kv, id)
		if err != nil {
			return nil, err
		}
		old.Update(newData)
		data = old
	}
	if err := putMine(ctx, kv, id, data); err != nil {
		return nil, fmt.Errorf("storing mine data: %w", err)
	}
	return true, nil
}

// mineDelete is Salt's _mine_delete: drop one function of the minion's
// own data.
func (m *Master) mineDelete(ctx context.Context, id string, req proto.MineRequest) (any, error) {
	fun, ok := req.Fun.V.(string)
	if !ok {
		return false, nil
	}
	if !m.mineCaching() {
		return true, nil
	}
	kv, err := m.mineKV(ctx)
	if err != nil {
		return nil, err
	}
	defer lockMine(proto.Token(id))()
	data, err := mineData(ctx, kv, id)
	if err != nil {
		return false, nil
	}
	if _, had := data.Delete(fun); had {
		if err := putMine(ctx, kv, id, data); err != nil {
			return false, nil
		}
	}
	return true, nil
}

// mineFlush is Salt's _mine_flush: drop all of the minion's own data.
func (m *Master) mineFlush(ctx context.Context, id string) (any, error) {
	if !m.mineCaching() {
		return true, nil
	}
	kv, err := m.mineKV(ctx)
	if err != nil {
		return nil, err
	}
	defer lockMine(proto.Token(id))()
	if err := kv.Delete(ctx, proto.Token(id)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil
	}
	return true, nil
}

// MineGet is Salt's _mine_get for requester (a minion id): the data of
// functions fun (a name, a comma-separated string or a list) of the
// minions tgt selects, as far as the master's mine_get option and each
// entry's allow_tgt let requester read it. One function gives
// {minion: data}, several {function: {minion: data}}.
func (m *Master) MineGet(ctx context.Context, requester, tgt string, fun any, tgtType string) (*value.Map, error) {
	ret := value.NewMap(0)
	var functions []string
	multi := false
	switch f := fun.(type) {
	case string:
		for _, s := range strings.Split(f, ",") {
			if !slices.Contains(functions, s) {
				functions = append(functions, s)
			}
		}
		multi = len(functions) > 1
	case *value.List:
		for _, x := range f.Items {
			functions = append(functions, value.Str(x))
		}
		multi = true
	default:
		return ret, nil
	}
	functions = m.mineGetAllowed(requester, functions)
	if len(functions) == 0 {
		return ret, nil
	}
	switch strings.ToLower(tgtType) {
	case "":
		tgtType = "glob"
	case "pillar":
		// Salt reads the mine with exact pillar matching.
		tgtType = "pillar_exact"
	}
	minions, err := m.Resolve(tgt, tgtType)
	if err != nil {
		return nil, err
	}
	kv, err := m.mineKV(ctx)
	if err != nil {
		return nil, err
	}
	for _, minion := range minions {
		data, err := mineData(ctx, kv, minion)
		if err != nil || data.Len() == 0 {
			continue
		}
		for _, f := range functions {
			entry, ok := data.Get(f)
			if !ok {
				continue
			}
			result := entry
			if em, isMap := entry.(*value.Map); isMap && em.Has(mineACLID) {
				result, _ = em.Get(mineACLData)
				if allow, has := em.Get("allow_tgt"); has {
					allowType := "glob"
					if t, ok := em.Get("allow_tgt_type"); ok {
						allowType = value.Str(t)
					}
					allowed, err := m.Resolve(value.Str(allow), allowType)
					if err != nil || !slices.Contains(allowed, requester) {
						continue
					}
				}
			}
			if multi {
				sub, _ := ret.Get(f)
				sm, ok := sub.(*value.Map)
				if !ok {
					sm = value.NewMap(0)
					ret.Set(f, sm)
				}
				sm.Set(minion, result)
			} else {
				ret.Set(minion, result)
			}
		}
	}
	return ret, nil
}

// mineGetAllowed applies the master's mine_get option (minion id regex ->
// list of function regexes) to functions; without the option all are
// allowed.
func (m *Master) mineGetAllowed(requester string, functions []string) []string {
	opt, ok := m.Opts.Get("mine_get")
	if !ok {
		return functions
	}
	acl, ok := opt.(*value.Map)
	if !ok {
		return nil
	}
	var perms []*regexp.Regexp
	acl.Range(func(k, v any) bool {
		re, err := regexp.Compile(`\A(?:` + value.Str(k) + `)`)
		if err != nil || !re.MatchString(requester) {
			return true
		}
		if l, ok := v.(*value.List); ok {
			for _, p := range l.Items {
				if pre, err := regexp.Compile(`\A(?:` + value.Str(p) + `)`); err == nil {
					perms = append(perms, pre)
				}
			}
		}
		return true
	})
	var out []string
	for _, f := range functions {
		for _, p := range perms {
			if p.MatchString(f) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// adminMine serves the mine.get runner: MineGet for the requester the
// runner names (the master's own minion).
func (m *Master) adminMine(body json.RawMessage) (any, error) {
	var req proto.MineAdminRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := m.MineGet(ctx, req.Requester, req.Tgt, req.Fun.V, req.TgtType)
	if err != nil {
		return nil, err
	}
	return proto.MineReply{Result: proto.ValueJSON{V: res}}, nil
}
