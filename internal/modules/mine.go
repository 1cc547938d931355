package modules

// mine.go is salt/modules/mine.py: the results of functions a minion runs
// (mine_functions, mine.send) stored on the master, where other minions
// read them with mine.get. A minion connected to a master reaches the
// master's mine through the run's "mine" service (internal/fleet/minion);
// without a master (file_client: local) the mine is the "mine_cache" key
// of the minion's local data store, as salt-call --local's.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	execmod.Register("mine.update", mineUpdate, "Run the mine_functions (minion config, master config in pillar, pillar) and store their results in the mine: mine.update [clear=False] [mine_functions=...].")
	execmod.Register("mine.send", mineSend, "Run one function and store its result in the mine under NAME: mine.send NAME [ARG ...] [mine_function=FUN] [allow_tgt=TGT] [allow_tgt_type=TYPE] [KEY=VALUE ...].")
	execmod.Register("mine.get", mineGet, "Return mine data of FUN (a name, comma-separated names or a list) from the minions TGT selects: mine.get TGT FUN [tgt_type=glob] [exclude_minion=False].")
	execmod.Register("mine.delete", mineDelete, "Remove the data of one function from this minion's mine: mine.delete FUN.")
	execmod.Register("mine.flush", mineFlush, "Remove all of this minion's mine data.")
	execmod.Register("mine.valid", mineValid, "List the valid mine_functions entries as {alias: {function: [args]}} (None when none are configured).")
}

// MineService is the "mine" service a minion connected to its master
// attaches to a run (see internal/fleet/minion). The master stores and
// serves the data of the minion the connection belongs to only.
type MineService interface {
	MineStore(data *value.Map, clear bool) (any, error)
	MineDelete(fun string) (any, error)
	MineFlush() (any, error)
	MineGet(tgt string, fun any, tgtType string) (any, error)
}

// Keys of a mine entry carrying an access list (salt/utils/mine.py).
const (
	mineACLID      = "__saltmine_acl__"
	mineACLVersion = int64(1)
	mineACLData    = "__data__"
)

// mineLocal reports whether the mine is the local data store.
func mineLocal(ctx *execmod.Context) bool {
	v, _ := ctx.Opts.Get("file_client")
	return v == "local"
}

func mineService(ctx *execmod.Context) (MineService, error) {
	if s, ok := ctx.Service("mine").(MineService); ok {
		return s, nil
	}
	return nil, &execmod.CommandExecutionError{Msg: "The salt mine is not available: no connection to a master (use file_client: local for the local mine)"}
}

// configMerge is Salt's config.merge: opts, then the master config in
// pillar, then pillar; mappings are merged (earlier sources win on a key),
// lists concatenated, and a string from an earlier source returned as is.
func configMerge(ctx *execmod.Context, key string) any {
	var ret any
	merge := func(src *value.Map) bool {
		tmp, ok := src.Get(key)
		if !ok {
			return false
		}
		switch r := ret.(type) {
		case nil:
			ret = value.DeepCopy(tmp)
			_, isStr := ret.(string)
			return isStr
		case *value.Map:
			if tm, ok := tmp.(*value.Map); ok {
				merged := value.DeepCopy(tm).(*value.Map)
				merged.Update(r)
				ret = merged
			}
		case *value.List:
			if tl, ok := tmp.(*value.List); ok {
				ret = value.NewList(append(append([]any{}, r.Items...), tl.Items...)...)
			}
		}
		return false
	}
	if ctx.Opts != nil && merge(ctx.Opts) {
		return ret
	}
	if mp := masterPillar(ctx); mp != nil && merge(mp) {
		return ret
	}
	if ctx.Pillar != nil {
		merge(ctx.Pillar)
	}
	return ret
}

// mineDef is one parsed mine_functions entry (salt/utils/mine.py's
// parse_function_definition).
type mineDef struct {
	fun    string // "" means the alias is the function
	args   []any
	kwargs *value.Map
	acl    *value.Map // allow_tgt, allow_tgt_type when set
}

