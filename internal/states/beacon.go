package states

// beacon.go is salt/states/beacon.py: beacon.present, absent, enabled and
// disabled, each through the beacons execution functions (beacons.list,
// add, modify, delete, enable_beacon, disable_beacon, save), which change
// the beacons of the running minion daemon. Without a daemon
// beacons.list answers None and the states fail as Salt's do.

import (
	"errors"
	"fmt"
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	for _, f := range []struct {
		name, doc string
		save      bool
		run       statemod.Func
	}{
		{"beacon.present", "Ensure a beacon is configured with the data given (save: True writes beacons.conf too).", true, beaconPresent},
		{"beacon.absent", "Ensure a beacon is not configured (save: True writes beacons.conf too).", true, beaconAbsent},
		{"beacon.enabled", "Ensure a configured beacon is enabled.", false, beaconToggle("beacons.enable_beacon", "Enabled %s from beacons", "%s not a configured beacon")},
		{"beacon.disabled", "Ensure a configured beacon is disabled.", false, beaconToggle("beacons.disable_beacon", "Disabled beacon %s.", "Job %s is not configured.")},
	} {
		params := []statemod.Param{statemod.Req("name")}
		if f.save {
			params = append(params, statemod.Opt("save", false))
		}
		statemod.Register(&statemod.Function{Name: f.name, Params: params, Kwargs: true, Doc: f.doc, Run: f.run})
	}
}

// beaconErr words an execution function's Python exception as the last
// line of Salt's traceback.
func beaconErr(err error) error {
	var te *execmod.TypeError
	if errors.As(err, &te) {
		return fmt.Errorf("TypeError: %s", te.Msg)
	}
	return err
}

// beaconCall calls a beacons execution function and returns its result
// mapping.
func beaconCall(c *statemod.Call, fun string, args []any, kwargs *value.Map) (*value.Map, error) {
	res, err := c.Salt(fun, args, kwargs)
	if err != nil {
		return nil, beaconErr(err)
	}
	m, ok := res.(*value.Map)
	if !ok {
		return nil, fmt.Errorf("TypeError: '%s' object is not subscriptable", pyTypeName(res))
	}
	return m, nil
}

// beaconKey is result[k], a KeyError when the result lacks it.
func beaconKey(res *value.Map, k string) (any, error) {
	v, ok := res.Get(k)
	if !ok {
		return nil, fmt.Errorf("KeyError: '%s'", k)
	}
	return v, nil
}

// beaconCurrent is beacons.list(return_yaml=False, **kwargs): the beacons
// configured (pillar's included); a missing daemon answers None, which
// the states test names against (a TypeError).
func beaconCurrent(c *statemod.Call, kwargs *value.Map) (*value.Map, error) {
	kw := value.NewMap(kwargs.Len() + 1)
	kw.Set("return_yaml", false)
	kwargs.Range(func(k, v any) bool {
		if value.Str(k) != "return_yaml" {
			kw.Set(k, v)
		}
		return true
	})
	res, err := c.Salt("beacons.list", nil, kw)
	if err != nil {
		return nil, beaconErr(err)
	}
	switch m := res.(type) {
	case *value.Map:
		return m, nil
	case nil:
		return nil, errors.New("TypeError: argument of type 'NoneType' is not iterable")
	}
	return nil, fmt.Errorf("beacons.list returned %s, not a mapping", value.TypeName(res))
}

// beaconFailed copies a failed execution result into ret as Salt does:
// its result and comment as they are.
func beaconFailed(ret, res *value.Map) (*value.Map, bool, error) {
	r, err := beaconKey(res, "result")
	if err != nil {
		return nil, false, err
	}
	if value.Truthy(r) {
		return ret, false, nil
	}
	cmt, err := beaconKey(res, "comment")
	if err != nil {
		return nil, false, err
	}
	ret.Set("result", r)
	ret.Set("comment", cmt)
	return ret, true, nil
}

// beaconComment is result["comment"] as a line of the state's comment.
func beaconComment(res *value.Map) (string, error) {
	v, err := beaconKey(res, "comment")
	if err != nil {
		return "", err
	}
	return value.Str(v), nil
}

// beaconSave ends present and absent: with save, beacons.save writes the
// options' beacons to beacons.conf (its result is not looked at).
func beaconSave(c *statemod.Call, comments []string) ([]string, error) {
	if !c.Bool("save") {
		return comments, nil
	}
	name := c.Str("name")
	if c.Test {
		return append(comments, fmt.Sprintf("Beacon %s would be saved", name)), nil
	}
	if _, err := c.Salt("beacons.save", nil, nil); err != nil {
		return nil, beaconErr(err)
	}
	return append(comments, fmt.Sprintf("Beacon %s saved", name)), nil
}

