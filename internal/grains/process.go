package grains

import (
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"brine/internal/value"
)

// processGrains sets the grains of the running process and its
// environment: user and group, pid, path, shell, locale, versions,
// machine id and kernel parameters.
func processGrains(g *value.Map) {
	uid, gid := os.Geteuid(), os.Getegid()
	username, groupname := "", ""
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		username = u.Username
		if gr, err := user.LookupGroupId(u.Gid); err == nil {
			groupname = gr.Name
		}
	}
	g.Set("username", username)
	g.Set("groupname", groupname)
	g.Set("pid", int64(os.Getpid()))
	g.Set("gid", int64(gid))
	g.Set("uid", int64(uid))

	p := strings.TrimSpace(os.Getenv("PATH"))
	g.Set("path", p)
	g.Set("systempath", strList(strings.Split(p, string(os.PathListSeparator))))
	if cwd, err := os.Getwd(); err == nil {
		g.Set("cwd", cwd)
	}
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	g.Set("shell", sh)
	g.Set("locale_info", localeInfo())

	g.Set("saltversion", SaltVersion)
	g.Set("saltversioninfo", ints(SaltVersionInfo...))
	g.Set("pythonversion", value.NewList(PythonVersion...))

	for _, f := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if _, err := os.Stat(f); err == nil {
			data, _ := os.ReadFile(f)
			g.Set("machine_id", strings.TrimSpace(string(data)))
			break
		}
	}
	if data, err := os.ReadFile("/proc/cmdline"); err == nil {
		l := value.NewList()
		for _, item := range shlexSplit(string(data)) {
			parts := strings.Split(item, "=")
			var v any
			if len(parts) == 2 {
				v = strings.Trim(parts[1], `"`)
			}
			l.Append(value.Tuple{parts[0], v})
		}
		g.Set("kernelparams", l)
	}
}

// localeInfo is Salt's locale_info grain.
func localeInfo() *value.Map {
	lang, enc := defaultLocale()
	tz, _ := time.Now().Zone()
	if tz == "" {
		tz = "unknown"
	}
	return value.MapOf(
		"defaultlanguage", lang,
		"defaultencoding", enc,
		"detectedencoding", "utf-8",
		"timezone", tz,
	)
}

// defaultLocale mimics Python's locale.getdefaultlocale(): the first of
// LC_ALL, LC_CTYPE, LANG and LANGUAGE that is set, as (language, encoding),
// None for each part that is unknown.
func defaultLocale() (any, any) {
	name := ""
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE"} {
		if s := os.Getenv(v); s != "" {
			name = s
			if v == "LANGUAGE" {
				name, _, _ = strings.Cut(s, ":")
			}
			break
		}
	}
	if name == "" || name == "C" || name == "POSIX" {
		return nil, nil
	}
	name, _, _ = strings.Cut(name, "@")
	lang, enc, ok := strings.Cut(name, ".")
	if !ok {
		return lang, "ISO8859-1"
	}
	utf8 := false
	switch strings.ToLower(strings.ReplaceAll(enc, "-", "")) {
	case "utf8":
		enc, utf8 = "UTF-8", true
	}
	switch {
	case lang == "C" && utf8:
		// Python's locale alias table maps C.UTF-8 to en_US.UTF-8
		return "en_US", enc
	case lang == "POSIX" && utf8:
		return "C", enc
	}
	return lang, enc
}

// shlexSplit splits s as Python's shlex.split (POSIX mode).
func shlexSplit(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0:
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
