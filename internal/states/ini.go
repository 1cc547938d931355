package states

// ini.go is salt/states/ini_manage.py: ini.options_present,
// ini.options_absent, ini.sections_present and ini.sections_absent. Like
// Salt's, they read and edit the file through the ini execution functions
// (internal/modules/ini.go), so the parsing and writing rules live there.

import (
	"fmt"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	params := []statemod.Param{statemod.Req("name"), statemod.Opt("sections", nil), statemod.Opt("separator", "=")}
	statemod.Register(&statemod.Function{Name: "ini.options_present", Params: append(append([]statemod.Param(nil), params...), statemod.Opt("strict", false)),
		Doc: "Ensure that options are set in an ini file.", Run: iniOptionsPresent})
	statemod.Register(&statemod.Function{Name: "ini.options_absent", Params: params,
		Doc: "Ensure that options are not set in an ini file.", Run: iniOptionsAbsent})
	statemod.Register(&statemod.Function{Name: "ini.sections_present", Params: params,
		Doc: "Ensure that sections are present in an ini file.", Run: iniSectionsPresent})
	statemod.Register(&statemod.Function{Name: "ini.sections_absent", Params: params,
		Doc: "Ensure that sections are not present in an ini file.", Run: iniSectionsAbsent})
}

// saltMap calls an execution function that returns a mapping (an empty
// one when it returns anything else).
func saltMap(c *statemod.Call, fun string, args ...any) (*value.Map, error) {
	out, err := c.Salt(fun, args, nil)
	if err != nil {
		return nil, err
	}
	m, _ := out.(*value.Map)
	if m == nil {
		m = value.NewMap(0)
	}
	return m, nil
}

// pyIter is what Python's `for x in v` visits: the keys of a mapping, the
// items of a list, the characters of a string (none for None).
func pyIter(v any) ([]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case *value.Map:
		return x.Keys(), nil
	case *value.List:
		return x.Items, nil
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	}
	return nil, fmt.Errorf("TypeError: '%s' object is not iterable", pyTypeName(v))
}

func isMap(v any) bool { _, ok := v.(*value.Map); return ok }

func iniGet(m *value.Map, k any) (any, bool) {
	if m == nil {
		return nil, false
	}
	return m.Get(k)
}

