package states

// filehash.go: source_hash handling and remote (http, https, ftp-less)
// sources for file.managed.

import (
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/pyops"
	"brine/internal/statemod"
)

func newHash(typ string) (hash.Hash, bool) {
	h, ok := pyops.Hashlib(typ)
	if !ok {
		return nil, false
	}
	return h(), true
}

// sourceSum is file.get_source_sum.
func sourceSum(c *statemod.Call, sourceHash, name, source string) (typ, sum string, err error) {
	var ex *execmod.Context
	if c.Env != nil {
		ex = c.Env.Exec
	}
	return fileops.SourceSum(ex, c.Saltenv, sourceHash, name, source, c.Str("source_hash_name"))
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
