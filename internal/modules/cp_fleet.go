package modules

// cp_fleet.go is the side of salt/modules/cp.py that moves files between
// a minion and its master: cp.push and cp.push_dir (the master keeps the
// files under cachedir/minions/<id>/files when its file_recv option is
// on), and cp.recv and cp.recv_chunked, which `brine cp` (salt-cp) calls
// on the minions.

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	execmod.Register("cp.push", cpPush, "Send a file from the minion to the master (kept under its cachedir/minions/<id>/files when file_recv is on).")
	execmod.Register("cp.push_dir", cpPushDir, "Send every file below a directory (matching glob) to the master, as cp.push does.")
	execmod.Register("cp.recv", cpRecv, "Write files sent by brine cp (salt-cp) to dest; returns {path: True} per file.")
	execmod.Register("cp.recv_chunked", cpRecvChunked, "Write one chunk of a file sent by brine cp --chunked (base64, gzip-compressed unless told otherwise) to dest.")
}

// FilePusher sends the pieces of a pushed file to the master: the
// cp_push service of a fleet minion's runs (internal/fleet/minion).
type FilePusher interface {
	// PushFile sends data at offset loc of a file of size bytes whose
	// path below the minion's directory on the master is path.
	PushFile(path []string, size, loc int64, data []byte) error
	// MaxChunk is the largest piece one call may carry.
	MaxChunk() int
}

// CpPushService is the name of the FilePusher service.
const CpPushService = "cp_push"

func cpPush(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("push", args, kwargs, execmod.Req("path"), execmod.Opt("keep_symlinks", false),
		execmod.Opt("upload_path", nil), execmod.Opt("remove_source", false))
	if err != nil {
		return nil, err
	}
	up := ""
	if value.Truthy(v[2]) {
		up = execmod.String(v[2])
	}
	return pushFile(ctx, execmod.String(v[0]), value.Truthy(v[1]), up, value.Truthy(v[3]))
}

// pushFile is cp.push: False for a path that is not absolute, holds
// "../" or is not a file, else the file sent in file_buffer_size pieces.
func pushFile(ctx *execmod.Context, p string, keepSymlinks bool, uploadPath string, removeSource bool) (any, error) {
	if strings.Contains(p, "../") || !filepath.IsAbs(p) {
		return false, nil
	}
	if !keepSymlinks {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
	}
	if !isFileAt(p) {
		return false, nil
	}
	pusher, ok := ctx.Service(CpPushService).(FilePusher)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: "cp.push sends files to a master: it needs a minion of a brine master (not --local)"}
	}
	load := strings.TrimLeft(p, "/")
	if uploadPath != "" {
		if strings.Contains(uploadPath, "../") {
			return false, nil
		}
		load = strings.TrimLeft(uploadPath, "/")
	}
	var parts []string
	for _, el := range strings.Split(filepath.Clean(load), "/") {
		if el != "" {
			parts = append(parts, el)
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, nil
	}
	chunk := int(optNumber(ctx.Opts, "file_buffer_size", 262144))
	if chunk <= 0 || chunk > pusher.MaxChunk() {
		chunk = pusher.MaxChunk()
	}
	buf := make([]byte, chunk)
	var loc int64
	sent := false
	for {
		n, rerr := io.ReadFull(f, buf)
		if n == 0 && sent {
			break
		}
		if err := pusher.PushFile(parts, st.Size(), loc, buf[:n]); err != nil {
			slog.Error("cp.push Failed transfer failed. Ensure master has 'file_recv' set to 'True' and that the file is not larger than the 'file_recv_size_max' setting on the master.", "err", err)
			return false, nil
		}
		sent = true
		loc += int64(n)
		if rerr != nil { // io.EOF or io.ErrUnexpectedEOF: that was the end
			break
		}
	}
	if removeSource {
		if err := os.RemoveAll(p); err != nil {
			slog.Error("cp.push failed to remove file '" + p + "'")
			return false, nil
		}
	}
	return true, nil
}

func optNumber(opts *value.Map, k string, def float64) float64 {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return def
}

