// Package locale is the Debian locale handling of
// salt/modules/localemod.py and salt/utils/locales.py that the locale
// execution functions and locale states share: locale names, the list of
// compiled locales, /etc/locale.gen and /etc/default/locale.
package locale

import (
	"os"
	"regexp"
	"strings"
)

// Comps are the parts of language[_territory][.codeset][@modifier] [charmap].
type Comps struct{ Language, Territory, Codeset, Modifier, Charmap string }

// Split is salt.utils.locales.split_locale.
func Split(loc string) Comps {
	var c Comps
	work, charmap, _ := strings.Cut(loc, " ")
	c.Charmap = charmap
	work, c.Modifier, _ = strings.Cut(work, "@")
	work, c.Codeset, _ = strings.Cut(work, ".")
	c.Language, c.Territory, _ = strings.Cut(work, "_")
	return c
}

// Join is salt.utils.locales.join_locale.
func Join(c Comps) string {
	loc := c.Language
	if c.Territory != "" {
		loc += "_" + c.Territory
	}
	if c.Codeset != "" {
		loc += "." + c.Codeset
	}
	if c.Modifier != "" {
		loc += "@" + c.Modifier
	}
	if c.Charmap != "" {
		loc += " " + c.Charmap
	}
	return loc
}

// Normalize is salt.utils.locales.normalize_locale: the form `locale -a`
// prints ("en_US.UTF-8" is "en_US.utf8").
func Normalize(loc string) string {
	c := Split(loc)
	c.Territory = strings.ToUpper(c.Territory)
	c.Codeset = strings.ToLower(strings.ReplaceAll(c.Codeset, "-", ""))
	c.Charmap = ""
	return Join(c)
}

// Avail is locale.avail over the lines of `locale -a`.
func Avail(list []string, loc string) bool {
	want := Normalize(loc)
	for _, l := range list {
		if Normalize(strings.TrimSpace(l)) == want {
			return true
		}
	}
	return false
}

// WithCharmap is gen_locale's normalisation: a locale without a charmap
// gets its codeset as one ("de_DE.UTF-8" is "de_DE.UTF-8 UTF-8").
func WithCharmap(loc string) string {
	c := Split(loc)
	if c.Charmap == "" {
		c.Charmap = c.Codeset
	}
	return Join(c)
}

// Supported reports whether loc is a line of the SUPPORTED file at path
// (Debian's /usr/share/i18n/SUPPORTED).
func Supported(path, loc string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	re, err := regexp.Compile(`(?m)^` + loc + `$`)
	if err != nil {
		return false, err
	}
	return re.Match(data), nil
}

// EnableGen is gen_locale's edit of locale.gen at path: a commented line
// of loc is uncommented, else loc is appended.
func EnableGen(path, loc string) error {
	return replaceOrAppend(path, `^\s*#\s*`+loc+`\s*$`, loc+"\n", loc+"\n")
}

// replaceOrAppend is file.replace(path, pattern, repl,
// append_if_not_found=True) for a multi-line pattern: every match is
// replaced, or line is appended when nothing matched.
func replaceOrAppend(path, pattern, repl, line string) error {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	re, err := regexp.Compile(`(?m)` + pattern)
	if err != nil {
		return err
	}
	text := string(data)
	var out string
	if re.MatchString(text) {
		out = re.ReplaceAllLiteralString(text, repl)
	} else {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		out = text + line
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
	}
	if out == text {
		return nil
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return os.WriteFile(path, []byte(out), mode)
}

// Lang is get_locale on Debian without systemd: LANG of the file at path
// (/etc/default/locale), quotes removed ("" when unset).
func Lang(path string) string {
	data, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "LANG=") {
			parts := strings.Split(l, "=")
			return strings.ReplaceAll(parts[1], `"`, "")
		}
	}
	return ""
}

// SetLang is set_locale's edit of the file at path: the LANG line
// replaced, or appended.
func SetLang(path, loc string) error {
	l := `LANG="` + loc + `"`
	return replaceOrAppend(path, `^LANG=.*`, l, l)
}
