package states

// locale.go is salt/states/locale.py (locale.present, locale.system) with
// the Debian-family handling of salt/modules/localemod.py: available
// locales from `locale -a`, generation by uncommenting /etc/locale.gen and
// running locale-gen, the system locale in /etc/default/locale.

import (
	"os"
	"os/exec"
	"regexp"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "locale.present", Params: []statemod.Param{statemod.Req("name")},
		Doc: "Generate a locale if it is not present.", Run: localePresent})
	statemod.Register(&statemod.Function{Name: "locale.system", Params: []statemod.Param{statemod.Req("name")},
		Doc: "Set the system locale.", Run: localeSystem})
}

// normalizeLocale is salt.utils.locales.normalize_locale: "en_US.UTF-8"
// becomes "en_US.utf8".
func normalizeLocale(loc string) string {
	lang, rest, _ := strings.Cut(loc, ".")
	if rest == "" {
		return lang
	}
	enc, mod, hasMod := strings.Cut(rest, "@")
	enc = strings.ToLower(strings.ReplaceAll(enc, "-", ""))
	out := lang + "." + enc
	if hasMod {
		out += "@" + mod
	}
	return out
}

func localeAvail(name string) bool {
	out, err := exec.Command("locale", "-a").Output()
	if err != nil {
		return false
	}
	want := normalizeLocale(name)
	for _, l := range strings.Split(string(out), "\n") {
		if normalizeLocale(strings.TrimSpace(l)) == want {
			return true
		}
	}
	return false
}

// genLocale uncomments name in /etc/locale.gen (adding it when missing)
// and runs locale-gen.
func genLocale(c *statemod.Call, name string) bool {
	p := rootPath(c, "/etc/locale.gen")
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	lang, enc, _ := strings.Cut(name, ".")
	charset := enc
	if charset == "" {
		charset = "ISO-8859-1"
	}
	re := regexp.MustCompile(`(?m)^#\s*` + regexp.QuoteMeta(name) + `(\s.*)?$`)
	text := string(data)
	switch {
	case re.MatchString(text):
		text = re.ReplaceAllStringFunc(text, func(s string) string { return strings.TrimLeft(s, "# ") })
	case regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `(\s|$)`).MatchString(text):
	default:
		if !strings.HasSuffix(text, "\n") && text != "" {
			text += "\n"
		}
		text += lang
		if enc != "" {
			text += "." + enc
		}
		text += " " + charset + "\n"
	}
	if err := writeFileAtomic(p, []byte(text)); err != nil {
		return false
	}
	if sysRoot(c) != "" {
		return true
	}
	return exec.Command("locale-gen").Run() == nil
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
	data, _ := os.ReadFile(rootPath(c, "/etc/default/locale"))
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "LANG="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
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
	p := rootPath(c, "/etc/default/locale")
	data, _ := os.ReadFile(p)
	var lines []string
	found := false
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "LANG=") {
			l, found = "LANG=\""+name+"\"", true
		}
		if l != "" || len(lines) > 0 {
			lines = append(lines, l)
		}
	}
	if !found {
		lines = append(lines, "LANG=\""+name+"\"")
	}
	os.MkdirAll(rootPath(c, "/etc/default"), 0o755)
	if err := writeFileAtomic(p, []byte(strings.Join(lines, "\n")+"\n")); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to set system locale to "+name)
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", "Set system locale "+name)
	return ret, nil
}
