package modules

// ini.go is salt/modules/ini_manage.py: reading and editing ini files
// with Salt's _Ini/_Section model. A file is an ordered mapping of
// top-level options and sections; comment lines ("#" or ";") and lines
// that are neither options nor sections are kept under "#commentN" and
// "#unknownN" keys and written back as they were; indented lines continue
// the previous value; setting an option that a comment in the same
// section sets ("#key = value") takes the comment's place. Files are
// written back as "key = value" lines (the separator with a space each
// side, a space separator alone) with a blank line before each section.

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("ini.set_option", iniSetOption, "Set options and sections of an ini file from a mapping and return the changes.")
	execmod.Register("ini.get_option", iniGetOption, "Return the value of option in section (top level when section is empty), or None.")
	execmod.Register("ini.remove_option", iniRemoveOption, "Remove option from section (top level when section is not a section) and return its value.")
	execmod.Register("ini.get_section", iniGetSection, "Return the options of a section ({} when it is missing).")
	execmod.Register("ini.remove_section", iniRemoveSection, "Remove a section and return its options (None when it is missing).")
	execmod.Register("ini.get_ini", iniGetIni, "Return the options and sections of an ini file, without comments.")
}

var (
	iniSectionRE  = regexp.MustCompile(`(?m)^\s*\[(.+?)\]\s*$`)
	iniCommentRE  = regexp.MustCompile(`^\s*(#|;)\s*(.*)`)
	iniIndentedRE = regexp.MustCompile(`^(\s+)(.*)`)
)

// iniSect is Salt's _Section: an ordered mapping whose values are strings,
// nil (Python's None) or, at the top level, sections.
type iniSect struct {
	name  string
	sep   string
	optRE *regexp.Regexp
	keys  []string
	vals  map[string]any
}

