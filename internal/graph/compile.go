package graph

import (
	"fmt"
	"regexp"
	"strings"

	"brine/internal/compile"
	"brine/internal/highstate"
	"brine/internal/top"
	"brine/internal/value"
)

// CompileError is a compile that produced no low chunks: the messages
// are Salt's, as state.show_lowstate would list them.
type CompileError struct {
	Messages []string
}

func (e *CompileError) Error() string {
	return "the state tree does not compile:\n" + strings.Join(e.Messages, "\n")
}

var reRecursive = regexp.MustCompile(`^A recursive requisite was found`)

// Compile renders and compiles the low chunks a run would execute, as
// state.sls (sls given, in the run's saltenv, base when unset) or
// state.highstate (no sls) compile them before running: render, extend,
// verify, requisite_in, exclude, low chunks. Messages that leave the
// chunks usable (an extend or *_in naming a missing ID, a direct
// requisite cycle) are returned as notes; any other message is a
// *CompileError.
func Compile(r *highstate.Run, sls []string) (chunks []*value.Map, notes []string, err error) {
	var matches *value.Map
	var fatal []string
	if len(sls) > 0 {
		matches = r.SLSMatches(sls)
	} else {
		t := r.GetTop()
		fatal = append(fatal, top.Verify(t)...)
		matches, err = r.TopMatches(t)
		if err != nil {
			return nil, nil, fmt.Errorf("matching the top file: %w", err)
		}
	}
	high, errs := r.RenderHighstate(matches)
	fatal = append(fatal, errs...)
	if high == nil {
		high = value.NewMap(0)
	}
	high, errs = compile.ReconcileExtend(high, false)
	notes = append(notes, errs...)
	for _, v := range compile.VerifyHigh(high) {
		if reRecursive.MatchString(v) {
			notes = append(notes, v)
		} else {
			fatal = append(fatal, v)
		}
	}
	if len(fatal) > 0 {
		return nil, notes, &CompileError{Messages: fatal}
	}
	high, errs = compile.RequisiteIn(high, disabled(r.Opts))
	notes = append(notes, errs...)
	high = compile.ApplyExclude(high)
	return compile.CompileHighData(high), notes, nil
}

// disabled returns the disabled_requisites option.
func disabled(opts *value.Map) []string {
	if opts == nil {
		return nil
	}
	v, _ := opts.Get("disabled_requisites")
	var out []string
	switch x := v.(type) {
	case *value.List:
		for _, e := range x.Items {
			out = append(out, pyStr(e))
		}
	case string:
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// DisabledRequisites returns the disabled_requisites option of opts, for
// Options.DisabledRequisites.
func DisabledRequisites(opts *value.Map) []string { return disabled(opts) }
