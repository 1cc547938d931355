package jinjasalt

import (
	"strings"

	"brine/internal/value"
)

// Funcs finds an execution function by its "module.function" name, as
// Salt's loader (__salt__) does.
type Funcs func(name string) (value.Callable, bool)

// saltObject is the `salt` template variable: salt['pillar.get'](...),
// salt.pillar.get(...), salt['pillar'].get(...). Missing names are
// undefined, so calling one fails as Salt's AliasedLoader does:
// "'salt.utils.templates.AliasedLoader object' has no attribute 'nope.fn'".
type saltObject struct {
	funcs   Funcs
	modules func(mod string) bool
}

// NewSaltObject returns the object templates see as `salt`. hasModule
// reports whether a module has any function (nil: every module exists).
func NewSaltObject(funcs Funcs, hasModule func(mod string) bool) any {
	return &saltObject{funcs: funcs, modules: hasModule}
}

// Getitem is salt['mod.fun'].
func (s *saltObject) Getitem(key any) (any, bool, error) {
	name, ok := key.(string)
	if !ok || s.funcs == nil {
		return nil, false, nil
	}
	if !strings.Contains(name, ".") {
		return nil, false, nil // Salt's KeyError; Jinja then tries getattr
	}
	fn, ok := s.funcs(name)
	if !ok {
		return nil, false, nil
	}
	return fn, true, nil
}

// Getattr is salt.mod: an object whose attributes are the module's
// functions.
func (s *saltObject) Getattr(name string) (any, bool) {
	if strings.Contains(name, ".") || s.funcs == nil {
		return nil, false
	}
	if s.modules != nil && !s.modules(name) {
		return nil, false
	}
	return &saltModule{s: s, mod: name}, true
}

// Contains is `'mod.fun' in salt`.
func (s *saltObject) Contains(key any) bool {
	name, ok := key.(string)
	if !ok || s.funcs == nil {
		return false
	}
	_, ok = s.funcs(name)
	return ok
}

// PyTypeName names the object in Jinja's undefined messages.
func (s *saltObject) PyTypeName() string { return "salt.utils.templates.AliasedLoader" }

// Repr prints the object as Python would (without the address).
func (s *saltObject) Repr() string { return "<salt.utils.templates.AliasedLoader object>" }

// saltModule is salt.mod.
type saltModule struct {
	s   *saltObject
	mod string
}

// Getattr returns mod.fun.
func (m *saltModule) Getattr(name string) (any, bool) {
	fn, ok := m.s.funcs(m.mod + "." + name)
	if !ok {
		return nil, false
	}
	return fn, true
}

// PyTypeName names the object in Jinja's undefined messages.
func (m *saltModule) PyTypeName() string { return "salt.loader.lazy.LoadedMod" }

// Repr prints the module object.
func (m *saltModule) Repr() string { return "<salt.loader.lazy.LoadedMod object>" }

// Iterate is iter(salt): the AliasedLoader has no __iter__, so Python
// falls back to salt[0], which the loader refuses. `salt is iterable`
// is therefore true while looping over it fails as Salt's does.
func (s *saltObject) Iterate() ([]any, error) {
	return nil, pyErr(excKeyError, "%s", value.Repr("The key must be a string."))
}
