package modules

// random.go is salt/modules/mod_random.py: random numbers and strings
// for templates. rand_int with a seed reproduces Python's random module
// (Mersenne Twister seeded as random.seed does), so a formula spreading
// cron minutes with seed=grains['id'] gets the numbers Salt gives.

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"math/big"

	"brine/internal/execmod"
	"brine/internal/jinjasalt"
	"brine/internal/pyops"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("random.rand_int", randInt, "Return a random integer in [start, end] (random.rand_int start=1 end=10 seed=None).")
	execmod.Register("random.get_str", randGetStr, "Return a random string of length characters (default 20) from letters, digits and punctuation.")
	execmod.Register("random.shadow_hash", randShadowHash, "Return a /etc/shadow hash of password (random when None) with crypt_salt (random when None); algorithm sha512 or sha256.")
	execmod.Register("random.seed", randSeed, "Return a number in [0, range) that is always the same for hash (default the minion id).")
	execmod.Register("random.hash", randHash, "Return the hex digest of value with a hashlib algorithm (default sha512).")
	execmod.Register("random.str_encode", randStrEncode, "Return value encoded with encoder (base64 by default).")
	execmod.Register("random.sample", randFilter("sample", "random_sample"), "Return size random elements of value (seed makes the choice repeatable).")
	execmod.Register("random.shuffle", randFilter("shuffle", "random_shuffle"), "Return the elements of value in a random order (seed makes it repeatable).")
}

func randHash(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("hash", args, kwargs, execmod.Req("value"), execmod.Opt("algorithm", "sha512"))
	if err != nil {
		return nil, err
	}
	h, ok := pyops.Hashlib(value.Str(v[1]))
	if !ok {
		return nil, execmod.Errorf("You must specify a valid algorithm.")
	}
	s, ok := v[0].(string)
	if !ok {
		return nil, execmod.Errorf("object supporting the buffer API required")
	}
	d := h()
	d.Write([]byte(s))
	return hex.EncodeToString(d.Sum(nil)), nil
}

func randStrEncode(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("str_encode", args, kwargs, execmod.Req("value"), execmod.Opt("encoder", "base64"))
	if err != nil {
		return nil, err
	}
	var b []byte
	switch x := v[0].(type) {
	case string:
		b = []byte(x)
	case []byte:
		b = x
	}
	// Salt encodes a string to bytes first, and bytes have no encode():
	// only base64 succeeds.
	if b == nil || value.Str(v[1]) != "base64" {
		return nil, &execmod.InvocationError{Msg: "Value must be an encode-able string"}
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// randFilter is salt.utils.data's sample or shuffle: the Jinja filter
// Salt registers them as.
func randFilter(fun, filter string) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		e, ok := jinjasalt.Lookup(jinjasalt.Filter, filter)
		if !ok {
			return nil, execmod.Errorf("%s is not available", filter)
		}
		params := []execmod.Param{execmod.Req("value")}
		if fun == "sample" {
			params = append(params, execmod.Req("size"))
		}
		v, _, err := execmod.Bind(fun, args, kwargs, append(params, execmod.Opt("seed", nil))...)
		if err != nil {
			return nil, err
		}
		return e.Fn(v, value.NewMap(0))
	}
}

func randSeeded(seed any) *pyops.Random {
	r := &pyops.Random{}
	switch s := seed.(type) {
	case string:
		r.SeedString(s)
	case bool:
		if s {
			r.SeedInt(big.NewInt(1))
		} else {
			r.SeedInt(big.NewInt(0))
		}
	case int64:
		r.SeedInt(big.NewInt(s))
	case *big.Int:
		r.SeedInt(s)
	default:
		r.SeedString(value.Str(seed))
	}
	return r
}

func randToBig(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	case string:
		b, ok := new(big.Int).SetString(x, 10)
		return b, ok
	case float64:
		if x == float64(int64(x)) {
			return big.NewInt(int64(x)), true
		}
		return nil, false
	}
	return value.AsBig(v)
}

func randInt(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rand_int", args, kwargs, execmod.Opt("start", int64(1)), execmod.Opt("end", int64(10)), execmod.Opt("seed", nil))
	if err != nil {
		return nil, err
	}
	start, ok1 := randToBig(v[0])
	end, ok2 := randToBig(v[1])
	if !ok1 || !ok2 {
		return nil, execmod.Errorf("rand_int: start and end must be integers")
	}
	width := new(big.Int).Sub(end, start)
	width.Add(width, big.NewInt(1))
	if width.Sign() <= 0 {
		return nil, execmod.Errorf("empty range for randrange() (%s, %s, %s)", start, new(big.Int).Add(end, big.NewInt(1)), width)
	}
	var n *big.Int
	if v[2] != nil {
		n = randSeeded(v[2]).RandBelow(width)
	} else if n, err = rand.Int(rand.Reader, width); err != nil {
		return nil, err
	}
	return value.NormInt(n.Add(n, start)), nil
}

const randPrintable = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

func randGetStr(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_str", args, kwargs, execmod.Opt("length", int64(20)), execmod.Opt("chars", nil),
		execmod.Opt("lowercase", true), execmod.Opt("uppercase", true), execmod.Opt("digits", true),
		execmod.Opt("punctuation", true), execmod.Opt("whitespace", false), execmod.Opt("printable", false))
	if err != nil {
		return nil, err
	}
	n, ok := randToBig(v[0])
	if !ok || n.Sign() < 0 || n.BitLen() > 20 {
		return nil, execmod.Errorf("get_str: invalid length %s", value.Repr(v[0]))
	}
	set := ""
	if v[1] != nil {
		set = execmod.String(v[1])
	} else {
		if value.Truthy(v[2]) {
			set += randPrintable[:26]
		}
		if value.Truthy(v[3]) {
			set += randPrintable[26:52]
		}
		if value.Truthy(v[4]) {
			set += randPrintable[52:62]
		}
		if value.Truthy(v[5]) {
			set += randPrintable[62:]
		}
		if value.Truthy(v[6]) {
			set += " \t\n\r\v\f"
		}
	}
	if set == "" {
		return nil, execmod.Errorf("get_str: no characters to choose from")
	}
	out := make([]byte, n.Int64())
	max := big.NewInt(int64(len(set)))
	for i := range out {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			return nil, err
		}
		out[i] = set[k.Int64()]
	}
	return string(out), nil
}

func randSeed(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("seed", args, kwargs, execmod.Opt("range", int64(10)), execmod.Opt("hash", nil))
	if err != nil {
		return nil, err
	}
	h := v[1]
	if h == nil {
		h, _ = ctx.Grains.Get("id")
	}
	rng, ok := randToBig(v[0])
	if !ok || rng.Sign() <= 0 {
		return nil, execmod.Errorf("seed: range must be a positive integer")
	}
	r := randSeeded(h)
	return value.NormInt(r.RandBelow(rng)), nil
}

func randShadowHash(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("shadow_hash", args, kwargs, execmod.Opt("crypt_salt", nil), execmod.Opt("password", nil), execmod.Opt("algorithm", "sha512"))
	if err != nil {
		return nil, err
	}
	pw := ""
	if v[1] == nil {
		// Salt's secure_password: 20 random randPrintable characters.
		r, err := randGetStr(nil, []any{int64(20)}, value.NewMap(0))
		if err != nil {
			return nil, err
		}
		pw = r.(string)
	} else {
		pw = execmod.String(v[1])
	}
	h, err := usermgr.GenHash(pw, execmod.String(v[0]), execmod.String(v[2]))
	if err != nil {
		return nil, &execmod.InvocationError{Msg: err.Error()}
	}
	return h, nil
}
