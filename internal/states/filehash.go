package states

// filehash.go: source_hash checks and http(s) downloads for the states
// that fetch a source themselves (archive, pkg, pkgrepo); file.managed
// goes through file.get_managed and file.manage_file.

import (
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strings"
	"time"

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
	return fileops.SourceSum(execCtx(c), c.Saltenv, sourceHash, name, source, c.Str("source_hash_name"))
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
