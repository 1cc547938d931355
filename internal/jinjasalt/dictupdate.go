package jinjasalt

import (
	"strings"

	"brine/internal/value"
)

// Filters of salt/utils/dictupdate.py. Like Salt's, they change the input
// dict in place and return it.

// dictRpartition makes sure every key but the last exists as a dict and
// returns the dict holding the last key.
func dictRpartition(in *value.Map, keys, delim string) (*value.Map, string, error) {
	if delim == "" || !strings.Contains(keys, delim) {
		return in, keys, nil
	}
	i := strings.LastIndex(keys, delim)
	head, last := keys[:i], keys[i+len(delim):]
	ptr := in
	for _, k := range strings.Split(head, delim) {
		v, ok := ptr.Get(k)
		m, isMap := v.(*value.Map)
		if !ok || !isMap {
			m = value.NewMap(1)
			ptr.Set(k, m)
		}
		ptr = m
	}
	return ptr, last, nil
}

func dictKeyOp(name string, inV, keysV, val, delimV any) (any, error) {
	in, ok := inV.(*value.Map)
	if !ok {
		return nil, pyErr(excTypeError, "argument of type '%s' is not iterable", typeName(inV))
	}
	keys, ok := asString(keysV)
	if !ok {
		return nil, pyErr(excTypeError, "'in <string>' requires string as left operand, not %s", typeName(keysV))
	}
	ptr, last, err := dictRpartition(in, keys, pyStr(delimV))
	if err != nil {
		return nil, err
	}
	cur, have := ptr.Get(last)
	switch name {
	case "set":
		ptr.Set(last, val)
	case "update":
		if !have || cur == nil {
			cur = value.NewMap(2)
			ptr.Set(last, cur)
		}
		m, ok := cur.(*value.Map)
		if !ok {
			return nil, pyErr(excInvocation, "The last key contains a %s, which cannot update.", pyClass(cur))
		}
		src, ok := val.(*value.Map)
		if !ok {
			return nil, pyErr(excInvocation, "Cannot update %s with a %s.", pyClass(cur), pyClass(val))
		}
		m.Update(src)
	case "append", "extend":
		if !have || cur == nil {
			cur = value.NewList()
			ptr.Set(last, cur)
		}
		l, ok := cur.(*value.List)
		if !ok {
			return nil, pyErr(excInvocation, "The last key contains a %s, which cannot %s.", pyClass(cur), name)
		}
		if name == "append" {
			l.Append(val)
			break
		}
		items, err := iterate(val)
		if err != nil {
			return nil, pyErr(excInvocation, "Cannot extend %s with a %s.", pyClass(cur), pyClass(val))
		}
		l.Append(items...)
	}
	return in, nil
}

func init() {
	const src = "salt/utils/dictupdate.py"
	for _, op := range []string{"set", "update", "append", "extend"} {
		op := op
		py := op + "_dict_key_value"
		filter(py, src, newSig(py, "in_dict", required, "keys", required, "value", required, "delimiter", ":", "ordered_dict", false), func(b *bound) (any, error) {
			return dictKeyOp(op, b.vals[0], b.vals[1], b.vals[2], b.vals[3])
		})
	}
}
