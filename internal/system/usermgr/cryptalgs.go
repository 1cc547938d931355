package usermgr

// The crypt(3) schemes other than SHA-crypt (crypt.go): MD5-crypt,
// bcrypt and traditional DES, written here (gen_password needs them with a
// given salt, which no library offers for bcrypt and DES), and yescrypt,
// the default of Debian 12's pam_unix, through go-crypt's port.

import (
	"crypto/md5"
	"crypto/subtle"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/go-crypt/x/yescrypt"
)

// Verify reports whether password hashes to hash under the scheme hash
// names: SHA-crypt ($5$, $6$), MD5-crypt ($1$, $apr1$), bcrypt ($2a$,
// $2b$, $2y$), yescrypt ($y$) or traditional DES (13 characters). A
// locked ("!...") or disabled ("*") entry matches nothing.
func Verify(password, hash string) bool {
	var got string
	switch {
	case hash == "" || strings.HasPrefix(hash, "!") || strings.HasPrefix(hash, "*"):
		return false
	case strings.HasPrefix(hash, "$5$"), strings.HasPrefix(hash, "$6$"):
		got = ShaCrypt(password, hash)
	case strings.HasPrefix(hash, "$1$"):
		got = MD5Crypt(password, strings.TrimPrefix(hash, "$1$"), "$1$")
	case strings.HasPrefix(hash, "$apr1$"):
		got = MD5Crypt(password, strings.TrimPrefix(hash, "$apr1$"), "$apr1$")
	case strings.HasPrefix(hash, "$2a$"), strings.HasPrefix(hash, "$2b$"), strings.HasPrefix(hash, "$2y$"):
		got = Bcrypt(password, hash)
	case strings.HasPrefix(hash, "$y$"):
		out, err := yescrypt.Hash([]byte(password), []byte(hash))
		if err != nil {
			return false
		}
		got = string(out)
	case len(hash) == 13 && !strings.HasPrefix(hash, "$"):
		got = DESCrypt(password, hash[:2])
	default:
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(hash)) == 1
}

// MD5Crypt is the MD5-crypt of password with salt (at most 8 characters,
// up to a '$'), as crypt(3) computes it with magic "$1$" and Apache's
// htpasswd with "$apr1$".
func MD5Crypt(password, salt, magic string) string {
	if i := strings.IndexByte(salt, '$'); i >= 0 {
		salt = salt[:i]
	}
	if len(salt) > 8 {
		salt = salt[:8]
	}
	pw := []byte(password)
	alt := md5.Sum([]byte(password + salt + password))
	h := md5.New()
	h.Write(pw)
	h.Write([]byte(magic + salt))
	for i := len(pw); i > 0; i -= 16 {
		h.Write(alt[:min(i, 16)])
	}
	for i := len(pw); i > 0; i >>= 1 {
		if i&1 != 0 {
			h.Write([]byte{0})
		} else {
			h.Write(pw[:1])
		}
	}
	sum := h.Sum(nil)
	for i := 0; i < 1000; i++ {
		r := md5.New()
		if i&1 != 0 {
			r.Write(pw)
		} else {
			r.Write(sum)
		}
		if i%3 != 0 {
			r.Write([]byte(salt))
		}
		if i%7 != 0 {
			r.Write(pw)
		}
		if i&1 != 0 {
			r.Write(sum)
		} else {
			r.Write(pw)
		}
		sum = r.Sum(nil)
	}
	var out strings.Builder
	enc := func(a, b, c byte, n int) {
		w := uint(a)<<16 | uint(b)<<8 | uint(c)
		for ; n > 0; n-- {
			out.WriteByte(itoa64[w&0x3f])
			w >>= 6
		}
	}
	enc(sum[0], sum[6], sum[12], 4)
	enc(sum[1], sum[7], sum[13], 4)
	enc(sum[2], sum[8], sum[14], 4)
	enc(sum[3], sum[9], sum[15], 4)
	enc(sum[4], sum[10], sum[5], 4)
	enc(0, 0, sum[11], 2)
	return magic + salt + "$" + out.String()
}

// Blowfish's initial P-array and S-boxes are the fractional hex digits
// of pi: 18 + 4*256 words, computed once (Machin's formula).
var (
	piOnce  sync.Once
	piWords []uint32
)

func piWordsOf() []uint32 {
	piOnce.Do(func() {
		const n = 18 + 4*256
		bits := uint(n*32 + 64)
		one := new(big.Int).Lsh(big.NewInt(1), bits)
		atan := func(x int64) *big.Int {
			x2 := big.NewInt(x * x)
			term := new(big.Int).Quo(one, big.NewInt(x))
			sum := new(big.Int).Set(term)
			t := new(big.Int)
			for k := int64(1); term.Sign() != 0; k++ {
				term.Quo(term, x2)
				t.Quo(term, big.NewInt(2*k+1))
				if k%2 == 1 {
					sum.Sub(sum, t)
				} else {
					sum.Add(sum, t)
				}
			}
			return sum
		}
		pi := new(big.Int).Mul(atan(5), big.NewInt(16))
		pi.Sub(pi, new(big.Int).Mul(atan(239), big.NewInt(4)))
		pi.Sub(pi, new(big.Int).Mul(one, big.NewInt(3)))
		mask := big.NewInt(0xffffffff)
		w := new(big.Int)
		for i := 0; i < n; i++ {
			w.Rsh(pi, bits-uint(32*(i+1)))
			w.And(w, mask)
			piWords = append(piWords, uint32(w.Uint64()))
		}
	})
	return piWords
}