// iniOptRE is the option pattern for separator sep. Salt writes the
// separator after a backslash into the pattern, so its first character is
// escaped and the rest is pattern text.
func iniOptRE(sep string) (*regexp.Regexp, error) {
	pat := ""
	if sep != "" {
		first, rest := sep[:1], sep[1:]
		switch c := first[0]; {
		case c == ' ':
			pat = ` ` + rest
		case c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'):
			pat = `\` + sep
		default:
			pat = regexp.QuoteMeta(first) + rest
		}
	}
	re, err := regexp.Compile(`^(\s*)(.+?)\s*(` + pat + `)\s*(.*)\s*`)
	if err != nil {
		return nil, execmod.Errorf("bad separator %q: %s", sep, err)
	}
	return re, nil
}

func newIniSect(name, sep string) (*iniSect, error) {
	re, err := iniOptRE(sep)
	if err != nil {
		return nil, err
	}
	return &iniSect{name: name, sep: sep, optRE: re, vals: map[string]any{}}, nil
}

func (s *iniSect) has(k string) bool { _, ok := s.vals[k]; return ok }

func (s *iniSect) get(k any) (any, bool) {
	ks, ok := k.(string)
	if !ok {
		return nil, false
	}
	v, ok := s.vals[ks]
	return v, ok
}

// set is OrderedDict assignment: a new key goes last.
func (s *iniSect) set(k string, v any) {
	if !s.has(k) {
		s.keys = append(s.keys, k)
	}
	s.vals[k] = v
}

func (s *iniSect) pop(k any) (any, bool) {
	v, ok := s.get(k)
	if !ok {
		return nil, false
	}
	ks := k.(string)
	delete(s.vals, ks)
	for i, x := range s.keys {
		if x == ks {
			s.keys = append(s.keys[:i:i], s.keys[i+1:]...)
			break
		}
	}
	return v, true
}

// iniItem is one key and value handed to update.
type iniItem struct {
	key string
	val any
}

func iniItemsOf(m *value.Map) []iniItem {
	items := make([]iniItem, 0, m.Len())
	m.Range(func(k, v any) bool {
		items = append(items, iniItem{value.Str(k), v})
		return true
	})
	return items
}

func (s *iniSect) items() []iniItem {
	items := make([]iniItem, 0, len(s.keys))
	for _, k := range s.keys {
		items = append(items, iniItem{k, s.vals[k]})
	}
	return items
}

// refresh parses the lines of a section body (_Section.refresh). Every
// line goes through update, so an option replaces a commented-out line
// that sets it earlier in the section.
func (s *iniSect) refresh(text string) error {
	text = strings.Trim(text, "\n")
	if text == "" {
		return nil
	}
	comments, unknown := 1, 1
	indent := ""
	for _, line := range strings.Split(text, "\n") {
		var it iniItem
		if iniCommentRE.MatchString(line) {
			it = iniItem{fmt.Sprintf("#comment%d", comments), line}
			comments++
		} else if m := iniIndentedRE.FindStringSubmatch(line); m != nil && strings.ReplaceAll(m[1], "\t", "    ") > indent {
			if n := len(s.keys); n > 0 {
				prev := s.keys[n-1]
				pv, ok := s.vals[prev].(string)
				if !ok {
					return errors.New("TypeError: sequence item 0: expected str instance")
				}
				it = iniItem{prev, pv + "\n" + line}
			} else {
				continue
			}
		} else if m := s.optRE.FindStringSubmatch(line); m != nil {
			indent = strings.ReplaceAll(m[1], "\t", "    ")
			s.sep = m[3]
			it = iniItem{m[2], m[4]}
		} else {
			it = iniItem{fmt.Sprintf("#unknown%d", unknown), line}
			unknown++
		}
		if _, err := s.update([]iniItem{it}); err != nil {
			return err
		}
	}
	return nil
}

// uncomment is _uncomment_if_commented: key takes the place of the first
// comment that sets it (or goes last), with the value None.
func (s *iniSect) uncomment(key string) {
	at := -1
	for i, k := range s.keys {
		if !strings.Contains(k, "#comment") {
			continue
		}
		v, _ := s.vals[k].(string)
		if m := s.optRE.FindStringSubmatch(strings.TrimLeft(v, "#")); m != nil && m[2] == key {
			at = i
			break
		}
	}
	if at < 0 {
		s.set(key, nil)
		return
	}
	after := append([]string(nil), s.keys[at+1:]...)
	delete(s.vals, s.keys[at])
	s.keys = s.keys[:at]
	if s.has(key) {
		s.pop(key)
	}
	s.set(key, nil)
	for _, k := range after {
		if k != key {
			s.keys = append(s.keys, k)
		}
	}
}

// update is _Section.update: it sets the items and returns the changes,
// {key: {"before": old, "after": new}}, nested for existing sections.
func (s *iniSect) update(items []iniItem) (*value.Map, error) {
	changes := value.NewMap(0)
	for _, it := range items {
		var nv, plain any
		switch v := it.val.(type) {
		case *value.Map, *iniSect:
			sect, err := newIniSect(it.key, s.sep)
			if err != nil {
				return nil, err
			}
			var sub []iniItem
			if m, ok := v.(*value.Map); ok {
				sub = iniItemsOf(m)
			} else {
				sub = v.(*iniSect).items()
			}
			if _, err := sect.update(sub); err != nil {
				return nil, err
			}
			nv, plain = sect, sect.asDict()
		case nil:
			nv, plain = "None", "None"
		default:
			str := value.Str(v)
			nv, plain = str, str
		}
		cur, ok := s.vals[it.key]
		if !ok {
			changes.Set(it.key, value.MapOf("before", nil, "after", plain))
			if _, isSect := nv.(*iniSect); !isSect {
				s.uncomment(it.key)
			}
			s.set(it.key, nv)
			continue
		}
		if cs, ok := cur.(*iniSect); ok {
			ns, ok := nv.(*iniSect)
			if !ok {
				return nil, errors.New("AttributeError: 'str' object has no attribute 'items'")
			}
			sub, err := cs.update(ns.items())
			if err != nil {
				return nil, err
			}
			if sub.Len() > 0 {
				changes.Set(it.key, sub)
			}
			continue
		}
		if ns, isStr := nv.(string); !isStr || cur == nil || cur.(string) != ns {
			changes.Set(it.key, value.MapOf("before", cur, "after", plain))
			s.set(it.key, nv)
		}
	}
	return changes, nil
}

// asDict is the section as a mapping, comments included, sections nested.
func (s *iniSect) asDict() *value.Map {
	m := value.NewMap(len(s.keys))
	for _, k := range s.keys {
		if sub, ok := s.vals[k].(*iniSect); ok {
			m.Set(k, sub.asDict())
		} else {
			m.Set(k, s.vals[k])
		}
	}
	return m
}

// visible is the section without its comment and unknown lines,
// sections nested the same way (get_ini).
func (s *iniSect) visible() *value.Map {
	m := value.NewMap(len(s.keys))
	for _, k := range s.keys {
		if strings.HasPrefix(k, "#") {
			continue
		}
		if sub, ok := s.vals[k].(*iniSect); ok {
			m.Set(k, sub.visible())
		} else {
			m.Set(k, s.vals[k])
		}
	}
	return m
}

// plainOf is what Salt returns for a value: a section as its mapping.
func plainOf(v any) any {
	if s, ok := v.(*iniSect); ok {
		return s.asDict()
	}
	return v
}

// render is gen_ini: options first, then the sections, each after a blank
// line and its header.
func (s *iniSect) render(parts []string, top bool) []string {
	if !top {
		parts = append(parts, "\n["+s.name+"]\n")
	}
	sep := " " + s.sep + " "
	if s.sep == " " {
		sep = " "
	}
	var subs []*iniSect
	for _, k := range s.keys {
		switch v := s.vals[k].(type) {
		case *iniSect:
			subs = append(subs, v)
		default:
			str := "None"
			if v != nil {
				str = v.(string)
			}
			if iniCommentRE.MatchString(k) {
				parts = append(parts, str+"\n")
			} else {
				parts = append(parts, k+sep+str+"\n")
			}
		}
	}
	for _, sub := range subs {
		parts = sub.render(parts, false)
	}
	return parts
}

// iniFile is a parsed file (_Ini).
type iniFile struct {
	*iniSect
	path string
}

// splitLines is str.splitlines for the line breaks text files use.
func splitLines(s string) []string {
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n", "\x1c", "\n", "\x1d", "\n", "\x1e", "\n",
		"\u0085", "\n", "\u2028", "\n", "\u2029", "\n").Replace(s)
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// loadIni is _Ini.get_ini_file. A missing file is empty; an unreadable
// one is an error unless test (then empty too).
func loadIni(path, sep string, test bool) (*iniFile, error) {
	top, err := newIniSect(path, sep)
	if err != nil {
		return nil, err
	}
	f := &iniFile{top, path}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return f, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if test {
			return f, nil
		}
		return nil, execmod.Errorf("Unable to open file '%s'. Exception: %s", path, pyOSError(err))
	}
	text := string(data)
	if text == "" {
		return f, nil
	}
	text = strings.Join(splitLines(text), "\n")
	if text == "" {
		return f, nil
	}
	idx := iniSectionRE.FindAllStringSubmatchIndex(text, -1)
	end := len(text)
	if len(idx) > 0 {
		end = idx[0][0]
	}
	if err := top.refresh(text[:end]); err != nil {
		return nil, err
	}
	for i, m := range idx {
		bodyEnd := len(text)
		if i+1 < len(idx) {
			bodyEnd = idx[i+1][0]
		}
		sect, err := newIniSect(text[m[2]:m[3]], top.sep)
		if err != nil {
			return nil, err
		}
		if err := sect.refresh(text[m[1]:bodyEnd]); err != nil {
			return nil, err
		}
		if _, err := top.update([]iniItem{{sect.name, sect}}); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// flush writes the file back (_Ini.flush).
func (f *iniFile) flush() error {
	parts := f.render(nil, true)
	if len(parts) > 0 {
		parts[0] = strings.TrimLeft(parts[0], "\n")
	}
	if err := os.WriteFile(f.path, []byte(strings.Join(parts, "")), 0o666); err != nil {
		return execmod.Errorf("Unable to write file '%s'. Exception: %s", f.path, pyOSError(err))
	}
	return nil
}

func iniParams(names ...string) []execmod.Param {
	ps := []execmod.Param{execmod.Req("file_name")}
	for _, n := range names {
		ps = append(ps, execmod.Req(n))
	}
	return append(ps, execmod.Opt("separator", "="))
}

func iniLoad(ctx *execmod.Context, v []any) (*iniFile, error) {
	return loadIni(execmod.String(v[0]), execmod.String(v[len(v)-1]), ctx.Test)
}

func iniSetOption(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_option", args, kwargs, execmod.Req("file_name"), execmod.Opt("sections", nil), execmod.Opt("separator", "="))
	if err != nil {
		return nil, err
	}
	var items []iniItem
	switch s := v[1].(type) {
	case *value.Map:
		items = iniItemsOf(s)
	default:
		if value.Truthy(s) {
			return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'items'", pyTypeOf(s))
		}
	}
	f, err := iniLoad(ctx, v)
	if err != nil {
		return nil, err
	}
	changes, err := f.update(items)
	if err != nil {
		return nil, err
	}
	if err := f.flush(); err != nil {
		return nil, err
	}
	return changes, nil
}

func pyTypeOf(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case *value.List:
		return "list"
	}
	return "object"
}

func iniGetOption(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_option", args, kwargs, iniParams("section", "option")...)
	if err != nil {
		return nil, err
	}
	f, err := iniLoad(ctx, v)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		opt, _ := f.get(v[2])
		return plainOf(opt), nil
	}
	sect, ok := f.get(v[1])
	if !ok {
		return nil, nil
	}
	s, isSect := sect.(*iniSect)
	if !isSect {
		return nil, nil
	}
	opt, _ := s.get(v[2])
	return opt, nil
}

func iniRemoveOption(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("remove_option", args, kwargs, iniParams("section", "option")...)
	if err != nil {
		return nil, err
	}
	f, err := iniLoad(ctx, v)
	if err != nil {
		return nil, err
	}
	target := f.iniSect
	if sect, ok := f.get(v[1]); ok {
		if s, isSect := sect.(*iniSect); isSect {
			target = s
		}
	}
	old, _ := target.pop(v[2])
	if err := f.flush(); err != nil {
		return nil, err
	}
	return plainOf(old), nil
}

func iniGetSection(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_section", args, kwargs, iniParams("section")...)
	if err != nil {
		return nil, err
	}
	f, err := iniLoad(ctx, v)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	sect, ok := f.get(v[1])
	if !ok {
		return ret, nil
	}
	s, isSect := sect.(*iniSect)
	if !isSect {
		return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'items'", pyTypeOf(sect))
	}
	for _, k := range s.keys {
		if !strings.HasPrefix(k, "#") {
			ret.Set(k, plainOf(s.vals[k]))
		}
	}
	return ret, nil
}

func iniRemoveSection(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("remove_section", args, kwargs, iniParams("section")...)
	if err != nil {
		return nil, err
	}
	f, err := iniLoad(ctx, v)
	if err != nil {
		return nil, err
	}
	old, ok := f.pop(v[1])
	if !ok {
		return nil, nil
	}
	if err := f.flush(); err != nil {
		return nil, err
	}
	s, isSect := old.(*iniSect)
	if !isSect {
		return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'items'", pyTypeOf(old))
	}
	ret := value.NewMap(0)
	for _, k := range s.keys {
		if !strings.HasPrefix(k, "#") {
			ret.Set(k, plainOf(s.vals[k]))
		}
	}
	return ret, nil
}

func iniGetIni(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_ini", args, kwargs, iniParams()...)
	if err != nil {
		return nil, err
	}
	f, err := iniLoad(ctx, v)
	if err != nil {
		return nil, err
	}
	return f.visible(), nil
}
