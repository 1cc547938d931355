package execmod

import "fmt"

// UnavailableError is a call of a function whose module Salt would not
// have loaded on this minion (its __virtual__ returned False, with
// Reason). salt-call prints Error() alone and exits 255, as for a
// function it does not know.
type UnavailableError struct {
	Module string
	Reason string
	// Function, when set, is the function called: Salt keys the reasons
	// by module file name, so for a module whose file is named otherwise
	// (debconfmod.py is "debconf") it only says the function is not
	// available.
	Function string
}

// Error is Salt's missing_fun_string for a module left out by __virtual__.
func (e *UnavailableError) Error() string {
	if e.Function != "" {
		return fmt.Sprintf("'%s' is not available.", e.Function)
	}
	if e.Reason == "" {
		return fmt.Sprintf("'%s' __virtual__ returned False", e.Module)
	}
	return fmt.Sprintf("'%s' __virtual__ returned False: %s", e.Module, e.Reason)
}
