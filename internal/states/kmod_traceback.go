package states

import "strings"

// saltException is an exception an execution function raised and the
// state did not catch: Salt's comment then is "An exception occurred in
// this state: " and the traceback, whose last line names the exception
// class and message. brine gives the frames of the state and execution
// functions involved (not Salt's loader frames) and that last line.
type saltException struct {
	frames []string // "salt/states/kmod.py", "present", ... pairs
	err    error
}

// raised wraps err, raised in the execution function (module file and
// function) called by the state function (state file and function).
func raised(err error, frames ...string) error {
	return &saltException{frames: frames, err: err}
}

func (e *saltException) Error() string { return e.err.Error() }

func (e *saltException) Unwrap() error { return e.err }

// PyTraceback is the traceback text of the state's comment.
func (e *saltException) PyTraceback() string {
	cls := "Exception"
	if c, ok := e.err.(interface{ SaltExceptionClass() string }); ok {
		cls = c.SaltExceptionClass()
	}
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for i := 0; i+1 < len(e.frames); i += 2 {
		b.WriteString("  File \"" + e.frames[i] + "\", in " + e.frames[i+1] + "\n")
	}
	b.WriteString(cls + ": " + e.err.Error() + "\n")
	return b.String()
}
