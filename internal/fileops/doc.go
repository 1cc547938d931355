// Package fileops holds the file operations of salt/modules/file.py that
// the file execution functions (internal/modules) and the file states
// (internal/states) share, so that both behave as Salt's one
// implementation does: stats and check_perms, makedirs, atomic writes,
// replace, line, blockreplace and comment_line, hash files, sources and
// template rendering.
package fileops
