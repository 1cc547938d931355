package grains

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// StaticPath returns the grains file of the minion options opts: "grains"
// in the directory of opts["conf_file"] (inside it when conf_file is a
// directory), as Salt's grains file lookup does; "" without conf_file.
func StaticPath(opts *value.Map) string {
	v, ok := opts.Get("conf_file")
	conf, _ := v.(string)
	if !ok || conf == "" {
		return ""
	}
	if st, err := os.Stat(conf); err == nil && st.IsDir() {
		return filepath.Join(conf, "grains")
	}
	return filepath.Join(filepath.Dir(conf), "grains")
}

// ReadStatic loads the grains file at path: nil without error when the
// file does not exist, an empty map when it holds no mapping.
func ReadStatic(path string) (*value.Map, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading grains file: %w", err)
	}
	v, err := yamlload.SafeLoad(data, path)
	if err != nil {
		return nil, fmt.Errorf("Bad syntax in grains file %s: %w", path, err)
	}
	m, ok := v.(*value.Map)
	if !ok {
		return value.NewMap(0), nil
	}
	return m, nil
}

// SetVals is the persistence of Salt's grains.setvals: each key of vals is
// written to the grains file of opts and set in live (the run's grains, may
// be nil); with destructive a None value deletes the key instead. The file
// is rewritten as YAML in block style with sorted keys, and the cache's
// module_refresh flag is touched, as Salt does.
func SetVals(opts, live, vals *value.Map, destructive bool) error {
	path := StaticPath(opts)
	if path == "" {
		return errors.New("no conf_file: cannot locate the grains file")
	}
	cur, err := ReadStatic(path)
	if err != nil {
		return fmt.Errorf("Unable to read existing grains file: %w", err)
	}
	if cur == nil {
		cur = value.NewMap(vals.Len())
	}
	vals.Range(func(k, v any) bool {
		if v == nil && destructive {
			cur.Delete(k)
			if live != nil {
				live.Delete(k)
			}
			return true
		}
		cur.Set(k, v)
		if live != nil {
			live.Set(k, value.DeepCopy(v))
		}
		return true
	})
	return WriteStatic(opts, path, cur)
}

// WriteStatic writes grains to the grains file at path and touches the
// module_refresh flag in opts["cachedir"].
func WriteStatic(opts *value.Map, path string, grains *value.Map) error {
	no := false
	text, err := yamlload.Dump(grains, yamlload.DumpOptions{DefaultFlowStyle: &no, SortKeys: true})
	if err != nil {
		return fmt.Errorf("writing grains file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing grains file: %w", err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("Unable to write to grains file at %s: %w", path, err)
	}
	if v, ok := opts.Get("cachedir"); ok {
		if dir, _ := v.(string); dir != "" {
			if os.MkdirAll(dir, 0o755) == nil {
				f, err := os.OpenFile(filepath.Join(dir, "module_refresh"), os.O_CREATE|os.O_WRONLY, 0o644)
				if err == nil {
					f.Close()
				}
			}
		}
	}
	return nil
}
