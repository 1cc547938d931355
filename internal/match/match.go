// Package match decides whether a target expression selects this minion, as
// Salt's matchers do (salt/matchers/*.py): glob, pcre, list, grain,
// grain_pcre, pillar, pillar_pcre, pillar_exact, ipcidr, nodegroup, data and
// compound expressions joining them with and/or/not and parentheses.
//
// State tops use it now; pillar tops and fleet targeting use the same entry
// points. A matcher never fails: a malformed target simply does not match,
// as in Salt, where the problem is only logged.
//
// Typical use:
//
//	c := &match.Context{ID: "web01", Grains: grains, Pillar: pillar}
//	ok := match.Compound(c, "web* and G@os:Debian")
//	ok, err := match.ConfirmTop(c, "web*", []any{"sls1", value.MapOf("match", "glob")})
package match

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"brine/internal/value"
)

// DefaultDelim is the traversal delimiter of grain and pillar targets.
const DefaultDelim = ":"

// Context is what a minion knows about itself when it is targeted.
type Context struct {
	// ID is the minion id.
	ID string
	// Grains and Pillar are the minion's data; nil means empty.
	Grains *value.Map
	Pillar *value.Map
	// Nodegroups maps a nodegroup name to its definition: a compound
	// string or a list of words (the minion's `nodegroups` option).
	Nodegroups *value.Map
	// Data is data.getval for the data matcher; nil means an empty store.
	Data func(key string) (any, bool)
}

// Func reports whether tgt selects the minion described by c. delim is the
// traversal delimiter for the engines that use one (grain, pillar, ...).
type Func func(c *Context, tgt any, delim string) bool

// Matcher is one registered matcher.
type Matcher struct {
	// Name is the name used in `- match: NAME` and in Salt's tgt_type.
	Name string
	// Doc is a one-line description.
	Doc string
	// Match is the matching function.
	Match Func
}

var (
	regMu    sync.RWMutex
	registry = map[string]Matcher{}
)

// Register adds a matcher; it panics on an empty or duplicate name.
func Register(m Matcher) {
	regMu.Lock()
	defer regMu.Unlock()
	if m.Name == "" || m.Match == nil {
		panic("match: Register with empty name or nil func")
	}
	if _, dup := registry[m.Name]; dup {
		panic("match: duplicate matcher " + m.Name)
	}
	registry[m.Name] = m
}

// Lookup returns the matcher registered under name.
func Lookup(name string) (Matcher, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	m, ok := registry[name]
	return m, ok
}

// Names returns the registered matcher names, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Match runs the matcher called kind on tgt with the default delimiter.
// An unknown kind is an error (Salt raises a KeyError there).
func Match(c *Context, kind string, tgt any) (bool, error) {
	m, ok := Lookup(kind)
	if !ok {
		return false, fmt.Errorf("unknown matcher %q", kind)
	}
	return m.Match(c, tgt, DefaultDelim), nil
}

// ConfirmTop is Salt's confirm_top: the matcher is compound unless one of
// the dict items in data carries a `match` key (the last one wins); tgt is
// the top file target.
func ConfirmTop(c *Context, tgt any, data []any) (bool, error) {
	kind := "compound"
	for _, item := range data {
		if m, ok := item.(*value.Map); ok {
			if v, ok := m.Get("match"); ok {
				s, ok := v.(string)
				if !ok {
					return false, fmt.Errorf("unknown matcher %s", value.Repr(v))
				}
				kind = s
			}
		}
	}
	return Match(c, kind, tgt)
}

func init() {
	for _, m := range []Matcher{
		{Name: "glob", Doc: "fnmatch the minion id", Match: globMatch},
		{Name: "pcre", Doc: "regular expression match (from the start) of the minion id", Match: pcreMatch},
		{Name: "list", Doc: "the minion id in a comma-separated list", Match: listMatch},
		{Name: "grain", Doc: "glob match of a grain value (key:value)", Match: subdictMatcher(grainsOf, modeGlob)},
		{Name: "grain_pcre", Doc: "regex match of a grain value", Match: subdictMatcher(grainsOf, modeRegex)},
		{Name: "pillar", Doc: "glob match of a pillar value", Match: subdictMatcher(pillarOf, modeGlob)},
		{Name: "pillar_pcre", Doc: "regex match of a pillar value", Match: subdictMatcher(pillarOf, modeRegex)},
		{Name: "pillar_exact", Doc: "exact match of a pillar value", Match: subdictMatcher(pillarOf, modeExact)},
		{Name: "ipcidr", Doc: "an address or subnet against the ipv4/ipv6 grains", Match: ipcidrMatch},
		{Name: "nodegroup", Doc: "a nodegroup from the minion's nodegroups option", Match: nodegroupMatch},
		{Name: "data", Doc: "a key:glob against the minion data store", Match: dataMatch},
		{Name: "compound", Doc: "and/or/not expression of engine-prefixed words", Match: func(c *Context, tgt any, _ string) bool { return Compound(c, tgt) }},
	} {
		Register(m)
	}
}

