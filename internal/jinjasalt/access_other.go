//go:build !unix

package jinjasalt

func accessX(p string) bool { return true }
