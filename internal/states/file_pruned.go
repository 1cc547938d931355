package states

// file_pruned.go is file.pruned of salt/states/file.py: remove a directory
// if it is empty (with recurse, its empty subdirectories too).

import (
	"fmt"
	"path/filepath"
	"sort"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.pruned", Run: filePruned,
		Doc:    "Ensure that the named directory is absent, if it is empty (recurse: its empty subdirectories too).",
		Params: []statemod.Param{statemod.Req("name"), p("recurse", false), p("ignore_errors", false), p("older_than", nil)}})
}

func sortedList(xs []string) *value.List {
	s := append([]string(nil), xs...)
	sort.Strings(s)
	l := value.NewList()
	for _, x := range s {
		l.Append(x)
	}
	return l
}

func filePruned(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "comment", "", "result", true)
	ignoreErrors := c.Bool("ignore_errors")
	recurse := c.Bool("recurse") || ignoreErrors
	if !isDir(name) {
		ret.Set("comment", fmt.Sprintf("Directory %s is not present", name))
		return ret, nil
	}
	changes := mapGet(ret, "changes").(*value.Map)
	if c.Test {
		ret.Set("result", nil)
		changes.Set("deleted", name)
		ret.Set("comment", fmt.Sprintf("Directory %s is set for removal", name))
		return ret, nil
	}
	if !filepath.IsAbs(name) {
		return nil, &invocationError{"File path must be absolute."}
	}
	res := fileops.Rmdir(name, recurse, c.Get("older_than"))
	switch {
	case res.OK && recurse && len(res.Deleted) > 0:
		ret.Set("comment", fmt.Sprintf("Recursively removed empty directories under %s", name))
		changes.Set("deleted", sortedList(res.Deleted))
		return ret, nil
	case res.OK && !recurse:
		ret.Set("comment", fmt.Sprintf("Removed directory %s", name))
		changes.Set("deleted", name)
		return ret, nil
	case res.OK:
		return ret, nil
	case ignoreErrors && len(res.Deleted) > 0:
		ret.Set("comment", fmt.Sprintf("Recursively removed empty directories under %s", name))
		changes.Set("deleted", sortedList(res.Deleted))
		return ret, nil
	}
	deleted, errs := value.NewList(), value.NewList()
	for _, d := range res.Deleted {
		deleted.Append(d)
	}
	for _, e := range res.Errors {
		errs.Append(value.NewList(e[0], e[1]))
	}
	ret.Set("result", false)
	ret.Set("changes", value.MapOf("deleted", deleted, "errors", errs))
	ret.Set("comment", fmt.Sprintf("Failed to remove directory %s", name))
	return ret, nil
}
