package pyops

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"hash"
)

// hashlib are the hashlib constructors Salt's functions reach by name.
var hashlib = map[string]func() hash.Hash{
	"md5":      md5.New,
	"sha1":     sha1.New,
	"sha224":   sha256.New224,
	"sha256":   sha256.New,
	"sha384":   sha512.New384,
	"sha512":   sha512.New,
	"sha3_224": func() hash.Hash { return sha3.New224() },
	"sha3_256": func() hash.Hash { return sha3.New256() },
	"sha3_384": func() hash.Hash { return sha3.New384() },
	"sha3_512": func() hash.Hash { return sha3.New512() },
}

// Hashlib is getattr(hashlib, name) for the algorithms brine provides:
// the constructor of the hash, or false.
func Hashlib(name string) (func() hash.Hash, bool) {
	h, ok := hashlib[name]
	return h, ok
}
