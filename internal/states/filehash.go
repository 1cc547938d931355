package states

// filehash.go: source_hash handling and remote (http, https, ftp-less)
// sources for file.managed.

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"brine/internal/statemod"
)

var hashByLen = map[int]string{32: "md5", 40: "sha1", 56: "sha224", 64: "sha256", 96: "sha384", 128: "sha512"}

func newHash(typ string) (hash.Hash, bool) {
	switch typ {
	case "md5":
		return md5.New(), true
	case "sha1":
		return sha1.New(), true
	case "sha224":
		return sha256.New224(), true
	case "sha256":
		return sha256.New(), true
	case "sha384":
		return sha512.New384(), true
	case "sha512":
		return sha512.New(), true
	}
	return nil, false
}

var hexRe = regexp.MustCompile(`^[0-9a-fA-F]+$`)

// sourceSum is file.get_source_sum for the hash forms brine supports: a
// bare hash, <type>=<hash>, or a local file of "<hash>  <name>" lines.
func sourceSum(c *statemod.Call, sourceHash, name, source string) (typ, sum string, err error) {
	invalid := fmt.Errorf("Source hash %s format is invalid. The supported formats are: 1) a hash, 2) an expression in the format <hash_type>=<hash>, or 3) either a path to a local file containing hashes, or a URI of a remote hash file.", sourceHash)
	if strings.HasPrefix(sourceHash, "/") || strings.HasPrefix(sourceHash, "salt://") || strings.HasPrefix(sourceHash, "file://") {
		data, rerr := readSource(c, sourceHash)
		if rerr != nil {
			return "", "", fmt.Errorf("Source hash file %s not found", sourceHash)
		}
		base := name[strings.LastIndexByte(name, '/')+1:]
		srcBase := source[strings.LastIndexByte(source, '/')+1:]
		var first string
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || !hexRe.MatchString(f[0]) || hashByLen[len(f[0])] == "" {
				continue
			}
			if first == "" {
				first = f[0]
			}
			if len(f) > 1 {
				fn := strings.TrimPrefix(f[len(f)-1], "*")
				if fn == base || fn == srcBase || strings.HasSuffix(fn, "/"+srcBase) {
					return hashByLen[len(f[0])], strings.ToLower(f[0]), nil
				}
			}
		}
		if first == "" {
			return "", "", invalid
		}
		return hashByLen[len(first)], strings.ToLower(first), nil
	}
	if t, h, ok := strings.Cut(sourceHash, "="); ok {
		t, h = strings.TrimSpace(t), strings.TrimSpace(h)
		if _, known := newHash(t); !known {
			return "", "", fmt.Errorf("Invalid hash type '%s'. Supported hash types are: md5, sha1, sha224, sha256, sha384, sha512. Either remove the hash type and simply use '%s' as the source_hash, or change the hash type to a supported type.", t, h)
		}
		if hashByLen[len(h)] == "" {
			return "", "", invalid
		}
		return t, strings.ToLower(h), nil
	}
	if !hexRe.MatchString(sourceHash) || hashByLen[len(sourceHash)] == "" {
		return "", "", invalid
	}
	return hashByLen[len(sourceHash)], strings.ToLower(sourceHash), nil
}

func hashOf(typ string, data []byte) string {
	h, _ := newHash(typ)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func isRemote(src string) bool {
	return strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://")
}

// fetchRemote downloads an http(s) source.
func fetchRemote(src string) ([]byte, error) {
	client := &http.Client{Timeout: 5 * time.Minute}
	resp, err := client.Get(src)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("HTTP error %d reading %s: %s", resp.StatusCode, src, http.StatusText(resp.StatusCode))
	}
	return io.ReadAll(resp.Body)
}

// verifySourceHash checks non-salt:// content against source_hash, as
// manage_file's check_web_source_hash does; it returns the failure
// comment, or "".
func verifySourceHash(c *statemod.Call, name, source string, data []byte, existing bool) string {
	sh := c.Str("source_hash")
	if strings.HasPrefix(source, "salt://") || sh == "" || c.Bool("skip_verify") {
		return ""
	}
	typ, sum, err := sourceSum(c, sh, name, source)
	if err != nil {
		return err.Error()
	}
	if got := hashOf(typ, data); got != sum {
		if existing {
			return fmt.Sprintf("Specified %s checksum for %s (%s) does not match actual checksum (%s). If the 'source_hash' value refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'.", typ, source, sum, got)
		}
		return fmt.Sprintf("Specified %s checksum for %s (%s) does not match actual checksum (%s)", typ, name, sum, got)
	}
	return ""
}
