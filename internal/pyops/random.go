package pyops

import (
	"crypto/sha512"
	"math/big"
	"math/bits"
)

// Random is the core of CPython's random.Random (MT19937) with its seeding
// rules, so a seeded pick (Salt's random.seed, rand_int with seed=,
// random_sample) chooses what Python chooses. The zero value is unseeded:
// call SeedInt or SeedString first.
type Random struct {
	mt  [624]uint32
	idx int
}

func (r *Random) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *Random) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(len(key), 624)
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

// Uint32 returns the generator's next 32-bit output (genrand_uint32).
func (r *Random) Uint32() uint32 {
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

// SeedInt seeds as random.seed(n) does for an int: the absolute value's
// 32-bit words, least significant first.
func (r *Random) SeedInt(n *big.Int) {
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

// SeedString seeds as random.seed(s) does for a str (version 2): the
// string followed by its SHA-512 digest, read as one big-endian integer.
func (r *Random) SeedString(s string) {
	sum := sha512.Sum512([]byte(s))
	b := append([]byte(s), sum[:]...)
	r.SeedInt(new(big.Int).SetBytes(b))
}

// GetRandBits is random.getrandbits(k) for k >= 0.
func (r *Random) GetRandBits(k int) *big.Int {
	if k <= 32 {
		return big.NewInt(int64(r.Uint32() >> (32 - k)))
	}
	words := (k-1)/32 + 1
	out := new(big.Int)
	for i := 0; i < words; i++ {
		w := r.Uint32()
		if i == words-1 && k%32 != 0 {
			w >>= 32 - k%32
		}
		out.Or(out, new(big.Int).Lsh(big.NewInt(int64(w)), uint(32*i)))
	}
	return out
}

// RandBelow is Random._randbelow (with getrandbits): a number in [0, n)
// for n > 0.
func (r *Random) RandBelow(n *big.Int) *big.Int {
	k := n.BitLen()
	x := r.GetRandBits(k)
	for x.Cmp(n) >= 0 {
		x = r.GetRandBits(k)
	}
	return x
}

// RandBelowInt is RandBelow for an int n > 0, without big.Int allocation
// when n fits in 32 bits.
func (r *Random) RandBelowInt(n int) int {
	k := bits.Len(uint(n))
	if k > 32 {
		return int(r.RandBelow(big.NewInt(int64(n))).Int64())
	}
	v := r.Uint32() >> (32 - k)
	for int64(v) >= int64(n) {
		v = r.Uint32() >> (32 - k)
	}
	return int(v)
}
