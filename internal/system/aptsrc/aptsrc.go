// Package aptsrc reads and edits apt's one-line sources (sources.list and
// sources.list.d/*.list) as salt/modules/aptpkg.py's repository functions
// do when python-apt is not installed, which is how Salt's official onedir
// build runs on Debian and Ubuntu: aptpkg then uses its own SourceEntry and
// SourcesList, modelled in entries.go.
package aptsrc
