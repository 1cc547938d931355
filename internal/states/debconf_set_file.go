package states

// debconf_set_file.go is salt/states/debconfmod.py's debconf.set_file:
// debconf answers from a file, or a template, set through the
// debconf.set_file and debconf.set_template execution functions.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "debconf.set_file",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("source"), statemod.Opt("template", nil),
			statemod.Opt("context", nil), statemod.Opt("defaults", nil)},
		Kwargs:  true,
		Doc:     "Set debconf answers from a file (source), rendered first when template is given.",
		Run:     debconfSetFileState,
		Virtual: debconfVirtual("debconf.set_file")})
}

func debconfSetFileState(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), true, "")
	context, defaults := c.Get("context"), c.Get("defaults")
	if context == nil {
		context = value.NewMap(0)
	} else if _, ok := context.(*value.Map); !ok {
		ret.Set("result", false)
		ret.Set("comment", "Context must be formed as a dict")
		return ret, nil
	}
	if defaults == nil {
		defaults = value.NewMap(0)
	} else if _, ok := defaults.(*value.Map); !ok {
		ret.Set("result", false)
		ret.Set("comment", "Defaults must be formed as a dict")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Debconf selections would have been set.")
		return ret, nil
	}
	kwargs := value.NewMap(0)
	c.Args.Range(func(k, v any) bool {
		switch k {
		case "name", "source", "template", "context", "defaults":
		default:
			kwargs.Set(k, v)
		}
		return true
	})
	var res any
	var err error
	if value.Truthy(c.Get("template")) {
		res, err = c.Salt("debconf.set_template", []any{c.Get("source"), c.Get("template"), context, defaults}, kwargs)
	} else {
		res, err = c.Salt("debconf.set_file", []any{c.Get("source")}, kwargs)
	}
	if err != nil {
		return nil, err
	}
	if value.Truthy(res) {
		ret.Set("comment", "Debconf selections were set.")
	} else {
		ret.Set("result", false)
		ret.Set("comment", "Unable to set debconf selections from file.")
	}
	return ret, nil
}
