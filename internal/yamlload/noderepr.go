package yamlload

import (
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"brine/internal/value"
)

// nodeValueRepr prints a node's value the way Python prints a PyYAML node's
// .value: the text of a scalar, a list of nodes for a sequence, a list of
// (key, value) tuples for a mapping. Salt puts it in "found unacceptable
// key" messages.
func nodeValueRepr(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	var b strings.Builder
	writeNodeValue(&b, n, 0)
	return b.String()
}

func writeNodeValue(b *strings.Builder, n *yaml.Node, depth int) {
	if depth > 50 {
		b.WriteString("[...]")
		return
	}
	b.WriteByte('[')
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			writeNode(b, deref(n.Content[i]), depth+1)
			b.WriteString(", ")
			writeNode(b, deref(n.Content[i+1]), depth+1)
			b.WriteByte(')')
		}
	} else {
		for i, ch := range n.Content {
			if i > 0 {
				b.WriteString(", ")
			}
			writeNode(b, deref(ch), depth+1)
		}
	}
	b.WriteByte(']')
}

func writeNode(b *strings.Builder, n *yaml.Node, depth int) {
	if n == nil {
		b.WriteString("None")
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteString("MappingNode")
	case yaml.SequenceNode:
		b.WriteString("SequenceNode")
	default:
		b.WriteString("ScalarNode")
	}
	b.WriteString("(tag=")
	b.WriteString(value.QuoteString(tagOf(n)))
	b.WriteString(", value=")
	if n.Kind == yaml.ScalarNode {
		b.WriteString(value.QuoteString(n.Value))
	} else {
		writeNodeValue(b, n, depth)
	}
	b.WriteByte(')')
}
