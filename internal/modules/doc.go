// Package modules holds brine's execution modules, Salt's __salt__
// functions (cmd.run, pillar.get, grains.get, pkg.install, ...): one file
// per Salt module, named after salt/modules/<name>.py. Each file registers
// its functions with execmod in init(); importing the package (through
// internal/builtin) makes them available to templates, states and
// `brine call`.
package modules
