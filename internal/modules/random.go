package modules

// random.go is salt/modules/mod_random.py: random numbers and strings
// for templates. rand_int with a seed reproduces Python's random module
// (Mersenne Twister seeded as random.seed does), so a formula spreading
// cron minutes with seed=grains['id'] gets the numbers Salt gives.

import (
	"crypto/rand"
	"crypto/sha512"
	"math/big"

	"brine/internal/execmod"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("random.rand_int", randInt, "Return a random integer in [start, end] (random.rand_int start=1 end=10 seed=None).")
	execmod.Register("random.get_str", randGetStr, "Return a random string of length characters (default 20) from letters, digits and punctuation.")
	execmod.Register("random.shadow_hash", randShadowHash, "Return a /etc/shadow hash of password (random when None) with crypt_salt (random when None); algorithm sha512 or sha256.")
	execmod.Register("random.seed", randSeed, "Return a number in [0, range) that is always the same for hash (default the minion id).")
}

// randMT is Python's random.Random core generator.
type randMT struct {
	mt  [624]uint32
	idx int
}

func (r *randMT) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *randMT) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := len(key)
	if k < 624 {
		k = 624
	}
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

func (r *randMT) next() uint32 {
	if r.idx >= 624 {
		for k := 0; k < 624; k++ {
			y := (r.mt[k] & 0x80000000) | (r.mt[(k+1)%624] & 0x7fffffff)
			v := r.mt[(k+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// seedInt seeds like random.seed(int): the absolute value's 32-bit words.
func (r *randMT) seedInt(n *big.Int) {
	n = new(big.Int).Abs(n)
	var key []uint32
	mask := big.NewInt(0xffffffff)
	for n.Sign() > 0 {
		key = append(key, uint32(new(big.Int).And(n, mask).Uint64()))
		n.Rsh(n, 32)
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	r.initByArray(key)
}

// seedString seeds like random.seed(str) (version 2): the string and its
// SHA-512 digest as one big integer.
func (r *randMT) seedString(s string) {
	sum := sha512.Sum512([]byte(s))
	b := append([]byte(s), sum[:]...)
	r.seedInt(new(big.Int).SetBytes(b))
}

func (r *randMT) getrandbits(k int) *big.Int {
	if k <= 32 {
		return big.NewInt(int64(r.next() >> (32 - k)))
	}
	words := (k-1)/32 + 1
	out := new(big.Int)
	for i := 0; i < words; i++ {
		w := r.next()
		if i == words-1 && k%32 != 0 {
			w >>= 32 - k%32
		}
		out.Or(out, new(big.Int).Lsh(big.NewInt(int64(w)), uint(32*i)))
	}
	return out
}

// randbelow is Random._randbelow_with_getrandbits.
func (r *randMT) randbelow(n *big.Int) *big.Int {
	k := n.BitLen()
	x := r.getrandbits(k)
	for x.Cmp(n) >= 0 {
		x = r.getrandbits(k)
	}
	return x
}

func randSeeded(seed any) *randMT {
	r := &randMT{}
	switch s := seed.(type) {
	case string:
		r.seedString(s)
	case bool:
		if s {
			r.seedInt(big.NewInt(1))
		} else {
			r.seedInt(big.NewInt(0))
		}
	case int64:
		r.seedInt(big.NewInt(s))
	case *big.Int:
		r.seedInt(s)
	default:
		r.seedString(value.Str(seed))
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
		n = randSeeded(v[2]).randbelow(width)
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
	return value.NormInt(r.randbelow(rng)), nil
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
