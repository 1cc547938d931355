package pyext

import (
	"strings"

	"brine/internal/value"
)

// PyError is an exception raised by Python code.
type PyError struct {
	Type      string // "ValueError", "salt.exceptions.CommandExecutionError"
	Msg       string // str(exc)
	Traceback string // traceback.format_exc()
}

// Error returns the exception's message, as str(exc).
func (e *PyError) Error() string { return e.Msg }

// SaltExceptionClass names the exception class (for brine's callers that
// treat Salt's exceptions apart).
func (e *PyError) SaltExceptionClass() string { return e.Type }

// IsCommandExecutionError reports whether the exception is Salt's
// CommandExecutionError (or a subclass brine knows of).
func (e *PyError) IsCommandExecutionError() bool {
	return strings.HasSuffix(e.Type, "CommandExecutionError")
}

// PyTraceback returns the traceback text Salt shows for the exception.
func (e *PyError) PyTraceback() string { return e.Traceback }

func pyErrorFrom(m *value.Map) *PyError {
	s := func(k string) string {
		v, _ := m.Get(k)
		str, _ := v.(string)
		return str
	}
	return &PyError{Type: s("type"), Msg: s("msg"), Traceback: s("tb")}
}
