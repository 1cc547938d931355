package states

// postgres_language.go is salt/states/postgres_language.py.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	params := []statemod.Param{statemod.Req("name"), statemod.Req("maintenance_db"), statemod.Opt("user", nil),
		statemod.Opt("db_password", nil), statemod.Opt("db_host", nil), statemod.Opt("db_port", nil), statemod.Opt("db_user", nil)}
	statemod.Register(&statemod.Function{Name: "postgres_language.present", Run: pgLanguagePresent, Params: params,
		Doc: "Ensure that the named procedural language is installed in the database."})
	statemod.Register(&statemod.Function{Name: "postgres_language.absent", Run: pgLanguageAbsent, Params: params,
		Doc: "Ensure that the named procedural language is not installed in the database."})
}

func pgLangArgs(c *statemod.Call) []any {
	return []any{"runas", c.Get("user"), "host", c.Get("db_host"), "user", c.Get("db_user"), "port", c.Get("db_port"), "password", c.Get("db_password")}
}

func pgLanguagePresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Language "+name+" is already installed")
	langsV, err := pgCall(c, "language_list", []any{c.Get("maintenance_db")}, pgLangArgs(c)...)
	if err != nil {
		return nil, err
	}
	if langs, ok := langsV.(*value.Map); ok && langs.Has(name) {
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Language "+name+" is set to be installed")
		return ret, nil
	}
	ok, err := pgBool(c, "language_create", []any{name, c.Get("maintenance_db")}, pgLangArgs(c)...)
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", "Language "+name+" has been installed")
		ret.Set("changes", value.MapOf(name, "Present"))
	} else {
		ret.Set("comment", "Failed to install language "+name)
		ret.Set("result", false)
	}
	return ret, nil
}

func pgLanguageAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	exists, err := pgBool(c, "language_exists", []any{name, c.Get("maintenance_db")}, pgLangArgs(c)...)
	if err != nil {
		return nil, err
	}
	if exists {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Language "+name+" is set to be removed")
			return ret, nil
		}
		// Salt 3006 calls language_remove without the database, which
		// fails on its required maintenance_db argument.
		ok, err := pgBool(c, "language_remove", []any{name}, pgLangArgs(c)...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "Language "+name+" has been removed")
			ret.Set("changes", value.MapOf(name, "Absent"))
			return ret, nil
		}
		ret.Set("result", false)
	}
	ret.Set("comment", "Language "+name+" is not present so it cannot be removed")
	return ret, nil
}
