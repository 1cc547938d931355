package jinjasalt

import (
	"brine/internal/jinja"
	"brine/internal/value"
)

// Salt's filters are Python functions that receive a StrictUndefined
// object as it is: most fail on their first use of it (str, iteration,
// truth, comparison: the undefined error), some ask isinstance first and
// answer, some hand it to a C function that refuses it with its own
// words. undefinedFilters and undefinedTests hold what each does that is
// not the plain undefined error, as Salt 3006 behaves (checked with
// testdata/salt_oracle.py). The arguments are bound first, as Python
// does, so a missing argument is reported before the undefined value.

// undefinedFn answers for a filter or test given a strict undefined value
// (u) with its other arguments bound (b; b.vals[0] is u; for entries
// registered without a signature b.rest holds the other arguments).
type undefinedFn func(u *jinja.Undefined, b *bound) (any, error)

func constResult(v any) undefinedFn {
	return func(*jinja.Undefined, *bound) (any, error) { return v, nil }
}

func typeErr(msg string) undefinedFn {
	return func(*jinja.Undefined, *bound) (any, error) { return nil, pyErr(excTypeError, msg) }
}

const (
	errNotBytes    = "expected str, bytes, or bytearray not <class 'jinja2.runtime.StrictUndefined'>"
	errNotString   = "expected string or bytes-like object, got 'StrictUndefined'"
	errStatUndef   = "stat: path should be string, bytes, os.PathLike or integer, not StrictUndefined"
	errNotSequence = "Population must be a sequence.  For dicts or sets, use sorted(d)."
)

var undefinedFilters = map[string]undefinedFn{
	// isinstance checks that fall through to a plain answer
	"to_bool":       constResult(false),
	"is_hex":        constResult(false),
	"is_list":       constResult(false),
	"skip":          constResult(""),
	"ip_host":       constResult(nil),
	"ipaddr":        constResult(nil),
	"ipv4":          constResult(nil),
	"ipv6":          constResult(nil),
	"network_hosts": constResult(nil),
	"network_size":  constResult(nil),
	"python":        func(*jinja.Undefined, *bound) (any, error) { return markup("Undefined"), nil },
	"sequence":      func(u *jinja.Undefined, _ *bound) (any, error) { return value.NewList(u), nil },
	"yaml":          func(*jinja.Undefined, *bound) (any, error) { return markup("NULL"), nil },
	"check_whitelist_blacklist": func(_ *jinja.Undefined, b *bound) (any, error) {
		// no pattern matches an undefined value
		if len(b.vals) > 1 && truthy(b.vals[1]) {
			return false, nil
		}
		return true, nil
	},
	// C functions and library code refusing the object
	"base64_decode":      typeErr(errNotBytes),
	"base64_encode":      typeErr(errNotBytes),
	"md5":                typeErr(errNotBytes),
	"sha1":               typeErr(errNotBytes),
	"sha256":             typeErr(errNotBytes),
	"sha512":             typeErr(errNotBytes),
	"hmac":               typeErr(errNotBytes),
	"hmac_compute":       typeErr(errNotBytes),
	"to_bytes":           typeErr(errNotBytes),
	"uuid":               typeErr(errNotBytes),
	"path_join":          typeErr(errNotBytes),
	"regex_match":        typeErr(errNotString),
	"regex_search":       typeErr(errNotString),
	"regex_replace":      typeErr(errNotString),
	"http_query":         typeErr(errNotString),
	"is_bin_file":        typeErr(errStatUndef),
	"is_empty":           typeErr(errStatUndef),
	"get_uid":            typeErr("getpwnam() argument must be str, not StrictUndefined"),
	"random_str":         typeErr("'StrictUndefined' object cannot be interpreted as an integer"),
	"regex_escape":       typeErr("decoding to str: need a bytes-like object, StrictUndefined found"),
	"json":               typeErr("Object of type StrictUndefined is not JSON serializable"),
	"tojson":             typeErr("Object of type StrictUndefined is not JSON serializable"),
	"substring_in_list":  typeErr("'in <string>' requires string as left operand, not StrictUndefined"),
	"set_dict_key_value": typeErr("'StrictUndefined' object does not support item assignment"),
	"random_sample":      typeErr(errNotSequence),
	"filter_by_networks": func(*jinja.Undefined, *bound) (any, error) {
		return nil, pyErr(excTypeError, "Do not know how to filter a <class 'jinja2.runtime.StrictUndefined'>")
	},
	"yaml_encode": func(*jinja.Undefined, *bound) (any, error) {
		return nil, pyErr("yaml.representer.RepresenterError", "('cannot represent an object', Undefined)")
	},
	"compare_lists": func(u *jinja.Undefined, b *bound) (any, error) {
		if len(b.vals) > 1 && b.vals[1] == nil {
			return nil, pyErr(excTypeError, "'NoneType' object is not iterable")
		}
		return nil, jinja.UndefinedError(u)
	},
	"method_call": func(u *jinja.Undefined, b *bound) (any, error) {
		if len(b.rest) == 0 {
			return nil, pyErr(excTypeError, "method_call() missing 1 required positional argument: 'f_name'")
		}
		return nil, jinja.UndefinedError(u)
	},
	"xml": func(*jinja.Undefined, *bound) (any, error) {
		return nil, pyErr(excRuntime, "Value is not a dict or list. Cannot render as XML")
	},
}

var undefinedTests = map[string]undefinedFn{
	"list":  constResult(false),
	"match": typeErr(errNotString),
}

// onUndefined runs the filter or test name of kind given the strict
// undefined value u and the other arguments.
func onUndefined(kind Kind, name string, u *jinja.Undefined, args []any, kw *value.Map) (any, error) {
	b := &bound{vals: []any{u}, rest: args} // without a signature
	if s := sigs[kind][name]; s != nil {
		all := make([]any, 0, len(args)+1)
		all = append(append(all, u), args...)
		var err error
		if b, err = s.bind(all, kw); err != nil {
			return nil, err
		}
	}
	table := undefinedFilters
	if kind == Test {
		table = undefinedTests
	}
	if fn, ok := table[name]; ok {
		return fn(u, b)
	}
	return nil, jinja.UndefinedError(u)
}
