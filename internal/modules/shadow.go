package modules

// shadow.go is salt/modules/linux_shadow.py: the shadow password file
// (/etc/shadow, or <root>/etc/shadow), read directly and changed with
// chage and passwd as Salt does; gen_password hashes in pure Go.

import (
	"crypto/md5"
	"crypto/rand"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"brine/internal/execmod"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("shadow.default_hash", shadowDefaultHash, "Return the hash of a new account with no password ('!').")
	execmod.Register("shadow.info", shadowInfo, "Return the shadow entry of user name: name, passwd, lstchg, min, max, warn, inact, expire (root=None).")
	execmod.Register("shadow.set_inactdays", shadowSetter("set_inactdays", "inactdays", "inact", "-I", true), "Set the days after password expiry before user name is locked (chage -I).")
	execmod.Register("shadow.set_maxdays", shadowSetter("set_maxdays", "maxdays", "max", "-M", true), "Set the maximum days between password changes of user name (chage -M).")
	execmod.Register("shadow.set_mindays", shadowSetter("set_mindays", "mindays", "min", "-m", true), "Set the minimum days between password changes of user name (chage -m).")
	execmod.Register("shadow.set_warndays", shadowSetter("set_warndays", "warndays", "warn", "-W", true), "Set the days of warning before the password of user name expires (chage -W).")
	execmod.Register("shadow.set_date", shadowSetter("set_date", "date", "lstchg", "-d", false), "Set the date of the last password change of user name (chage -d).")
	execmod.Register("shadow.set_expire", shadowSetter("set_expire", "expire", "expire", "-E", false), "Set the date the account of user name expires (chage -E).")
	execmod.Register("shadow.gen_password", shadowGenPassword, "Return the crypt(3) hash of password (crypt_salt=None algorithm=sha512|sha256|blowfish|md5|crypt).")
	execmod.Register("shadow.del_password", shadowPasswdFlag("del_password", "-d"), "Delete the password of user name (passwd -d): True when it is empty after.")
	execmod.Register("shadow.lock_password", shadowPasswdFlag("lock_password", "-l"), "Lock the password of user name (passwd -l).")
	execmod.Register("shadow.unlock_password", shadowPasswdFlag("unlock_password", "-u"), "Unlock the password of user name (passwd -u).")
	execmod.Register("shadow.set_password", shadowSetPassword, "Set the password hash of user name in the shadow file (or with usermod -p when use_usermod=True).")
	execmod.Register("shadow.list_users", shadowListUsers, "Return the sorted user names of the shadow file (root=None).")
}

func shadowDefaultHash(*execmod.Context, []any, *value.Map) (any, error) { return "!", nil }

// shadowFile is the shadow file under root ("" or nil: /etc/shadow).
func shadowFile(root any) string {
	if root == nil || !value.Truthy(root) {
		return "/etc/shadow"
	}
	return filepath.Join(value.Str(root), "etc/shadow")
}

// shadowEntry is one line of the shadow file as spwd gives it: empty
// number fields are -1.
type shadowEntry struct {
	fields []string
}

func (e shadowEntry) num(i int) any {
	if i >= len(e.fields) || e.fields[i] == "" {
		return int64(-1)
	}
	n, err := strconv.ParseInt(e.fields[i], 10, 64)
	if err != nil {
		return e.fields[i]
	}
	return n
}

func shadowRead(root any) ([]shadowEntry, error) {
	data, err := os.ReadFile(shadowFile(root))
	if err != nil {
		return nil, err
	}
	var out []shadowEntry
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		out = append(out, shadowEntry{fields: strings.Split(line, ":")})
	}
	return out, nil
}

// shadowInfoOf is shadow.info: the entry of name, all fields "" when
// there is none.
func shadowInfoOf(name string, root any) *value.Map {
	if entries, err := shadowRead(root); err == nil {
		for _, e := range entries {
			if e.fields[0] == name {
				pw := ""
				if len(e.fields) > 1 {
					pw = e.fields[1]
				}
				return value.MapOf("name", name, "passwd", pw, "lstchg", e.num(2), "min", e.num(3), "max", e.num(4),
					"warn", e.num(5), "inact", e.num(6), "expire", e.num(7))
			}
		}
	}
	return value.MapOf("name", "", "passwd", "", "lstchg", "", "min", "", "max", "", "warn", "", "inact", "", "expire", "")
}

