package highstate

// state_pkg.go is state.pkg of salt/modules/state.py: run a packaged state
// run (the tar.gz salt-ssh ships: lowstate.json, optional pillar.json and
// roster_grains.json, and one directory of files per saltenv) after
// checking its hash, with the package's directories as the file roots.

import (
	"archive/tar"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	execmod.Register("state.pkg", statePkg, "Run the packaged state run pkg_path (a salt-ssh tar.gz) if its hash_type sum is pkg_sum; {} otherwise.")
	execmod.SetOutputter("state.pkg", "highstate")
}

// pkgValueError is the Python ValueError get_hash raises.
type pkgValueError struct{ msg string }

func (e *pkgValueError) Error() string { return e.msg }

// SaltExceptionClass names the Python exception this error stands for.
func (e *pkgValueError) SaltExceptionClass() string { return "ValueError" }

func fileHash(p, form string) (string, error) {
	mk, ok := pyops.Hashlib(form)
	if !ok {
		return "", &pkgValueError{msg: "Invalid hash type: " + form}
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := mk()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// errPkgMember marks a package member that would land outside the root.
var errPkgMember = errors.New("package member outside the extraction root")

// pkgUnsafe is Salt's check of a member name (absolute, or going up with
// "../"); brine applies it to link targets as well, since a link out of
// the root would let a later member be written through it.
func pkgUnsafe(name string) bool {
	return strings.HasPrefix(name, "/") || strings.HasPrefix(name, "../") || strings.Contains(name, "../") || name == ".."
}

// extractPkg unpacks the gzip tar at p into root, refusing (before writing
// anything) a package with a member outside root.
func extractPkg(p, root string) error {
	var hdrs []*tar.Header
	if err := walkTarGz(p, func(h *tar.Header, _ io.Reader) error {
		if pkgUnsafe(h.Name) || (h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink) && pkgUnsafe(h.Linkname) {
			return errPkgMember
		}
		hdrs = append(hdrs, h)
		return nil
	}); err != nil {
		return err
	}
	return walkTarGz(p, func(h *tar.Header, r io.Reader) error {
		dest := filepath.Join(root, filepath.FromSlash(path.Clean(h.Name)))
		switch h.Typeflag {
		case tar.TypeDir:
			return os.MkdirAll(dest, os.FileMode(h.Mode).Perm()|0o700)
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm())
			if err != nil {
				return err
			}
			_, err = io.Copy(f, r)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return err
			}
			return os.Symlink(h.Linkname, dest)
		case tar.TypeLink:
			return os.Link(filepath.Join(root, filepath.FromSlash(path.Clean(h.Linkname))), dest)
		}
		slog.Debug(fmt.Sprintf("state.pkg: skipping member %s of type %c", h.Name, h.Typeflag))
		return nil
	})
}

func walkTarGz(p string, f func(*tar.Header, io.Reader) error) error {
	file, err := os.Open(p)
	if err != nil {
		return err
	}
	defer file.Close()
	gz, err := gzip.NewReader(file)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(h, tr); err != nil {
			return err
		}
	}
}

func readJSONFile(p string) (any, bool, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := value.FromJSON(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", p, err)
	}
	return v, true, nil
}

func statePkg(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.pkg", args, kwargs,
		execmod.Req("pkg_path"), execmod.Req("pkg_sum"), execmod.Req("hash_type"), execmod.Opt("test", nil))
	if err != nil {
		return nil, err
	}
	if err := checkLockSaltenv(ctx, kwargs); err != nil {
		return nil, err
	}
	pkgPath := value.Str(vals[0])
	if st, err := os.Stat(pkgPath); err != nil || !st.Mode().IsRegular() {
		return value.NewMap(0), nil
	}
	sum, err := fileHash(pkgPath, value.Str(vals[2]))
	if err != nil {
		return nil, err
	}
	if sum != value.Str(vals[1]) {
		return value.NewMap(0), nil
	}
	root, err := os.MkdirTemp("", "tmp")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	if err := extractPkg(pkgPath, root); err != nil {
		if errors.Is(err, errPkgMember) {
			return value.NewMap(0), nil
		}
		return nil, execmod.Errorf("%s", err)
	}
	low, _, err := readJSONFile(filepath.Join(root, "lowstate.json"))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	var chunks []*value.Map
	switch l := low.(type) {
	case *value.List:
		for _, c := range l.Items {
			m, ok := c.(*value.Map)
			if !ok {
				return low, nil // the errors salt-ssh packed in place of chunks
			}
			chunks = append(chunks, m)
		}
	case *value.Map:
		if l.Len() > 0 {
			return low, nil
		}
	default:
		return nil, execmod.Errorf("lowstate.json of %s holds no low chunks", pkgPath)
	}
	override, _, err := readJSONFile(filepath.Join(root, "pillar.json"))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	rosterGrains, hasGrains, err := readJSONFile(filepath.Join(root, "roster_grains.json"))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}

	run := ctx.Fork()
	defer run.Release()
	run.Opts = ctx.Opts.Copy()
	if hasGrains {
		g, _ := rosterGrains.(*value.Map)
		if g == nil {
			g = value.NewMap(0)
		}
		run.Grains = formatCachedGrains(g)
		run.Opts.Set("grains", run.Grains)
	}
	roots := value.NewMap(0)
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if full := filepath.Join(root, e.Name()); isDirPath(full) {
			roots.Set(e.Name(), value.NewList(full))
		}
	}
	run.Opts.Set("fileclient", "local")
	run.Opts.Set("file_roots", roots)
	run.Files = &execmod.CachedFiles{Src: FileRoots(run.Opts), Cachedir: optString(run.Opts, "cachedir", "")}
	test := testValue(ctx, vals[3], rest)
	run.Opts.Set("test", test)
	run.Test = test

	// salt.state.State compiles the pillar afresh, with pillar.json over it.
	om, _ := override.(*value.Map)
	if svc, ok := run.Service("pillar").(pillarCompiler); ok {
		saltenv := optString(run.Opts, "saltenv", "")
		if v, ok := kwargs.Get("saltenv"); ok && v != nil {
			saltenv = value.Str(v)
		}
		pillarenv := optString(run.Opts, "pillarenv", "")
		if v, ok := kwargs.Get("pillarenv"); ok && v != nil {
			pillarenv = value.Str(v)
		}
		fresh, err := svc.Compile(run.Opts, run.Grains, optString(run.Opts, "id", ""), saltenv, pillarenv, om, ctx.Pillar)
		if err != nil {
			return nil, err
		}
		run.Pillar = fresh
	}
	r := NewRun(run, kwargs)
	ret, err := r.RunChunks(chunks, test)
	if err != nil {
		return nil, err
	}
	ctx.SetRetcode(engine.StateRetcode(ret, nil))
	return ret, nil
}

func isDirPath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// formatCachedGrains is Salt's _format_cached_grains: osrelease_info, a
// tuple in live grains, comes back from JSON as a list.
func formatCachedGrains(g *value.Map) *value.Map {
	if l, ok := g.Get("osrelease_info"); ok {
		if list, ok := l.(*value.List); ok {
			g = g.Copy()
			g.Set("osrelease_info", value.Tuple(list.Items))
		}
	}
	return g
}
