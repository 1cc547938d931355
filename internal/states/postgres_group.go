package states

// postgres_group.go is salt/states/postgres_group.py: PostgreSQL roles
// that cannot log in (the logic is shared with postgres_user.go).

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	params := append([]statemod.Param{statemod.Req("name"), statemod.Opt("createdb", nil), statemod.Opt("createroles", nil),
		statemod.Opt("encrypted", nil), statemod.Opt("superuser", nil), statemod.Opt("inherit", nil), statemod.Opt("login", nil),
		statemod.Opt("replication", nil), statemod.Opt("password", nil), statemod.Opt("refresh_password", nil),
		statemod.Opt("groups", nil)}, pgDBParams()...)
	statemod.Register(&statemod.Function{Name: "postgres_group.present", Params: params, Run: pgGroupPresent,
		Doc: "Ensure that the named PostgreSQL group (role) is present with the given attributes."})
	statemod.Register(&statemod.Function{Name: "postgres_group.absent", Run: pgGroupAbsent, Doc: "Ensure that the named PostgreSQL group is absent.",
		Params: append([]statemod.Param{statemod.Req("name")}, pgDBParams()...)})
}

func pgGroupPresent(c *statemod.Call) (*value.Map, error) { return pgRolePresent(c, "group") }
func pgGroupAbsent(c *statemod.Call) (*value.Map, error)  { return pgRoleAbsent(c, "group") }
