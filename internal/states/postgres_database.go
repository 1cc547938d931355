package states

// postgres_database.go is salt/states/postgres_database.py.

import (
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "postgres_database.present", Run: pgDatabasePresent,
		Doc: "Ensure that the named database is present with the given properties.",
		Params: append([]statemod.Param{statemod.Req("name"), statemod.Opt("tablespace", nil), statemod.Opt("encoding", nil),
			statemod.Opt("lc_collate", nil), statemod.Opt("lc_ctype", nil), statemod.Opt("owner", nil), statemod.Opt("owner_recurse", false),
			statemod.Opt("template", nil)}, pgDBParams()...)})
	statemod.Register(&statemod.Function{Name: "postgres_database.absent", Run: pgDatabaseAbsent, Doc: "Ensure that the named database is absent.",
		Params: append([]statemod.Param{statemod.Req("name")}, pgDBParams()...)})
}

func pgDatabasePresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Database "+name+" is already present")
	dbArgs := pgDBArgs(c)
	dbsV, err := pgCall(c, "db_list", nil, dbArgs...)
	if err != nil {
		return nil, err
	}
	dbs, _ := dbsV.(*value.Map)
	if dbs == nil {
		dbs = value.NewMap(0)
	}
	pv, exists := dbs.Get(name)
	params, _ := pv.(*value.Map)
	get := func(k string) string {
		if params == nil {
			return ""
		}
		v, _ := params.Get(k)
		return execmod.String(v)
	}
	// differs reports whether the argument k is set and differs from the
	// database's column col (case-insensitively for the encoding).
	differs := func(k, col string) bool {
		if !value.Truthy(c.Get(k)) {
			return false
		}
		if k == "encoding" {
			return !strings.EqualFold(get(col), c.Str(k))
		}
		return get(col) != c.Str(k)
	}
	if exists && !differs("tablespace", "Tablespace") && !differs("encoding", "Encoding") && !differs("lc_collate", "Collate") &&
		!differs("lc_ctype", "Ctype") && !differs("owner", "Owner") {
		return ret, nil
	}
	if exists && (differs("encoding", "Encoding") || differs("lc_collate", "Collate") || differs("lc_ctype", "Ctype")) {
		ret.Set("comment", "Database "+name+" has wrong parameters which couldn't be changed on fly.")
		ret.Set("result", false)
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		if !exists {
			ret.Set("comment", "Database "+name+" is set to be created")
		} else {
			ret.Set("comment", "Database "+name+" exists, but parameters need to be changed")
		}
		return ret, nil
	}
	if !exists {
		ok, err := pgBool(c, "db_create", []any{name}, append([]any{"tablespace", c.Get("tablespace"), "encoding", c.Get("encoding"),
			"lc_collate", c.Get("lc_collate"), "lc_ctype", c.Get("lc_ctype"), "owner", c.Get("owner"), "template", c.Get("template")}, dbArgs...)...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "The database "+name+" has been created")
			ret.Set("changes", value.MapOf(name, "Present"))
		} else {
			ret.Set("comment", "Failed to create database "+name)
			ret.Set("result", false)
		}
		return ret, nil
	}
	ok, err := pgBool(c, "db_alter", []any{name}, append([]any{"tablespace", c.Get("tablespace"), "owner", c.Get("owner"),
		"owner_recurse", c.Get("owner_recurse")}, dbArgs...)...)
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", "Parameters for database "+name+" have been changed")
		ret.Set("changes", value.MapOf(name, "Parameters changed"))
	} else {
		ret.Set("comment", "Failed to change parameters for database "+name)
		ret.Set("result", false)
	}
	return ret, nil
}

func pgDatabaseAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	dbArgs := pgDBArgs(c)
	exists, err := pgBool(c, "db_exists", []any{name}, dbArgs...)
	if err != nil {
		return nil, err
	}
	if exists {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Database "+name+" is set to be removed")
			return ret, nil
		}
		ok, err := pgBool(c, "db_remove", []any{name}, dbArgs...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "Database "+name+" has been removed")
			ret.Set("changes", value.MapOf(name, "Absent"))
			return ret, nil
		}
	}
	ret.Set("comment", "Database "+name+" is not present, so it cannot be removed")
	return ret, nil
}
