package master

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// PushDir is where the files minion id pushes (cp.push) are kept: Salt's
// <cachedir>/minions/<id>/files.
func PushDir(opts *value.Map, id string) string {
	return filepath.Join(optString(opts, "cachedir"), "minions", id, "files")
}

// errPushRefused is the answer to a pushed piece the master will not
// store; the minion's cp.push returns False on it.
var errPushRefused = errors.New("push refused")

// handlePush stores a piece of a file minion id pushes (Salt's
// _file_recv), when file_recv is on and the file stays within
// file_recv_max_size megabytes. The path is confined to the minion's own
// directory: every element must be a plain name (no "", ".", "..",
// separators or NUL), and the file is opened through an os.Root on that
// directory, which refuses any way out of it (symlinks included). The
// minion id comes from the request subject, which only that minion may
// publish on, so no minion can name another's directory.
func (m *Master) handlePush(id string, body json.RawMessage) (any, error) {
	var req proto.PushRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if !value.Truthy(mustGet(m.Opts, "file_recv")) {
		return nil, fmt.Errorf("%w: file_recv is not enabled on the master", errPushRefused)
	}
	if len(req.Path) == 0 {
		return nil, fmt.Errorf("%w: no path", errPushRefused)
	}
	for _, el := range req.Path {
		if el == "" || el == "." || el == ".." || strings.ContainsAny(el, "/\\\x00") || len(el) > 255 {
			m.refused(id, "refused pushed file path", "path", strings.Join(req.Path, "/"))
			return nil, fmt.Errorf("%w: bad path %q", errPushRefused, strings.Join(req.Path, "/"))
		}
	}
	limit := int64(optFloat(m.Opts, "file_recv_max_size", 100) * 1024 * 1024)
	switch {
	case req.Loc < 0:
		return nil, fmt.Errorf("%w: invalid file pointer %d", errPushRefused, req.Loc)
	case req.Size > limit, req.Loc+int64(len(req.Data)) > limit:
		return nil, fmt.Errorf("%w: exceeding file_recv_max_size limit: %d", errPushRefused, limit)
	}
	dir := PushDir(m.Opts, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	rel := filepath.Join(req.Path...)
	if len(req.Path) > 1 {
		if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return nil, fmt.Errorf("%w: %v", errPushRefused, err)
		}
	}
	flags := os.O_WRONLY | os.O_CREATE
	if req.Loc == 0 {
		flags |= os.O_TRUNC
	}
	f, err := root.OpenFile(rel, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errPushRefused, err)
	}
	if _, err := f.WriteAt(req.Data, req.Loc); err != nil {
		f.Close()
		return nil, err
	}
	return true, f.Close()
}
