package states

// debconf.go is salt/states/debconfmod.py's debconf.set: the answers of a
// package are read from debconf's database files (what
// debconf-get-selections prints) and set with debconf-set-selections.

import (
	"os/exec"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/debconf"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "debconf.set",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("data")}, Kwargs: true,
		Doc: "Set debconf answers for a package.", Run: debconfSet, Virtual: debconfVirtual("debconf.set")})
}

// debconfVirtual is the state module's __virtual__ for function full: it
// needs the debconf execution module, which needs debconf-get-selections
// (debconf-utils). Salt's loader then has no reason to give (the module's
// file is debconfmod.py), only its plain missing-function line.
func debconfVirtual(full string) func() string {
	return func() string {
		if _, err := exec.LookPath("debconf-get-selections"); err != nil {
			return "'" + full + "' is not available."
		}
		return ""
	}
}

// debconfShow is debconf.show: the [question, type, value] triples owned
// by pkg, from debconf's database files.
func debconfShow(c *statemod.Call, pkg string) [][3]string {
	return debconf.Show(debconf.FromDB(rootPath(c, "/var/cache/debconf")), pkg)
}

func debconfSet(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	data, ok := c.Get("data").(*value.Map)
	if !ok {
		ret.Set("result", false)
		ret.Set("comment", "data must be a mapping of questions to {type, value}")
		return ret, nil
	}
	current := debconfShow(c, name)
	changes := getv(ret, "changes").(*value.Map)
	comment := ""
	data.Range(func(k, v any) bool {
		key := value.Str(k)
		args, _ := v.(*value.Map)
		if args == nil {
			args = value.NewMap(0)
		}
		typ := value.Str(getv(args, "type"))
		val := getv(args, "value")
		sval := value.Str(val)
		if typ == "boolean" {
			sval = "false"
			if value.Truthy(val) {
				sval = "true"
			}
		}
		for _, cur := range current {
			if cur == [3]string{key, typ, sval} {
				if comment == "" {
					comment = "Unchanged answers: "
				}
				comment += key + " "
				return true
			}
		}
		if c.Test {
			ret.Set("result", nil)
			changes.Set(key, "New value: "+sval)
			return true
		}
		cmd := exec.Command("debconf-set-selections")
		cmd.Stdin = strings.NewReader(name + " " + key + " " + typ + " " + sval + "\n")
		if err := cmd.Run(); err != nil {
			ret.Set("result", false)
			comment = "Some settings failed to be applied."
			changes.Set(key, "Failed to set!")
			return true
		}
		if typ == "password" {
			changes.Set(key, "(password hidden)")
		} else {
			changes.Set(key, sval)
		}
		return true
	})
	ret.Set("comment", comment)
	if changes.Len() == 0 {
		ret.Set("comment", "All specified answers are already set")
	}
	return ret, nil
}
