package jinjasalt

import (
	"crypto/sha512"
	"encoding/hex"
	"math"
	mrand "math/rand/v2"

	"brine/internal/pyops"
	"brine/internal/value"
)

// pyRandom is CPython's random.Random with the sample method that
// random_sample needs.
type pyRandom struct{ pyops.Random }

func (r *pyRandom) randbelow(n int) int { return r.RandBelowInt(n) }

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
	r.SeedString(hex.EncodeToString(sum[:]))
	return newList(r.sample(pop, k)), nil
}