func shadowInfo(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("info", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return shadowInfoOf(value.Str(v[0]), v[1]), nil
}

func shadowGet(m *value.Map, k string) any {
	x, _ := m.Get(k)
	return x
}

// shadowSetter is _set_attrib: chage param value name, True when the
// field already has the value; with validate the field is read back.
func shadowSetter(fun, arg, key, param string, validate bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Req(arg), execmod.Opt("root", nil))
		if err != nil {
			return nil, err
		}
		name := value.Str(v[0])
		pre := shadowInfoOf(name, v[2])
		if shadowGet(pre, "name") == "" {
			return false, nil
		}
		if value.Equal(v[1], shadowGet(pre, key)) {
			return true, nil
		}
		cmd := value.NewList("chage")
		if v[2] != nil {
			cmd.Append("-R", value.Str(v[2]))
		}
		cmd.Append(param, value.Str(v[1]), name)
		rc, err := ctx.Call("cmd.retcode", []any{cmd}, value.MapOf("python_shell", false))
		if err != nil {
			return nil, err
		}
		ok := value.Equal(rc, int64(0))
		if validate {
			ok = value.Equal(shadowGet(shadowInfoOf(name, v[2]), key), v[1])
		}
		return ok, nil
	}
}

// shadowPasswdFlag is del_password (-d), lock_password (-l) and
// unlock_password (-u): passwd with the flag, checked by reading back.
func shadowPasswdFlag(fun, flag string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
		if err != nil {
			return nil, err
		}
		name := value.Str(v[0])
		if flag != "-d" {
			pre := shadowInfoOf(name, v[1])
			if shadowGet(pre, "name") == "" {
				return false, nil
			}
			if locked := strings.HasPrefix(value.Str(shadowGet(pre, "passwd")), "!"); locked == (flag == "-l") {
				return true, nil
			}
		}
		cmd := value.NewList("passwd")
		if v[1] != nil {
			cmd.Append("-R", value.Str(v[1]))
		}
		cmd.Append(flag, name)
		kw := value.MapOf("python_shell", false)
		if flag == "-d" {
			kw.Set("output_loglevel", "quiet")
		}
		if _, err := ctx.Call("cmd.run", []any{cmd}, kw); err != nil {
			return nil, err
		}
		after := shadowInfoOf(name, v[1])
		pw := value.Str(shadowGet(after, "passwd"))
		switch flag {
		case "-d":
			return pw == "" && shadowGet(after, "name") == name, nil
		case "-l":
			return strings.HasPrefix(pw, "!"), nil
		}
		return !strings.HasPrefix(pw, "!"), nil
	}
}

const shadowItoa64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func shadowRandomSalt(n int) (string, error) {
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(64))
		if err != nil {
			return "", err
		}
		b[i] = shadowItoa64[k.Int64()]
	}
	return string(b), nil
}

// shadowMD5Crypt is the "$1$" MD5-crypt of password with salt (at most 8
// characters, up to a '$'), as crypt(3).
func shadowMD5Crypt(password, salt string) string {
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
	h.Write([]byte("$1$" + salt))
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
			out.WriteByte(shadowItoa64[w&0x3f])
			w >>= 6
		}
	}
	enc(sum[0], sum[6], sum[12], 4)
	enc(sum[1], sum[7], sum[13], 4)
	enc(sum[2], sum[8], sum[14], 4)
	enc(sum[3], sum[9], sum[15], 4)
	enc(sum[4], sum[10], sum[5], 4)
	enc(0, 0, sum[11], 2)
	return "$1$" + salt + "$" + out.String()
}

// shadowHash is salt.utils.pycrypto.gen_hash for the algorithms brine
// hashes natively.
func shadowHash(password string, salt any, algorithm string) (string, error) {
	switch algorithm {
	case "sha512", "sha256":
		id := map[string]string{"sha512": "$6$", "sha256": "$5$"}[algorithm]
		s := value.Str(salt)
		if salt == nil {
			var err error
			if s, err = shadowRandomSalt(16); err != nil {
				return "", err
			}
		}
		return usermgr.ShaCrypt(password, id+s), nil
	case "md5":
		s := value.Str(salt)
		if salt == nil {
			var err error
			if s, err = shadowRandomSalt(8); err != nil {
				return "", err
			}
		}
		return shadowMD5Crypt(password, s), nil
	case "blowfish":
		s := value.Str(salt)
		if salt == nil {
			// crypt.mksalt: cost 12 and 22 characters.
			r, err := shadowRandomSalt(22)
			if err != nil {
				return "", err
			}
			s = "12$" + r
		}
		return shadowBcrypt(password, "$2b$"+s), nil
	case "crypt":
		s := value.Str(salt)
		if salt == nil {
			r, err := shadowRandomSalt(2)
			if err != nil {
				return "", err
			}
			s = r
		} else if len(s) != 2 {
			slog.Warn("Hash salt is too long for 'crypt' hash.")
		}
		return shadowDESCrypt(password, s), nil
	}
	return "", &execmod.InvocationError{Msg: "Cannot hash using '" + algorithm + "' hash algorithm. Natively supported algorithms are: ['sha512', 'sha256', 'blowfish', 'md5', 'crypt']. If passlib is installed (False), the supported algorithms are: ['sha512', 'sha256', 'blowfish', 'md5', 'crypt']."}
}

