// Package fleet is brine's master/minion mode on NATS. Its subpackages
// split the work: keys (minion key pairs and the master's key store),
// proto (subjects, messages, request/reply binding), master (the embedded
// NATS server, permissions, job publication, file and pillar service),
// minion (the daemon running jobs) and client (the side of `brine run`,
// `brine jobs` and remote `brine call`).
package fleet