func cpPushDir(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("push_dir", args, kwargs, execmod.Req("path"), execmod.Opt("glob", nil), execmod.Opt("upload_path", nil))
	if err != nil {
		return nil, err
	}
	p := execmod.String(v[0])
	up := ""
	if value.Truthy(v[2]) {
		up = execmod.String(v[2])
	}
	if strings.Contains(p, "../") || !filepath.IsAbs(p) {
		return false, nil
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if isFileAt(p) {
		return pushFile(ctx, p, false, up, false)
	}
	found := map[string]bool{}
	walkFiles(p, found, 0)
	var files []string
	for f := range found {
		if v[1] == nil || match.Fnmatch(filepath.Base(f), execmod.String(v[1])) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return false, nil
	}
	sort.Strings(files)
	for _, f := range files {
		target := ""
		if up != "" && strings.HasPrefix(f, p) {
			target = "/" + strings.Trim(up, "/") + "/" + strings.Trim(strings.Replace(f, p, "", 1), "/")
		}
		r, err := pushFile(ctx, f, false, target, false)
		if err != nil || !value.Truthy(r) {
			return r, err
		}
	}
	return true, nil
}

func cpRecv(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("recv", args, kwargs, execmod.Req("files"), execmod.Req("dest"))
	if err != nil {
		return nil, err
	}
	files, ok := v[0].(*value.Map)
	if !ok {
		return nil, &execmod.InvocationError{Msg: "files must be a mapping of paths to contents"}
	}
	dest := execmod.String(v[1])
	out := value.NewMap(files.Len())
	var unavailable bool
	files.Range(func(k, data any) bool {
		p := value.Str(k)
		var final string
		switch {
		case filepath.Base(p) == filepath.Base(dest) && !isDir(dest):
			final = dest
		case isDir(dest):
			final = filepath.Join(dest, filepath.Base(p))
		case isDir(filepath.Dir(dest)):
			final = dest
		default:
			unavailable = true
			return false
		}
		err := os.WriteFile(final, []byte(value.Str(data)), 0o644)
		out.Set(final, err == nil)
		return true
	})
	if unavailable {
		return "Destination unavailable", nil
	}
	return out, nil
}

func cpRecvChunked(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("recv_chunked", args, kwargs, execmod.Req("dest"), execmod.Req("chunk"),
		execmod.Opt("append", false), execmod.Opt("compressed", true), execmod.Opt("mode", nil))
	if err != nil {
		return nil, err
	}
	dest := execmod.String(v[0])
	fail := func(msg string) (any, error) {
		ctx.SetRetcode(1)
		return msg, nil
	}
	if v[1] == nil {
		// An empty directory to create.
		if err := os.MkdirAll(dest, 0o755); err != nil {
			if isFileAt(dest) {
				return "Path exists and is a file", nil
			}
			return fail(pyOSError(err))
		}
		return true, nil
	}
	chunk, err := base64.StdEncoding.DecodeString(value.Str(v[1]))
	if err != nil {
		return fail("Incorrect padding")
	}
	if value.Truthy(v[3]) {
		zr, err := gzip.NewReader(bytes.NewReader(chunk))
		if err != nil {
			return fail(err.Error())
		}
		if chunk, err = io.ReadAll(zr); err != nil {
			return fail(err.Error())
		}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if value.Truthy(v[2]) {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(dest, flags, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if merr := os.MkdirAll(filepath.Dir(dest), 0o755); merr != nil {
			return fail(pyOSError(merr))
		}
		f, err = os.OpenFile(dest, flags, 0o644)
	}
	if err != nil {
		return fail(pyOSError(err))
	}
	defer f.Close()
	if _, err := f.Write(chunk); err != nil {
		return fail(pyOSError(err))
	}
	if !value.Truthy(v[2]) && v[4] != nil {
		mode, ok := v[4].(int64)
		if !ok {
			return fail("mode must be an integer")
		}
		if err := os.Chmod(dest, os.FileMode(mode&0o7777)|modeBits(mode)); err != nil {
			return fail(pyOSError(err))
		}
	}
	return true, nil
}

// modeBits maps the setuid, setgid and sticky bits of a Unix mode to Go's.
func modeBits(mode int64) os.FileMode {
	var m os.FileMode
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

// pyOSError is str() of the OSError Python raises for err.
func pyOSError(err error) string { return fileops.PyOSError(err).Error() }