func iniOptionsPresent(c *statemod.Call) (*value.Map, error) {
	name, sep := c.Get("name"), c.Get("separator")
	ret := statemod.Ret(name, true, "No anomaly detected")
	var comment strings.Builder
	changes := value.NewMap(0)
	note := func(format string, args ...any) { fmt.Fprintf(&comment, format, args...) }
	sections, _ := c.Get("sections").(*value.Map)
	if sections != nil && sections.Len() > 0 {
		options := value.NewMap(0)
		sections.Range(func(k, v any) bool {
			if !isMap(v) {
				options.Set(k, v)
			}
			return true
		})
		cur, err := saltMap(c, "ini.get_ini", name, sep)
		if err != nil {
			return nil, err
		}
		topOpts, origSects := value.NewMap(0), value.NewMap(0)
		cur.Range(func(k, v any) bool {
			if isMap(v) {
				origSects.Set(k, v)
			} else {
				topOpts.Set(k, v)
			}
			return true
		})
		if c.Test {
			options.Range(func(k, v any) bool {
				if ov, ok := topOpts.Get(k); ok && value.Str(ov) == value.Str(v) {
					note("Unchanged key %s.\n", value.Str(k))
				} else {
					note("Changed key %s.\n", value.Str(k))
					ret.Set("result", nil)
				}
				return true
			})
		} else {
			upd, err := saltMap(c, "ini.set_option", name, options, sep)
			if err != nil {
				return nil, err
			}
			changes.Update(upd)
		}
		if c.Bool("strict") {
			for _, k := range topOpts.Keys() {
				if options.Has(k) {
					continue
				}
				if c.Test {
					note("Removed key %s.\n", value.Str(k))
					ret.Set("result", nil)
					continue
				}
				if _, err := c.Salt("ini.remove_option", []any{name, nil, k, sep}, nil); err != nil {
					return nil, err
				}
				before, _ := topOpts.Get(k)
				changes.Set(k, value.MapOf("before", before, "after", nil))
			}
		}
		var err2 error
		sections.Range(func(k, v any) bool {
			body, ok := v.(*value.Map)
			if !ok {
				return true
			}
			descr := ""
			if value.Truthy(k) {
				descr = " in section " + value.Str(k)
			}
			sectChanges := value.NewMap(0)
			changes.Set(k, sectChanges)
			origSect, _ := iniGet(origSects, k)
			origMap, _ := origSect.(*value.Map)
			if c.Bool("strict") {
				orig, ok := cur.Get(k)
				if !ok {
					orig = value.NewMap(0)
				}
				om, isM := orig.(*value.Map)
				if !isM {
					err2 = fmt.Errorf("AttributeError: '%s' object has no attribute 'keys'", pyTypeName(orig))
					return false
				}
				for _, key := range om.Keys() {
					if body.Has(key) {
						continue
					}
					before, ok := iniGet(origMap, key)
					if !ok {
						before = "#-#-"
					}
					if c.Test {
						note("Deleted key %s%s.\n", value.Str(key), descr)
						ret.Set("result", nil)
						continue
					}
					if _, err := c.Salt("ini.remove_option", []any{name, k, key, sep}, nil); err != nil {
						err2 = err
						return false
					}
					sectChanges.Set(key, value.MapOf("before", before, "after", nil))
				}
			}
			if c.Test {
				body.Range(func(ok, ov any) bool {
					have, found := iniGet(origMap, ok)
					if !found {
						have = "#-#-"
					}
					if value.Str(ov) == value.Str(have) {
						note("Unchanged key %s%s.\n", value.Str(ok), descr)
					} else {
						note("Changed key %s%s.\n", value.Str(ok), descr)
						ret.Set("result", nil)
					}
					return true
				})
				return true
			}
			upd, err := saltMap(c, "ini.set_option", name, value.MapOf(k, body), sep)
			if err != nil {
				err2 = err
				return false
			}
			if sub, ok := upd.Get(k); ok {
				if sm, ok := sub.(*value.Map); ok {
					sectChanges.Update(sm)
				}
			}
			if sectChanges.Len() == 0 {
				changes.Delete(k)
			}
			return true
		})
		if err2 != nil {
			return nil, err2
		}
	} else if !c.Test {
		upd, err := saltMap(c, "ini.set_option", name, c.Get("sections"), sep)
		if err != nil {
			return nil, err
		}
		changes = upd
	}
	if c.Test {
		ret.Set("comment", comment.String())
	}
	if e, ok := changes.GetString("error"); ok {
		ret.Set("result", false)
		ret.Set("comment", "Errors encountered. "+value.Str(e))
		return ret, nil
	}
	out := getv(ret, "changes").(*value.Map)
	changes.Range(func(k, v any) bool {
		if value.Truthy(v) {
			ret.Set("comment", "Changes take effect")
			out.Set(k, v)
		}
		return true
	})
	return ret, nil
}

