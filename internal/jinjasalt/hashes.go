package jinjasalt

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"io/fs"
	"math/big"
	"os"
	"unicode/utf8"

	"brine/internal/pyops"
)

// Filters of salt/utils/hashutils.py.

func digest(v any, h func() hash.Hash) (any, error) {
	b, err := toBytes(v)
	if err != nil {
		return nil, err
	}
	d := h()
	d.Write(b)
	return hex.EncodeToString(d.Sum(nil)), nil
}

func hmacSignature(s, secret, challenge any) (any, error) {
	msg, err := toBytes(s)
	if err != nil {
		return nil, err
	}
	key, err := toBytes(secret)
	if err != nil {
		return nil, err
	}
	want, err := toBytes(challenge)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	got := base64.StdEncoding.EncodeToString(m.Sum(nil))
	return got == string(want), nil
}

func hmacCompute(s, secret any) (any, error) {
	msg, err := toBytes(s)
	if err != nil {
		return nil, err
	}
	key, err := toBytes(secret)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil)), nil
}

func b64encode(v any) (any, error) {
	b, err := toBytes(v)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// b64decode is base64.b64decode without validation: characters outside
// the alphabet are dropped, then the padding must be right. The result is
// text when it is valid UTF-8, bytes otherwise.
func b64decode(v any) (any, error) {
	b, err := toBytes(v)
	if err != nil {
		return nil, err
	}
	clean := make([]byte, 0, len(b))
	for _, c := range b {
		if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=' {
			clean = append(clean, c)
		}
	}
	// Python stops at the first complete padded quantum.
	out, err := base64.StdEncoding.DecodeString(string(clean))
	if err != nil {
		data := 0
		for _, c := range clean {
			if c != '=' {
				data++
			}
		}
		if data%4 == 1 {
			return nil, pyErr(excBinasciiError, "Invalid base64-encoded string: number of data characters (%d) cannot be 1 more than a multiple of 4", data)
		}
		return nil, pyErr(excBinasciiError, "Incorrect padding")
	}
	if utf8.Valid(out) {
		return string(out), nil
	}
	return out, nil
}

func randomHash(size any, hashType any) (any, error) {
	name := "md5"
	if truthy(hashType) {
		name = pyStr(hashType)
	}
	h, ok := pyops.Hashlib(name)
	if !ok {
		return nil, pyErr(excAttributeError, "module 'hashlib' has no attribute '%s'", name)
	}
	limit, ok := asBigInt(size)
	if !ok {
		if _, isStr := asString(size); isStr {
			return nil, pyErr(excTypeError, "can only concatenate str (not \"int\") to str")
		}
		return nil, pyErr(excTypeError, "unsupported operand type(s) for +: '%s' and 'int'", typeName(size))
	}
	if limit.Sign() < 0 {
		return nil, pyErr(excValueError, "empty range in randrange(0, %s)", new(big.Int).Add(limit, big.NewInt(1)))
	}
	n, err := rand.Int(rand.Reader, new(big.Int).Add(limit, big.NewInt(1)))
	if err != nil {
		return nil, err
	}
	d := h()
	d.Write([]byte(n.String()))
	return hex.EncodeToString(d.Sum(nil)), nil
}

// fileHashsum is salt.utils.hashutils.get_hash.
func fileHashsum(path, form any) (any, error) {
	name := pyStr(form)
	h, ok := pyops.Hashlib(name)
	if !ok {
		return nil, pyErr(excValueError, "Invalid hash type: %s", name)
	}
	p, err := strArg(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, osError(err, p)
	}
	defer f.Close()
	d := h()
	if _, err := io.Copy(d, f); err != nil {
		return nil, osError(err, p)
	}
	return hex.EncodeToString(d.Sum(nil)), nil
}

// osError words a Go file error as Python's OSError subclasses do.
func osError(err error, path string) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pyErr(excFileNotFound, "[Errno 2] No such file or directory: %s", pyQuote(path))
	case errors.Is(err, fs.ErrPermission):
		return pyErr("PermissionError", "[Errno 13] Permission denied: %s", pyQuote(path))
	}
	return pyErr(excOSError, "%s", err.Error())
}

func init() {
	const src = "salt/utils/hashutils.py"
	for _, h := range []struct {
		name, py string
		fn       func() hash.Hash
	}{{"md5", "md5_digest", md5.New}, {"sha1", "sha1_digest", sha1.New}, {"sha256", "sha256_digest", sha256.New}, {"sha512", "sha512_digest", sha512.New}} {
		fn := h.fn
		filter(h.name, src, newSig(h.py, "instr", required), func(b *bound) (any, error) {
			return digest(b.vals[0], fn)
		})
	}
	filter("hmac", src, newSig("hmac_signature", "string", required, "shared_secret", required, "challenge_hmac", required), func(b *bound) (any, error) {
		return hmacSignature(b.vals[0], b.vals[1], b.vals[2])
	})
	filter("hmac_compute", src, newSig("hmac_compute", "string", required, "shared_secret", required), func(b *bound) (any, error) {
		return hmacCompute(b.vals[0], b.vals[1])
	})
	filter("base64_encode", src, newSig("base64_b64encode", "instr", required), func(b *bound) (any, error) {
		return b64encode(b.vals[0])
	})
	filter("base64_decode", src, newSig("base64_b64decode", "instr", required), func(b *bound) (any, error) {
		return b64decode(b.vals[0])
	})
	for _, name := range []string{"random_hash", "rand_str"} {
		filter(name, src, newSig("random_hash", "size", int64(9999999999), "hash_type", nil), func(b *bound) (any, error) {
			return randomHash(b.vals[0], b.vals[1])
		})
	}
	filter("file_hashsum", src, newSig("get_hash", "path", required, "form", "sha256", "chunk_size", int64(65536)), func(b *bound) (any, error) {
		return fileHashsum(b.vals[0], b.vals[1])
	})
}
