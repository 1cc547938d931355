package engine

import (
	"errors"
	"log/slog"
	"strings"
	"unicode"

	"brine/internal/value"
)

// slotPrefix marks a state argument Salt evaluates at run time
// (State.format_slots): "__slot__:salt:mod.fun(args).key.path ~ suffix".
const slotPrefix = "__slot__:"

// formatSlots replaces slot strings in a state's bound arguments, as
// Salt's format_slots: a string argument, the string values of a mapping
// argument, and the strings and the mappings' string values inside a list
// argument. Containers are copied before a value in them changes, so the
// low chunk keeps its slot text. An error is an exception of the state.
func (r *runner) formatSlots(args *value.Map) error {
	var err error
	evalIn := func(v any) (any, bool) {
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(s, slotPrefix) || err != nil {
			return nil, false
		}
		out, e := r.evalSlot(s)
		if e != nil {
			err = e
			return nil, false
		}
		return out, true
	}
	mapValues := func(m *value.Map) *value.Map {
		var cp *value.Map
		for i := 0; i < m.Len(); i++ {
			k, v := m.At(i)
			if out, ok := evalIn(v); ok {
				if cp == nil {
					cp = m.Copy()
				}
				cp.Set(k, out)
			}
		}
		if cp == nil {
			return m
		}
		return cp
	}
	for i := 0; i < args.Len() && err == nil; i++ {
		k, v := args.At(i)
		switch x := v.(type) {
		case string:
			if out, ok := evalIn(x); ok {
				args.Set(k, out)
			}
		case *value.Map:
			if m := mapValues(x); m != x {
				args.Set(k, m)
			}
		case *value.List:
			var cp *value.List
			for j, item := range x.Items {
				var out any
				changed := false
				switch it := item.(type) {
				case *value.Map:
					if m := mapValues(it); m != it {
						out, changed = m, true
					}
				case string:
					out, changed = evalIn(it)
				}
				if changed {
					if cp == nil {
						cp = value.NewList(append([]any(nil), x.Items...)...)
					}
					cp.Items[j] = out
				}
			}
			if cp != nil {
				args.Set(k, cp)
			}
		}
	}
	return err
}

// evalSlot is Salt's State.__eval_slot: a malformed slot, one that is not
// "salt:" or one naming an unknown function is left as it is.
func (r *runner) evalSlot(slot string) (any, error) {
	parts := strings.SplitN(slot, ":", 3)
	if len(parts) != 3 || parts[1] != "salt" {
		slog.Warn("Malformed slot", "slot", slot)
		return slot, nil
	}
	fun, args, kwargs, ok, err := parseFunction(parts[2])
	if err != nil {
		return nil, err
	}
	ex := r.exec()
	if !ok || fun == "" || ex == nil {
		slog.Warn("Malformed slot", "slot", slot)
		return slot, nil
	}
	if _, known := ex.Lookup(fun); !known {
		slog.Warn("Malformed slot", "slot", slot)
		return slot, nil
	}
	ret, err := ex.Call(fun, args, kwargs)
	if err != nil {
		return nil, err
	}
	text, appendData, hasAppend := strings.Cut(parts[2], "~")
	if i := strings.LastIndexByte(text, ')'); i >= 0 {
		if get := text[i+1:]; get != "" {
			_, path, found := strings.Cut(get, ".")
			if !found {
				return nil, errors.New("IndexError: list index out of range")
			}
			ret, _ = value.Traverse(ret, strings.TrimSpace(path), ".")
		}
	}
	if hasAppend {
		if s, ok := ret.(string); ok {
			ret = s + strings.TrimSpace(appendData)
		} else {
			slog.Error("Ignoring slot append, slot result is not a string")
		}
	}
	return ret, nil
}

