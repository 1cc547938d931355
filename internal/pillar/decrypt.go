package pillar

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"brine/internal/value"
)

// ErrNoDecryptRenderer is wrapped by the error DecryptData returns when the
// named renderer does not exist.
var ErrNoDecryptRenderer = errors.New("decryption renderer not available")

// decryptPillar applies the decrypt_pillar option to the compiled pillar and
// returns the error messages for `_errors`.
func (c *compiler) decryptPillar(pillar *value.Map) []string {
	raw, _ := c.opts.GetString("decrypt_pillar")
	if !value.Truthy(raw) {
		return nil
	}
	var errs []string
	entries, ok := raw.(*value.Map)
	if !ok {
		entries = repackDictlist(raw)
	}
	if entries.Len() == 0 {
		errs = append(errs, "decrypt_pillar config option is malformed")
	}
	delim := ":"
	if d, ok := c.opts.GetString("decrypt_pillar_delimiter"); ok {
		delim = value.Str(d)
	}
	def := optString(c.opts, "decrypt_pillar_default")
	if _, ok := c.opts.GetString("decrypt_pillar_default"); !ok {
		def = "gpg"
	}
	valid, hasValid := c.opts.GetString("decrypt_pillar_renderers")
	if !hasValid {
		valid = value.NewList("gpg")
	}
	for i, k := range entries.Keys() {
		key := value.Str(k)
		rend := entries.Values()[i]
		ptr := traverseDict(pillar, key, delim)
		if ptr == nil {
			continue
		}
		name := def
		if value.Truthy(rend) {
			name = value.Str(rend)
		}
		ret, err := DecryptData(ptr, name, false, valid, c.o.Decrypt)
		if err != nil {
			msg := fmt.Sprintf("Failed to decrypt pillar key '%s': %s", key, err.Error())
			slog.Error(msg)
			errs = append(errs, msg)
			continue
		}
		if !value.Hashable(ptr) {
			continue // decrypted in place
		}
		var parent any = pillar
		child := key
		if j := strings.LastIndex(key, delim); j >= 0 && delim != "" {
			if key[:j] != "" {
				parent = traverseDict(pillar, key[:j], delim)
			}
			child = key[j+len(delim):]
		}
		if pm, ok := parent.(*value.Map); ok {
			pm.Set(child, ret)
		}
	}
	return errs
}

// DecryptData is Salt's salt.utils.crypt.decrypt: it checks name against
// valid (a list of renderer names; nil means no restriction) and runs the
// renderer through decrypt. The messages are Salt's:
// "'x' is not a valid decryption renderer. Valid choices are: gpg" and
// "Decryption renderer 'x' is not available".
func DecryptData(data any, name string, translateNewlines bool, valid any, decrypt DecryptFunc) (any, error) {
	if names, ok := iterable(valid); ok && valid != nil {
		found := false
		strs := make([]string, 0, len(names))
		for _, n := range names {
			strs = append(strs, value.Str(n))
			if value.Equal(n, name) {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("'%s' is not a valid decryption renderer. Valid choices are: %s", name, strings.Join(strs, ", "))
		}
	}
	if decrypt == nil {
		return nil, fmt.Errorf("Decryption renderer '%s' is not available", name) //nolint:staticcheck // Salt's text
	}
	ret, err := decrypt(name, data, translateNewlines)
	if errors.Is(err, ErrNoDecryptRenderer) {
		return nil, fmt.Errorf("Decryption renderer '%s' is not available", name) //nolint:staticcheck // Salt's text
	}
	return ret, err
}

// traverseDict is Salt's traverse_dict with a None default: only mappings
// are followed.
func traverseDict(data any, key, delim string) any {
	ptr := data
	parts := []string{key}
	if delim != "" {
		parts = strings.Split(key, delim)
	}
	for _, p := range parts {
		m, ok := ptr.(*value.Map)
		if !ok {
			return nil
		}
		v, ok := m.GetString(p)
		if !ok {
			return nil
		}
		ptr = v
	}
	return ptr
}

// repackDictlist is Salt's repack_dictlist: a list of names and one-key
// mappings becomes one mapping (names map to None); anything malformed
// gives an empty mapping.
func repackDictlist(v any) *value.Map {
	out := value.NewMap(0)
	l, ok := v.(*value.List)
	if !ok {
		return out
	}
	for _, e := range l.Items {
		switch x := e.(type) {
		case string, int64, float64:
			out.Set(x, nil)
		case *value.Map:
			if x.Len() != 1 {
				return value.NewMap(0)
			}
			k, val := x.At(0)
			out.Set(k, val)
		default:
			return value.NewMap(0)
		}
	}
	return out
}
