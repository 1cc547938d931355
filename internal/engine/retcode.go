package engine

import (
	"brine/internal/value"
)

// Salt's exit codes (salt/defaults/exitcodes.py) that a state run sets.
const (
	ExOK                 = 0
	ExStateCompilerError = 1
	ExStateFailure       = 2
)

// StateRetcode is the retcode the state execution functions (state.sls,
// state.apply, ...) put in __context__ for their return, as
// salt/modules/state.py's _set_retcode does: ExStateCompilerError for a
// list of errors, ExStateFailure when CheckResult fails, else ExOK. high,
// when not nil, is the high data of the run (onfail_stop handling).
//
// salt-call then exits 1 for any non-zero retcode, or with the retcode
// itself under --retcode-passthrough (see ExitCode).
func StateRetcode(ret any, high *value.Map) int {
	if _, isList := ret.(*value.List); isList {
		return ExStateCompilerError
	}
	if !CheckResult(ret, high) {
		return ExStateFailure
	}
	return ExOK
}

// ExitCode is salt-call's process exit status for a function's retcode.
func ExitCode(retcode int, passthrough bool) int {
	if passthrough || retcode == 0 {
		return retcode
	}
	return 1
}

// CheckResult is salt.utils.state.check_result: false when the running
// dictionary is empty or not a dictionary, or when a state failed that no
// onfail handler with onfail_stop: False took care of.
func CheckResult(running any, high *value.Map) bool {
	return checkResult(running, false, high)
}

func checkResult(running any, recurse bool, high *value.Map) bool {
	m, ok := running.(*value.Map)
	if !ok || m.Len() == 0 {
		return false
	}
	ret := true
	for i := 0; i < m.Len(); i++ {
		k, v := m.At(i)
		id := pyStr(k)
		sr, isMap := v.(*value.Map)
		if id == "__extend__" {
			_, isList := v.(*value.List)
			if !recurse && !isList {
				ret = false
			}
		} else if !recurse && !isMap {
			ret = false
		}
		if ret && isMap {
			res, has := sr.Get("result")
			if has && res == false {
				ret = false
			} else if !has && ret {
				ret = checkResult(sr, true, high)
			}
		}
		if !ret {
			ret = checkOnfailRequisites(id, v, m, high) == 1
		}
		if !ret {
			break
		}
	}
	return ret
}

// checkOnfailRequisites is salt.utils.state.check_onfail_requisites:
// 1 when onfail handlers (with onfail_stop: False) succeeded, 0 when one
// failed, -1 when there are none.
func checkOnfailRequisites(stateID string, stateResult any, running *value.Map, high *value.Map) int {
	if stateID == "" || !value.Truthy(stateResult) || high == nil {
		return -1
	}
	onfails := searchOnfailRequisites(stateID, high)
	if len(onfails) == 0 {
		return -1
	}
	nret := -1
	for _, h := range onfails {
		for i := 0; i < running.Len(); i++ {
			k, v := running.At(i)
			rid := pyStr(k)
			var state, id string
			if st, sid, _, _, ok := SplitTag(rid); ok {
				state, id = st, sid
			} else {
				rm, _ := v.(*value.Map)
				id = rid
				if rm != nil {
					if x, ok := rm.Get("__id__"); ok && value.Truthy(x) {
						id = pyStr(x)
					}
				}
				state = h.mod
			}
			if h.mod == state && h.id == id {
				rm, _ := v.(*value.Map)
				res, has := rm.Get("result")
				if has && res == true {
					nret = 1
				}
				if has && res == false {
					nret = 0
					break
				}
			}
		}
		if nret == -1 {
			nret = 0
		}
	}
	return nret
}

type onfailHandler struct{ id, mod string }

func searchOnfailRequisites(sid string, high *value.Map) []onfailHandler {
	var out []onfailHandler
	var st, id string
	if s, i, _, _, ok := SplitTag(sid); ok {
		st, id = s, i
	} else {
		id = sid
	}
	high.Range(func(fk, fv any) bool {
		fstate := pyStr(fk)
		if fstate == id {
			return true
		}
		body, ok := fv.(*value.Map)
		if !ok {
			return true
		}
		body.Range(func(mk, mv any) bool {
			mod, ok := mk.(string)
			if !ok || len(mod) >= 2 && mod[:2] == "__" {
				return true
			}
			items := asList(mv)
			handled := false
			for _, it := range items {
				fd, ok := it.(*value.Map)
				if !ok {
					continue
				}
				stop, has := fd.Get("onfail_stop")
				handled = has && stop == false
				if handled {
					break
				}
			}
			if !handled {
				return true
			}
			for _, it := range items {
				fd, ok := it.(*value.Map)
				if !ok {
					continue
				}
				of, ok := fd.Get("onfail")
				if !ok {
					continue
				}
				for _, fr := range asList(of) {
					frm, ok := fr.(*value.Map)
					if !ok {
						continue
					}
					frm.Range(func(fmod, fid any) bool {
						if pyStr(fid) == id && (st == "" || pyStr(fmod) == st) {
							out = append(out, onfailHandler{id: fstate, mod: mod})
						}
						return true
					})
				}
			}
			return true
		})
		return true
	})
	return out
}
