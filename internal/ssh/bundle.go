package ssh

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"brine/internal/value"
)

// fileTree is the file roots packed for targets: every file of every
// saltenv (the first root holding a path wins, as the file server picks),
// as a gzipped tar under files/ENV/PATH, named by a hash of its content.
type fileTree struct {
	Envs []string
	Hash string
	// Tar is a complete gzip member holding the tar entries without the
	// archive's end marker, so that another member can follow it.
	Tar []byte
	n   int
}

// treeOnce packs the file roots once per run.
type treeOnce struct {
	once sync.Once
	t    *fileTree
	err  error
}

func (o *treeOnce) get(opts *value.Map) (*fileTree, error) {
	o.once.Do(func() { o.t, o.err = packRoots(opts) })
	return o.t, o.err
}

type treeFile struct {
	env, rel, path string
	mode           fs.FileMode
}

func packRoots(opts *value.Map) (*fileTree, error) {
	roots, _ := get(opts, "file_roots").(*value.Map)
	t := &fileTree{}
	var files []treeFile
	if roots != nil {
		for _, k := range roots.Keys() {
			env := value.Str(k)
			t.Envs = append(t.Envs, env)
			seen := map[string]bool{}
			v, _ := roots.Get(k)
			for _, dir := range strList(v) {
				_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						return nil
					}
					if d.IsDir() {
						if p != dir && strings.HasPrefix(d.Name(), ".") && d.Name() != ".well-known" {
							return filepath.SkipDir
						}
						return nil
					}
					rel, _ := filepath.Rel(dir, p)
					st, err := os.Stat(p) // follows symlinks, as the file server does
					if err != nil || !st.Mode().IsRegular() || seen[rel] {
						return nil
					}
					seen[rel] = true
					files = append(files, treeFile{env: env, rel: filepath.ToSlash(rel), path: p, mode: st.Mode().Perm()})
					return nil
				})
			}
		}
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].env != files[j].env {
			return files[i].env < files[j].env
		}
		return files[i].rel < files[j].rel
	})
	h := sha256.New()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return nil, err
		}
		name := "files/" + f.env + "/" + f.rel
		h.Write([]byte(name + "\x00"))
		sum := sha256.Sum256(data)
		h.Write(sum[:])
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: int64(f.mode), Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	for _, e := range t.Envs {
		h.Write([]byte("env\x00" + e))
	}
	t.n = len(files)
	t.Hash = hex.EncodeToString(h.Sum(nil))[:16]
	if err := tw.Flush(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	t.Tar = buf.Bytes()
	return t, nil
}

// runBundle is what one run sends: the generated minion config, the
// pillar compiled for the target and, when the target lacks them, the
// file roots. It is one gzipped tar stream.
func runBundle(minion string, pillarEnvs []string, pillar *value.Map, tree *fileTree) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	add := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := add("conf/minion", []byte(minion)); err != nil {
		return nil, err
	}
	data := []byte("#!json\n" + value.ToJSON(pillar, value.JSONOptions{Indent: -1}) + "\n")
	for _, env := range pillarEnvs {
		top := value.ToJSON(value.MapOf(env, value.MapOf("*", value.NewList("data"))), value.JSONOptions{Indent: -1})
		if err := add("pillar/"+env+"/top.sls", []byte("#!json\n"+top+"\n")); err != nil {
			return nil, err
		}
		if err := add("pillar/"+env+"/data.sls", data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if tree == nil {
		return buf.Bytes(), nil
	}
	// gzip members concatenate: the files' entries, then the run's and
	// the end marker, read by tar as one archive.
	return append(append(make([]byte, 0, len(tree.Tar)+buf.Len()), tree.Tar...), buf.Bytes()...), nil
}
