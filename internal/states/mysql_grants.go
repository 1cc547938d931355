package states

// mysql_grants.go is salt/states/mysql_grants.py.

import (
	"fmt"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "mysql_grants.present", Run: myGrantsPresent, Kwargs: true,
		Doc: "Ensure that the grant is present for user@host on database (db.table).",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("grant", nil), statemod.Opt("database", nil), statemod.Opt("user", nil),
			statemod.Opt("host", "localhost"), statemod.Opt("grant_option", false), statemod.Opt("escape", true),
			statemod.Opt("revoke_first", false), statemod.Opt("ssl_option", false)}})
	statemod.Register(&statemod.Function{Name: "mysql_grants.absent", Run: myGrantsAbsent, Kwargs: true,
		Doc: "Ensure that the grant is absent for user@host on database (db.table).",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("grant", nil), statemod.Opt("database", nil), statemod.Opt("user", nil),
			statemod.Opt("host", "localhost"), statemod.Opt("grant_option", false), statemod.Opt("escape", true)}})
}

// grantWords are the grant, database, user and host as Salt formats them
// into its comments (str(), None for unset).
func grantWords(c *statemod.Call) []any {
	return []any{value.Str(c.Get("grant")), value.Str(c.Get("database")), value.Str(c.Get("user")), value.Str(c.Get("host"))}
}

func myGrantsPresent(c *statemod.Call) (*value.Map, error) {
	w := grantWords(c)
	ret := statemod.Ret(c.Get("name"), true, fmt.Sprintf("Grant %s on %s to %s@%s is already present", w...))
	grantArgs := []any{c.Get("grant"), c.Get("database"), c.Get("user"), c.Get("host"), c.Get("grant_option"), c.Get("escape")}
	ok, err := myBool(c, "grant_exists", grantArgs)
	if err != nil {
		return nil, err
	}
	if ok {
		return ret, nil
	}
	if msg, ok := myError(c); ok {
		ret.Set("comment", msg)
		ret.Set("result", false)
		return ret, nil
	}
	if c.Bool("revoke_first") && !c.Test {
		if err := myRevokeFirst(c); err != nil {
			return nil, err
		}
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "MySQL grant "+c.Name()+" is set to be created")
		return ret, nil
	}
	ok, err = myBool(c, "grant_add", append(grantArgs, c.Get("ssl_option")))
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", fmt.Sprintf("Grant %s on %s to %s@%s has been added", w...))
		ret.Set("changes", value.MapOf(c.Get("name"), "Present"))
		return ret, nil
	}
	comment := fmt.Sprintf(`Failed to execute: "GRANT %s ON %s TO %s@%s"`, w...)
	if msg, ok := myError(c); ok {
		comment += " (" + msg + ")"
	}
	ret.Set("comment", comment)
	ret.Set("result", false)
	return ret, nil
}

// myRevokeFirst revokes the user's grants on the same database before
// granting (revoke_first), as Salt compares them: a grant line's database
// (db.table) against the quoted database name alone.
func myRevokeFirst(c *statemod.Call) error {
	grantsV, err := myCall(c, "user_grants", []any{c.Get("user"), c.Get("host")})
	if err != nil {
		return err
	}
	grants, _ := grantsV.(*value.List)
	if grants == nil {
		return nil
	}
	database := value.Str(c.Get("database"))
	db, table := "", database
	if i := strings.LastIndex(database, "."); i >= 0 {
		db, table = database[:i], database[i+1:]
	}
	myDB, err := c.Salt("mysql.quote_identifier", []any{db, table == "*"}, nil)
	if err != nil {
		return err
	}
	for _, g := range grants.Items {
		tv, err := c.Salt("mysql.tokenize_grant", []any{g}, nil)
		if err != nil {
			return err
		}
		tok, _ := tv.(*value.Map)
		if tok == nil {
			continue
		}
		if d, _ := tok.Get("database"); d != myDB {
			continue
		}
		gl, _ := tok.Get("grant")
		var names []string
		if l, ok := gl.(*value.List); ok {
			for _, it := range l.Items {
				names = append(names, value.Str(it))
			}
		}
		if _, err := myCall(c, "grant_revoke", nil, "grant", strings.TrimRight(strings.Join(names, ","), ","), "database", c.Get("database"),
			"user", c.Get("user"), "host", c.Get("host"), "grant_option", c.Get("grant_option"), "escape", c.Get("escape")); err != nil {
			return err
		}
	}
	return nil
}

func myGrantsAbsent(c *statemod.Call) (*value.Map, error) {
	w := grantWords(c)
	ret := statemod.Ret(c.Get("name"), true, "")
	ok, err := myBool(c, "grant_exists", []any{c.Get("grant"), c.Get("database"), c.Get("user"), c.Get("host"), c.Get("grant_option"), c.Get("escape")})
	if err != nil {
		return nil, err
	}
	if ok {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "MySQL grant "+c.Name()+" is set to be revoked")
			return ret, nil
		}
		ok, err := myBool(c, "grant_revoke", []any{c.Get("grant"), c.Get("database"), c.Get("user"), c.Get("host"), c.Get("grant_option")})
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", fmt.Sprintf("Grant %s on %s for %s@%s has been revoked", w...))
			ret.Set("changes", value.MapOf(c.Get("name"), "Absent"))
			return ret, nil
		}
		if msg, ok := myError(c); ok {
			ret.Set("comment", fmt.Sprintf("Unable to revoke grant %s on %s for %s@%s (%s)", append(w, msg)...))
			ret.Set("result", false)
			return ret, nil
		}
	} else if msg, ok := myError(c); ok {
		ret.Set("comment", fmt.Sprintf("Unable to determine if grant %s on %s for %s@%s exists (%s)", append(w, msg)...))
		ret.Set("result", false)
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("Grant %s on %s to %s@%s is not present, so it cannot be revoked", w...))
	return ret, nil
}
