package jinjasalt

import (
	"strings"

	"brine/internal/value"
)

// The xml filter (SerializerExtension.format_xml): an ElementTree built
// from nested dicts and lists, printed by minidom's toprettyxml with a
// one-space indent.

type xmlElem struct {
	tag      string
	attrs    [][2]string
	text     *string
	children []*xmlElem
}

// xmlItems is format_xml's normalize_iter: the (tag, value) pairs of a
// dict, or of a list of pairs.
func xmlItems(v any) ([][2]any, error) {
	switch x := v.(type) {
	case *value.Map:
		out := make([][2]any, 0, x.Len())
		x.Range(func(k, e any) bool { out = append(out, [2]any{k, e}); return true })
		return out, nil
	case *value.List, value.Tuple:
		items, _ := iterate(x)
		if len(items) == 0 {
			return nil, pyErr(excIndexError, "list index out of range")
		}
		if _, ok := asString(items[0]); !ok {
			return nil, nil
		}
		out := make([][2]any, 0, len(items))
		for _, it := range items {
			pair, err := iterate(it)
			if err != nil {
				return nil, err
			}
			if len(pair) != 2 {
				return nil, pyErr(excValueError, "too many values to unpack (expected 2)")
			}
			out = append(out, [2]any{pair[0], pair[1]})
		}
		return out, nil
	}
	return nil, pyErr(excRuntime, "Value is not a dict or list. Cannot render as XML")
}

func xmlScalar(v any) bool {
	switch v.(type) {
	case string, int64, int, bool, float64:
		return true
	}
	return value.IsNumber(v)
}

// xmlTree is format_xml's recurse_tree; it returns the last element made
// at this level.
func xmlTree(items [][2]any, parent *xmlElem) (*xmlElem, error) {
	var sub *xmlElem
	for _, it := range items {
		tag, attrs := pyStr(it[0]), it[1]
		if l, ok := attrs.(*value.List); ok {
			for _, a := range l.Items {
				if _, err := xmlTree([][2]any{{it[0], a}}, parent); err != nil {
					return nil, err
				}
			}
		} else {
			sub = &xmlElem{tag: tag}
			if parent != nil {
				parent.children = append(parent.children, sub)
			}
		}
		if sub == nil {
			continue
		}
		if xmlScalar(attrs) {
			s := pyStr(attrs)
			sub.text = &s
			continue
		}
		if m, ok := attrs.(*value.Map); ok {
			sub.attrs = sub.attrs[:0]
			m.Range(func(k, e any) bool {
				switch e.(type) {
				case *value.Map, *value.List:
				default:
					sub.attrs = append(sub.attrs, [2]string{pyStr(k), pyStr(e)})
				}
				return true
			})
		}
		kids, err := xmlItems(attrs)
		if err != nil {
			return nil, err
		}
		for _, kv := range kids {
			switch kv[1].(type) {
			case *value.Map, *value.List:
				if _, err := xmlTree([][2]any{kv}, sub); err != nil {
					return nil, err
				}
			}
		}
	}
	return sub, nil
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", "\"", "&quot;", ">", "&gt;")

func (e *xmlElem) write(b *strings.Builder, indent string) {
	b.WriteString(indent + "<" + e.tag)
	for _, a := range e.attrs {
		b.WriteString(" " + a[0] + "=\"" + xmlEscaper.Replace(a[1]) + "\"")
	}
	n := len(e.children)
	if e.text != nil && *e.text != "" {
		n++
	}
	switch {
	case n == 0:
		b.WriteString("/>\n")
		return
	case n == 1 && e.text != nil && *e.text != "":
		b.WriteString(">" + xmlEscaper.Replace(*e.text))
	default:
		b.WriteString(">\n")
		if e.text != nil && *e.text != "" {
			b.WriteString(indent + " " + xmlEscaper.Replace(*e.text) + "\n")
		}
		for _, c := range e.children {
			c.write(b, indent+" ")
		}
		b.WriteString(indent)
	}
	b.WriteString("</" + e.tag + ">\n")
}

func formatXML(v any) (any, error) {
	items, err := xmlItems(v)
	if err != nil {
		return nil, err
	}
	root, err := xmlTree(items, nil)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, pyErr(excAttributeError, "'NoneType' object has no attribute 'iter'")
	}
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" ?>\n")
	root.write(&b, "")
	return markup(b.String()), nil
}

func init() {
	filter("xml", "salt/utils/jinja.py", newSig("format_xml", "value", required), func(b *bound) (any, error) {
		return formatXML(b.vals[0])
	})
}
