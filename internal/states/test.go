// Package states holds the state modules, one file per Salt module
// (test.go is salt/states/test.py). Each file registers its functions with
// statemod in init(); nothing else needs to change to add a module.
package states

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

// invocationError is Salt's SaltInvocationError raised by a state function.
type invocationError struct{ msg string }

func (e *invocationError) Error() string { return "SaltInvocationError: " + e.msg }

func testChanges() *value.Map {
	return value.MapOf("testing", value.MapOf("old", "Unchanged", "new", "Something pretended to change"))
}

func kwOr(c *statemod.Call, k string, def any) any {
	if v, ok := c.Args.Get(k); ok {
		return v
	}
	return def
}

func init() {
	name := []statemod.Param{statemod.Req("name")}
	statemod.Register(&statemod.Function{Name: "test.nop", Params: name, Kwargs: true,
		Doc: "A no-op state that does nothing.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			return statemod.Ret(c.Get("name"), true, "Success!"), nil
		}})
	statemod.Register(&statemod.Function{Name: "test.succeed_without_changes", Params: name, Kwargs: true,
		Doc: "Returns successful.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true,
				"comment", kwOr(c, "comment", "Success!")), nil
		}})
	statemod.Register(&statemod.Function{Name: "test.fail_without_changes", Params: name, Kwargs: true,
		Doc: "Returns failure.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", false,
				"comment", kwOr(c, "comment", "Failure!"))
			if c.Test {
				ret.Set("comment", "If we weren't testing, this would be a failure!")
			}
			return ret, nil
		}})
	statemod.Register(&statemod.Function{Name: "test.succeed_with_changes", Params: name, Kwargs: true,
		Doc: "Returns True with a non-empty changes dictionary.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			ret := value.MapOf("name", c.Get("name"), "changes", testChanges(), "result", true,
				"comment", kwOr(c, "comment", "Success!"))
			if c.Test {
				ret.Set("result", nil)
				ret.Set("comment", "If we weren't testing, this would be successful with changes")
			}
			return ret, nil
		}})
	statemod.Register(&statemod.Function{Name: "test.fail_with_changes", Params: name, Kwargs: true,
		Doc: "Returns False with a non-empty changes dictionary.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			ret := value.MapOf("name", c.Get("name"), "changes", testChanges(), "result", false,
				"comment", kwOr(c, "comment", "Failure!"))
			if c.Test {
				ret.Set("result", nil)
				ret.Set("comment", "If we weren't testing, this would be failed with changes")
			}
			return ret, nil
		}})
	statemod.Register(&statemod.Function{Name: "test.configurable_test_state",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("changes", true),
			statemod.Opt("result", true), statemod.Opt("comment", ""), statemod.Opt("warnings", nil)},
		Doc: "A configurable test state.",
		Run: configurableTestState})
	statemod.Register(&statemod.Function{Name: "test.show_notification",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("text", nil)}, Kwargs: true,
		Doc: "Returns the text argument as the comment.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			text := c.Get("text")
			if !value.Truthy(text) {
				return nil, &invocationError{"Missing required argument text."}
			}
			return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true, "comment", text), nil
		}})
	statemod.Register(&statemod.Function{Name: "test.mod_watch",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("sfun", nil)}, Kwargs: true,
		Doc: "Called by a watch requisite.",
		Run: testModWatch})
	statemod.Register(&statemod.Function{Name: "test.check_pillar",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("present", nil), statemod.Opt("boolean", nil),
			statemod.Opt("integer", nil), statemod.Opt("string", nil), statemod.Opt("listing", nil),
			statemod.Opt("dictionary", nil), statemod.Opt("verbose", false)},
		Doc: "Checks the presence and type of pillar keys.",
		Run: checkPillar})
}

func configurableTestState(c *statemod.Call) (*value.Map, error) {
	changes, result, comment := c.Get("changes"), c.Get("result"), c.Get("comment")
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", false, "comment", comment)
	switch changes {
	case true:
		ret.Set("changes", testChanges())
	case false:
	default:
		if strings.ToLower(value.Str(changes)) != "random" {
			return nil, &invocationError{"You have specified the state option 'changes' with invalid arguments. It must be either True, False, or 'Random'"}
		}
		if rand.IntN(2) == 0 {
			ret.Set("changes", testChanges())
		}
	}
	if b, ok := result.(bool); ok {
		ret.Set("result", b)
	} else if strings.ToLower(value.Str(result)) == "random" {
		ret.Set("result", rand.IntN(2) == 0)
	} else {
		return nil, &invocationError{"You have specified the state option 'result' with invalid arguments. It must be either True, False, or 'Random'"}
	}
	switch w := c.Get("warnings").(type) {
	case nil:
	case string:
		ret.Set("warnings", value.NewList(w))
	case *value.List:
		ret.Set("warnings", w)
	default:
		return nil, &invocationError{"You have specified the state option 'warnings' with invalid arguments. It must be a string or a list of strings"}
	}
	if c.Test {
		if changes == false {
			ret.Set("result", true)
		} else {
			ret.Set("result", nil)
		}
		if !value.Truthy(comment) {
			ret.Set("comment", "This is a test")
		}
	}
	return ret, nil
}

