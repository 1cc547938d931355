package compile

import (
	"fmt"
	"strings"

	"brine/internal/value"
)

// VerifyHigh checks the structure of high data (Salt's State.verify_high)
// and returns its error messages in Salt's order.
func VerifyHigh(high *value.Map) []string {
	var errs []string
	type reqEntry struct {
		state string
		vals  *value.Map // req value -> req type
	}
	reqs := map[any]*reqEntry{}
	for i := 0; i < high.Len(); i++ {
		name, b := high.At(i)
		if isDunder(name) {
			continue
		}
		body, isMap := b.(*value.Map)
		sls := func() string {
			if isMap {
				v, _ := body.Get("__sls__")
				return value.Str(v)
			}
			return ""
		}
		if _, ok := name.(string); !ok {
			errs = append(errs, fmt.Sprintf("ID '%s' in SLS '%s' is not formed as a string, but is a %s. It may need to be quoted.",
				value.Str(name), sls(), value.TypeName(name)))
		}
		if !isMap {
			errs = append(errs, fmt.Sprintf("The type %s in %s is not formatted as a dictionary", value.Str(name), value.Str(b)))
			continue
		}
		for j := 0; j < body.Len(); j++ {
			st, run := body.At(j)
			if isDunder(st) {
				continue
			}
			stS := value.Str(st)
			if run == nil {
				errs = append(errs, fmt.Sprintf("ID '%s' in SLS '%s' contains a short declaration (%s) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.",
					value.Str(name), sls(), stS))
				continue
			}
			l, ok := run.(*value.List)
			if !ok {
				errs = append(errs, fmt.Sprintf("State '%s' in SLS '%s' is not formed as a list", value.Str(name), sls()))
				continue
			}
			fun := 0
			if strings.Contains(stS, ".") {
				fun++
			}
			for _, arg := range l.Items {
				switch a := arg.(type) {
				case string:
					fun++
					if strings.Contains(strings.TrimSpace(a), " ") {
						errs = append(errs, fmt.Sprintf("The function \"%s\" in state \"%s\" in SLS \"%s\" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a \":\"",
							a, value.Str(name), sls()))
					}
				case *value.Map:
					af, ok := firstKey(a)
					if !ok {
						continue
					}
					av, _ := a.Get(af)
					if af == "names" {
						if _, ok := av.(*value.List); !ok {
							errs = append(errs, fmt.Sprintf("The 'names' argument in state '%s' in SLS '%s' needs to be formed as a list", value.Str(name), sls()))
						}
					}
					switch af {
					case "require", "watch", "prereq", "onchanges":
						afS := af.(string)
						rl, ok := av.(*value.List)
						if !ok {
							errs = append(errs, fmt.Sprintf("The %s statement in state '%s' in SLS '%s' needs to be formed as a list", afS, value.Str(name), sls()))
						} else {
							entry := &reqEntry{state: stS, vals: value.NewMap(0)}
							if value.Hashable(name) {
								reqs[value.HashKey(name)] = entry
							}
							for _, req := range rl.Items {
								if s, ok := req.(string); ok {
									req = value.MapOf("id", s)
								}
								rm, ok := req.(*value.Map)
								if !ok {
									errs = append(errs, fmt.Sprintf("Requisite declaration %s in SLS %s is not formed as a single key dictionary", value.Str(req), sls()))
									continue
								}
								rk, ok := firstKey(rm)
								if !ok {
									continue
								}
								rv, _ := rm.Get(rk)
								rkS := value.Str(rk)
								if strings.Contains(rkS, ".") {
									errs = append(errs, fmt.Sprintf("Invalid requisite type '%s' in state '%s', in SLS '%s'. Requisite types must not contain dots, did you mean '%s'?",
										rkS, value.Str(name), sls(), rkS[:strings.Index(rkS, ".")]))
								}
								if !value.Hashable(rv) {
									errs = append(errs, fmt.Sprintf("Illegal requisite \"%s\", please check your syntax.\n", value.Str(rv)))
									continue
								}
								entry.vals.Set(rv, rk)
								other, ok := reqs[value.HashKey(rv)]
								if !ok {
									continue
								}
								if back, ok := other.vals.Get(name); ok && value.Equal(back, stS) {
									if mine, _ := entry.vals.Get(rv); value.Equal(other.state, mine) {
										errs = append(errs, fmt.Sprintf("A recursive requisite was found, SLS \"%s\" ID \"%s\" ID \"%s\"", sls(), value.Str(name), value.Str(rv)))
									}
								}
							}
						}
						if a.Len() != 1 {
							errs = append(errs, fmt.Sprintf("Multiple dictionaries defined in argument of state '%s' in SLS '%s'", value.Str(name), sls()))
						}
					}
				}
			}
			if fun == 0 {
				if stS == "require" || stS == "watch" {
					continue
				}
				errs = append(errs, fmt.Sprintf("No function declared in state '%s' in SLS '%s'", stS, sls()))
			} else if fun > 1 {
				errs = append(errs, fmt.Sprintf("Too many functions declared in state '%s' in SLS '%s'", stS, sls()))
			}
		}
	}
	return errs
}
