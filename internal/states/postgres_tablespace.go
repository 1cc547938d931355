package states

// postgres_tablespace.go is salt/states/postgres_tablespace.py.

import (
	"fmt"
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "postgres_tablespace.present", Run: pgTablespacePresent,
		Doc: "Ensure that the named tablespace is present at directory with the given owner and options.",
		Params: append([]statemod.Param{statemod.Req("name"), statemod.Req("directory"), statemod.Opt("options", nil),
			statemod.Opt("owner", nil)}, pgDBParams()...)})
	statemod.Register(&statemod.Function{Name: "postgres_tablespace.absent", Run: pgTablespaceAbsent,
		Doc: "Ensure that the named tablespace is absent.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("user", nil), statemod.Opt("maintenance_db", nil),
			statemod.Opt("db_user", nil), statemod.Opt("db_password", nil), statemod.Opt("db_host", nil), statemod.Opt("db_port", nil)}})
}

func pgTablespacePresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Tablespace "+name+" is already present")
	dbArgs := pgDBArgs(c)
	listV, err := pgCall(c, "tablespace_list", nil, dbArgs...)
	if err != nil {
		return nil, err
	}
	list, _ := listV.(*value.Map)
	if list == nil {
		list = value.NewMap(0)
	}
	changes := value.NewMap(0)
	ret.Set("changes", changes)
	if !list.Has(name) {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Tablespace "+name+" is set to be created")
			return ret, nil
		}
		ok, err := pgBool(c, "tablespace_create", []any{name, c.Get("directory"), c.Get("options"), c.Get("owner")}, dbArgs...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "The tablespace "+name+" has been created")
			changes.Set(name, "Present")
			return ret, nil
		}
		return nil, fmt.Errorf("KeyError: %s", value.Repr(name))
	}
	tsV, _ := list.Get(name)
	ts, _ := tsV.(*value.Map)
	col := func(k string) string {
		v, _ := ts.Get(k)
		return execmod.String(v)
	}
	if !value.Equal(col("Location"), c.Get("directory")) && !c.Test {
		ret.Set("comment", "Tablespace "+name+" is not at the right location. This is\n"+
			"            unfixable without dropping and recreating the tablespace.")
		ret.Set("result", false)
		return ret, nil
	}
	if owner := c.Get("owner"); value.Truthy(owner) && !value.Equal(col("Owner"), owner) {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Tablespace "+name+" owner to be altered")
		}
		// As in Salt 3006, the owner is altered (with the configured
		// connection) even in test mode; only the report differs.
		ok, err := pgBool(c, "tablespace_alter", []any{name}, "new_owner", owner)
		if err != nil {
			return nil, err
		}
		if ok && !c.Test {
			ret.Set("comment", "Tablespace "+name+" owner changed")
			changes.Set(name, value.MapOf("owner", owner))
			ret.Set("result", true)
		}
	}
	if opts, ok := c.Get("options").(*value.Map); ok && opts.Len() > 0 {
		for _, k := range opts.Keys() {
			v, _ := opts.Get(k)
			if strings.Contains(col("Opts"), value.Str(k)+"="+value.Str(v)) {
				continue
			}
			if c.Test {
				ret.Set("result", nil)
				ret.Set("comment", "Tablespace "+name+" options to be\n                        altered")
				break
			}
			ok, err := pgBool(c, "tablespace_alter", []any{name}, "set_option", value.MapOf(k, v))
			if err != nil {
				return nil, err
			}
			if ok {
				ret.Set("comment", "Tablespace "+name+" opts changed")
				entry, _ := changes.Get(name)
				em, isMap := entry.(*value.Map)
				if !isMap {
					em = value.NewMap(0)
					changes.Set(name, em)
				}
				o, _ := em.Get("options")
				om, isMap := o.(*value.Map)
				if !isMap {
					om = value.NewMap(0)
					em.Set("options", om)
				}
				om.Set(k, v)
				ret.Set("result", true)
			}
		}
	}
	return ret, nil
}

func pgTablespaceAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	dbArgs := pgDBArgs(c)
	exists, err := pgBool(c, "tablespace_exists", []any{name}, dbArgs...)
	if err != nil {
		return nil, err
	}
	if exists {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Tablespace "+name+" is set to be removed")
			return ret, nil
		}
		ok, err := pgBool(c, "tablespace_remove", []any{name}, dbArgs...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "Tablespace "+name+" has been removed")
			ret.Set("changes", value.MapOf(name, "Absent"))
			return ret, nil
		}
	}
	ret.Set("comment", "Tablespace "+name+" is not present, so it cannot be removed")
	return ret, nil
}