// beaconChange calls fun (beacons.add, delete, enable_beacon...) for the
// state: in test mode its comment is the state's line; for real a failed
// result becomes the state's return (stop), else done is the line.
func beaconChange(c *statemod.Call, ret *value.Map, fun string, kwargs *value.Map, done string, args ...any) (line string, stop *value.Map, err error) {
	res, err := beaconCall(c, fun, args, kwargs)
	if err != nil {
		return "", nil, err
	}
	if c.Test {
		line, err := beaconComment(res)
		return line, nil, err
	}
	if r, failed, err := beaconFailed(ret, res); err != nil || failed {
		return "", r, err
	}
	return done, nil, nil
}

func beaconRet(c *statemod.Call) *value.Map {
	return value.MapOf("name", c.Get("name"), "result", true, "changes", value.NewMap(0), "comment", "")
}

func beaconPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := beaconRet(c)
	kwargs := argsBut(c, "name", "save")
	current, err := beaconCurrent(c, kwargs)
	if err != nil {
		return nil, err
	}
	// The beacon's configuration is the keyword arguments as a list of
	// one-key mappings, in the order given.
	data := value.NewList()
	kwargs.Range(func(k, v any) bool {
		data.Append(value.MapOf(k, v))
		return true
	})
	if c.Test {
		kwargs.Set("test", true)
	}
	var comments []string
	if cur, ok := current.Get(c.Get("name")); ok {
		switch {
		case value.Equal(data, cur):
			comments = append(comments, fmt.Sprintf("Job %s in correct state", name))
		case c.Test:
			res, err := beaconCall(c, "beacons.modify", []any{c.Get("name"), data}, kwargs)
			if err != nil {
				return nil, err
			}
			cmt, err := beaconComment(res)
			if err != nil {
				return nil, err
			}
			comments = append(comments, cmt)
			ch, err := beaconKey(res, "changes")
			if err != nil {
				return nil, err
			}
			ret.Set("changes", ch)
		default:
			res, err := beaconCall(c, "beacons.modify", []any{c.Get("name"), data}, kwargs)
			if err != nil {
				return nil, err
			}
			if r, failed, err := beaconFailed(ret, res); err != nil || failed {
				return r, err
			}
			if ch, ok := res.Get("changes"); ok {
				comments = append(comments, fmt.Sprintf("Modifying %s in beacons", name))
				ret.Set("changes", ch)
			} else {
				cmt, err := beaconComment(res)
				if err != nil {
					return nil, err
				}
				comments = append(comments, cmt)
			}
		}
	} else {
		line, stop, err := beaconChange(c, ret, "beacons.add", kwargs, fmt.Sprintf("Adding %s to beacons", name), c.Get("name"), data)
		if err != nil || stop != nil {
			return stop, err
		}
		comments = append(comments, line)
	}
	if comments, err = beaconSave(c, comments); err != nil {
		return nil, err
	}
	ret.Set("comment", strings.Join(comments, "\n"))
	return ret, nil
}

func beaconAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := beaconRet(c)
	kwargs := argsBut(c, "name", "save")
	current, err := beaconCurrent(c, kwargs)
	if err != nil {
		return nil, err
	}
	var comments []string
	if current.Has(c.Get("name")) {
		if c.Test {
			kwargs.Set("test", true)
		}
		line, stop, err := beaconChange(c, ret, "beacons.delete", kwargs, fmt.Sprintf("Removed %s from beacons", name), c.Get("name"))
		if err != nil || stop != nil {
			return stop, err
		}
		comments = append(comments, line)
	} else {
		comments = append(comments, fmt.Sprintf("%s not configured in beacons", name))
	}
	if comments, err = beaconSave(c, comments); err != nil {
		return nil, err
	}
	ret.Set("comment", strings.Join(comments, "\n"))
	return ret, nil
}

// beaconToggle is beacon.enabled and beacon.disabled: fun (enable_beacon
// or disable_beacon) on a configured beacon; done and missing are the
// comments for a change and for a beacon not configured.
func beaconToggle(fun, done, missing string) statemod.Func {
	return func(c *statemod.Call) (*value.Map, error) {
		name := c.Str("name")
		ret := beaconRet(c)
		kwargs := argsBut(c, "name")
		current, err := beaconCurrent(c, kwargs)
		if err != nil {
			return nil, err
		}
		if !current.Has(c.Get("name")) {
			ret.Set("comment", fmt.Sprintf(missing, name))
			return ret, nil
		}
		if c.Test {
			kwargs.Set("test", true)
		}
		line, stop, err := beaconChange(c, ret, fun, kwargs, fmt.Sprintf(done, name), c.Get("name"))
		if err != nil || stop != nil {
			return stop, err
		}
		ret.Set("comment", line)
		return ret, nil
	}
}