// parseFunction is Salt's salt.utils.args.parse_function: "mod.fun(a,
// 'b c', k=v)" split into the name, positional and keyword arguments, all
// strings, with shell-like quoting and whitespace dropped between words.
// ok is false when the text is not of that form.
func parseFunction(s string) (fun string, args []any, kwargs *value.Map, ok bool, err error) {
	// Python's shlex reads lazily: a bad quote after the closing
	// parenthesis is never seen.
	toks, tokErr := shlexTokens(s)
	var word []string
	i := 0
	opened := false
	for ; i < len(toks); i++ {
		if toks[i] == "(" {
			opened = true
			i++
			break
		}
		word = append(word, toks[i])
	}
	if !opened && tokErr != nil {
		return "", nil, nil, false, tokErr
	}
	if len(word) == 0 || !opened {
		return "", nil, nil, false, nil
	}
	fun = strings.Join(word, "")
	word = word[:0]
	kwargs = value.NewMap(0)
	var brackets []string
	key, hasKey := "", false
	closers := map[string]string{"[": "]", "{": "}", "(": ")"}
	for ; i < len(toks); i++ {
		t := toks[i]
		switch {
		case strings.Contains("[{(", t):
			word = append(word, t)
			brackets = append(brackets, t)
		case (t == "," || t == ")") && len(brackets) == 0:
			if hasKey {
				kwargs.Set(key, strings.Join(word, ""))
			} else if len(word) > 0 {
				args = append(args, strings.Join(word, ""))
			}
			if t == ")" {
				return fun, args, kwargs, true, nil
			}
			key, hasKey = "", false
			word = word[:0]
		case strings.Contains("]})", t):
			if len(brackets) == 0 {
				return "", nil, nil, false, nil
			}
			open := brackets[len(brackets)-1]
			brackets = brackets[:len(brackets)-1]
			if t != closers[open] {
				return "", nil, nil, false, nil
			}
			word = append(word, t)
		case t == "=" && len(brackets) == 0:
			key, hasKey = strings.Join(word, ""), true
			word = word[:0]
		default:
			word = append(word, t)
		}
	}
	return "", nil, nil, false, tokErr
}

// shlexTokens splits s as Python's shlex.shlex(s, posix=True) with both
// quote characters escapable: words of letters, digits and "_", quoted
// runs joined to the word around them, every other character a token of
// its own, whitespace and "#" comments dropped. On a bad quote or escape
// it returns the tokens before it with the error.
func shlexTokens(s string) ([]string, error) {
	var toks []string
	var tok strings.Builder
	rs := []rune(s)
	isWord := func(c rune) bool {
		return c == '_' || c < 128 && (unicode.IsLetter(c) || unicode.IsDigit(c)) ||
			c >= 0xC0 && c <= 0xFF && c != 0xD7 && c != 0xF7
	}
	inWord, quoted := false, false
	emit := func() {
		if tok.Len() > 0 || quoted {
			toks = append(toks, tok.String())
		}
		tok.Reset()
		inWord, quoted = false, false
	}
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			emit()
		case c == '#':
			emit()
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case c == '\'' || c == '"':
			quoted, inWord = true, true
			closed := false
			for i++; i < len(rs); i++ {
				q := rs[i]
				if q == c {
					closed = true
					break
				}
				if q == '\\' {
					if i+1 >= len(rs) {
						return toks, errors.New("ValueError: No escaped character")
					}
					n := rs[i+1]
					if n != c && n != '\\' {
						tok.WriteRune('\\')
					}
					tok.WriteRune(n)
					i++
					continue
				}
				tok.WriteRune(q)
			}
			if !closed {
				return toks, errors.New("ValueError: No closing quotation")
			}
		case c == '\\':
			if i+1 >= len(rs) {
				return toks, errors.New("ValueError: No escaped character")
			}
			i++
			tok.WriteRune(rs[i])
			inWord = true
		case isWord(c):
			tok.WriteRune(c)
			inWord = true
		default:
			if inWord {
				emit()
			}
			toks = append(toks, string(c))
		}
	}
	emit()
	return toks, nil
}
