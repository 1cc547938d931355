package fileops

// hashfile.go: file.extract_hash, finding a file's checksum in a hash file
// such as a SHA256SUMS listing.

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"brine/internal/execmod"
)

// hashLens is salt.utils.files.HASHES.
var hashLens = map[string]int{"sha512": 128, "sha384": 96, "sha256": 64, "sha224": 56, "sha1": 40, "md5": 32}

// HashTypeOfLen is HASHES_REVMAP: the hash type of a hex digest length.
func HashTypeOfLen(n int) string {
	for t, l := range hashLens {
		if l == n {
			return t
		}
	}
	return ""
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// firstHash is the first match of extract_hash's pattern
// (?<![a-z0-9])([a-f0-9]{lo,hi})(?![a-z0-9]), case-insensitive: a whole
// alphanumeric token of hex digits of an allowed length.
func firstHash(line string, lo, hi int) string {
	for i := 0; i < len(line); {
		if !isAlnum(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && isAlnum(line[j]) {
			j++
		}
		// A token's longest hex prefix could match only if the token
		// ends there; the lookahead rejects anything longer.
		if tok := line[i:j]; isHex(tok) && len(tok) >= lo && len(tok) <= hi {
			return tok
		}
		i = j
	}
	return ""
}

// nameMatches is extract_hash's test of a line against a name: the line
// ends with base preceded by a separator, or starts with full followed by
// whitespace.
func nameMatches(line, base, full, seps string) bool {
	if strings.HasSuffix(line, base) {
		if i := len(line) - len(base) - 1; i >= 0 {
			return strings.IndexByte(seps, line[i]) >= 0
		}
		return false
	}
	if strings.HasPrefix(line, full) {
		rest := line[len(full):]
		return rest != "" && strings.IndexByte(" \t\n\r\v\f", rest[0]) >= 0
	}
	return false
}

// ExtractHash is file.extract_hash on the text of a hash file: the digest
// for sourceHashName, else for fileName, else for source (each by its
// base name), else the first digest of the file. hashType limits the
// digest length ("" or an unknown type allows every supported length).
func ExtractHash(text, hashType, fileName, source, sourceHashName string) (hsum, typ string, ok bool) {
	lo, hi := 32, 128
	if n, known := hashLens[hashType]; known {
		lo, hi = n, n
	}
	const ws = " \t\n\r\v\f"
	seps := ws + `\/*`
	fileBase := path.Base(fileName)
	if fileName == "" {
		fileBase = ""
	}
	sourceBase := ""
	if source != "" {
		p := source
		if u, err := url.Parse(source); err == nil {
			p = u.Path
			if p == "" {
				p = u.Host
			}
		}
		sourceBase = p[strings.LastIndexByte(p, '/')+1:]
	}
	type match struct{ hsum, typ string }
	var partial *match
	found := map[string][]match{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, ws)
		h := firstHash(line, lo, hi)
		if h == "" || HashTypeOfLen(len(h)) == "" {
			continue
		}
		m := match{h, HashTypeOfLen(len(h))}
		if partial == nil {
			partial = &m
		}
		if sourceHashName != "" && nameMatches(line, sourceHashName, sourceHashName, ws) {
			found["source_hash_name"] = append(found["source_hash_name"], m)
		}
		if fileName != "" && nameMatches(line, fileBase, fileName, seps) {
			found["file_name"] = append(found["file_name"], m)
		}
		if source != "" && nameMatches(line, sourceBase, source, seps) {
			found["source"] = append(found["source"], m)
		}
	}
	for _, k := range []string{"source_hash_name", "file_name", "source"} {
		if ms := found[k]; len(ms) > 0 {
			return ms[0].hsum, ms[0].typ, true
		}
	}
	if partial != nil {
		return partial.hsum, partial.typ, true
	}
	return "", "", false
}

// hashOrder is HASHES in Salt's order.
var hashOrder = []string{"sha512", "sha384", "sha256", "sha224", "sha1", "md5"}

// validProtos is salt.utils.files.VALID_PROTOS.
var validProtos = []string{"salt", "file", "http", "https", "ftp", "swift", "s3"}

func invalidSourceHash(sourceHash string) error {
	lens := []int{32, 40, 56, 64, 96, 128}
	parts := make([]string, len(lens))
	for i, n := range lens {
		parts[i] = fmt.Sprintf("%s (%d)", HashTypeOfLen(n), n)
	}
	return execErrorf("Source hash %s format is invalid. The supported formats are: 1) a hash, 2) an expression in the format <hash_type>=<hash>, or 3) either a path to a local file containing hashes, or a URI of a remote hash file. Supported protocols for remote hash files are: %s. The hash may also not be of a valid length, the following are supported hash types and lengths: %s.",
		sourceHash, strings.Join(validProtos, ", "), strings.Join(parts, ", "))
}

// SourceSum is file.get_source_sum: the hash type and lower-case digest a
// source_hash stands for (a digest, "<type>=<digest>", or a hash file read
// with ReadSource and searched with ExtractHash). Remote hash files other
// than salt:// and file:// are not fetched.
func SourceSum(ex *execmod.Context, saltenv, sourceHash, fileName, source, sourceHashName string) (typ, hsum string, err error) {
	var hashFile string
	if strings.HasPrefix(sourceHash, "/") {
		hashFile = sourceHash
	} else if u, perr := url.Parse(sourceHash); perr == nil && u.Scheme != "" {
		known := false
		for _, p := range validProtos {
			known = known || u.Scheme == p
		}
		if !known {
			return "", "", invalidSourceHash(sourceHash)
		}
		hashFile = sourceHash
	}
	if hashFile != "" {
		data, rerr := ReadSource(ex, saltenv, hashFile)
		if rerr != nil {
			if hashFile == sourceHash && !strings.HasPrefix(sourceHash, "/") {
				return "", "", execErrorf("Source hash file %s not found", sourceHash)
			}
			return "", "", execErrorf("[Errno 2] No such file or directory: '%s'", hashFile)
		}
		h, t, ok := ExtractHash(string(data), "", fileName, source, sourceHashName)
		if !ok {
			return "", "", invalidSourceHash(sourceHash)
		}
		return t, strings.ToLower(h), nil
	}
	if t, h, ok := strings.Cut(sourceHash, "="); ok {
		typ, hsum = strings.TrimSpace(t), strings.TrimSpace(h)
	} else {
		if sourceHash == "" || !isHex(sourceHash) || HashTypeOfLen(len(sourceHash)) == "" {
			return "", "", invalidSourceHash(sourceHash)
		}
		typ, hsum = HashTypeOfLen(len(sourceHash)), sourceHash
	}
	want, known := hashLens[typ]
	switch {
	case !known:
		return "", "", execErrorf("Invalid hash type '%s'. Supported hash types are: %s. Either remove the hash type and simply use '%s' as the source_hash, or change the hash type to a supported type.", typ, strings.Join(hashOrder, ", "), hsum)
	case HashTypeOfLen(len(hsum)) == "":
		return "", "", invalidSourceHash(sourceHash)
	case len(hsum) != want:
		return "", "", execErrorf("Invalid length (%d) for hash type '%s'. Either remove the hash type and simply use '%s' as the source_hash, or change the hash type to '%s'", len(hsum), typ, hsum, HashTypeOfLen(len(hsum)))
	}
	return typ, strings.ToLower(hsum), nil
}
