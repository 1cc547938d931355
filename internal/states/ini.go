package states

// ini.go is salt/states/ini_manage.py (ini.options_present,
// ini.options_absent, ini.sections_present, ini.sections_absent) with the
// _Ini/_Section model of salt/modules/ini_manage.py: the file is parsed
// keeping comments and unknown lines, options are updated in place (a
// commented-out option is uncommented), and the file is written back in
// Salt's layout ("key = value", a blank line before each section).

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"brine/internal/statemod"
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

func iniOptionsPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	sep := c.Str("separator")
	ret := statemod.Ret(c.Get("name"), true, "No anomaly detected")
	var comment strings.Builder
	test := c.Test
	sections, _ := c.Get("sections").(*value.Map)
	if sections == nil {
		sections = value.NewMap(0)
	}
	ini, err := parseIni(name, sep)
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	changes := value.NewMap(0)
	options := value.NewMap(0)
	sections.Range(func(k, v any) bool {
		if _, ok := v.(*value.Map); !ok {
			options.Set(k, v)
		}
		return true
	})
	cur := ini.visible()
	if test {
		options.Range(func(k, v any) bool {
			key := value.Str(k)
			if cv, ok := cur[key].(string); ok && cv == value.Str(v) {
				fmt.Fprintf(&comment, "Unchanged key %s.\n", key)
			} else {
				fmt.Fprintf(&comment, "Changed key %s.\n", key)
				ret.Set("result", nil)
			}
			return true
		})
	} else if options.Len() > 0 {
		changes.Update(ini.update(options))
	}
	if c.Bool("strict") {
		var extra []string
		for k, v := range cur {
			if _, isSect := v.(*iniSection); !isSect && !options.Has(k) {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range extra {
			if test {
				fmt.Fprintf(&comment, "Removed key %s.\n", k)
				ret.Set("result", nil)
			} else {
				changes.Set(k, value.MapOf("before", cur[k], "after", nil))
				ini.del(k)
			}
		}
	}
	sections.Range(func(k, v any) bool {
		body, ok := v.(*value.Map)
		if !ok {
			return true
		}
		sname := value.Str(k)
		descr := ""
		if sname != "" {
			descr = " in section " + sname
		}
		sectChanges := value.NewMap(0)
		orig, _ := cur[sname].(*iniSection)
		if c.Bool("strict") && orig != nil {
			var extra []string
			for _, key := range orig.keys {
				if !strings.HasPrefix(key, "#") && !body.Has(key) {
					extra = append(extra, key)
				}
			}
			for _, key := range extra {
				if test {
					fmt.Fprintf(&comment, "Deleted key %s%s.\n", key, descr)
					ret.Set("result", nil)
				} else {
					sectChanges.Set(key, value.MapOf("before", orig.vals[key], "after", nil))
					orig.del(key)
				}
			}
		}
		if test {
			body.Range(func(ok, ov any) bool {
				key := value.Str(ok)
				have := "#-#-"
				if orig != nil {
					if s, isStr := orig.vals[key].(string); isStr {
						have = s
					}
				}
				if value.Str(ov) == have {
					fmt.Fprintf(&comment, "Unchanged key %s%s.\n", key, descr)
				} else {
					fmt.Fprintf(&comment, "Changed key %s%s.\n", key, descr)
					ret.Set("result", nil)
				}
				return true
			})
		} else {
			upd := ini.update(value.MapOf(sname, body))
			if ch, ok := upd.Get(sname); ok {
				if chm, ok := ch.(*value.Map); ok {
					sectChanges.Update(chm)
				}
			}
		}
		if sectChanges.Len() > 0 {
			changes.Set(sname, sectChanges)
		}
		return true
	})
	if test {
		ret.Set("comment", comment.String())
		return ret, nil
	}
	if changes.Len() > 0 || !exists(name) {
		if err := ini.flush(name); err != nil {
			return statemod.Ret(c.Get("name"), false, err.Error()), nil
		}
	}
	if changes.Len() > 0 {
		ret.Set("comment", "Changes take effect")
		ret.Set("changes", changes)
	}
	return ret, nil
}

func iniOptionsAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	sep := c.Str("separator")
	ret := statemod.Ret(c.Get("name"), true, "No anomaly detected")
	sections, _ := c.Get("sections").(*value.Map)
	if sections == nil {
		sections = value.NewMap(0)
	}
	ini, err := parseIni(name, sep)
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	var comment strings.Builder
	changes := value.NewMap(0)
	sections.Range(func(k, v any) bool {
		sname := value.Str(k)
		descr := ""
		if sname != "" {
			descr = " in section " + sname
		}
		keys, isList := v.(*value.List)
		target := ini
		var names []string
		if isList {
			sect, _ := ini.vals[sname].(*iniSection)
			target = sect
			for _, it := range keys.Items {
				names = append(names, value.Str(it))
			}
		} else {
			names = []string{sname}
			descr = ""
		}
		for _, key := range names {
			var curVal any
			if target != nil {
				curVal = target.vals[key]
			}
			s, _ := curVal.(string)
			if c.Test {
				if s == "" {
					fmt.Fprintf(&comment, "Key %s%s does not exist.\n", key, descr)
					continue
				}
				fmt.Fprintf(&comment, "Deleted key %s%s.\n", key, descr)
				ret.Set("result", nil)
				continue
			}
			if target == nil || !target.has(key) || s == "" {
				continue
			}
			target.del(key)
			if isList {
				sub, _ := changes.Get(sname)
				sm, _ := sub.(*value.Map)
				if sm == nil {
					sm = value.NewMap(0)
					changes.Set(sname, sm)
				}
				sm.Set(key, s)
			} else {
				changes.Set(sname, s)
			}
		}
		return true
	})
	if c.Test {
		ret.Set("comment", comment.String())
		if comment.Len() == 0 {
			ret.Set("comment", "No changes detected.")
		}
		return ret, nil
	}
	if changes.Len() > 0 {
		if err := ini.flush(name); err != nil {
			return statemod.Ret(c.Get("name"), false, err.Error()), nil
		}
		ret.Set("comment", "Changes take effect")
		ret.Set("changes", changes)
	}
	return ret, nil
}

func iniSectionsPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "No anomaly detected")
	ini, err := parseIni(name, c.Str("separator"))
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	sections, _ := c.Get("sections").(*value.Map)
	if sections == nil {
		sections = value.NewMap(0)
	}
	if c.Test {
		var comment strings.Builder
		sections.Range(func(k, v any) bool {
			sname := value.Str(k)
			if sect, ok := ini.vals[sname].(*iniSection); ok {
				body, _ := v.(*value.Map)
				if body != nil && !value.Equal(sect.plainVisible(), body) {
					fmt.Fprintf(&comment, "Changed key %s.\n", sname)
					ret.Set("result", nil)
				} else {
					fmt.Fprintf(&comment, "Unchanged key %s.\n", sname)
				}
			} else {
				fmt.Fprintf(&comment, "Created new section %s.\n", sname)
				ret.Set("result", nil)
			}
			return true
		})
		ret.Set("comment", comment.String())
		if comment.Len() == 0 {
			ret.Set("comment", "No changes detected.")
		}
		return ret, nil
	}
	upd := value.NewMap(0)
	sections.Range(func(k, v any) bool {
		if _, ok := v.(*value.Map); !ok {
			v = value.NewMap(0)
		}
		upd.Set(k, v)
		return true
	})
	changes := ini.update(upd)
	if changes.Len() > 0 {
		if err := ini.flush(name); err != nil {
			return statemod.Ret(c.Get("name"), false, err.Error()), nil
		}
		ret.Set("comment", "Changes take effect")
		ret.Set("changes", changes)
	}
	return ret, nil
}

func (s *iniSection) plainVisible() *value.Map {
	m := value.NewMap(0)
	for _, k := range s.keys {
		if !strings.HasPrefix(k, "#") {
			m.Set(k, s.vals[k])
		}
	}
	return m
}

func iniSectionsAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "No anomaly detected")
	ini, err := parseIni(name, c.Str("separator"))
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	var names []string
	switch s := c.Get("sections").(type) {
	case *value.List:
		for _, it := range s.Items {
			names = append(names, value.Str(it))
		}
	case *value.Map:
		s.Range(func(k, _ any) bool { names = append(names, value.Str(k)); return true })
	}
	var comment strings.Builder
	changes := value.NewMap(0)
	for _, sname := range names {
		sect, ok := ini.vals[sname].(*iniSection)
		if !ok {
			if c.Test {
				fmt.Fprintf(&comment, "Section %s does not exist.\n", sname)
			}
			continue
		}
		if c.Test {
			fmt.Fprintf(&comment, "Deleted section %s.\n", sname)
			ret.Set("result", nil)
			continue
		}
		changes.Set(sname, value.MapOf("before", sect.plainVisible(), "after", nil))
		ini.del(sname)
	}
	if c.Test {
		ret.Set("comment", comment.String())
		if comment.Len() == 0 {
			ret.Set("comment", "No changes detected.")
		}
		return ret, nil
	}
	if changes.Len() > 0 {
		if err := ini.flush(name); err != nil {
			return statemod.Ret(c.Get("name"), false, err.Error()), nil
		}
		ret.Set("comment", "Changes take effect")
		ret.Set("changes", changes)
	}
	return ret, nil
}
