package states

// postgres_user.go is salt/states/postgres_user.py, with the role logic
// postgres_group.py shares (present/absent of a PostgreSQL role through
// the postgres.* execution functions).

import (
	"fmt"
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/system/pgcmd"
	"brine/internal/value"
)

// pgDBParams are the connection parameters of the postgres_* states that
// address a database server ("user" is the system user psql runs as).
func pgDBParams() []statemod.Param {
	return []statemod.Param{statemod.Opt("user", nil), statemod.Opt("maintenance_db", nil), statemod.Opt("db_password", nil),
		statemod.Opt("db_host", nil), statemod.Opt("db_port", nil), statemod.Opt("db_user", nil)}
}

func pgRoleParams(extra ...statemod.Param) []statemod.Param {
	return append([]statemod.Param{statemod.Req("name"), statemod.Opt("createdb", nil), statemod.Opt("createroles", nil),
		statemod.Opt("encrypted", nil), statemod.Opt("superuser", nil), statemod.Opt("replication", nil), statemod.Opt("inherit", nil),
		statemod.Opt("login", nil), statemod.Opt("password", nil)}, append(extra, pgDBParams()...)...)
}

func init() {
	statemod.Register(&statemod.Function{Name: "postgres_user.present", Run: pgUserPresent, Doc: "Ensure that the named PostgreSQL user (login role) is present with the given attributes.",
		Params: pgRoleParams(statemod.Opt("default_password", nil), statemod.Opt("refresh_password", nil), statemod.Opt("valid_until", nil), statemod.Opt("groups", nil))})
	statemod.Register(&statemod.Function{Name: "postgres_user.absent", Run: pgUserAbsent, Doc: "Ensure that the named PostgreSQL user is absent.",
		Params: append([]statemod.Param{statemod.Req("name")}, pgDBParams()...)})
}

// pgDBArgs are the db_args keyword arguments the states pass on.
func pgDBArgs(c *statemod.Call) []any {
	return []any{"maintenance_db", c.Get("maintenance_db"), "runas", c.Get("user"), "host", c.Get("db_host"),
		"user", c.Get("db_user"), "port", c.Get("db_port"), "password", c.Get("db_password")}
}

// pgCall calls the execution function postgres.fun (Salt's __salt__).
func pgCall(c *statemod.Call, fun string, args []any, kw ...any) (any, error) {
	return c.Env.Exec.Call("postgres."+fun, args, value.MapOf(kw...))
}

func pgBool(c *statemod.Call, fun string, args []any, kw ...any) (bool, error) {
	v, err := pgCall(c, fun, args, kw...)
	return value.Truthy(v), err
}

