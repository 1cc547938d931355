package states

// file_cached.go is file.cached and file.not_cached of salt/states/file.py:
// a file kept in (or removed from) the minion's file cache, through the
// cp and file execution functions as Salt's states call them.

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.cached", Run: fileCached,
		Doc: "Ensure that a file (salt://, http(s)://, ftp://...) is cached on the minion, verified against source_hash when given.",
		Params: []statemod.Param{statemod.Req("name"), p("source_hash", ""), p("source_hash_name", nil),
			p("skip_verify", false), p("saltenv", "base"), p("use_etag", false)}})
	statemod.Register(&statemod.Function{Name: "file.not_cached", Run: fileNotCached,
		Doc:    "Ensure that a file is not cached on the minion (a local path is left alone).",
		Params: []statemod.Param{statemod.Req("name"), p("saltenv", "base")}})
}

// remoteProtos and localProtos are salt.utils.files' REMOTE_PROTOS and
// LOCAL_PROTOS.
var (
	remoteProtos = map[string]bool{"http": true, "https": true, "ftp": true, "swift": true, "s3": true}
	localProtos  = map[string]bool{"": true, "file": true}
)

// cachedPath is Salt's os.path.realpath(os.path.expanduser(parsed.path)).
func cachedPath(u *url.URL) string {
	p := fileops.ExpandUser(u.Path)
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p
}

// execErrorText is the text of an execution function's error, as Salt's
// exc.strerror shows it.
func execErrorText(err error) string {
	var ce *execmod.CommandExecutionError
	if errors.As(err, &ce) {
		return ce.Msg
	}
	return err.Error()
}

func fileCached(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", false)
	parsed, err := url.Parse(name)
	if err != nil {
		ret.Set("comment", "Only URLs or local file paths are valid input")
		return ret, nil
	}
	skipVerify, sourceHash, saltenv := c.Bool("skip_verify"), c.Get("source_hash"), c.Get("saltenv")
	if !skipVerify && !value.Truthy(sourceHash) && !c.Bool("use_etag") && remoteProtos[parsed.Scheme] {
		ret.Set("comment", fmt.Sprintf("Unable to verify upstream hash of source file %s, please set source_hash or set skip_verify or use_etag to True", redactURL(parsed)))
		return ret, nil
	}
	sum := value.NewMap(0)
	if value.Truthy(sourceHash) {
		got, err := c.Salt("file.get_source_sum", nil, value.MapOf("source", name, "source_hash", sourceHash,
			"source_hash_name", c.Get("source_hash_name"), "saltenv", saltenv))
		if err != nil {
			ret.Set("comment", execErrorText(err))
			return ret, nil
		}
		m, _ := got.(*value.Map)
		if m == nil || m.Len() == 0 {
			ret.Set("comment", fmt.Sprintf("Failed to get source hash from %s. This may be a bug. If this error persists, please report it and set skip_verify to True to work around it.", value.Str(sourceHash)))
			return ret, nil
		}
		sum = m
	}
	hashType, ok := sum.Get("hash_type")
	if !ok {
		hashType = c.Opt("hash_type")
	}
	if hashType == nil {
		hashType = "sha256"
	}
	hsum, _ := sum.Get("hsum")
	getHash := func(path string) (any, error) { return c.Salt("file.get_hash", []any{path, hashType}, nil) }
	if localProtos[parsed.Scheme] {
		full := cachedPath(parsed)
		if _, err := os.Stat(full); err != nil {
			ret.Set("comment", fmt.Sprintf("File %s is not present on the minion", full))
			return ret, nil
		}
		if skipVerify || hsum == nil {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("File %s is present on the minion", full))
			return ret, nil
		}
		local, err := getHash(full)
		if err != nil {
			return nil, err
		}
		if value.Equal(local, hsum) {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("File %s is present on the minion and has hash %s", full, value.Str(local)))
		} else {
			ret.Set("comment", fmt.Sprintf("File %s is present on the minion, but the hash (%s) does not match the specified hash (%s)", full, value.Str(local), value.Str(hsum)))
		}
		return ret, nil
	}
	var preHash any
	if cached, err := c.Salt("cp.is_cached", []any{name}, value.MapOf("saltenv", saltenv)); err == nil && value.Truthy(cached) {
		if preHash, err = getHash(value.Str(cached)); err != nil {
			return nil, err
		}
		if !skipVerify && hsum != nil && value.Equal(preHash, hsum) {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("File is already cached to %s with hash %s", value.Str(cached), value.Str(preHash)))
		}
	}
	local, err := c.Salt("cp.cache_file", []any{name}, value.MapOf("saltenv", saltenv, "source_hash", hsum, "use_etag", c.Get("use_etag")))
	if err != nil {
		ret.Set("comment", execErrorText(err))
		return ret, nil
	}
	if !value.Truthy(local) {
		ret.Set("comment", fmt.Sprintf("Failed to cache %s, check minion log for more information", redactURL(parsed)))
		return ret, nil
	}
	postHash, err := getHash(value.Str(local))
	if err != nil {
		return nil, err
	}
	if !value.Equal(preHash, postHash) {
		changes, _ := ret.Get("changes")
		changes.(*value.Map).Set("hash", value.MapOf("old", preHash, "new", postHash))
	}
	if !skipVerify && hsum != nil {
		if value.Equal(postHash, hsum) {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("File is already cached to %s with hash %s", value.Str(local), value.Str(postHash)))
		} else {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("File is cached to %s, but the hash (%s) does not match the specified hash (%s)", value.Str(local), value.Str(postHash), value.Str(hsum)))
		}
		return ret, nil
	}
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("File is cached to %s", value.Str(local)))
	return ret, nil
}

func fileNotCached(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", false)
	parsed, err := url.Parse(name)
	if err != nil {
		ret.Set("comment", "Only URLs or local file paths are valid input")
		return ret, nil
	}
	if localProtos[parsed.Scheme] {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("File %s is a local path, no action taken", cachedPath(parsed)))
		return ret, nil
	}
	cached, err := c.Salt("cp.is_cached", []any{name}, value.MapOf("saltenv", c.Get("saltenv")))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(cached) {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("%s is not cached", name))
		return ret, nil
	}
	local := value.Str(cached)
	if err := os.Remove(local); err != nil {
		ret.Set("comment", fmt.Sprintf("Failed to delete %s: %s", local, fileops.PyOSError(err).Error()))
		return ret, nil
	}
	ret.Set("result", true)
	changes, _ := ret.Get("changes")
	changes.(*value.Map).Set("deleted", true)
	ret.Set("comment", fmt.Sprintf("%s was deleted", local))
	return ret, nil
}

// redactURL is salt.utils.url.redact_http_basic_auth of a URL: a password
// in it is replaced by XXXXXXXXXX.
func redactURL(u *url.URL) string {
	if u.User != nil {
		if _, has := u.User.Password(); has {
			c := *u
			c.User = url.UserPassword(u.User.Username(), "XXXXXXXXXX")
			return c.String()
		}
	}
	return u.String()
}
