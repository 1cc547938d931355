package api

import (
	"regexp"
	"sort"
	"strings"

	"brine/internal/match"
	"brine/internal/value"
)

// This file is Salt's ACL matching (salt/utils/minions.py: fill_auth_list,
// auth_check, spec_check and their helpers) over the entries of
// external_auth as the master config gives them: strings (function
// regexes allowed on every minion), {target: [functions]} mappings, and
// {function: {args: [...], kwargs: {...}}} argument conditions.

// exprMatch is salt.utils.stringutils.expr_match: equal, a glob, or a
// regex matching the whole name.
func exprMatch(name, expr string) bool {
	if name == expr || match.Fnmatch(name, expr) {
		return true
	}
	re, err := regexp.Compile(`\A(?:` + expr + `)\z`)
	return err == nil && re.MatchString(name)
}

// reMatch is Python's re.match: the regex anchored at the start only.
func reMatch(expr, s string) bool {
	re, err := regexp.Compile(`\A(?:` + expr + `)`)
	return err == nil && re.MatchString(s)
}

// fillAuthList returns the ACL entries of user name (in groups) from an
// eauth's configuration: the entries of every user pattern matching name,
// of its groups ("name%"), and of "*" when no pattern matched (or always,
// with permissive_acl). Keys starting with ^ configure the backend.
func fillAuthList(conf *value.Map, name string, groups []string, permissive bool) []any {
	var out []any
	matched := false
	conf.Range(func(k, v any) bool {
		key := value.Str(k)
		switch {
		case strings.HasPrefix(key, "^"):
		case key == "*" && !permissive:
		case strings.HasSuffix(key, "%"):
			for _, g := range groups {
				if g == strings.TrimSuffix(key, "%") {
					out = append(out, items(v)...)
					break
				}
			}
		case exprMatch(name, key):
			matched = true
			out = append(out, items(v)...)
		}
		return true
	})
	if !permissive && !matched {
		if v, ok := conf.Get("*"); ok {
			out = append(out, items(v)...)
		}
	}
	return out
}

// sumPermissions is salt.netapi.sum_permissions then sorted_permissions:
// what the login answer shows as perms.
func sumPermissions(conf *value.Map, name string, groups []string) []any {
	var perms []any
	if v, ok := conf.Get(name); ok {
		perms = append(perms, items(v)...)
	}
	if v, ok := conf.Get("*"); ok {
		perms = append(perms, items(v)...)
	}
	for _, g := range groups {
		if v, ok := conf.Get(g + "%"); ok {
			perms = append(perms, items(v)...)
		}
	}
	var strs []string
	var others []any
	seenS, seenO := map[string]bool{}, map[string]bool{}
	for _, p := range perms {
		if s, ok := p.(string); ok {
			if !seenS[s] {
				seenS[s] = true
				strs = append(strs, s)
			}
			continue
		}
		if k := toJSON(p); !seenO[k] {
			seenO[k] = true
			others = append(others, p)
		}
	}
	sort.Strings(strs)
	sort.SliceStable(others, func(i, j int) bool { return toJSON(others[i]) < toJSON(others[j]) })
	out := make([]any, 0, len(strs)+len(others))
	for _, s := range strs {
		out = append(out, s)
	}
	return append(out, others...)
}

func items(v any) []any {
	switch x := v.(type) {
	case *value.List:
		return x.Items
	case nil:
		return nil
	}
	return []any{v}
}

// single returns the only key and value of a one-entry mapping.
func single(v any) (string, any, bool) {
	m, ok := v.(*value.Map)
	if !ok || m.Len() != 1 {
		return "", nil, false
	}
	k, val := m.At(0)
	return value.Str(k), val, true
}

// Resolver expands a target to minion ids (the master's targeting).
type Resolver func(tgt, tgtType string) ([]string, error)

// authCheck is Salt's auth_check for one function: whether authList lets
// fun with args and kwargs run on the minions (those tgt selects). A
// target mapping allows a request whose minions are all among those its
// key selects as a compound target.
func authCheck(authList []any, fun string, args []any, kwargs *value.Map, minions []string, resolve Resolver) bool {
	for _, ind := range authList {
		if s, ok := ind.(string); ok {
			if reMatch(s, fun) {
				return true
			}
			continue
		}
		valid, funs, ok := single(ind)
		if !ok {
			continue
		}
		allowed, err := resolve(valid, "compound")
		if err != nil {
			continue
		}
		if !subset(minions, allowed) {
			continue
		}
		if funCheck(funs, fun, args, kwargs) {
			return true
		}
	}
	return false
}

func subset(a, b []string) bool {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	for _, x := range a {
		if !in[x] {
			return false
		}
	}
	return true
}

// specCheck is Salt's spec_check for the runner and wheel clients (form
// "runner" or "wheel"): entries "@runner"/"@runners" (or "@wheel"),
// "@mod", or {"@mod": [functions]} / {"@runner": ["mod.fun"]}.
func specCheck(authList []any, fun string, args []any, kwargs *value.Map, form string) bool {
	mod, funName, ok := strings.Cut(fun, ".")
	if !ok || strings.Contains(funName, ".") {
		return false
	}
	for _, ind := range authList {
		if s, ok := ind.(string); ok {
			if strings.HasPrefix(s, "@") && (s[1:] == mod || s[1:] == form || s == "@"+form+"s") {
				return true
			}
			continue
		}
		valid, funs, ok := single(ind)
		if !ok || !strings.HasPrefix(valid, "@") {
			continue
		}
		if valid[1:] == mod && funCheck(funs, funName, args, kwargs) {
			return true
		}
		if (valid[1:] == form || valid == "@"+form+"s") && funCheck(funs, fun, args, kwargs) {
			return true
		}
	}
	return false
}

// funCheck is Salt's __fun_check: a function regex, or {regex: argument
// conditions}.
func funCheck(valid any, fun string, args []any, kwargs *value.Map) bool {
	for _, cond := range items(valid) {
		if s, ok := cond.(string); ok {
			if reMatch(s, fun) {
				return true
			}
			continue
		}
		name, spec, ok := single(cond)
		if ok && reMatch(name, fun) && argsCheck(spec, args, kwargs) {
			return true
		}
	}
	return false
}

// argsCheck is Salt's __args_check: each condition {args: [regex...],
// kwargs: {name: regex}} must match the positional arguments in order
// and the named ones (null allows anything present).
func argsCheck(valid any, args []any, kwargs *value.Map) bool {
	for _, cond := range items(valid) {
		m, ok := cond.(*value.Map)
		if !ok {
			continue
		}
		good := true
		if ca, ok := m.Get("args"); ok {
			for i, want := range items(ca) {
				if i >= len(args) {
					good = false
					break
				}
				if want != nil && !reMatch(value.Str(want), pyStr(args[i])) {
					good = false
					break
				}
			}
		}
		if !good {
			continue
		}
		if ck, ok := m.Get("kwargs"); ok {
			if km, ok := ck.(*value.Map); ok {
				km.Range(func(k, want any) bool {
					got, has := any(nil), false
					if kwargs != nil {
						got, has = kwargs.Get(k)
					}
					if !has || (want != nil && !reMatch(value.Str(want), pyStr(got))) {
						good = false
						return false
					}
					return true
				})
			}
		}
		if good {
			return true
		}
	}
	return false
}

// pyStr is Python's str() of an argument, as the ACL regexes see it.
func pyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	}
	return value.Str(v)
}
