// Package integration holds the fleet's end-to-end tests: they build the
// brine binary and run a real master and real minions as separate
// processes on loopback, and the bounded load test.
package integration
