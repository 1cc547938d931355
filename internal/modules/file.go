package modules

// file.go is salt/modules/file.py: the file tests templates and requisites
// (onlyif/unless with fun:) use.

import (
	"os"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("file.file_exists", fileTest("file_exists", func(fi os.FileInfo) bool { return fi.Mode().IsRegular() }), "Whether path is an existing file (symlinks followed).")
	execmod.Register("file.directory_exists", fileTest("directory_exists", func(fi os.FileInfo) bool { return fi.IsDir() }), "Whether path is an existing directory (symlinks followed).")
	execmod.Register("file.exists", fileTest("exists", func(os.FileInfo) bool { return true }), "Whether path exists.")
}

func fileTest(name string, ok func(os.FileInfo) bool) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(name, args, kwargs, execmod.Req("path"))
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(expandUser(execmod.String(v[0])))
		return err == nil && ok(fi), nil
	}
}

// expandUser is os.path.expanduser for "~" and "~/...".
func expandUser(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