func iniOptionsAbsent(c *statemod.Call) (*value.Map, error) {
	name, sep := c.Get("name"), c.Get("separator")
	ret := statemod.Ret(name, true, "No anomaly detected")
	sections := c.Get("sections")
	smap, _ := sections.(*value.Map)
	if c.Test {
		var comment strings.Builder
		names, err := pyIter(sections)
		if err != nil {
			return nil, err
		}
		for _, sect := range names {
			descr := ""
			if value.Truthy(sect) {
				descr = " in section " + value.Str(sect)
			}
			var curSect any
			cs, err := c.Salt("ini.get_section", []any{name, sect, sep}, nil)
			switch {
			case err != nil && strings.HasPrefix(err.Error(), "AttributeError"):
				curSect = sect
			case err != nil:
				return nil, err
			default:
				curSect = cs
			}
			keys, _ := iniGet(smap, sect)
			if kl, ok := keys.(*value.List); ok {
				for _, key := range kl.Items {
					cm, ok := curSect.(*value.Map)
					if !ok {
						return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'get'", pyTypeName(curSect))
					}
					if v, _ := cm.Get(key); !value.Truthy(v) {
						fmt.Fprintf(&comment, "Key %s%s does not exist.\n", value.Str(key), descr)
						continue
					}
					fmt.Fprintf(&comment, "Deleted key %s%s.\n", value.Str(key), descr)
					ret.Set("result", nil)
				}
				continue
			}
			v, err := c.Salt("ini.get_option", []any{name, nil, sect, sep}, nil)
			if err != nil {
				return nil, err
			}
			if !value.Truthy(v) {
				fmt.Fprintf(&comment, "Key %s does not exist.\n", value.Str(sect))
				continue
			}
			fmt.Fprintf(&comment, "Deleted key %s.\n", value.Str(sect))
			ret.Set("result", nil)
		}
		ret.Set("comment", comment.String())
		if comment.Len() == 0 {
			ret.Set("comment", "No changes detected.")
		}
		return ret, nil
	}
	if smap == nil {
		if value.Truthy(sections) {
			return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'items'", pyTypeName(sections))
		}
		return ret, nil
	}
	changes := getv(ret, "changes").(*value.Map)
	var err2 error
	smap.Range(func(sect, keys any) bool {
		items, err := pyIter(keys)
		if err != nil {
			err2 = err
			return false
		}
		_, isList := keys.(*value.List)
		for _, key := range items {
			cur, err := c.Salt("ini.remove_option", []any{name, sect, key, sep}, nil)
			if err != nil {
				err2 = err
				return false
			}
			if !value.Truthy(cur) {
				continue
			}
			sub, ok := changes.Get(sect)
			sm, isM := sub.(*value.Map)
			if !ok {
				sm, isM = value.NewMap(0), true
				changes.Set(sect, sm)
			}
			if !isM {
				err2 = fmt.Errorf("AttributeError: '%s' object has no attribute 'update'", pyTypeName(sub))
				return false
			}
			sm.Set(key, cur)
			if !isList {
				changes.Set(sect, cur)
			}
			ret.Set("comment", "Changes take effect")
		}
		return true
	})
	return ret, err2
}

// iniSectionsTest is the test mode of sections_present (present true)
// and sections_absent: a line a section, in the kept or the change
// format, and result None when any section would change.
func iniSectionsTest(c *statemod.Call, ret *value.Map, names []any, present bool, kept, change string) (*value.Map, error) {
	cur, err := saltMap(c, "ini.get_ini", c.Get("name"), c.Get("separator"))
	if err != nil {
		return nil, err
	}
	var comment strings.Builder
	for _, s := range names {
		if cur.Has(s) == present {
			fmt.Fprintf(&comment, kept, value.Str(s))
			continue
		}
		fmt.Fprintf(&comment, change, value.Str(s))
		ret.Set("result", nil)
	}
	ret.Set("comment", comment.String())
	if comment.Len() == 0 {
		ret.Set("comment", "No changes detected.")
	}
	return ret, nil
}

func iniSectionsPresent(c *statemod.Call) (*value.Map, error) {
	name, sep := c.Get("name"), c.Get("separator")
	ret := statemod.Ret(name, true, "No anomaly detected")
	names, err := pyIter(c.Get("sections"))
	if err != nil {
		return nil, err
	}
	if c.Test {
		return iniSectionsTest(c, ret, names, true, "Section unchanged %s.\n", "Created new section %s.\n")
	}
	upd := value.NewMap(0)
	for _, s := range names {
		upd.Set(s, value.NewMap(0))
	}
	changes, err := saltMap(c, "ini.set_option", name, upd, sep)
	if err != nil {
		return nil, err
	}
	if e, ok := changes.GetString("error"); ok {
		ret.Set("result", false)
		ret.Set("changes", "Errors encountered "+value.Str(e))
		return ret, nil
	}
	ret.Set("changes", changes)
	ret.Set("comment", "Changes take effect")
	return ret, nil
}

func iniSectionsAbsent(c *statemod.Call) (*value.Map, error) {
	name, sep := c.Get("name"), c.Get("separator")
	ret := statemod.Ret(name, true, "No anomaly detected")
	names, err := pyIter(c.Get("sections"))
	if err != nil {
		return nil, err
	}
	if c.Test {
		return iniSectionsTest(c, ret, names, false, "Section %s does not exist.\n", "Deleted section %s.\n")
	}
	changes := getv(ret, "changes").(*value.Map)
	for _, s := range names {
		cur, err := c.Salt("ini.remove_section", []any{name, s, sep}, nil)
		if err != nil {
			return nil, err
		}
		if !value.Truthy(cur) {
			continue
		}
		changes.Set(s, cur)
		ret.Set("comment", "Changes take effect")
	}
	return ret, nil
}