func testModWatch(c *statemod.Call) (*value.Map, error) {
	has := value.NewList()
	if c.Reqs != nil {
		if w, ok := c.Reqs.Get("watch"); ok {
			if l, ok := w.(*value.List); ok {
				for _, it := range l.Items {
					req, ok := it.(*value.Map)
					if !ok {
						continue
					}
					if rv, ok := c.Running.Get(statemod.Tag(req)); ok {
						if value.Truthy(mapGet(rv.(*value.Map), "changes")) {
							has.Append(fmt.Sprintf("%s: %s", value.Str(mapGet(req, "state")), value.Str(mapGet(req, "__id__"))))
						}
					}
				}
			}
		}
	}
	return value.MapOf(
		"name", c.Get("name"),
		"result", kwOr(c, "result", true),
		"comment", kwOr(c, "comment", "Watch statement fired."),
		"changes", kwOr(c, "changes", value.MapOf("Requisites with changes", has)),
	), nil
}

func mapGet(m *value.Map, k any) any {
	v, _ := m.Get(k)
	return v
}

func strList(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case *value.List:
		out := make([]string, len(x.Items))
		for i, it := range x.Items {
			out[i] = value.Str(it)
		}
		return out
	}
	return []string{value.Str(v)}
}

func checkPillar(c *statemod.Call) (*value.Map, error) {
	kinds := []struct{ arg, typ string }{
		{"present", ""}, {"boolean", "<class 'bool'>"}, {"integer", "<class 'int'>"},
		{"string", "(<class 'str'>,)"}, {"listing", "<class 'list'>"}, {"dictionary", "<class 'dict'>"},
	}
	anySet := false
	for _, k := range kinds {
		if value.Truthy(c.Get(k.arg)) {
			anySet = true
		}
	}
	if !anySet {
		return nil, &invocationError{"Missing required argument text."}
	}
	ret := statemod.Ret(c.Get("name"), true, "")
	var pillar *value.Map
	if c.Env != nil && c.Env.Exec != nil {
		pillar = c.Env.Exec.Pillar
	}
	type failure struct{ key, typ string }
	var failed, fine []failure
	failedIdx := map[string]int{}
	for _, k := range kinds {
		for _, key := range strList(c.Get(k.arg)) {
			v, ok := value.Traverse(pillar, key, ":")
			res := ok
			if ok {
				switch k.arg {
				case "boolean":
					_, res = v.(bool)
				case "integer":
					_, res = v.(int64)
					if _, b := v.(bool); b {
						res = true
					}
				case "string":
					_, res = v.(string)
				case "listing":
					_, res = v.(*value.List)
				case "dictionary":
					_, res = v.(*value.Map)
				}
			}
			f := failure{key, k.typ}
			if !ok {
				f.typ = ""
			}
			if !ok || !res {
				ret.Set("result", false)
				if i, dup := failedIdx[key]; dup {
					failed[i] = f
				} else {
					failedIdx[key] = len(failed)
					failed = append(failed, f)
				}
			} else if c.Bool("verbose") {
				fine = append(fine, f)
			}
		}
	}
	var b strings.Builder
	for _, f := range failed {
		if f.typ == "" {
			fmt.Fprintf(&b, "Pillar key \"%s\" is missing.\n", f.key)
		} else {
			fmt.Fprintf(&b, "Pillar key \"%s\" is not %s.\n", f.key, f.typ)
		}
	}
	if c.Bool("verbose") && len(fine) > 0 {
		b.WriteString("Those keys passed the check:\n")
		for _, f := range fine {
			typ := f.typ
			if typ == "" {
				typ = "None"
			}
			fmt.Fprintf(&b, "- %s (%s)\n", f.key, typ)
		}
	}
	ret.Set("comment", b.String())
	return ret, nil
}
