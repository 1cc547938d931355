package jinjasalt

import (
	"fmt"
	"strings"

	"brine/internal/pyops"
	"brine/internal/value"
)

// Python exception types raised by Salt's filters and tags, as the last line
// of a traceback names them.
const (
	excTemplateError  = "salt.exceptions.TemplateError"
	excInvocation     = "salt.exceptions.SaltInvocationError"
	excRuntime        = "jinja2.exceptions.TemplateRuntimeError"
	excRecursion      = "RecursionError"
	excTypeError      = "TypeError"
	excValueError     = "ValueError"
	excKeyError       = "KeyError"
	excIndexError     = "IndexError"
	excAttributeError = "AttributeError"
	excUnicodeError   = "UnicodeDecodeError"
	excRuntimeError   = "RuntimeError"
	excNotImplemented = "NotImplementedError"
	excOSError        = "OSError"
	excBinasciiError  = "binascii.Error"
	excRegexError     = "re.error"
	excFileNotFound   = "FileNotFoundError"
	excOverflowError  = "OverflowError"
	excZeroDivision   = "ZeroDivisionError"
)

// pyErr builds a Python exception.
func pyErr(typ, format string, args ...any) error {
	if len(args) > 0 {
		format = fmt.Sprintf(format, args...)
	}
	return &pyops.Error{Type: typ, Msg: format}
}

// required marks a parameter without a default.
type requiredT struct{}

var required = requiredT{}

// sig describes a Python function signature for argument binding.
type sig struct {
	py     string // Python function name, as error messages show it
	names  []string
	defs   []any // one per name: required or the default value
	varArg bool  // accepts *args beyond names
	varKw  bool  // accepts **kwargs beyond names
}

// newSig builds a signature from alternating names and defaults; use
// required for parameters without a default.
func newSig(py string, namesDefs ...any) *sig {
	s := &sig{py: py}
	for i := 0; i+1 < len(namesDefs); i += 2 {
		s.names = append(s.names, namesDefs[i].(string))
		s.defs = append(s.defs, namesDefs[i+1])
	}
	return s
}

func (s *sig) withVarKw() *sig { s.varKw = true; return s }

// bound is the result of binding a call's arguments to a signature.
type bound struct {
	vals  []any      // one per name
	rest  []any      // extra positional arguments (*args)
	extra *value.Map // extra keyword arguments (**kwargs)
}

// bind matches positional and keyword arguments to s as Python does, with
// Python's error messages.
func (s *sig) bind(args []any, kw *value.Map) (*bound, error) {
	b := &bound{vals: make([]any, len(s.names))}
	set := make([]bool, len(s.names))
	n := len(args)
	if n > len(s.names) {
		if !s.varArg {
			return nil, s.tooMany(len(args))
		}
		b.rest = args[len(s.names):]
		n = len(s.names)
	}
	for i := 0; i < n; i++ {
		b.vals[i], set[i] = args[i], true
	}
	var err error
	kw.Range(func(k, v any) bool {
		name, _ := k.(string)
		for i, pn := range s.names {
			if pn == name {
				if set[i] {
					err = pyErr(excTypeError, "%s() got multiple values for argument '%s'", s.py, name)
					return false
				}
				b.vals[i], set[i] = v, true
				return true
			}
		}
		if !s.varKw {
			err = pyErr(excTypeError, "%s() got an unexpected keyword argument '%s'", s.py, name)
			return false
		}
		if b.extra == nil {
			b.extra = value.NewMap(2)
		}
		b.extra.Set(k, v)
		return true
	})
	if err != nil {
		return nil, err
	}
	var missing []string
	for i := range s.names {
		if set[i] {
			continue
		}
		if s.defs[i] == required {
			missing = append(missing, "'"+s.names[i]+"'")
			continue
		}
		b.vals[i] = s.defs[i]
	}
	if len(missing) > 0 {
		word := "argument"
		if len(missing) > 1 {
			word = "arguments"
		}
		list := missing[0]
		if len(missing) > 1 {
			list = strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1]
		}
		return nil, pyErr(excTypeError, "%s() missing %d required positional %s: %s", s.py, len(missing), word, list)
	}
	return b, nil
}

func (s *sig) tooMany(given int) error {
	req := 0
	for _, d := range s.defs {
		if d == required {
			req++
		}
	}
	takes := fmt.Sprint(len(s.names))
	if req != len(s.names) {
		takes = fmt.Sprintf("from %d to %d", req, len(s.names))
	}
	word := "arguments"
	if len(s.names) == 1 && req == 1 {
		word = "argument"
	}
	were := "were"
	if given == 1 {
		were = "was"
	}
	return pyErr(excTypeError, "%s() takes %s positional %s but %d %s given", s.py, takes, word, given, were)
}

// fn wraps an implementation taking bound arguments into a value.Func.
func (s *sig) fn(impl func(b *bound) (any, error)) value.Func {
	return func(args []any, kw *value.Map) (any, error) {
		b, err := s.bind(args, kw)
		if err != nil {
			return nil, err
		}
		return impl(b)
	}
}

// filter registers a filter with signature s.
func filter(name, salt string, s *sig, impl func(b *bound) (any, error)) {
	register(Filter, name, salt, s.fn(impl))
	sigs[Filter][name] = s
}

// sigs keeps the signatures of filters and tests, to bind the arguments
// of a call given an undefined value (onUndefined).
var sigs = [2]map[string]*sig{{}, {}}

// test registers a test with signature s.
func test(name, salt string, s *sig, impl func(b *bound) (any, error)) {
	register(Test, name, salt, s.fn(impl))
	sigs[Test][name] = s
}