// pgRolePresent is postgres_user.present (kind "user") and
// postgres_group.present (kind "group").
func pgRolePresent(c *statemod.Call, kind string) (*value.Map, error) {
	name := c.Name()
	title := strings.ToUpper(kind[:1]) + kind[1:]
	ret := statemod.Ret(c.Get("name"), true, title+" "+name+" is already present")
	dbArgs := pgDBArgs(c)
	encrypted := c.Get("encrypted")
	if encrypted == nil {
		encrypted = "md5"
	}
	refresh := c.Bool("refresh_password")
	attrV, err := pgCall(c, "role_get", []any{name}, append([]any{"return_password", !refresh}, dbArgs...)...)
	if err != nil {
		return nil, err
	}
	attr, _ := attrV.(*value.Map)
	mode := "create"
	if attr != nil {
		mode = "update"
	}
	password := c.Get("password")
	if kind == "user" && mode == "create" && password == nil {
		password = c.Get("default_password")
	}
	if password != nil {
		method, err := pgcmd.ParseMethod(encrypted)
		pw := execmod.String(password)
		verifier := ""
		if attr != nil {
			v, _ := attr.Get("password")
			verifier = execmod.String(v)
		}
		if mode == "update" && !refresh && err == nil && pgcmd.VerifyPassword(name, pw, verifier, method) {
			password = nil
		} else {
			if err != nil {
				return nil, fmt.Errorf("ValueError: %s", err)
			}
			password = pgcmd.MaybeEncrypt(name, pw, method)
		}
	}
	update := value.NewMap(0)
	if mode == "update" {
		for _, f := range [][2]string{{"createdb", "can create databases"}, {"inherit", "inherits privileges"}, {"login", "can login"},
			{"createroles", "can create roles"}, {"replication", "replication"}, {"superuser", "superuser"}} {
			want := c.Get(f[0])
			have, _ := attr.Get(f[1])
			if want != nil && !value.Equal(have, want) {
				update.Set(f[0], want)
			}
		}
		if password != nil {
			update.Set("password", true)
		}
		if kind == "user" && c.Has("valid_until") {
			vu := c.Str("valid_until")
			rowsV, err := pgCall(c, "psql_query", []any{"SELECT '" + strings.ReplaceAll(vu, "'", "''") + "'::timestamp(0) as dt;"}, dbArgs...)
			if err != nil {
				return nil, err
			}
			rows, _ := rowsV.(*value.List)
			if rows == nil || len(rows.Items) == 0 {
				return nil, fmt.Errorf("IndexError: list index out of range")
			}
			var dt any
			if row, ok := rows.Items[0].(*value.Map); ok {
				s, _ := row.Get("dt")
				if d, ok := pgcmd.PyDatetime(execmod.String(s)); ok {
					dt = d
				}
			}
			have, _ := attr.Get("expiry time")
			if !value.Equal(dt, have) {
				update.Set("valid_until", c.Get("valid_until"))
			}
		}
		if groups := c.Get("groups"); groups != nil {
			var want []any
			switch g := groups.(type) {
			case string:
				for _, s := range strings.Split(g, ",") {
					want = append(want, s)
				}
			case *value.List:
				want = g.Items
			}
			haveV, _ := attr.Get("groups")
			have, _ := haveV.(*value.List)
			var missing []any
			for _, w := range want {
				found := false
				if have != nil {
					for _, h := range have.Items {
						if value.Equal(h, w) {
							found = true
						}
					}
				}
				if !found {
					missing = append(missing, w)
				}
			}
			if len(missing) > 0 {
				update.Set("groups", value.NewList(missing...))
			}
		}
	}
	changes := value.NewMap(0)
	if mode == "create" || update.Len() > 0 {
		if c.Test {
			if update.Len() > 0 {
				changes.Set(name, update)
			}
			ret.Set("changes", changes)
			ret.Set("result", nil)
			ret.Set("comment", title+" "+name+" is set to be "+mode+"d")
			return ret, nil
		}
		kw := []any{kind + "name", name, "createdb", c.Get("createdb"), "createroles", c.Get("createroles"), "encrypted", encrypted,
			"superuser", c.Get("superuser"), "login", c.Get("login"), "inherit", c.Get("inherit"), "replication", c.Get("replication"),
			"rolepassword", password}
		if kind == "user" {
			kw = append(kw, "valid_until", c.Get("valid_until"))
		}
		kw = append(kw, "groups", c.Get("groups"))
		ok, err := pgBool(c, kind+"_"+mode, nil, append(kw, dbArgs...)...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "The "+kind+" "+name+" has been "+mode+"d")
			if update.Len() > 0 {
				changes.Set(name, update)
			} else {
				changes.Set(name, "Present")
			}
		} else {
			ret.Set("comment", "Failed to "+mode+" "+kind+" "+name)
			ret.Set("result", false)
		}
	}
	ret.Set("changes", changes)
	return ret, nil
}

// pgRoleAbsent is postgres_user.absent and postgres_group.absent.
func pgRoleAbsent(c *statemod.Call, kind string) (*value.Map, error) {
	name := c.Name()
	title := strings.ToUpper(kind[:1]) + kind[1:]
	ret := statemod.Ret(c.Get("name"), true, "")
	dbArgs := pgDBArgs(c)
	exists, err := pgBool(c, "user_exists", []any{name}, dbArgs...)
	if err != nil {
		return nil, err
	}
	if !exists {
		ret.Set("comment", title+" "+name+" is not present, so it cannot be removed")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", title+" "+name+" is set to be removed")
		return ret, nil
	}
	ok, err := pgBool(c, kind+"_remove", []any{name}, dbArgs...)
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", title+" "+name+" has been removed")
		ret.Set("changes", value.MapOf(name, "Absent"))
	} else {
		ret.Set("result", false)
		ret.Set("comment", title+" "+name+" failed to be removed")
	}
	return ret, nil
}

func pgUserPresent(c *statemod.Call) (*value.Map, error) { return pgRolePresent(c, "user") }
func pgUserAbsent(c *statemod.Call) (*value.Map, error)  { return pgRoleAbsent(c, "user") }
