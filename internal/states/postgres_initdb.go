package states

// postgres_initdb.go is salt/states/postgres_initdb.py.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "postgres_initdb.present", Run: pgInitdbPresent,
		Doc: "Ensure that the named PostgreSQL data directory is initialised.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("user", nil), statemod.Opt("password", nil),
			statemod.Opt("auth", "password"), statemod.Opt("encoding", "UTF8"), statemod.Opt("locale", nil), statemod.Opt("runas", nil),
			statemod.Opt("waldir", nil), statemod.Opt("checksums", false)}})
}

func pgInitdbPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Postgres data directory "+name+" is already present")
	exists, err := pgBool(c, "datadir_exists", nil, "name", name)
	if err != nil || exists {
		return ret, err
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Postgres data directory "+name+" is set to be initialized")
		return ret, nil
	}
	ok, err := pgBool(c, "datadir_init", []any{name}, "user", c.Get("user"), "password", c.Get("password"), "auth", c.Get("auth"),
		"encoding", c.Get("encoding"), "locale", c.Get("locale"), "waldir", c.Get("waldir"), "checksums", c.Get("checksums"), "runas", c.Get("runas"))
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", "Postgres data directory "+name+" has been initialized")
		ret.Set("changes", value.MapOf(name, "Present"))
	} else {
		ret.Set("result", false)
		ret.Set("comment", "Postgres data directory "+name+" initialization failed")
	}
	return ret, nil
}
