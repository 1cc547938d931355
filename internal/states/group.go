package states

// group.go is salt/states/group.py: group.present and group.absent, over
// internal/system/usermgr (groupadd, groupmod, groupdel, gpasswd).

import (
	"fmt"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "group.present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("gid", nil), statemod.Opt("system", false),
			statemod.Opt("addusers", nil), statemod.Opt("delusers", nil), statemod.Opt("members", nil),
			statemod.Opt("non_unique", false)},
		Doc: "Ensure that a group is present, with its gid and members.",
		Run: groupPresent})
	statemod.Register(&statemod.Function{Name: "group.absent", Params: []statemod.Param{statemod.Req("name")},
		Doc: "Ensure that the named group is absent.",
		Run: groupAbsent})
}

// groupChanges is Salt's group._changes: nil when the group does not
// exist. For a gid that is not a number it is, as in Salt, the map
// {result: False, comment: Invalid gid}, which group.present then reports
// as changes it could not make.
func groupChanges(db *usermgr.DB, name string, gid any, add, del []string, rawMembers any) *value.Map {
	members, membersSet := pyIterStrings(rawMembers), rawMembers != nil
	g, ok, err := db.Group(name)
	if err != nil || !ok {
		return nil
	}
	ch := value.NewMap(0)
	if value.Truthy(gid) {
		n := intArg(gid)
		if n == nil {
			return value.MapOf("result", false, "comment", "Invalid gid")
		}
		if g.GID != *n {
			ch.Set("gid", *n)
		}
	}
	cur := setOf(g.Members)
	symDiff := func(xs []string) bool {
		want := setOf(xs)
		if len(want) != len(cur) {
			return true
		}
		for x := range want {
			if !cur[x] {
				return true
			}
		}
		return false
	}
	if membersSet && len(members) == 0 {
		if len(cur) > 0 {
			ch.Set("delusers", value.NewList(anySlice(sortedUnique(g.Members))...))
		}
	} else if len(members) > 0 && symDiff(members) {
		ch.Set("members", rawMembers)
	}
	var toAdd, toDel []string
	for _, u := range add {
		if !cur[u] {
			toAdd = append(toAdd, u)
		}
	}
	for _, u := range del {
		if cur[u] {
			toDel = append(toDel, u)
		}
	}
	if len(toAdd) > 0 {
		ch.Set("addusers", value.NewList(anySlice(toAdd)...))
	}
	if len(toDel) > 0 {
		ch.Set("delusers", value.NewList(anySlice(toDel)...))
	}
	return ch
}

func anySlice(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func groupPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	db := userDB(c)
	ret := statemod.Ret(c.Get("name"), true, "Group "+name+" is present and up to date")
	// Salt iterates over these: a string gives its characters.
	add, del := pyIterStrings(c.Get("addusers")), pyIterStrings(c.Get("delusers"))
	rawMembers := c.Get("members")
	members, membersSet := pyIterStrings(rawMembers), rawMembers != nil
	if membersSet && (c.Get("addusers") != nil || c.Get("delusers") != nil) {
		ret.Set("result", nil)
		ret.Set("comment", "Error: Conflicting options \"members\" with \"addusers\" and/or \"delusers\" can not be used together. ")
		return ret, nil
	}
	if len(add) > 0 && len(del) > 0 {
		ds := setOf(del)
		for _, a := range add {
			if ds[a] {
				ret.Set("result", nil)
				ret.Set("comment", "Error. Same user(s) can not be added and deleted simultaneously")
				return ret, nil
			}
		}
	}
	ctx := bg(c)
	changes := groupChanges(db, name, c.Get("gid"), add, del, rawMembers)
	if changes != nil {
		if changes.Len() == 0 {
			return ret, nil
		}
		var b strings.Builder
		b.WriteString("The following group attributes are set to be changed:\n")
		changes.Range(func(k, v any) bool {
			s := value.Str(v)
			if k == "delusers" && membersSet && len(members) == 0 {
				// Salt keeps these as a set: {'a', 'b'}.
				s = "{" + strings.TrimSuffix(strings.TrimPrefix(s, "["), "]") + "}"
			}
			fmt.Fprintf(&b, "%s: %s\n", value.Str(k), s)
			return true
		})
		ret.Set("comment", b.String())
		if c.Test {
			ret.Set("result", nil)
			return ret, nil
		}
		var errs []string
		changes.Range(func(k, v any) bool {
			var err error
			switch k {
			case "gid":
				err = db.ModGroupGID(ctx, name, *intArg(v))
			case "addusers":
				for _, u := range listStrings(v) {
					if e := db.AddMember(ctx, name, u); e != nil {
						err = e
					}
				}
			case "delusers":
				for _, u := range listStrings(v) {
					if e := db.DelMember(ctx, name, u); e != nil {
						err = e
					}
				}
			case "members":
				err = db.SetMembers(ctx, name, members)
			}
			if err != nil {
				errs = append(errs, err.Error())
			}
			return true
		})
		left := groupChanges(db, name, c.Get("gid"), add, del, rawMembers)
		if left != nil && left.Len() > 0 {
			ret.Set("result", false)
			ret.Set("comment", value.Str(getv(ret, "comment"))+"Some changes could not be applied")
			ret.Set("changes", value.MapOf("Failed", left))
		} else {
			ret.Set("changes", value.MapOf("Final", "All changes applied successfully"))
		}
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Group "+name+" set to be added")
		return ret, nil
	}
	// Salt compares the gid with the existing ones as given (a quoted
	// number matches none) and passes it to groupadd -g when it is truthy.
	var gid *int64
	if rawGID := c.Get("gid"); value.Truthy(rawGID) {
		if gid = intArg(rawGID); gid == nil {
			ret.Set("result", false)
			ret.Set("comment", "Failed to create new group "+name)
			return ret, nil
		}
	}
	if n, isInt := c.Get("gid").(int64); isInt && !c.Bool("non_unique") {
		if g, ok, _ := db.GroupByGID(n); ok {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("Group %s is not present but gid %d is already taken by group %s", name, n, g.Name))
			return ret, nil
		}
	}
	if err := db.AddGroup(ctx, name, gid, c.Bool("system"), c.Bool("non_unique")); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to create new group "+name)
		return ret, nil
	}
	grp := members
	if len(add) > 0 {
		grp = add
	}
	if len(grp) > 0 {
		db.SetMembers(ctx, name, grp)
	}
	ret.Set("comment", "New group "+name+" created")
	if g, ok, _ := db.Group(name); ok {
		ret.Set("changes", value.MapOf("name", g.Name, "passwd", g.Passwd, "gid", g.GID, "members", value.NewList(anySlice(g.Members)...)))
	}
	if left := groupChanges(db, name, c.Get("gid"), add, del, rawMembers); left != nil && left.Len() > 0 {
		ret.Set("result", false)
		ret.Set("comment", "Group "+name+" has been created but, some changes could not be applied")
		ret.Set("changes", value.MapOf("Failed", left))
	}
	return ret, nil
}

func groupAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	db := userDB(c)
	ret := statemod.Ret(c.Get("name"), true, "")
	if _, ok, err := db.Group(name); err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	} else if !ok {
		ret.Set("comment", "Group not present")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Group "+name+" is set for removal")
		return ret, nil
	}
	if err := db.DelGroup(bg(c), name); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to remove group "+name)
		return ret, nil
	}
	ret.Set("changes", value.MapOf(name, ""))
	ret.Set("comment", "Removed group "+name)
	return ret, nil
}
