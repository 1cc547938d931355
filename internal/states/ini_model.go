package states

// ini_model.go is the in-process ini file model that pkgrepo's yum .repo
// files use (parse, update, write back in Salt's _Ini layout). The ini
// states themselves go through the ini execution functions
// (internal/modules/ini.go) as Salt's do.

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"brine/internal/value"
)

var (
	iniSectRE     = regexp.MustCompile(`(?m)^\s*\[(.+?)\]\s*$`)
	iniComRE      = regexp.MustCompile(`^\s*(#|;)\s*(.*)`)
	iniIndentedRE = regexp.MustCompile(`^(\s+)(.*)`)
)

// iniSection is an ordered section: values are strings, nil (an option
// being uncommented) or *iniSection (only at the top level).
type iniSection struct {
	name string
	sep  string
	keys []string
	vals map[string]any
}

func newIniSection(name, sep string) *iniSection {
	return &iniSection{name: name, sep: sep, vals: map[string]any{}}
}

func (s *iniSection) has(k string) bool { _, ok := s.vals[k]; return ok }

func (s *iniSection) set(k string, v any) {
	if !s.has(k) {
		s.keys = append(s.keys, k)
	}
	s.vals[k] = v
}

func (s *iniSection) del(k string) {
	if !s.has(k) {
		return
	}
	delete(s.vals, k)
	for i, x := range s.keys {
		if x == k {
			s.keys = append(s.keys[:i:i], s.keys[i+1:]...)
			break
		}
	}
}

func (s *iniSection) optRE() *regexp.Regexp {
	return regexp.MustCompile(`^(\s*)(.+?)\s*(` + regexp.QuoteMeta(s.sep) + `)\s*(.*)\s*$`)
}

// refresh parses the options of a section body (_Section.refresh).
func (s *iniSection) refresh(text string) {
	text = strings.Trim(text, "\n")
	if text == "" {
		return
	}
	optRE := s.optRE()
	comments, unknown := 1, 1
	indent := ""
	for _, line := range strings.Split(text, "\n") {
		if iniComRE.MatchString(line) {
			s.set(fmt.Sprintf("#comment%d", comments), line)
			comments++
			continue
		}
		if m := iniIndentedRE.FindStringSubmatch(line); m != nil {
			in := strings.ReplaceAll(m[1], "\t", "    ")
			if in > indent {
				if n := len(s.keys); n > 0 {
					prev := s.keys[n-1]
					if pv, ok := s.vals[prev].(string); ok {
						s.vals[prev] = pv + "\n" + line
					}
				}
				continue
			}
		}
		if m := optRE.FindStringSubmatch(line); m != nil {
			indent = strings.ReplaceAll(m[1], "\t", "    ")
			s.set(m[2], strings.TrimRight(m[4], " \t"))
			continue
		}
		s.set(fmt.Sprintf("#unknown%d", unknown), line)
		unknown++
	}
}

// parseIni reads path (an absent file is empty).
func parseIni(path, sep string) (*iniSection, error) {
	top := newIniSection(path, sep)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return top, nil
	}
	if err != nil {
		return nil, fmt.Errorf("Unable to open file '%s'. Exception: %s", path, err)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	idx := iniSectRE.FindAllStringSubmatchIndex(text, -1)
	end := len(text)
	if len(idx) > 0 {
		end = idx[0][0]
	}
	top.refresh(text[:end])
	for i, m := range idx {
		name := text[m[2]:m[3]]
		bodyEnd := len(text)
		if i+1 < len(idx) {
			bodyEnd = idx[i+1][0]
		}
		sect := newIniSection(name, sep)
		sect.refresh(text[m[1]:bodyEnd])
		top.set(name, sect)
	}
	return top, nil
}

func (s *iniSection) uncommentIfCommented(key string) {
	optRE := s.optRE()
	for i, k := range s.keys {
		if !strings.HasPrefix(k, "#comment") {
			continue
		}
		v, _ := s.vals[k].(string)
		if m := optRE.FindStringSubmatch(strings.TrimLeft(v, "#")); m != nil && m[2] == key {
			delete(s.vals, k)
			s.keys[i] = key
			s.vals[key] = nil
			return
		}
	}
}

// iniPlain is a section as a plain mapping (as_dict).
func (s *iniSection) plain() *value.Map {
	m := value.NewMap(len(s.keys))
	for _, k := range s.keys {
		switch v := s.vals[k].(type) {
		case *iniSection:
			m.Set(k, v.plain())
		default:
			m.Set(k, v)
		}
	}
	return m
}

// update is _Section.update: it applies a mapping and returns the
// changes as {key: {before, after}} (nested for sections).
func (s *iniSection) update(m *value.Map) *value.Map {
	changes := value.NewMap(0)
	m.Range(func(k, v any) bool {
		key := value.Str(k)
		var nv any
		var plain any
		if sub, ok := v.(*value.Map); ok {
			sect := newIniSection(key, s.sep)
			sect.update(sub)
			nv, plain = sect, sect.plain()
		} else {
			str := value.Str(v)
			nv, plain = str, str
		}
		if !s.has(key) {
			changes.Set(key, value.MapOf("before", nil, "after", plain))
			if _, isSect := nv.(*iniSection); !isSect {
				s.uncommentIfCommented(key)
			}
			s.set(key, nv)
			return true
		}
		cur := s.vals[key]
		if cs, ok := cur.(*iniSection); ok {
			if sub, ok := v.(*value.Map); ok {
				if ch := cs.update(sub); ch.Len() > 0 {
					changes.Set(key, ch)
				}
				return true
			}
		}
		if str, ok := nv.(string); !ok || cur != any(str) {
			var before any = cur
			if cs, ok := cur.(*iniSection); ok {
				before = cs.plain()
			}
			changes.Set(key, value.MapOf("before", before, "after", plain))
			s.set(key, nv)
		}
		return true
	})
	return changes
}

// render is _Ini.flush's text.
func (s *iniSection) render() string {
	var parts []string
	var gen func(sec *iniSection, top bool)
	gen = func(sec *iniSection, top bool) {
		if !top {
			parts = append(parts, "\n["+sec.name+"]\n")
		}
		var subs []*iniSection
		sep := " " + sec.sep + " "
		if sec.sep == " " {
			sep = " "
		}
		for _, k := range sec.keys {
			switch v := sec.vals[k].(type) {
			case *iniSection:
				subs = append(subs, v)
			default:
				str := ""
				if v != nil {
					str = value.Str(v)
				}
				if iniComRE.MatchString(k) {
					parts = append(parts, str+"\n")
				} else {
					parts = append(parts, k+sep+str+"\n")
				}
			}
		}
		for _, sub := range subs {
			gen(sub, false)
		}
	}
	gen(s, true)
	if len(parts) > 0 {
		parts[0] = strings.TrimLeft(parts[0], "\n")
	}
	return strings.Join(parts, "")
}

func (s *iniSection) flush(path string) error {
	if err := writeFileAtomic(path, []byte(s.render())); err != nil {
		return fmt.Errorf("Unable to write file '%s'. Exception: %s", path, err)
	}
	return nil
}

// visible is get_ini: the options and sections without comments.
func (s *iniSection) visible() map[string]any {
	out := map[string]any{}
	for _, k := range s.keys {
		if strings.HasPrefix(k, "#") {
			continue
		}
		out[k] = s.vals[k]
	}
	return out
}
