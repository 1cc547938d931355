package pyops

import (
	"fmt"

	"brine/internal/value"
)

// Error is a Python exception raised by an operation.
type Error struct {
	Type string // Python exception class name: TypeError, ValueError, ...
	Msg  string // the exception message, as CPython words it
}

// Error returns the message alone, as str(exc) does in Python.
func (e *Error) Error() string { return e.Msg }

// Traceback returns the exception as the last line of a Python traceback
// prints it: "TypeError: message" (or just the type when the message is
// empty).
func (e *Error) Traceback() string {
	if e.Msg == "" {
		return e.Type
	}
	return e.Type + ": " + e.Msg
}

func newErr(typ, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Type: typ, Msg: format}
	}
	return &Error{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

func typeErr(format string, args ...any) *Error  { return newErr("TypeError", format, args...) }
func valueErr(format string, args ...any) *Error { return newErr("ValueError", format, args...) }

// keyErr is KeyError(key): Python prints the key's repr.
func keyErr(key any) *Error { return &Error{Type: "KeyError", Msg: value.Repr(key)} }

// TypeNamer lets a foreign type (Jinja's Undefined, Markup, ...) name its
// Python type in error messages.
type TypeNamer interface{ PyTypeName() string }

// TypeName is Python's type(v).__name__, honouring TypeNamer.
func TypeName(v any) string {
	if n, ok := v.(TypeNamer); ok {
		return n.PyTypeName()
	}
	return value.TypeName(v)
}