func shadowGenPassword(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("gen_password", args, kwargs, execmod.Req("password"), execmod.Opt("crypt_salt", nil), execmod.Opt("algorithm", "sha512"))
	if err != nil {
		return nil, err
	}
	alg := "sha512"
	if v[2] != nil {
		alg = value.Str(v[2])
	}
	pw := ""
	if v[0] != nil {
		pw = value.Str(v[0])
	} else {
		s, err := shadowRandomSalt(20)
		if err != nil {
			return nil, err
		}
		pw = s
	}
	return shadowHash(pw, v[1], alg)
}

func shadowSetPassword(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_password", args, kwargs, execmod.Req("name"), execmod.Req("password"),
		execmod.Opt("use_usermod", false), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	name, password, root := value.Str(v[0]), value.Str(v[1]), v[3]
	rc, err := ctx.Call("cmd.retcode", []any{value.NewList("id", name)}, value.MapOf("ignore_retcode", true))
	if err != nil {
		return nil, err
	}
	if !value.Equal(rc, int64(0)) {
		slog.Warn("user " + name + " does not exist, cannot set password")
		return false, nil
	}
	if shadowIsTrue(v[2]) {
		cmd := value.NewList("usermod")
		if root != nil {
			cmd.Append("-R", value.Str(root))
		}
		cmd.Append("-p", password, name)
		if _, err := ctx.Call("cmd.run", []any{cmd}, value.MapOf("python_shell", false, "output_loglevel", "quiet")); err != nil {
			return nil, err
		}
		return value.Str(shadowGet(shadowInfoOf(name, root), "passwd")) == password, nil
	}
	sfile := "/etc/shadow"
	if g, _ := ctx.Grains.Get("os"); g == "ALT" {
		sfile = "/etc/tcb/" + name + "/shadow"
	}
	if value.Truthy(root) {
		sfile = filepath.Join(value.Str(root), strings.TrimPrefix(sfile, "/"))
	}
	if st, err := os.Stat(sfile); err != nil || !st.Mode().IsRegular() {
		return value.NewMap(0), nil
	}
	data, err := os.ReadFile(sfile)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	now := time.Now()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	lstchg := strconv.FormatInt(today.Unix()/86400, 10)
	var sb strings.Builder
	found := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		comps := strings.Split(strings.TrimSpace(line), ":")
		if len(comps) > 9 {
			comps = comps[:9]
		}
		if comps[0] == name {
			for len(comps) < 9 {
				comps = append(comps, "")
			}
			found = true
			comps[1], comps[2] = password, lstchg
			line = strings.Join(comps, ":") + "\n"
		}
		sb.WriteString(line)
	}
	if !found {
		slog.Warn("shadow entry not present for user " + name + ", adding")
		f, err := os.OpenFile(sfile, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		_, err = f.WriteString(name + ":" + password + ":" + lstchg + "::::::\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	} else if err := os.WriteFile(sfile, []byte(sb.String()), 0o640); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return value.Str(shadowGet(shadowInfoOf(name, root), "passwd")) == password, nil
}

func shadowListUsers(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_users", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	entries, err := shadowRead(v[0])
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.fields[0])
	}
	sort.Strings(names)
	return strList(names), nil
}

// shadowIsTrue is salt.utils.data.is_true: numbers (and numeric strings)
// above zero, the string "true" in any case, else Python truth.
func shadowIsTrue(x any) bool {
	switch v := x.(type) {
	case bool:
		return v
	case int64:
		return v > 0
	case float64:
		return v > 0
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			return f > 0
		}
		return strings.ToLower(v) == "true"
	}
	return value.Truthy(x)
}

// Blowfish's initial P-array and S-boxes are the fractional hex digits
// of pi: 18 + 4*256 words, computed once (Machin's formula).
var (
	shadowPiOnce  sync.Once
	shadowPiWords []uint32
)

func shadowPi() []uint32 {
	shadowPiOnce.Do(func() {
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
			shadowPiWords = append(shadowPiWords, uint32(w.Uint64()))
		}
	})
	return shadowPiWords
}

// shadowBlowfish is a Blowfish state for bcrypt.
type shadowBlowfish struct {
	p [18]uint32
	s [4][256]uint32
}

func (b *shadowBlowfish) f(x uint32) uint32 {
	return ((b.s[0][x>>24] + b.s[1][x>>16&0xff]) ^ b.s[2][x>>8&0xff]) + b.s[3][x&0xff]
}

