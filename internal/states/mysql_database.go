package states

// mysql_database.go is salt/states/mysql_database.py.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "mysql_database.present", Run: myDatabasePresent, Kwargs: true,
		Doc:    "Ensure that the named database is present with the given character set and collation.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("character_set", nil), statemod.Opt("collate", nil)}})
	statemod.Register(&statemod.Function{Name: "mysql_database.absent", Run: myDatabaseAbsent, Kwargs: true,
		Doc: "Ensure that the named database is absent.", Params: []statemod.Param{statemod.Req("name")}})
}

// myCall calls mysql.fun with args, the keyword arguments kw (pairs) and
// the state's connection arguments (its extra keyword arguments).
func myCall(c *statemod.Call, fun string, args []any, kw ...any) (any, error) {
	kwargs := c.ExtraKwargs()
	for i := 0; i+1 < len(kw); i += 2 {
		kwargs.Set(kw[i], kw[i+1])
	}
	return c.Salt("mysql."+fun, args, kwargs)
}

func myBool(c *statemod.Call, fun string, args []any, kw ...any) (bool, error) {
	v, err := myCall(c, fun, args, kw...)
	return value.Truthy(v), err
}

// myError pops __context__["mysql.error"] (Salt's _get_mysql_error); ok
// is false when there is none.
func myError(c *statemod.Call) (string, bool) {
	if c.Env == nil || c.Env.Exec == nil {
		return "", false
	}
	cache := c.Env.Exec.Cache()
	v, ok := cache.Load("mysql.error")
	cache.Delete("mysql.error")
	if !ok || v == nil {
		return "", false
	}
	return value.Str(v), true
}

func myDatabasePresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Database "+name+" is already present")
	existingV, err := myCall(c, "db_get", []any{name})
	if err != nil {
		return nil, err
	}
	existing, _ := existingV.(*value.Map)
	if existing != nil && existing.Len() > 0 {
		get := func(m *value.Map, k string) any {
			if m == nil {
				return nil
			}
			v, _ := m.Get(k)
			return v
		}
		comment := "Database " + name + " is already present"
		alter := false
		cs, col := c.Get("character_set"), c.Get("collate")
		if have := value.Str(get(existing, "character_set")); value.Truthy(cs) && value.Str(cs) != have {
			alter = true
			comment = "Database character set " + value.Str(cs) + " != " + have + " needs to be updated"
			if c.Test {
				ret.Set("result", nil)
			}
		}
		if have := value.Str(get(existing, "collate")); value.Truthy(col) && value.Str(col) != have {
			alter = true
			comment += "\nDatabase collate " + value.Str(col) + " != " + have + " needs to be updated"
			if c.Test {
				ret.Set("result", nil)
				ret.Set("comment", comment)
				return ret, nil
			}
		}
		ret.Set("comment", comment)
		if alter {
			if c.Test {
				ret.Set("comment", comment+"\nDatabase "+name+" is going to be updated")
			} else if _, err := myCall(c, "alter_db", []any{name}, "character_set", cs, "collate", col); err != nil {
				return nil, err
			}
		}
		currentV, err := myCall(c, "db_get", []any{name})
		if err != nil {
			return nil, err
		}
		current, _ := currentV.(*value.Map)
		changes := value.NewMap(0)
		if !value.Equal(get(existing, "collate"), get(current, "collate")) {
			changes.Set("collate", value.MapOf("before", get(existing, "collate"), "now", get(current, "collate")))
		}
		if !value.Equal(get(existing, "character_set"), get(current, "character_set")) {
			changes.Set("character_set", value.MapOf("before", get(existing, "character_set"), "now", get(current, "character_set")))
		}
		ret.Set("changes", changes)
		return ret, nil
	}
	if msg, ok := myError(c); ok {
		ret.Set("comment", msg)
		ret.Set("result", false)
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Database "+name+" is not present and needs to be created")
		return ret, nil
	}
	ok, err := myBool(c, "db_create", []any{name}, "character_set", c.Get("character_set"), "collate", c.Get("collate"))
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", "The database "+name+" has been created")
		ret.Set("changes", value.MapOf(name, "Present"))
		return ret, nil
	}
	comment := "Failed to create database " + name
	if msg, ok := myError(c); ok {
		comment += " (" + msg + ")"
	}
	ret.Set("comment", comment)
	ret.Set("result", false)
	return ret, nil
}

func myDatabaseAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	exists, err := myBool(c, "db_exists", []any{name})
	if err != nil {
		return nil, err
	}
	if exists {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Database "+name+" is present and needs to be removed")
			return ret, nil
		}
		ok, err := myBool(c, "db_remove", []any{name})
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "Database "+name+" has been removed")
			ret.Set("changes", value.MapOf(name, "Absent"))
			return ret, nil
		}
		if msg, ok := myError(c); ok {
			ret.Set("comment", "Unable to remove database "+name+" ("+msg+")")
			ret.Set("result", false)
			return ret, nil
		}
	} else if msg, ok := myError(c); ok {
		ret.Set("comment", msg)
		ret.Set("result", false)
		return ret, nil
	}
	ret.Set("comment", "Database "+name+" is not present, so it cannot be removed")
	return ret, nil
}
