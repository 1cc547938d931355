// Package saltspec knows which execution and state functions Salt 3006 has
// and the argument lists of their Python signatures, so that brine can tell
// "Salt has this, brine does not implement it yet" from "this does not
// exist", and name the arguments a state function takes.
//
// The table, salt3006.jsonl, is generated from Salt's source by
// tools/saltspec/gen.py (its doc comment says how to rerun it) and embedded.
// Nothing is parsed until the first lookup: then the lines are indexed by
// their prefix, and a module's line is decoded only when one of its
// functions is asked for.
package saltspec

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:embed salt3006.jsonl
var data string

// Kind is the kind of a Salt function.
type Kind int

const (
	// Exec is an execution function (salt/modules, Salt's __salt__).
	Exec Kind = iota
	// State is a state function (salt/states).
	State
)

// String returns "execution" or "state", as the messages say it.
func (k Kind) String() string {
	if k == State {
		return "state"
	}
	return "execution"
}

// Param is one parameter of a Python signature.
type Param struct {
	Name string
	// Default is the default value as Python source ("None", "''");
	// HasDefault is false for a required parameter.
	Default    string
	HasDefault bool
}

// UnmarshalJSON reads "name" or ["name", "default"].
func (p *Param) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &p.Name)
	}
	var pair []string
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("saltspec: bad parameter %s", b)
	}
	p.Name, p.Default, p.HasDefault = pair[0], pair[1], true
	return nil
}

// Spec is one signature of a function: a module merged from several
// source files (pkg from aptpkg.py, yumpkg.py, ...) can have several.
type Spec struct {
	Args   []Param `json:"args"`
	KwOnly []Param `json:"kwonly"`
	// Varargs and Kwargs are the names of *args and **kwargs, "" when the
	// function takes none.
	Varargs string `json:"varargs"`
	Kwargs  string `json:"kwargs"`
	// Reads are the keys a **kwargs function reads from its kwargs (or
	// hands to functions that take them), as far as the source shows.
	Reads []string `json:"reads"`
	// Sources are the files with this signature, when the module has
	// several (else Module.Sources).
	Sources []string `json:"src"`
}

// Function is one public function of a Salt module.
type Function struct {
	Kind   Kind
	Module string
	Name   string
	Specs  []Spec
}

// Full returns "module.function".
func (f *Function) Full() string { return f.Module + "." + f.Name }

// TakesKwargs reports whether any signature takes **kwargs.
func (f *Function) TakesKwargs() bool {
	for _, s := range f.Specs {
		if s.Kwargs != "" {
			return true
		}
	}
	return false
}

// Accepts reports whether some signature names arg as a parameter
// (positional or keyword-only).
func (f *Function) Accepts(arg string) bool {
	for _, s := range f.Specs {
		for _, l := range [2][]Param{s.Args, s.KwOnly} {
			for _, p := range l {
				if p.Name == arg {
					return true
				}
			}
		}
	}
	return false
}

// ParamNames returns the named parameters of all signatures, each once, in
// signature order.
func (f *Function) ParamNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range f.Specs {
		for _, l := range [2][]Param{s.Args, s.KwOnly} {
			for _, p := range l {
				if !seen[p.Name] {
					seen[p.Name] = true
					out = append(out, p.Name)
				}
			}
		}
	}
	return out
}