// blowfish is a Blowfish state for bcrypt.
type blowfish struct {
	p [18]uint32
	s [4][256]uint32
}

func (b *blowfish) f(x uint32) uint32 {
	return ((b.s[0][x>>24] + b.s[1][x>>16&0xff]) ^ b.s[2][x>>8&0xff]) + b.s[3][x&0xff]
}

func (b *blowfish) encrypt(l, r uint32) (uint32, uint32) {
	for i := 0; i < 16; i += 2 {
		l ^= b.p[i]
		r ^= b.f(l)
		r ^= b.p[i+1]
		l ^= b.f(r)
	}
	l ^= b.p[16]
	return r ^ b.p[17], l
}

// streamWord reads the next 4 bytes of data, cycling.
func streamWord(data []byte, pos *int) uint32 {
	var w uint32
	for i := 0; i < 4; i++ {
		w = w<<8 | uint32(data[*pos])
		*pos = (*pos + 1) % len(data)
	}
	return w
}

// expand is bcrypt's ExpandKey: the key into the P-array, then every
// P and S entry re-encrypted, the salt (when given) mixed in.
func (b *blowfish) expand(key, salt []byte) {
	kp := 0
	for i := range b.p {
		b.p[i] ^= streamWord(key, &kp)
	}
	var l, r uint32
	sp := 0
	next := func() {
		if salt != nil {
			l ^= streamWord(salt, &sp)
			r ^= streamWord(salt, &sp)
		}
		l, r = b.encrypt(l, r)
	}
	for i := 0; i < 18; i += 2 {
		next()
		b.p[i], b.p[i+1] = l, r
	}
	for s := 0; s < 4; s++ {
		for i := 0; i < 256; i += 2 {
			next()
			b.s[s][i], b.s[s][i+1] = l, r
		}
	}
}

const bcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func bcryptEncode(b []byte) string {
	var sb strings.Builder
	for i := 0; i < len(b); i += 3 {
		c1 := b[i]
		sb.WriteByte(bcryptAlphabet[c1>>2])
		if i+1 >= len(b) {
			sb.WriteByte(bcryptAlphabet[(c1&3)<<4])
			break
		}
		c2 := b[i+1]
		sb.WriteByte(bcryptAlphabet[(c1&3)<<4|c2>>4])
		if i+2 >= len(b) {
			sb.WriteByte(bcryptAlphabet[(c2&0x0f)<<2])
			break
		}
		c3 := b[i+2]
		sb.WriteByte(bcryptAlphabet[(c2&0x0f)<<2|c3>>6])
		sb.WriteByte(bcryptAlphabet[c3&0x3f])
	}
	return sb.String()
}

func bcryptDecode(s string, n int) ([]byte, bool) {
	var bitsBuf uint32
	nbits := 0
	var out []byte
	for i := 0; i < len(s) && len(out) < n; i++ {
		v := strings.IndexByte(bcryptAlphabet, s[i])
		if v < 0 {
			return nil, false
		}
		bitsBuf = bitsBuf<<6 | uint32(v)
		nbits += 6
		if nbits >= 8 {
			nbits -= 8
			out = append(out, byte(bitsBuf>>nbits))
		}
	}
	return out, len(out) == n
}

// Bcrypt is crypt(3) of a "$2b$NN$<22 salt characters>" setting
// ($2a$ and $2y$ too); "*0" when the setting is not one.
func Bcrypt(password, setting string) string {
	parts := strings.SplitN(setting, "$", 4)
	if len(parts) != 4 || parts[0] != "" || (parts[1] != "2b" && parts[1] != "2a" && parts[1] != "2y") || len(parts[2]) != 2 || len(parts[3]) < 22 {
		return "*0"
	}
	cost, err := strconv.Atoi(parts[2])
	if err != nil || cost < 4 || cost > 31 {
		return "*0"
	}
	salt, ok := bcryptDecode(parts[3][:22], 16)
	if !ok {
		return "*0"
	}
	key := append([]byte(password), 0)
	if len(key) > 72 {
		key = key[:72]
	}
	pi := piWordsOf()
	b := &blowfish{}
	copy(b.p[:], pi[:18])
	for s := 0; s < 4; s++ {
		copy(b.s[s][:], pi[18+256*s:18+256*(s+1)])
	}
	b.expand(key, salt)
	for i := uint64(0); i < 1<<uint(cost); i++ {
		b.expand(key, nil)
		b.expand(salt, nil)
	}
	ctext := []byte("OrpheanBeholderScryDoubt")
	words := make([]uint32, 6)
	for i := range words {
		words[i] = uint32(ctext[4*i])<<24 | uint32(ctext[4*i+1])<<16 | uint32(ctext[4*i+2])<<8 | uint32(ctext[4*i+3])
	}
	for i := 0; i < 64; i++ {
		for j := 0; j < 6; j += 2 {
			words[j], words[j+1] = b.encrypt(words[j], words[j+1])
		}
	}
	for i, w := range words {
		ctext[4*i], ctext[4*i+1], ctext[4*i+2], ctext[4*i+3] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	}
	return "$" + parts[1] + "$" + parts[2] + "$" + bcryptEncode(salt) + bcryptEncode(ctext[:23])
}

