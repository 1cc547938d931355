// Package aptsrc reads and edits apt's one-line sources (sources.list and
// sources.list.d/*.list) as salt/modules/aptpkg.py's repository functions
// do: entries.go is its own SourcesList (what the pkg execution functions
// read and write), pyapt.go python-apt's reading of the same lines (what
// pkgrepo.managed compares a definition with).
package aptsrc
