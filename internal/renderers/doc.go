// Package renderers holds the renderers brine offers, one file per Salt
// renderer (salt/renderers/*.py): jinja, yaml, json, and the names of Salt
// renderers brine does not implement. Each registers itself with package
// render from init().
package renderers
