package states

// postgres_privileges.go is salt/states/postgres_privileges.py.

import (
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	conn := []statemod.Param{statemod.Opt("maintenance_db", nil), statemod.Opt("user", nil), statemod.Opt("db_password", nil),
		statemod.Opt("db_host", nil), statemod.Opt("db_port", nil), statemod.Opt("db_user", nil)}
	statemod.Register(&statemod.Function{Name: "postgres_privileges.present", Run: pgPrivilegesPresent,
		Doc: "Grant the requested privileges on an object (or membership of a group) to a role.",
		Params: append([]statemod.Param{statemod.Req("name"), statemod.Req("object_name"), statemod.Req("object_type"),
			statemod.Opt("privileges", nil), statemod.Opt("grant_option", nil), statemod.Opt("prepend", "public")}, conn...)})
	statemod.Register(&statemod.Function{Name: "postgres_privileges.absent", Run: pgPrivilegesAbsent,
		Doc: "Revoke the requested privileges on an object (or membership of a group) from a role.",
		Params: append([]statemod.Param{statemod.Req("name"), statemod.Req("object_name"), statemod.Req("object_type"),
			statemod.Opt("privileges", nil), statemod.Opt("prepend", "public")}, conn...)})
}

// pgPrivArg is Salt's ",".join(privileges) (a string joins its
// characters), None when privileges is empty.
func pgPrivArg(v any) any {
	if !value.Truthy(v) {
		return nil
	}
	switch x := v.(type) {
	case *value.List:
		parts := make([]string, len(x.Items))
		for i, p := range x.Items {
			parts[i] = execmod.String(p)
		}
		return strings.Join(parts, ",")
	case string:
		return strings.Join(strings.Split(x, ""), ",")
	}
	return execmod.String(v)
}

func pgPrivileges(c *statemod.Call, present bool) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "The requested privilege(s) are already set")
	if !present {
		ret.Set("comment", "The requested privilege(s) are not set so cannot be revoked")
	}
	privs := pgPrivArg(c.Get("privileges"))
	kw := []any{"privileges", privs}
	if present {
		kw = append(kw, "grant_option", c.Get("grant_option"))
	}
	kw = append(kw, "prepend", c.Get("prepend"), "maintenance_db", c.Get("maintenance_db"), "runas", c.Get("user"),
		"host", c.Get("db_host"), "user", c.Get("db_user"), "port", c.Get("db_port"), "password", c.Get("db_password"))
	args := []any{name, c.Get("object_name"), c.Get("object_type")}
	has, err := pgBool(c, "has_privileges", args, kw...)
	if err != nil {
		return nil, err
	}
	if has == present {
		return ret, nil
	}
	shown := value.Str(privs)
	if c.Str("object_type") == "group" {
		shown = c.Str("object_name")
	}
	verb, prep, fun, change := "granted", "to", "privileges_grant", "Present"
	if !present {
		verb, prep, fun, change = "revoked", "from", "privileges_revoke", "Absent"
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "The privilege(s): "+shown+" are set to be "+verb+" "+prep+" "+name)
		return ret, nil
	}
	ok, err := pgBool(c, fun, args, kw...)
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", "The privilege(s): "+shown+" have been "+verb+" "+prep+" "+name)
		ret.Set("changes", value.MapOf(name, change))
	} else {
		what := "grant"
		if !present {
			what = "revoke"
		}
		ret.Set("comment", "Failed to "+what+" privilege(s): "+shown+" "+prep+" "+name)
		ret.Set("result", false)
	}
	return ret, nil
}

func pgPrivilegesPresent(c *statemod.Call) (*value.Map, error) { return pgPrivileges(c, true) }
func pgPrivilegesAbsent(c *statemod.Call) (*value.Map, error)  { return pgPrivileges(c, false) }