func (b *shadowBlowfish) encrypt(l, r uint32) (uint32, uint32) {
	for i := 0; i < 16; i += 2 {
		l ^= b.p[i]
		r ^= b.f(l)
		r ^= b.p[i+1]
		l ^= b.f(r)
	}
	l ^= b.p[16]
	return r ^ b.p[17], l
}

// shadowStreamWord reads the next 4 bytes of data, cycling.
func shadowStreamWord(data []byte, pos *int) uint32 {
	var w uint32
	for i := 0; i < 4; i++ {
		w = w<<8 | uint32(data[*pos])
		*pos = (*pos + 1) % len(data)
	}
	return w
}

// expand is bcrypt's ExpandKey: the key into the P-array, then every
// P and S entry re-encrypted, the salt (when given) mixed in.
func (b *shadowBlowfish) expand(key, salt []byte) {
	kp := 0
	for i := range b.p {
		b.p[i] ^= shadowStreamWord(key, &kp)
	}
	var l, r uint32
	sp := 0
	next := func() {
		if salt != nil {
			l ^= shadowStreamWord(salt, &sp)
			r ^= shadowStreamWord(salt, &sp)
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

const shadowBcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func shadowBcryptEncode(b []byte) string {
	var sb strings.Builder
	for i := 0; i < len(b); i += 3 {
		c1 := b[i]
		sb.WriteByte(shadowBcryptAlphabet[c1>>2])
		if i+1 >= len(b) {
			sb.WriteByte(shadowBcryptAlphabet[(c1&3)<<4])
			break
		}
		c2 := b[i+1]
		sb.WriteByte(shadowBcryptAlphabet[(c1&3)<<4|c2>>4])
		if i+2 >= len(b) {
			sb.WriteByte(shadowBcryptAlphabet[(c2&0x0f)<<2])
			break
		}
		c3 := b[i+2]
		sb.WriteByte(shadowBcryptAlphabet[(c2&0x0f)<<2|c3>>6])
		sb.WriteByte(shadowBcryptAlphabet[c3&0x3f])
	}
	return sb.String()
}

func shadowBcryptDecode(s string, n int) ([]byte, bool) {
	var bitsBuf uint32
	nbits := 0
	var out []byte
	for i := 0; i < len(s) && len(out) < n; i++ {
		v := strings.IndexByte(shadowBcryptAlphabet, s[i])
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

// shadowBcrypt is crypt(3) of a "$2b$NN$<22 salt characters>" setting
// ($2a$ and $2y$ too); "*0" when the setting is not one.
func shadowBcrypt(password, setting string) string {
	parts := strings.SplitN(setting, "$", 4)
	if len(parts) != 4 || parts[0] != "" || (parts[1] != "2b" && parts[1] != "2a" && parts[1] != "2y") || len(parts[2]) != 2 || len(parts[3]) < 22 {
		return "*0"
	}
	cost, err := strconv.Atoi(parts[2])
	if err != nil || cost < 4 || cost > 31 {
		return "*0"
	}
	salt, ok := shadowBcryptDecode(parts[3][:22], 16)
	if !ok {
		return "*0"
	}
	key := append([]byte(password), 0)
	if len(key) > 72 {
		key = key[:72]
	}
	pi := shadowPi()
	b := &shadowBlowfish{}
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
	return "$" + parts[1] + "$" + parts[2] + "$" + shadowBcryptEncode(salt) + shadowBcryptEncode(ctext[:23])
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

// shadowDESEncrypt encrypts the 64 bits of block (one bit a byte) with
// the 16 round keys, the expansion e (crypt's salted copy of E).
func shadowDESEncrypt(block *[64]byte, keys *[16][48]byte, e *[48]byte) {
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

// shadowDESKeys is the DES key schedule of the 64 key bits.
func shadowDESKeys(key *[64]byte) *[16][48]byte {
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

// shadowDESCrypt is crypt(3)'s traditional DES hash: two salt characters
// then 11; "*0" when the salt is not two of [./0-9A-Za-z].
func shadowDESCrypt(password, salt string) string {
	if len(salt) < 2 || strings.IndexByte(shadowItoa64, salt[0]) < 0 || strings.IndexByte(shadowItoa64, salt[1]) < 0 {
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
		v := strings.IndexByte(shadowItoa64, salt[i])
		for j := 0; j < 6; j++ {
			if v>>j&1 != 0 {
				e[6*i+j], e[6*i+j+24] = e[6*i+j+24], e[6*i+j]
			}
		}
	}
	keys := shadowDESKeys(&key)
	var block [64]byte
	for i := 0; i < 25; i++ {
		shadowDESEncrypt(&block, keys, &e)
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
		out = append(out, shadowItoa64[v])
	}
	return string(out)
}
