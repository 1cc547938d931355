package proto

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrRefused is returned for a file path the file server will not serve.
var ErrRefused = errors.New("path refused")

// CheckPath validates a path a minion asks for, relative to the file
// roots, before it reaches the file system: it must be clean, relative and
// plain. Refused: empty paths, absolute paths, any ".." or "." element,
// backslashes, '|', NUL and other control bytes, '%' (percent-encoded
// traversal), a leading '~', and empty elements ("a//b"). Symlinks leading
// out of a root are refused afterwards by fileserver.Roots.Find.
func CheckPath(p string) error {
	if p == "" || len(p) > 4096 {
		return fmt.Errorf("%w: empty or too long", ErrRefused)
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return fmt.Errorf("%w: %q is absolute", ErrRefused, p)
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c < 0x20 || c == 0x7f:
			return fmt.Errorf("%w: control byte in %q", ErrRefused, p)
		case c == '\\' || c == '|' || c == '%':
			return fmt.Errorf("%w: %q holds %q", ErrRefused, p, c)
		}
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("%w: %q is not a clean relative path", ErrRefused, p)
		}
	}
	if path.Clean(p) != p {
		return fmt.Errorf("%w: %q is not clean", ErrRefused, p)
	}
	return nil
}

// ValidEnv reports whether a saltenv name is acceptable in a request.
func ValidEnv(env string) bool {
	return env != "" && len(env) <= 255 && CheckPath(env) == nil && !strings.Contains(env, "/")
}
