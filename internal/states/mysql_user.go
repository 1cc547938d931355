package states

// mysql_user.go is salt/states/mysql_user.py.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "mysql_user.present", Run: myUserPresent, Kwargs: true,
		Doc: "Ensure that the named user is present with the given password, password hash or passwordless login.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("host", "localhost"), statemod.Opt("password", nil),
			statemod.Opt("password_hash", nil), statemod.Opt("allow_passwordless", false), statemod.Opt("unix_socket", false),
			statemod.Opt("password_column", nil), statemod.Opt("auth_plugin", "mysql_native_password")}})
	statemod.Register(&statemod.Function{Name: "mysql_user.absent", Run: myUserAbsent, Kwargs: true,
		Doc: "Ensure that the named user is absent.", Params: []statemod.Param{statemod.Req("name"), statemod.Opt("host", "localhost")}})
}

func myUserPresent(c *statemod.Call) (*value.Map, error) {
	name, host := c.Name(), c.Str("host")
	at := name + "@" + host
	ret := statemod.Ret(c.Get("name"), true, "User "+at+" is already present")
	fail := func(msg string) (*value.Map, error) {
		ret.Set("comment", msg)
		ret.Set("result", false)
		return ret, nil
	}
	password, hash, unixSocket := c.Get("password"), c.Get("password_hash"), c.Get("unix_socket")
	allow := c.Bool("allow_passwordless")
	passwordless := !value.Truthy(password) && !value.Truthy(hash)
	if passwordless {
		if !allow && !value.Truthy(unixSocket) {
			return fail("Either password or password_hash must be specified, unless allow_passwordless is True")
		}
		ok, err := myBool(c, "user_exists", []any{name, host}, "passwordless", true, "unix_socket", unixSocket,
			"password_column", c.Get("password_column"))
		if err != nil {
			return nil, err
		}
		if ok {
			if allow {
				ret.Set("comment", "User "+at+" is already present with passwordless login")
			}
			return ret, nil
		}
		if msg, ok := myError(c); ok {
			return fail(msg)
		}
	} else {
		ok, err := myBool(c, "user_exists", []any{name, host, password, hash}, "unix_socket", unixSocket,
			"password_column", c.Get("password_column"))
		if err != nil {
			return nil, err
		}
		if ok {
			comment := "User " + at + " is already present"
			if c.Str("auth_plugin") == "mysql_native_password" {
				comment += " with the desired password"
				if value.Truthy(hash) && !value.Truthy(password) {
					comment += " hash"
				}
			} else {
				comment += ". Unable to verify password."
			}
			ret.Set("comment", comment)
			return ret, nil
		}
		if msg, ok := myError(c); ok {
			return fail(msg)
		}
	}
	exists, err := myBool(c, "user_exists", []any{name, host}, "unix_socket", unixSocket)
	if err != nil {
		return nil, err
	}
	if exists {
		if c.Test {
			comment := "Password for user " + at + " is set to be "
			ret.Set("result", nil)
			if passwordless {
				comment += "cleared"
				if !allow {
					comment += ", but allow_passwordless != True"
					ret.Set("result", false)
				}
			} else {
				comment += "changed"
			}
			ret.Set("comment", comment)
			return ret, nil
		}
		ok, err := myBool(c, "user_chpass", []any{name, host, password, hash, c.Get("allow_passwordless"), unixSocket})
		if err != nil {
			return nil, err
		}
		verb, act := "changed", "change"
		if passwordless {
			verb, act = "cleared", "clear"
		}
		if ok {
			ret.Set("comment", "Password for user "+at+" has been "+verb)
			ret.Set("changes", value.MapOf(name, "Updated"))
			return ret, nil
		}
		comment := "Failed to " + act + " password for user " + at
		if msg, ok := myError(c); ok {
			comment += " (" + msg + ")"
		}
		if passwordless && !allow {
			comment += ". Note: allow_passwordless must be True to permit passwordless login."
		}
		return fail(comment)
	}
	if msg, ok := myError(c); ok {
		return fail(msg)
	}
	if c.Test {
		comment := "User " + at + " is set to be added"
		ret.Set("result", nil)
		if allow {
			comment += " with passwordless login"
		}
		if value.Truthy(unixSocket) {
			comment += " using unix_socket"
		}
		ret.Set("comment", comment)
		return ret, nil
	}
	ok, err := myBool(c, "user_create", []any{name, host, password, hash, c.Get("allow_passwordless")}, "unix_socket", unixSocket,
		"password_column", c.Get("password_column"), "auth_plugin", c.Get("auth_plugin"))
	if err != nil {
		return nil, err
	}
	if !ok {
		comment := "Failed to create user " + at
		if msg, ok := myError(c); ok {
			comment += " (" + msg + ")"
		}
		return fail(comment)
	}
	comment := "The user " + at + " has been added"
	if allow {
		comment += " with passwordless login"
	}
	if value.Truthy(unixSocket) {
		comment += " using unix_socket"
	}
	ret.Set("comment", comment)
	ret.Set("changes", value.MapOf(name, "Present"))
	return ret, nil
}

func myUserAbsent(c *statemod.Call) (*value.Map, error) {
	name, host := c.Name(), c.Str("host")
	ret := statemod.Ret(c.Get("name"), true, "")
	exists, err := myBool(c, "user_exists", []any{name, host})
	if err != nil {
		return nil, err
	}
	if exists {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "User "+name+"@"+host+" is set to be removed")
			return ret, nil
		}
		ok, err := myBool(c, "user_remove", []any{name, host})
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "User "+name+"@"+host+" has been removed")
			ret.Set("changes", value.MapOf(name, "Absent"))
			return ret, nil
		}
		if msg, ok := myError(c); ok {
			ret.Set("comment", msg)
			ret.Set("result", false)
			return ret, nil
		}
	} else if msg, ok := myError(c); ok {
		ret.Set("comment", msg)
		ret.Set("result", false)
		return ret, nil
	}
	ret.Set("comment", "User "+name+"@"+host+" is not present, so it cannot be removed")
	return ret, nil
}
