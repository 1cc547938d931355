package jinjasalt

import (
	"crypto/sha512"
	"encoding/hex"
	"math"
	"math/big"
	mrand "math/rand/v2"

	"brine/internal/value"
)

// pyRandom is CPython's random.Random (MT19937), enough of it for
// random_sample and random_shuffle with a seed to pick what Salt picks.
type pyRandom struct {
	mt  [624]uint32
	idx int
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := 624
	if len(key) > k {
		k = len(key)
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

func (r *pyRandom) uint32() uint32 {
	if r.idx >= 624 {
		for i := 0; i < 624; i++ {
			y := (r.mt[i] & 0x80000000) | (r.mt[(i+1)%624] & 0x7fffffff)
			v := r.mt[(i+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[i] = v
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

// seedString seeds as random.seed(s) does for a str (version 2).
func (r *pyRandom) seedString(s string) {
	sum := sha512.Sum512([]byte(s))
	n := new(big.Int).SetBytes(append([]byte(s), sum[:]...))
	var key []uint32
	b := n.Bytes() // big endian
	for end := len(b); end > 0; end -= 4 {
		start := end - 4
		if start < 0 {
			start = 0
		}
		var w uint32
		for _, c := range b[start:end] {
			w = w<<8 | uint32(c)
		}
		key = append(key, w)
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	r.initByArray(key)
}

func (r *pyRandom) getrandbits(k int) uint64 {
	// k <= 63 here: populations beyond that are not realistic.
	if k <= 32 {
		return uint64(r.uint32() >> (32 - k))
	}
	lo := uint64(r.uint32())
	hi := uint64(r.uint32() >> (64 - k))
	return hi<<32 | lo
}

func (r *pyRandom) randbelow(n int) int {
	k := 0
	for x := n; x > 0; x >>= 1 {
		k++
	}
	v := r.getrandbits(k)
	for v >= uint64(n) {
		v = r.getrandbits(k)
	}
	return int(v)
}

// sample is random.Random.sample.
func (r *pyRandom) sample(pop []any, k int) []any {
	n := len(pop)
	res := make([]any, k)
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := append([]any(nil), pop...)
		for i := 0; i < k; i++ {
			j := r.randbelow(n - i)
			res[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return res
	}
	selected := map[int]bool{}
	for i := 0; i < k; i++ {
		j := r.randbelow(n)
		for selected[j] {
			j = r.randbelow(n)
		}
		selected[j] = true
		res[i] = pop[j]
	}
	return res
}

// randomSample is salt.utils.data.sample: random.sample, seeded with the
// sha512 hex digest of seed when one is given.
func randomSample(v, size, seed any) (any, error) {
	var pop []any
	switch x := v.(type) {
	case *value.List:
		pop = x.Items
	case value.Tuple:
		pop = x
	case string:
		pop, _ = iterate(x)
	default:
		return nil, pyErr(excTypeError, "Population must be a sequence.  For dicts or sets, use sorted(d).")
	}
	k, err := asInt(size)
	if err != nil {
		return nil, err
	}
	if k < 0 || k > len(pop) {
		return nil, pyErr(excValueError, "Sample larger than population or is negative")
	}
	if seed == nil {
		out := append([]any(nil), pop...)
		mrand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return newList(out[:k]), nil
	}
	sb, err := toBytes(seed)
	if err != nil {
		return nil, err
	}
	sum := sha512.Sum512(sb)
	var r pyRandom
	r.seedString(hex.EncodeToString(sum[:]))
	return newList(r.sample(pop, k)), nil
}
