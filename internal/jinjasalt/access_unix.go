//go:build unix

package jinjasalt

import "golang.org/x/sys/unix"

// accessX is os.access(p, os.X_OK).
func accessX(p string) bool { return unix.Access(p, unix.X_OK) == nil }