func parseMineDef(def any) mineDef {
	d := mineDef{kwargs: value.NewMap(0), acl: value.NewMap(0)}
	switch x := def.(type) {
	case *value.Map:
		d.kwargs = x.Copy()
	case *value.List:
		for _, item := range x.Items {
			if m, ok := item.(*value.Map); ok {
				d.kwargs.Update(m)
			} else {
				d.args = append(d.args, item)
			}
		}
	}
	if f, ok := d.kwargs.Delete("mine_function"); ok && f != nil {
		d.fun = value.Str(f)
	}
	for _, k := range []string{"allow_tgt", "allow_tgt_type"} {
		if v, ok := d.kwargs.Delete(k); ok && value.Truthy(v) {
			d.acl.Set(k, v)
		}
	}
	return d
}

// wrapMineACL is wrap_acl_structure.
func wrapMineACL(data any, acl *value.Map) *value.Map {
	res := value.MapOf(mineACLData, data, mineACLID, mineACLVersion)
	acl.Range(func(k, v any) bool {
		res.Set(k, v)
		return true
	})
	return res
}

// mineFunctions returns mine_functions as a mapping of alias ->
// definition, from the argument or the configuration (nil: none).
func mineFunctions(ctx *execmod.Context, arg any) *value.Map {
	if !value.Truthy(arg) {
		arg = configMerge(ctx, "mine_functions")
		if !value.Truthy(arg) {
			return nil
		}
	}
	switch x := arg.(type) {
	case *value.Map:
		return x
	case *value.List:
		m := value.NewMap(len(x.Items))
		for _, f := range x.Items {
			m.Set(value.Str(f), value.NewMap(0))
		}
		return m
	}
	return nil
}

func mineUpdate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("update", args, kwargs, execmod.Opt("clear", false), execmod.Opt("mine_functions", nil))
	if err != nil {
		return nil, err
	}
	funcs := mineFunctions(ctx, v[1])
	if funcs == nil {
		return nil, nil
	}
	data := value.NewMap(0)
	funcs.Range(func(k, def any) bool {
		alias := value.Str(k)
		d := parseMineDef(def)
		name := d.fun
		if name == "" {
			name = alias
		}
		if _, ok := ctx.Lookup(name); !ok {
			slog.Error(fmt.Sprintf("Function %s in mine_functions not available", name))
			return true
		}
		res, err := ctx.Call(name, d.args, d.kwargs.Copy())
		if err != nil {
			slog.Error(fmt.Sprintf("Function %s in mine.update failed to execute", name), "err", err)
			return true
		}
		if d.acl.Has("allow_tgt") {
			data.Set(alias, wrapMineACL(res, d.acl))
		} else {
			data.Set(alias, res)
		}
		return true
	})
	return mineStore(ctx, data, value.Truthy(v[0]))
}

// mineStore stores data in the local mine cache or the master's mine.
func mineStore(ctx *execmod.Context, data *value.Map, clear bool) (any, error) {
	if mineLocal(ctx) {
		if !clear {
			if old, ok := localMineCache(ctx).(*value.Map); ok {
				old.Update(data)
				data = old
			}
		}
		return saveLocalMineCache(ctx, data), nil
	}
	s, err := mineService(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.MineStore(data, clear)
	if err != nil {
		slog.Warn("Unable to send mine data to master.", "err", err)
		return false, nil
	}
	return res, nil
}

func mineSend(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) == 0 {
		n, ok := kwargs.Get("name")
		if !ok {
			return nil, &execmod.InvocationError{Msg: "send() missing 1 required positional argument: 'name'"}
		}
		kwargs = kwargs.Copy()
		kwargs.Delete("name")
		args = []any{n}
	}
	name := value.Str(args[0])
	fargs := args[1:]
	fkw := value.NewMap(0)
	kwargs.Range(func(k, v any) bool {
		if !strings.HasPrefix(value.Str(k), "__") {
			fkw.Set(k, v)
		}
		return true
	})
	fun := name
	if f, ok := fkw.Delete("mine_function"); ok && value.Truthy(f) {
		fun = value.Str(f)
	}
	allow, _ := fkw.Delete("allow_tgt")
	allowType, _ := fkw.Delete("allow_tgt_type")
	if _, ok := ctx.Lookup(fun); !ok {
		slog.Error(fmt.Sprintf("Function %s in mine.send failed to execute", fun))
		return false, nil
	}
	res, err := ctx.Call(fun, fargs, fkw)
	if err != nil {
		slog.Error(fmt.Sprintf("Function %s in mine.send failed to execute", fun), "err", err)
		return false, nil
	}
	data := value.NewMap(1)
	if value.Truthy(allow) {
		acl := value.MapOf("allow_tgt", allow)
		if value.Truthy(allowType) {
			acl.Set("allow_tgt_type", allowType)
		}
		data.Set(name, wrapMineACL(res, acl))
	} else {
		data.Set(name, res)
	}
	return mineStore(ctx, data, false)
}

func mineGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs, execmod.Req("tgt"), execmod.Req("fun"),
		execmod.Opt("tgt_type", "glob"), execmod.Opt("exclude_minion", false))
	if err != nil {
		return nil, err
	}
	tgt, fun, tgtType := execmod.String(v[0]), v[1], execmod.String(v[2])
	id := execmod.String(mustOpt(ctx, "id"))
	if mineLocal(ctx) {
		return localMineGet(ctx, id, tgt, fun, tgtType)
	}
	s, err := mineService(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.MineGet(tgt, fun, tgtType)
	if err != nil {
		return nil, &execmod.CommandExecutionError{Msg: err.Error()}
	}
	if m, ok := res.(*value.Map); ok && value.Truthy(v[3]) {
		m.Delete(id)
	}
	return res, nil
}

func mustOpt(ctx *execmod.Context, k string) any {
	if ctx.Opts == nil {
		return nil
	}
	v, _ := ctx.Opts.Get(k)
	return v
}

// localMineGet is mine.get on the local mine cache: this minion's data
// when the target selects it.
func localMineGet(ctx *execmod.Context, id, tgt string, fun any, tgtType string) (any, error) {
	ret := value.NewMap(0)
	switch tgtType {
	case "glob", "pcre", "list", "grain", "grain_pcre", "ipcidr", "compound", "pillar", "pillar_pcre":
	default:
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("KeyError: '%s'", tgtType)}
	}
	mc := &match.Context{ID: id, Grains: ctx.Grains, Pillar: ctx.Pillar}
	if ok, err := match.Match(mc, tgtType, tgt); err != nil || !ok {
		return ret, nil
	}
	data, ok := localMineCache(ctx).(*value.Map)
	if !ok {
		return ret, nil
	}
	var functions []string
	multi := false
	switch f := fun.(type) {
	case string:
		seen := map[string]bool{}
		for _, s := range strings.Split(f, ",") {
			if !seen[s] {
				seen[s] = true
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
	for _, f := range functions {
		res, ok := data.Get(f)
		if !ok {
			continue
		}
		if m, isMap := res.(*value.Map); isMap && m.Has(mineACLID) {
			res, _ = m.Get(mineACLData)
		}
		if multi {
			sub, _ := ret.Get(f)
			sm, ok := sub.(*value.Map)
			if !ok {
				sm = value.NewMap(0)
				ret.Set(f, sm)
			}
			sm.Set(id, res)
		} else {
			ret.Set(id, res)
		}
	}
	return ret, nil
}

func mineDelete(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete", args, kwargs, execmod.Req("fun"))
	if err != nil {
		return nil, err
	}
	fun := execmod.String(v[0])
	if mineLocal(ctx) {
		data, _ := localMineCache(ctx).(*value.Map)
		if data != nil {
			data.Delete(fun)
		}
		return saveLocalMineCache(ctx, data), nil
	}
	s, err := mineService(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.MineDelete(fun)
	if err != nil {
		slog.Warn("Unable to send mine data to master.", "err", err)
		return false, nil
	}
	return res, nil
}

func mineFlush(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("flush", args, kwargs); err != nil {
		return nil, err
	}
	if mineLocal(ctx) {
		return saveLocalMineCache(ctx, value.NewMap(0)), nil
	}
	s, err := mineService(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.MineFlush()
	if err != nil {
		slog.Warn("Unable to send mine data to master.", "err", err)
		return false, nil
	}
	return res, nil
}

func mineValid(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("valid", args, kwargs); err != nil {
		return nil, err
	}
	funcs := mineFunctions(ctx, nil)
	if funcs == nil {
		return nil, nil
	}
	out := value.NewMap(0)
	funcs.Range(func(k, def any) bool {
		d := parseMineDef(value.DeepCopy(def))
		name := d.fun
		if name == "" {
			name = value.Str(k)
		}
		if _, ok := ctx.Lookup(name); !ok {
			slog.Error(fmt.Sprintf("Function %s in mine_functions not available", name))
			return true
		}
		if d.fun != "" {
			l := value.NewList(d.args...)
			d.kwargs.Range(func(kk, vv any) bool {
				l.Append(value.MapOf(kk, vv))
				return true
			})
			out.Set(k, value.MapOf(d.fun, l))
		} else {
			out.Set(k, def)
		}
		return true
	})
	return out, nil
}

// The local mine cache is the "mine_cache" key of Salt's data store,
// cachedir/datastore (msgpack), which salt-call --local reads too.

func localMineCache(ctx *execmod.Context) any {
	store := loadDatastore(ctx)
	v, _ := store.Get("mine_cache")
	return v
}

func saveLocalMineCache(ctx *execmod.Context, data *value.Map) bool {
	store := loadDatastore(ctx)
	if data == nil {
		data = value.NewMap(0)
	}
	store.Set("mine_cache", data)
	return dumpDatastore(ctx, store) == nil
}

func datastorePath(ctx *execmod.Context) (string, error) {
	dir := execmod.String(mustOpt(ctx, "cachedir"))
	if dir == "" {
		return "", errors.New("no cachedir")
	}
	return filepath.Join(dir, "datastore"), nil
}

// loadDatastore reads the data store; a missing or unreadable one is empty.
func loadDatastore(ctx *execmod.Context) *value.Map {
	p, err := datastorePath(ctx)
	if err != nil {
		return value.NewMap(0)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return value.NewMap(0)
	}
	v, _, err := msgpackDecode(b, 0)
	if m, ok := v.(*value.Map); ok && err == nil {
		return m
	}
	return value.NewMap(0)
}

func dumpDatastore(ctx *execmod.Context, store *value.Map) error {
	p, err := datastorePath(ctx)
	if err != nil {
		return err
	}
	b, err := msgpackEncode(nil, store)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// msgpackEncode appends v in MessagePack, as Salt's payload serialiser
// writes it (use_bin_type: str and bin kept apart).
func msgpackEncode(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, 0xc0), nil
	case bool:
		if x {
			return append(b, 0xc3), nil
		}
		return append(b, 0xc2), nil
	case int64:
		if x >= 0 {
			return append(append(b, 0xcf), byte(x>>56), byte(x>>48), byte(x>>40), byte(x>>32), byte(x>>24), byte(x>>16), byte(x>>8), byte(x)), nil
		}
		return append(append(b, 0xd3), byte(x>>56), byte(x>>48), byte(x>>40), byte(x>>32), byte(x>>24), byte(x>>16), byte(x>>8), byte(x)), nil
	case int:
		return msgpackEncode(b, int64(x))
	case float64:
		u := math.Float64bits(x)
		return append(append(b, 0xcb), byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u)), nil
	case string:
		b = append(b, 0xdb)
		b = binary.BigEndian.AppendUint32(b, uint32(len(x)))
		return append(b, x...), nil
	case []byte:
		b = append(b, 0xc6)
		b = binary.BigEndian.AppendUint32(b, uint32(len(x)))
		return append(b, x...), nil
	case *value.List:
		b = append(b, 0xdd)
		b = binary.BigEndian.AppendUint32(b, uint32(len(x.Items)))
		var err error
		for _, e := range x.Items {
			if b, err = msgpackEncode(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *value.Map:
		b = append(b, 0xdf)
		b = binary.BigEndian.AppendUint32(b, uint32(x.Len()))
		var err error
		for i := 0; i < x.Len(); i++ {
			k, e := x.At(i)
			if b, err = msgpackEncode(b, k); err != nil {
				return nil, err
			}
			if b, err = msgpackEncode(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	if f, ok := v.(interface{ String() string }); ok && value.IsNumber(v) {
		// big integers: Salt's msgpack refuses them as well; keep the digits.
		return msgpackEncode(b, f.String())
	}
	return nil, fmt.Errorf("cannot store a %s in the data store", value.TypeName(v))
}

var errMsgpack = errors.New("bad msgpack data")

// msgpackDecode decodes one value at b[i:], returning it and the offset
// after it.
func msgpackDecode(b []byte, i int) (any, int, error) {
	if i >= len(b) {
		return nil, i, errMsgpack
	}
	need := func(n int) error {
		if i+n > len(b) {
			return errMsgpack
		}
		return nil
	}
	c := b[i]
	i++
	uint := func(n int) (uint64, error) {
		if err := need(n); err != nil {
			return 0, err
		}
		var u uint64
		for k := 0; k < n; k++ {
			u = u<<8 | uint64(b[i+k])
		}
		i += n
		return u, nil
	}
	str := func(n int) (string, error) {
		if err := need(n); err != nil {
			return "", err
		}
		s := string(b[i : i+n])
		i += n
		return s, nil
	}
	seq := func(n int, isMap bool) (any, error) {
		if isMap {
			m := value.NewMap(n)
			for k := 0; k < n; k++ {
				kv, j, err := msgpackDecode(b, i)
				if err != nil {
					return nil, err
				}
				vv, j2, err := msgpackDecode(b, j)
				if err != nil {
					return nil, err
				}
				i = j2
				m.Set(kv, vv)
			}
			return m, nil
		}
		l := value.NewList()
		for k := 0; k < n; k++ {
			vv, j, err := msgpackDecode(b, i)
			if err != nil {
				return nil, err
			}
			i = j
			l.Append(vv)
		}
		return l, nil
	}
	var v any
	var err error
	var u uint64
	switch {
	case c <= 0x7f:
		v = int64(c)
	case c >= 0xe0:
		v = int64(int8(c))
	case c&0xe0 == 0xa0:
		v, err = str(int(c & 0x1f))
	case c&0xf0 == 0x90:
		v, err = seq(int(c&0x0f), false)
	case c&0xf0 == 0x80:
		v, err = seq(int(c&0x0f), true)
	case c == 0xc0:
		v = nil
	case c == 0xc2, c == 0xc3:
		v = c == 0xc3
	case c == 0xcc, c == 0xcd, c == 0xce, c == 0xcf:
		u, err = uint(1 << (c - 0xcc))
		v = int64(u)
	case c == 0xd0, c == 0xd1, c == 0xd2, c == 0xd3:
		n := 1 << (c - 0xd0)
		u, err = uint(n)
		shift := 64 - 8*n
		v = int64(u<<shift) >> shift
	case c == 0xca:
		u, err = uint(4)
		v = float64(math.Float32frombits(uint32(u)))
	case c == 0xcb:
		u, err = uint(8)
		v = math.Float64frombits(u)
	case c == 0xd9, c == 0xda, c == 0xdb:
		if u, err = uint(1 << (c - 0xd9)); err == nil {
			v, err = str(int(u))
		}
	case c == 0xc4, c == 0xc5, c == 0xc6:
		if u, err = uint(1 << (c - 0xc4)); err == nil {
			var s string
			s, err = str(int(u))
			v = []byte(s)
		}
	case c == 0xdc, c == 0xdd:
		if u, err = uint(2 << (c - 0xdc)); err == nil {
			v, err = seq(int(u), false)
		}
	case c == 0xde, c == 0xdf:
		if u, err = uint(2 << (c - 0xde)); err == nil {
			v, err = seq(int(u), true)
		}
	default:
		err = errMsgpack
	}
	return v, i, err
}