// The DES tables of FIPS 46-3 (1-based bit positions), for crypt(3)'s
// traditional DES hash.
var (
	shadowDESIP = [64]byte{58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6,
		64, 56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
		61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7}
	shadowDESFP = [64]byte{40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31, 38, 6, 46, 14, 54, 22, 62, 30,
		37, 5, 45, 13, 53, 21, 61, 29, 36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27,
		34, 2, 42, 10, 50, 18, 58, 26, 33, 1, 41, 9, 49, 17, 57, 25}
	shadowDESE = [48]byte{32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
		16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1}
	shadowDESP = [32]byte{16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
		2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25}
	shadowDESPC1 = [56]byte{57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27,
		19, 11, 3, 60, 52, 44, 36, 63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
		14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4}
	shadowDESPC2 = [48]byte{14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
		41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32}
	shadowDESShifts = [16]byte{1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1}
	shadowDESS      = [8][64]byte{
		{14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
			4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13},
		{15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
			0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9},
		{10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
			13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12},
		{7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
			10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14},
		{2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
			4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3},
		{12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
			9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13},
		{4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
			1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12},
		{13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
			7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11},
	}
)

// desEncrypt encrypts the 64 bits of block (one bit a byte) with
// the 16 round keys, the expansion e (crypt's salted copy of E).
func desEncrypt(block *[64]byte, keys *[16][48]byte, e *[48]byte) {
	var t [64]byte
	for i, p := range shadowDESIP {
		t[i] = block[p-1]
	}
	l, r := t[:32:32], t[32:]
	var lr, rr [32]byte
	copy(lr[:], l)
	copy(rr[:], r)
	for round := 0; round < 16; round++ {
		var x [48]byte
		for i, p := range e {
			x[i] = rr[p-1] ^ keys[round][i]
		}
		var sOut [32]byte
		for s := 0; s < 8; s++ {
			b := x[6*s:]
			row := b[0]<<1 | b[5]
			col := b[1]<<3 | b[2]<<2 | b[3]<<1 | b[4]
			v := shadowDESS[s][row*16+col]
			for k := 0; k < 4; k++ {
				sOut[4*s+k] = v >> (3 - k) & 1
			}
		}
		var next [32]byte
		for i, p := range shadowDESP {
			next[i] = lr[i] ^ sOut[p-1]
		}
		lr, rr = rr, next
	}
	copy(t[:32], rr[:])
	copy(t[32:], lr[:])
	for i, p := range shadowDESFP {
		block[i] = t[p-1]
	}
}

// desKeys is the DES key schedule of the 64 key bits.
func desKeys(key *[64]byte) *[16][48]byte {
	var cd [56]byte
	for i, p := range shadowDESPC1 {
		cd[i] = key[p-1]
	}
	var keys [16][48]byte
	for round, sh := range shadowDESShifts {
		for n := byte(0); n < sh; n++ {
			c0, d0 := cd[0], cd[28]
			copy(cd[0:27], cd[1:28])
			copy(cd[28:55], cd[29:56])
			cd[27], cd[55] = c0, d0
		}
		for i, p := range shadowDESPC2 {
			keys[round][i] = cd[p-1]
		}
	}
	return &keys
}

// DESCrypt is crypt(3)'s traditional DES hash: two salt characters
// then 11; "*0" when the salt is not two of [./0-9A-Za-z].
func DESCrypt(password, salt string) string {
	if len(salt) < 2 || strings.IndexByte(itoa64, salt[0]) < 0 || strings.IndexByte(itoa64, salt[1]) < 0 {
		return "*0"
	}
	var key [64]byte
	for i := 0; i < 8 && i < len(password); i++ {
		c := password[i]
		for j := 0; j < 7; j++ {
			key[8*i+j] = c >> (6 - j) & 1
		}
	}
	e := shadowDESE
	for i := 0; i < 2; i++ {
		v := strings.IndexByte(itoa64, salt[i])
		for j := 0; j < 6; j++ {
			if v>>j&1 != 0 {
				e[6*i+j], e[6*i+j+24] = e[6*i+j+24], e[6*i+j]
			}
		}
	}
	keys := desKeys(&key)
	var block [64]byte
	for i := 0; i < 25; i++ {
		desEncrypt(&block, keys, &e)
	}
	out := []byte(salt[:2])
	for i := 0; i < 11; i++ {
		v := 0
		for j := 0; j < 6; j++ {
			v <<= 1
			if k := 6*i + j; k < 64 {
				v |= int(block[k])
			}
		}
		out = append(out, itoa64[v])
	}
	return string(out)
}
