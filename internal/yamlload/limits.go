package yamlload

import (
	"errors"

	yaml "go.yaml.in/yaml/v4"
	"go.yaml.in/yaml/v4/plugin/loaderlimits"

	"brine/internal/value"
)

// Bounds on what a document may cost. Salt's loader (libyaml 0.2.5 under
// PyYAML) has none; brine refuses what would nest values deeper than its
// serialisers can write (value.MaxDepth), and merges that multiply keys
// past maxMergedPairs.
//
// Depth is counted in collections, the way the dumper counts it: a scalar
// at the top is depth 0, [1] depth 1. go-yaml's scanner is told to stop at
// value.MaxDepth flow levels or block indentations, so a deep document is
// refused after reading about MaxDepth levels of it; the node tree is then
// measured exactly (an indentless sequence, flow inside block, and an alias
// carrying its anchor's depth to where it stands all count).

// maxMergedPairs bounds the key/value pairs merge keys (<<) copy into
// mappings over a whole document (a variable for tests).
var maxMergedPairs = 1 << 20

// errScannerDepth is what the scanner's depth check returns; convertError
// recognises it.
var errScannerDepth = errors.New("brine: nesting too deep")

// depthLimit is the go-yaml option that stops the scanner past
// value.MaxDepth levels.
var depthLimit = yaml.WithPlugin(loaderlimits.New(loaderlimits.DepthFunc(func(depth int, _ *loaderlimits.DepthContext) error {
	if depth > value.MaxDepth {
		return errScannerDepth
	}
	return nil
})))

// depthError is the error of a collection that starts at m nested deeper
// than value.MaxDepth.
func depthError(name string, m Mark) *Error {
	return &Error{Kind: ParserError, Name: name,
		Problem:     "found a collection nested deeper than " + itoa(value.MaxDepth) + " levels",
		ProblemMark: m, Err: &value.DepthError{Doing: "constructing a YAML node"}}
}

// depthCheck measures the depth of the value a node tree builds.
type depthCheck struct {
	name    string
	heights map[*yaml.Node]int  // anchored collections: their height
	active  map[*yaml.Node]bool // anchored collections being measured
	bad     *yaml.Node          // where the limit was crossed
}

// checkDepth returns a depth error if the value of root would nest
// collections deeper than value.MaxDepth. The recursion stops at that
// depth, and each anchored node is measured once.
func checkDepth(root *yaml.Node, name string) error {
	c := depthCheck{name: name}
	c.height(root, 0)
	if c.bad != nil {
		return depthError(name, mark(c.bad))
	}
	return nil
}

// height returns how many collection levels n's value has (n itself
// included), n being inside d collections; it stops at the first node
// past value.MaxDepth and records it in c.bad.
func (c *depthCheck) height(n *yaml.Node, d int) int {
	if c.bad != nil || n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		t := deref(n)
		if t == nil || c.active[t] {
			return 0 // a cycle: checkCycles reports it
		}
		h, ok := c.heights[t]
		if !ok {
			h = c.height(t, d)
		}
		if d+h > value.MaxDepth && c.bad == nil {
			c.bad = n
		}
		return h
	}
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return 0
	}
	if d+1 > value.MaxDepth {
		c.bad = n
		return 0
	}
	if h, ok := c.heights[n]; ok {
		return h
	}
	if n.Anchor != "" {
		if c.active == nil {
			c.active = map[*yaml.Node]bool{}
			c.heights = map[*yaml.Node]int{}
		}
		c.active[n] = true
	}
	below := 0
	for i, ch := range n.Content {
		var h int
		switch {
		case n.Kind == yaml.MappingNode && i%2 == 1 && isMergeKey(deref(n.Content[i-1])):
			// a merged mapping's pairs land in n; a list of them one
			// level further in
			if v := deref(ch); v != nil && v.Kind == yaml.SequenceNode {
				h = c.height(ch, d-1) - 2
			} else {
				h = c.height(ch, d) - 1
			}
		default:
			h = c.height(ch, d+1)
		}
		below = max(below, h)
		if c.bad != nil {
			return 0
		}
	}
	if n.Anchor != "" {
		delete(c.active, n)
		c.heights[n] = below + 1
	}
	return below + 1
}