func globMatch(c *Context, tgt any, _ string) bool {
	s, ok := tgt.(string)
	if !ok {
		return false
	}
	return Fnmatch(c.ID, s)
}

var reCache sync.Map // string -> *regexp.Regexp or nil

// pyRegexp compiles a Python regular expression for re.match (anchored at
// the start only); nil when Go's engine cannot take it.
func pyRegexp(pat string) *regexp.Regexp {
	if re, ok := reCache.Load(pat); ok {
		r, _ := re.(*regexp.Regexp)
		return r
	}
	var re *regexp.Regexp
	if tr, ok := pyToRE2(pat); ok {
		var err error
		if re, err = regexp.Compile(`\A(?:` + tr + `)`); err != nil {
			re = nil
		}
	}
	reCache.Store(pat, re)
	return re
}

// pyToRE2 rewrites the Python escapes RE2 spells differently: \Z (end of
// string) is RE2's \z, while \z is a bad escape in Python (ok is false).
func pyToRE2(pat string) (string, bool) {
	if !strings.Contains(pat, `\Z`) && !strings.Contains(pat, `\z`) {
		return pat, true
	}
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		if pat[i] == '\\' && i+1 < len(pat) {
			switch pat[i+1] {
			case 'Z':
				b.WriteString(`\z`)
			case 'z':
				return "", false
			default:
				b.WriteString(pat[i : i+2])
			}
			i++
			continue
		}
		b.WriteByte(pat[i])
	}
	return b.String(), true
}

func pcreMatch(c *Context, tgt any, _ string) bool {
	s, ok := tgt.(string)
	if !ok {
		return false
	}
	re := pyRegexp(s)
	return re != nil && re.MatchString(c.ID)
}

func listMatch(c *Context, tgt any, _ string) bool {
	switch t := tgt.(type) {
	case string:
		id := c.ID
		return strings.Contains(t, ","+id+",") || strings.HasPrefix(t, id+",") ||
			strings.HasSuffix(t, ","+id) || t == id
	case *value.List:
		for _, e := range t.Items {
			if value.Equal(e, c.ID) {
				return true
			}
		}
	case value.Tuple:
		for _, e := range t {
			if value.Equal(e, c.ID) {
				return true
			}
		}
	}
	return false
}

func grainsOf(c *Context) *value.Map { return c.Grains }
func pillarOf(c *Context) *value.Map { return c.Pillar }

func subdictMatcher(data func(*Context) *value.Map, mode int) Func {
	return func(c *Context, tgt any, delim string) bool {
		s, ok := tgt.(string)
		if !ok {
			return false
		}
		if delim == "" {
			delim = DefaultDelim
		}
		if !strings.Contains(s, delim) {
			return false
		}
		d := data(c)
		if d == nil {
			d = value.NewMap(0)
		}
		return SubdictMatch(d, s, delim, mode)
	}
}

func dataMatch(c *Context, tgt any, _ string) bool {
	s, ok := tgt.(string)
	if !ok {
		return false
	}
	comps := strings.Split(s, ":")
	if len(comps) < 2 || c.Data == nil {
		return false
	}
	val, ok := c.Data(comps[0])
	if !ok || val == nil {
		return false
	}
	switch v := val.(type) {
	case *value.List:
		for _, m := range v.Items {
			if Fnmatch(strings.ToLower(value.Str(m)), strings.ToLower(comps[1])) {
				return true
			}
		}
		return false
	case *value.Map:
		return v.Has(comps[1])
	case string:
		return Fnmatch(v, comps[1])
	}
	return false
}
