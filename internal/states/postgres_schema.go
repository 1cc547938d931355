package states

// postgres_schema.go is salt/states/postgres_schema.py.

import (
	"fmt"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	conn := []statemod.Param{statemod.Opt("user", nil), statemod.Opt("db_user", nil), statemod.Opt("db_password", nil),
		statemod.Opt("db_host", nil), statemod.Opt("db_port", nil)}
	statemod.Register(&statemod.Function{Name: "postgres_schema.present", Run: pgSchemaPresent,
		Doc:    "Ensure that the named schema is present in the database.",
		Params: append([]statemod.Param{statemod.Req("dbname"), statemod.Req("name"), statemod.Opt("owner", nil)}, conn...)})
	statemod.Register(&statemod.Function{Name: "postgres_schema.absent", Run: pgSchemaAbsent,
		Doc:    "Ensure that the named schema is absent from the database.",
		Params: append([]statemod.Param{statemod.Req("dbname"), statemod.Req("name")}, conn...)})
}

func pgSchemaArgs(c *statemod.Call) []any {
	return []any{"db_user", c.Get("db_user"), "db_password", c.Get("db_password"), "db_host", c.Get("db_host"),
		"db_port", c.Get("db_port"), "user", c.Get("user")}
}

func pgSchemaPresent(c *statemod.Call) (*value.Map, error) {
	name, db := c.Name(), c.Str("dbname")
	ret := value.MapOf("dbname", c.Get("dbname"), "name", c.Get("name"), "changes", value.NewMap(0), "result", true,
		"comment", "Schema "+name+" is already present in database "+db)
	attr, err := pgCall(c, "schema_get", []any{c.Get("dbname"), c.Get("name")}, pgSchemaArgs(c)...)
	if err != nil {
		return nil, err
	}
	msg := "Schema %s already exists in database %s"
	if attr == nil {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Schema "+name+" is set to be created in database "+db+".")
			return ret, nil
		}
		ok, err := pgBool(c, "schema_create", []any{c.Get("dbname"), c.Get("name")}, append([]any{"owner", c.Get("owner")}, pgSchemaArgs(c)...)...)
		if err != nil {
			return nil, err
		}
		if ok {
			msg = "Schema %s has been created in database %s"
			ret.Set("changes", value.MapOf(name, "Present"))
		} else {
			msg = "Failed to create schema %s in database %s"
			ret.Set("result", false)
		}
	}
	ret.Set("comment", fmt.Sprintf(msg, name, db))
	return ret, nil
}

func pgSchemaAbsent(c *statemod.Call) (*value.Map, error) {
	name, db := c.Name(), c.Str("dbname")
	ret := value.MapOf("name", c.Get("name"), "dbname", c.Get("dbname"), "changes", value.NewMap(0), "result", true, "comment", "")
	exists, err := pgBool(c, "schema_exists", []any{c.Get("dbname"), c.Get("name")}, pgSchemaArgs(c)...)
	if err != nil {
		return nil, err
	}
	switch {
	case !exists:
		ret.Set("comment", "Schema "+name+" is not present in database "+db+", so it cannot be removed")
	case c.Test:
		ret.Set("result", nil)
		ret.Set("comment", "Schema "+name+" is set to be removed from database "+db)
	default:
		ok, err := pgBool(c, "schema_remove", []any{c.Get("dbname"), c.Get("name")}, pgSchemaArgs(c)...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "Schema "+name+" has been removed from database "+db)
			ret.Set("changes", value.MapOf(name, "Absent"))
		} else {
			ret.Set("result", false)
			ret.Set("comment", "Schema "+name+" failed to be removed")
		}
	}
	return ret, nil
}
