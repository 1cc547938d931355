// Package pgtest starts a throwaway PostgreSQL server for the pgjsonb
// returner's tests: internal/system/pgcmd/pgtest's server, with databases
// holding Salt's pgjsonb tables. Everything is dropped and removed when
// the test ends.
package pgtest

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"brine/internal/fleet/returners"
	"brine/internal/system/pgcmd/pgtest"
)

// Server is a running PostgreSQL server; its superuser is salt, with
// trust authentication on loopback.
type Server struct{ *pgtest.Server }

// Start starts a server for t (the test is skipped when PostgreSQL is not
// installed).
func Start(t testing.TB) *Server { return &Server{pgtest.Start(t)} }

// CreateDB creates database name with Salt's pgjsonb tables; it is
// dropped when t ends.
func (s *Server) CreateDB(t testing.TB, name string) {
	t.Helper()
	quoted := pgx.Identifier{name}.Sanitize()
	s.Exec(t, "postgres", "CREATE DATABASE "+quoted+" WITH ENCODING 'utf-8'")
	t.Cleanup(func() { s.Exec(t, "postgres", "DROP DATABASE IF EXISTS "+quoted+" WITH (FORCE)") })
	for _, stmt := range strings.Split(returners.PgjsonbSchema, ";") {
		if strings.TrimSpace(stmt) != "" {
			s.Exec(t, name, stmt)
		}
	}
}
