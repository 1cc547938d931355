package usermgr

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"math/big"
	"strconv"
	"strings"
)

const itoa64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// GenHash is Salt's salt.utils.pycrypto.gen_hash for the SHA-crypt
// methods: algorithm "sha512" (the default when "") or "sha256"; an empty
// salt gets a random 16-character one, as crypt(3) does.
func GenHash(password, salt, algorithm string) (string, error) {
	var id string
	switch algorithm {
	case "", "sha512":
		id = "6"
	case "sha256":
		id = "5"
	default:
		return "", fmt.Errorf("Cannot hash using '%s' hash algorithm. Natively supported algorithms are: ['sha512', 'sha256'].", algorithm)
	}
	if salt == "" {
		b := make([]byte, 16)
		for i := range b {
			n, err := rand.Int(rand.Reader, big.NewInt(64))
			if err != nil {
				return "", err
			}
			b[i] = itoa64[n.Int64()]
		}
		salt = string(b)
	}
	return ShaCrypt(password, "$"+id+"$"+salt), nil
}

// VerifyHash reports whether password hashes to hash (a $5$ or $6$ hash).
func VerifyHash(password, hash string) bool {
	if !strings.HasPrefix(hash, "$5$") && !strings.HasPrefix(hash, "$6$") {
		return false
	}
	return ShaCrypt(password, hash) == hash
}

// ShaCrypt computes the SHA-crypt hash of password with setting, a
// "$5$salt" or "$6$salt" prefix optionally with "rounds=N$" (a complete
// hash works too: its hash part is ignored), as glibc's crypt(3).
func ShaCrypt(password, setting string) string {
	var newHash func() hash.Hash
	var perm [][3]int
	var id string
	switch {
	case strings.HasPrefix(setting, "$5$"):
		newHash, perm, id = sha256.New, sha256Perm, "5"
	default:
		newHash, perm, id = sha512.New, sha512Perm, "6"
	}
	rest := setting[3:]
	rounds, custom := 5000, false
	if r, ok := strings.CutPrefix(rest, "rounds="); ok {
		if num, after, ok := strings.Cut(r, "$"); ok {
			if n, err := strconv.Atoi(num); err == nil {
				rounds, custom, rest = min(max(n, 1000), 999999999), true, after
			}
		}
	}
	salt, _, _ := strings.Cut(rest, "$")
	if len(salt) > 16 {
		salt = salt[:16]
	}
	p, s := []byte(password), []byte(salt)

	h := newHash()
	h.Write(p)
	h.Write(s)
	h.Write(p)
	b := h.Sum(nil)

	h = newHash()
	h.Write(p)
	h.Write(s)
	size := len(b)
	for n := len(p); n > 0; n -= size {
		h.Write(b[:min(n, size)])
	}
	for n := len(p); n > 0; n >>= 1 {
		if n&1 != 0 {
			h.Write(b)
		} else {
			h.Write(p)
		}
	}
	a := h.Sum(nil)

	h = newHash()
	for range len(p) {
		h.Write(p)
	}
	dp := h.Sum(nil)
	pp := repeatTo(dp, len(p))

	h = newHash()
	for range 16 + int(a[0]) {
		h.Write(s)
	}
	ds := h.Sum(nil)
	sp := repeatTo(ds, len(s))

	c := a
	for i := range rounds {
		h = newHash()
		if i&1 != 0 {
			h.Write(pp)
		} else {
			h.Write(c)
		}
		if i%3 != 0 {
			h.Write(sp)
		}
		if i%7 != 0 {
			h.Write(pp)
		}
		if i&1 != 0 {
			h.Write(c)
		} else {
			h.Write(pp)
		}
		c = h.Sum(nil)
	}

	var out strings.Builder
	out.WriteString("$" + id + "$")
	if custom {
		out.WriteString("rounds=" + strconv.Itoa(rounds) + "$")
	}
	out.WriteString(salt + "$")
	for _, t := range perm {
		if t[0] < 0 {
			continue
		}
		b64(&out, c[t[0]], c[t[1]], c[t[2]], 4)
	}
	if id == "6" {
		b64(&out, 0, 0, c[63], 2)
	} else {
		b64(&out, 0, c[31], c[30], 3)
	}
	return out.String()
}

func repeatTo(d []byte, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, d[:min(len(d), n-len(out))]...)
	}
	return out
}

func b64(out *strings.Builder, b2, b1, b0 byte, n int) {
	w := uint(b2)<<16 | uint(b1)<<8 | uint(b0)
	for range n {
		out.WriteByte(itoa64[w&0x3f])
		w >>= 6
	}
}

var sha512Perm = [][3]int{
	{0, 21, 42}, {22, 43, 1}, {44, 2, 23}, {3, 24, 45}, {25, 46, 4}, {47, 5, 26}, {6, 27, 48},
	{28, 49, 7}, {50, 8, 29}, {9, 30, 51}, {31, 52, 10}, {53, 11, 32}, {12, 33, 54}, {34, 55, 13},
	{56, 14, 35}, {15, 36, 57}, {37, 58, 16}, {59, 17, 38}, {18, 39, 60}, {40, 61, 19}, {62, 20, 41},
}

var sha256Perm = [][3]int{
	{0, 10, 20}, {21, 1, 11}, {12, 22, 2}, {3, 13, 23}, {24, 4, 14},
	{15, 25, 5}, {6, 16, 26}, {27, 7, 17}, {18, 28, 8}, {9, 19, 29},
}
