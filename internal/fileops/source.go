package fileops

// source.go: file sources as the file module resolves them (source_list,
// reading salt://, file:// and local sources) and the template rendering
// of apply_template_on_contents.

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/render"
	"brine/internal/statemod"
	"brine/internal/value"
)

// ReadSource reads a salt://, file:// or local source; a salt:// URL may
// name its environment with "?saltenv=".
func ReadSource(ex *execmod.Context, saltenv, src string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(src, "salt://"); ok {
		env := saltenv
		if path, q, found := strings.Cut(rest, "?saltenv="); found {
			rest, env = path, q
		}
		if ex == nil || ex.Files == nil {
			return nil, fs.ErrNotExist
		}
		data, _, err := ex.Files.ReadFile(env, rest)
		return data, err
	}
	return os.ReadFile(strings.TrimPrefix(src, "file://"))
}

// saltDirExists reports whether rel is a directory of the file server.
func saltDirExists(ex *execmod.Context, saltenv, rel string) bool {
	if ex == nil {
		return false
	}
	out, err := ex.Call("cp.list_master_dirs", []any{saltenv}, value.NewMap(0))
	if err != nil {
		return false
	}
	l, _ := out.(*value.List)
	if l == nil {
		return false
	}
	rel = strings.Trim(rel, "/")
	for _, d := range l.Items {
		if value.Str(d) == rel {
			return true
		}
	}
	return false
}

// httpSourceExists is source_list's HEAD request: a status below 400.
func httpSourceExists(src string) bool {
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Head(src)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 400
}

// SourceExists is source_list's test of one source: a file or directory
// of the file server, an existing file:// or absolute path, or an
// http(s)/ftp URL that answers a HEAD request.
func SourceExists(ex *execmod.Context, saltenv, src string) bool {
	if rest, ok := strings.CutPrefix(src, "salt://"); ok {
		env := saltenv
		if path, q, found := strings.Cut(rest, "?saltenv="); found {
			rest, env = path, q
		}
		if _, err := ReadSource(ex, env, "salt://"+rest); err == nil {
			return true
		}
		return saltDirExists(ex, env, rest)
	}
	u, err := url.Parse(src)
	if err == nil {
		switch {
		case u.Scheme == "file":
			return lexists(u.Host) || lexists(u.Path) || lexists(filepath.Join(u.Host, u.Path))
		case strings.HasPrefix(u.Scheme, "http"):
			return httpSourceExists(src)
		case u.Scheme == "ftp":
			return false // brine has no ftp client
		}
	}
	return strings.HasPrefix(src, "/") && exists(src)
}

// ErrNoSource is source_list's failure.
var ErrNoSource = errors.New("none of the specified sources were found")

// SourceList is file.source_list: the first source of a list that exists
// (an item may be a one-key mapping {source: source_hash}) with its hash;
// a single source is returned as given.
func SourceList(ex *execmod.Context, saltenv string, source, sourceHash any) (any, any, error) {
	l, ok := source.(*value.List)
	if !ok {
		return source, sourceHash, nil
	}
	for _, it := range l.Items {
		src, hash := it, sourceHash
		if m, ok := it.(*value.Map); ok {
			if m.Len() != 1 {
				continue
			}
			k, v := m.At(0)
			src = k
			if value.Truthy(v) {
				hash = v
			}
		}
		if s, ok := src.(string); ok && SourceExists(ex, saltenv, s) {
			return s, hash, nil
		}
	}
	return nil, nil, ErrNoSource
}

// RenderTemplate renders text with the template engine named engine
// (jinja, mako, ...) in the run's template context: Salt's
// TEMPLATE_REGISTRY[engine](text, from_str=True, context=...).
func RenderTemplate(ex *execmod.Context, saltenv, engine, text string, context *value.Map, source string) (string, error) {
	if ex == nil {
		return "", fmt.Errorf("Specified template format %s is not supported", engine)
	}
	if r, ok := ex.Service(statemod.TemplateService).(statemod.TemplateRenderer); ok {
		return r.RenderTemplate(engine, text, context, saltenv, source)
	}
	e, ok := render.Default.Lookup(engine)
	if !ok || e.Text == nil {
		return "", fmt.Errorf("Specified template format %s is not supported", engine)
	}
	rc := ex.RenderContext(saltenv)
	rc.Vars = context
	if rel, ok := strings.CutPrefix(source, "salt://"); ok {
		rc.Source = rel
		if ex.Files != nil {
			if _, local, err := ex.Files.ReadFile(saltenv, rel); err == nil {
				rc.Path = local
			}
		}
	} else {
		rc.Path = source
	}
	return e.Text(text, rc, "")
}
