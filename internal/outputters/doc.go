// Package outputters holds the outputters salt-call offers, one file per
// Salt module in salt/output: json, yaml, nested, raw, txt, quiet (and
// highstate). Each registers itself with package output from init().
package outputters