// Keywords returns the parameter names and the keys read from **kwargs:
// every keyword argument the function is known to use.
func (f *Function) Keywords() []string {
	out := f.ParamNames()
	seen := map[string]bool{}
	for _, n := range out {
		seen[n] = true
	}
	for _, s := range f.Specs {
		for _, r := range s.Reads {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// Module is one Salt module of one kind.
type Module struct {
	Kind Kind
	Name string
	// Sources are the files of salt/modules or salt/states that provide
	// the module.
	Sources   []string
	Functions map[string]*Function
}

// FunctionNames returns the module's function names, sorted.
func (m *Module) FunctionNames() []string {
	out := make([]string, 0, len(m.Functions))
	for n := range m.Functions {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// db is the table: the embedded lines, indexed on first use.
type db struct {
	text string

	once   sync.Once
	header struct{ Salt, Origin string }
	lines  [2]map[string]string // kind -> module -> its JSON line
	names  [2][]string          // kind -> sorted module names

	mu      sync.Mutex
	modules [2]map[string]*Module // decoded modules
}

var std = &db{text: data}

func (d *db) index() {
	d.once.Do(func() {
		for k := range d.lines {
			d.lines[k] = map[string]string{}
			d.modules[k] = map[string]*Module{}
		}
		text := d.text
		first := true
		for text != "" {
			line, rest, _ := strings.Cut(text, "\n")
			text = rest
			if line == "" {
				continue
			}
			if first {
				first = false
				_ = json.Unmarshal([]byte(line), &d.header)
				continue
			}
			kind, mod, ok := linePrefix(line)
			if !ok {
				continue
			}
			d.lines[kind][mod] = line
			d.names[kind] = append(d.names[kind], mod)
		}
		for k := range d.names {
			sort.Strings(d.names[k])
		}
	})
}

// linePrefix reads `{"kind":"exec","module":"NAME",` without decoding the
// line (module names are plain identifiers, never escaped).
func linePrefix(line string) (Kind, string, bool) {
	var kind Kind
	switch {
	case strings.HasPrefix(line, `{"kind":"exec","module":"`):
		kind, line = Exec, line[len(`{"kind":"exec","module":"`):]
	case strings.HasPrefix(line, `{"kind":"state","module":"`):
		kind, line = State, line[len(`{"kind":"state","module":"`):]
	default:
		return 0, "", false
	}
	mod, _, ok := strings.Cut(line, `"`)
	return kind, mod, ok && mod != ""
}

func (d *db) module(kind Kind, name string) *Module {
	d.index()
	line, ok := d.lines[kind][name]
	if !ok {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.modules[kind][name]; ok {
		return m
	}
	var raw struct {
		Sources   []string          `json:"sources"`
		Functions map[string][]Spec `json:"functions"`
	}
	if err := json.Unmarshal([]byte(line), &raw); err != nil {
		// The table is generated and tested; a broken line is a bug.
		panic(fmt.Sprintf("saltspec: %s module %q: %v", kind, name, err))
	}
	m := &Module{Kind: kind, Name: name, Sources: raw.Sources, Functions: make(map[string]*Function, len(raw.Functions))}
	for fn, specs := range raw.Functions {
		m.Functions[fn] = &Function{Kind: kind, Module: name, Name: fn, Specs: specs}
	}
	d.modules[kind][name] = m
	return m
}

func (d *db) lookup(kind Kind, full string) *Function {
	mod, fun, ok := strings.Cut(full, ".")
	if !ok {
		return nil
	}
	m := d.module(kind, mod)
	if m == nil {
		return nil
	}
	return m.Functions[fun]
}

// SaltVersion is the Salt release the table was generated from ("3006").
func SaltVersion() string { std.index(); return std.header.Salt }

// Origin says which source tree the table was generated from.
func Origin() string { std.index(); return std.header.Origin }

// Lookup returns Salt's function full ("file.managed") of the given kind.
func Lookup(kind Kind, full string) (*Function, bool) {
	f := std.lookup(kind, full)
	return f, f != nil
}

// Exists reports whether Salt 3006 has the function full of the kind.
func Exists(kind Kind, full string) bool { return std.lookup(kind, full) != nil }

// LookupModule returns Salt's module name of the kind.
func LookupModule(kind Kind, name string) (*Module, bool) {
	m := std.module(kind, name)
	return m, m != nil
}

// HasModule reports whether Salt 3006 has a module name of the kind.
func HasModule(kind Kind, name string) bool {
	std.index()
	_, ok := std.lines[kind][name]
	return ok
}

// Modules returns the names of Salt's modules of the kind, sorted.
func Modules(kind Kind) []string {
	std.index()
	return append([]string(nil), std.names[kind]...)
}

// FunctionNames returns the function names of Salt's module mod of the
// kind, sorted (nil when there is no such module).
func FunctionNames(kind Kind, mod string) []string {
	m := std.module(kind, mod)
	if m == nil {
		return nil
	}
	return m.FunctionNames()
}

// NotImplemented returns "X is a Salt 3006 <kind> function that brine does
// not implement yet" when Salt has full, else "". Callers ask it after
// their registry did not have full.
func NotImplemented(kind Kind, full string) string {
	if !Exists(kind, full) {
		return ""
	}
	return fmt.Sprintf("%s is a Salt %s %s function that brine does not implement yet", full, SaltVersion(), kind)
}

// InvalidKwargs returns the keys that Salt 3006's minion would refuse as
// keyword arguments of the execution function full (load_args_and_kwargs:
// a key is valid when the function takes **kwargs or names it as a
// parameter), in the order given. Functions Salt does not have, and keys
// starting with "__", are never refused.
func InvalidKwargs(full string, keys []string) []string {
	f := std.lookup(Exec, full)
	if f == nil || f.TakesKwargs() {
		return nil
	}
	var bad []string
	for _, k := range keys {
		if !strings.HasPrefix(k, "__") && !f.Accepts(k) {
			bad = append(bad, k)
		}
	}
	return bad
}
