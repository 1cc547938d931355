package states

// locale.go is salt/states/locale.py (locale.present, locale.system) with
// the Debian-family handling of salt/modules/localemod.py: available
// locales from `locale -a`, generation by uncommenting /etc/locale.gen and
// running locale-gen, the system locale in /etc/default/locale.

import (
	"os"
	"os/exec"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/locale"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "locale.present", Params: []statemod.Param{statemod.Req("name")},
		Doc: "Generate a locale if it is not present.", Run: localePresent})
	statemod.Register(&statemod.Function{Name: "locale.system", Params: []statemod.Param{statemod.Req("name")},
		Doc: "Set the system locale.", Run: localeSystem})
}

func localeAvail(name string) bool {
	out, err := exec.Command("locale", "-a").Output()
	if err != nil {
		return false
	}
	return locale.Avail(strings.Split(string(out), "\n"), name)
}

// genLocale enables name in /etc/locale.gen (uncommented, or added with
// its charmap) and runs locale-gen.
func genLocale(c *statemod.Call, name string) bool {
	p := rootPath(c, "/etc/locale.gen")
	if _, err := os.Stat(p); err != nil {
		return false
	}
	name = locale.WithCharmap(name)
	if err := locale.EnableGen(p, name); err != nil {
		return false
	}
	if sysRoot(c) != "" {
		return true
	}
	return exec.Command("locale-gen", name).Run() == nil
}

func localePresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	if localeAvail(name) {
		ret.Set("result", true)
		ret.Set("comment", "Locale "+name+" is already present")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Locale "+name+" needs to be generated")
		return ret, nil
	}
	if genLocale(c, name) {
		ret.Set("changes", value.MapOf("locale", name))
		ret.Set("result", true)
		ret.Set("comment", "Generated locale "+name)
		return ret, nil
	}
	ret.Set("result", false)
	ret.Set("comment", "Failed to generate locale "+name)
	return ret, nil
}

// systemLocale reads LANG from /etc/default/locale.
func systemLocale(c *statemod.Call) string {
	return locale.Lang(rootPath(c, "/etc/default/locale"))
}

func localeSystem(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	if systemLocale(c) == name {
		ret.Set("result", true)
		ret.Set("comment", "System locale "+name+" already set")
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "System locale "+name+" needs to be set")
		return ret, nil
	}
	os.MkdirAll(rootPath(c, "/etc/default"), 0o755)
	if err := locale.SetLang(rootPath(c, "/etc/default/locale"), name); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to set system locale to "+name)
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", "Set system locale "+name)
	return ret, nil
}
