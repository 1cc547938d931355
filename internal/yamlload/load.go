package yamlload

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"brine/internal/value"
)

// Load parses data as a single YAML document with the rules of Salt's yaml
// renderer and returns its value: nil, bool, int64, *big.Int, float64,
// string, []byte, *value.Map (marked Ordered, as the renderer builds
// OrderedDicts) or *value.List. An empty or comment-only document is nil.
// name is the file name, recorded in errors for diagnostics. Every error is
// an *Error.
func Load(data []byte, name string) (any, error) {
	return load(data, name, false)
}

// SafeLoad is Load with the semantics of salt.utils.yaml.safe_load, which
// Salt uses outside the yaml renderer (load_yaml, import_yaml, CLI
// arguments): mappings are plain dicts (not marked Ordered), so a mapping
// used as a key is an error ("found unacceptable key ...") instead of data
// the renderer rejects later.
func SafeLoad(data []byte, name string) (any, error) {
	return load(data, name, true)
}

func load(data []byte, name string, plainDicts bool) (any, error) {
	if v, ok := fastLoad(data, plainDicts); ok {
		return v, nil
	}
	return slowLoad(data, name, plainDicts)
}

// slowLoad is load through go-yaml's node tree: every document, and every
// error.
func slowLoad(data []byte, name string, plainDicts bool) (any, error) {
	root, err := parseSingle(data, name)
	if err != nil || root == nil {
		return nil, err
	}
	if err := checkDepth(root, name); err != nil {
		return nil, err
	}
	// merges may make the node tree cyclic; look for aliases before that
	aliases := hasAlias(root)
	c := constructor{name: name, plainDicts: plainDicts}
	v, err := c.construct(root)
	if err != nil {
		return nil, err
	}
	if err := c.drain(); err != nil {
		return nil, err
	}
	if aliases && len(c.objs) > 0 {
		if err := c.checkCycles(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Two go-yaml rules libyaml (and so Salt) does not have are undone by
// editing the text and parsing again:
//
//   - flowMisindent: a ':' inside a flow collection left of the enclosing
//     block's indentation. libyaml ignores indentation inside flow
//     collections, and PyYAML's own wrapped flow output, pasted into an SLS
//     by Jinja's yaml filter, looks like that. The line is moved right; the
//     fix is kept only if the line turns out to be inside a flow collection.
//   - commentNoSpace: a '#' right after a quoted scalar or a flow
//     collection, which libyaml reads as a comment. A space is put before it.
const (
	flowMisindent  = "mapping values are not allowed in this context"
	commentNoSpace = "found a comment without preceding whitespace"
)

// flowShift is how far a flow continuation line is moved right.
const flowShift = 1024

// insertion records spaces put into the text: n spaces before the
// character at column col (1-based) of line.
type insertion struct{ line, col, n int }

// parseSingle returns the root node of the only document in data, nil for
// an empty stream.
func parseSingle(data []byte, name string) (*yaml.Node, error) {
	root, err := parseOnce(data, name)
	var (
		first error
		edits []insertion
		moved map[int]bool // lines moved for flowMisindent
	)
	for tries := 0; err != nil && tries < 200; tries++ {
		ins, ok := nextFix(err, moved)
		if !ok {
			break
		}
		fixed, ok := insertSpaces(data, ins)
		if !ok {
			break
		}
		if first == nil {
			first = err
		}
		if ins.n == flowShift {
			if moved == nil {
				moved = map[int]bool{}
			}
			moved[ins.line] = true
		}
		data = fixed
		edits = append(edits, ins)
		root, err = parseOnce(data, name)
	}
	if first == nil {
		return root, err
	}
	if err != nil {
		return nil, first
	}
	for line := range moved {
		if !lineInFlow(root, line) {
			return nil, first
		}
	}
	if root != nil {
		unshift(root, edits)
	}
	return root, nil
}

// nextFix returns the edit that undoes err, if it is one of the go-yaml
// rules above.
func nextFix(err error, moved map[int]bool) (insertion, bool) {
	e, ok := err.(*Error)
	if !ok || e.ProblemMark.Line == 0 {
		return insertion{}, false
	}
	switch {
	case e.Problem == flowMisindent && e.ProblemMark.Line > 1 && !moved[e.ProblemMark.Line]:
		return insertion{e.ProblemMark.Line, 1, flowShift}, true
	case e.Problem == commentNoSpace:
		return insertion{e.ProblemMark.Line, e.ProblemMark.Column, 1}, true
	}
	return insertion{}, false
}

// insertSpaces puts ins.n spaces before the character at ins.line and
// ins.col.
func insertSpaces(data []byte, ins insertion) ([]byte, bool) {
	start := 0
	for l := 1; l < ins.line; l++ {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			return nil, false
		}
		start += i + 1
	}
	for c := 1; c < ins.col; c++ {
		if start >= len(data) || data[start] == '\n' {
			return nil, false
		}
		_, w := utf8.DecodeRune(data[start:])
		start += w
	}
	out := make([]byte, 0, len(data)+ins.n)
	out = append(out, data[:start]...)
	out = append(out, bytes.Repeat([]byte{' '}, ins.n)...)
	return append(out, data[start:]...), true
}

// lineInFlow reports whether every node starting on line sits in a flow
// collection, and there is one.
func lineInFlow(root *yaml.Node, line int) bool {
	found, ok := false, true
	var walk func(n, parent *yaml.Node)
	walk = func(n, parent *yaml.Node) {
		if n.Line == line {
			found = true
			if parent == nil || parent.Style&yaml.FlowStyle == 0 {
				ok = false
			}
		}
		if n.Kind == yaml.AliasNode {
			return
		}
		for _, ch := range n.Content {
			walk(ch, n)
		}
	}
	if root != nil {
		walk(root, nil)
	}
	return found && ok
}

// unshift moves node marks back to the columns of the original text.
func unshift(n *yaml.Node, edits []insertion) {
	for i := len(edits) - 1; i >= 0; i-- {
		if e := edits[i]; n.Line == e.line && n.Column >= e.col+e.n {
			n.Column -= e.n
		}
	}
	if n.Kind == yaml.AliasNode {
		return
	}
	for _, ch := range n.Content {
		unshift(ch, edits)
	}
}

func parseOnce(data []byte, name string) (*yaml.Node, error) {
	l, err := yaml.NewLoader(bytes.NewReader(data), depthLimit)
	if err != nil {
		return nil, convertError(err, data, name)
	}
	var doc yaml.Node
	if err := l.Load(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, convertError(err, data, name)
	}
	root := &doc
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			root = nil
		} else {
			root = doc.Content[0]
		}
	}
	if root != nil {
		if err := checkAnchors(root, name); err != nil {
			return nil, err
		}
	}
	var next yaml.Node
	switch err := l.Load(&next); {
	case err == nil:
		e := &Error{Kind: ComposerError, Name: name,
			Context: "expected a single document in the stream",
			Problem: "but found another document", ProblemMark: Mark{next.Line, next.Column}}
		if root != nil {
			e.ContextMark = Mark{root.Line, root.Column}
		} else {
			e.ContextMark = Mark{doc.Line, doc.Column}
		}
		return nil, e
	case !errors.Is(err, io.EOF):
		return nil, convertError(err, data, name)
	}
	return root, nil
}

// problemFixes maps go-yaml's wording to libyaml's where they differ.
var problemFixes = map[string]string{
	"did not find expected hexadecimal number": "did not find expected hexdecimal number",
}

// escapeProblems are the quoted-scalar escape errors for which libyaml says
// "while parsing a quoted scalar" rather than "while scanning".
var escapeProblems = map[string]bool{
	"found unknown escape character":              true,
	"did not find expected hexdecimal number":     true,
	"found invalid Unicode character escape code": true,
}

// convertError turns a go-yaml error into an *Error.
func convertError(err error, data []byte, name string) *Error {
	var le *yaml.LoadError
	if !errors.As(err, &le) {
		return &Error{Kind: OtherError, Name: name, Problem: err.Error()}
	}
	if le.Message == errScannerDepth.Error() {
		// a block collection starts at the key or entry that opened it
		m := le.Mark
		if le.ContextMsg == "while increasing indent level" && le.ContextMark.Line > 0 {
			m = le.ContextMark
		}
		return depthError(name, Mark{m.Line, m.Column})
	}
	e := &Error{Name: name, Problem: le.Message, Context: le.ContextMsg,
		ProblemMark: Mark{le.Mark.Line, le.Mark.Column}}
	if le.ContextMsg != "" {
		e.ContextMark = Mark{le.ContextMark.Line, le.ContextMark.Column}
	}
	switch le.Stage {
	case yaml.ReaderStage:
		if re := readerError(data, name); re != nil {
			return re
		}
		e.Kind = ReaderError
	case yaml.ScannerStage:
		e.Kind = ScannerError
	case yaml.ParserStage:
		e.Kind = ParserError
	case yaml.ComposerStage:
		e.Kind = ComposerError
	default:
		e.Kind = ConstructorError
	}
	if strings.HasPrefix(e.Problem, "unknown anchor '") {
		e.Problem = "found undefined alias"
	}
	if f, ok := problemFixes[e.Problem]; ok {
		e.Problem = f
	}
	if e.Problem == "found a tab character where an indentation space is expected" && e.Context == "" {
		// a tab before a root flow collection: libyaml sees a tab that
		// cannot start a token
		e.Context, e.Problem = "while scanning for the next token", "found character that cannot start any token"
	}
	if escapeProblems[e.Problem] {
		e.Context = "while parsing a quoted scalar"
	}
	return e
}

// readerError finds the character libyaml's reader refuses, and reports it
// as PyYAML does.
func readerError(data []byte, name string) *Error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, w := utf8.DecodeRune(data[i:])
		var problem string
		switch {
		case r == utf8.RuneError && w <= 1:
			problem = "'utf-8' codec can't decode byte #x" + hex2(data[i]) + ": invalid start byte"
		case !(r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0x7E || r == 0x85 ||
			r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF):
			problem = "unacceptable character #x" + hex4(r) + ": control characters are not allowed"
		}
		if problem != "" {
			return &Error{Kind: ReaderError, Name: name, Problem: problem, Position: i, ProblemMark: Mark{line, col}}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += w
	}
	return nil
}

func hex2(b byte) string { return string([]byte{hexLower[b>>4], hexLower[b&15]}) }

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

const hexLower = "0123456789abcdef"

// pending is a collection created but not filled yet. PyYAML fills
// collections breadth first (its constructors are generators run after the
// parent is done), which decides which of several errors is reported.
type pending struct {
	node *yaml.Node
	tag  string
	out  any
}

type constructor struct {
	name       string
	plainDicts bool // mappings are unhashable, as Python dicts
	objs       map[*yaml.Node]any
	queue      []pending
	merged     int // pairs merge keys have copied, bounded by maxMergedPairs
}

func mark(n *yaml.Node) Mark { return Mark{n.Line, n.Column} }

func (c *constructor) errorAt(n *yaml.Node, problem string) *Error {
	return &Error{Kind: ConstructorError, Name: c.name, Problem: problem, ProblemMark: mark(n)}
}

// deref follows an alias to its anchored node.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// longTag expands the !! shorthand go-yaml keeps.
func longTag(t string) string {
	if strings.HasPrefix(t, "!!") {
		return tagPrefix + t[2:]
	}
	return t
}

const quotedStyles = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle

// tagOf returns the tag PyYAML's composer gives n.
func tagOf(n *yaml.Node) string {
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "" && n.Tag != "!" {
		return longTag(n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return tagMap
	case yaml.SequenceNode:
		return tagSeq
	}
	if n.Style&yaml.TaggedStyle == 0 && n.Style&quotedStyles == 0 {
		return Resolve(n.Value)
	}
	return tagStr
}

func nodeID(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	}
	return "scalar"
}

// construct returns the value of n; collections come back empty and are
// queued to be filled.
func (c *constructor) construct(n *yaml.Node) (any, error) {
	n = deref(n)
	if n == nil {
		return nil, nil
	}
	if v, ok := c.objs[n]; ok {
		return v, nil
	}
	tag := tagOf(n)
	switch tag {
	case tagMap, tagOmap, tagSeq, tagSet, tagPairs:
		var out any
		switch tag {
		case tagSeq, tagSet, tagPairs:
			out = value.NewList()
		default:
			// the yaml renderer builds OrderedDicts, safe_load plain dicts
			out = value.NewMap(len(n.Content) / 2).SetOrdered(!c.plainDicts)
		}
		if c.objs == nil {
			c.objs = make(map[*yaml.Node]any)
		}
		c.objs[n] = out
		c.queue = append(c.queue, pending{n, tag, out})
		return out, nil
	case tagNull, tagBool, tagInt, tagFloat, tagStr, tagBinary, tagTimestamp, tagUnicode:
		if n.Kind != yaml.ScalarNode {
			if tag == tagUnicode {
				return nil, c.errorAt(n, "could not construct a string from a "+nodeID(n)+" node")
			}
			return nil, c.errorAt(n, "expected a scalar node, but found "+nodeID(n))
		}
		v, err := c.scalar(n, tag)
		if err != nil {
			var pe pyValueError
			if errors.As(err, &pe) {
				return nil, &Error{Kind: OtherError, Name: c.name, Problem: pe.Error(), ProblemMark: mark(n)}
			}
			return nil, err
		}
		return v, nil
	}
	return nil, c.errorAt(n, "could not determine a constructor for the tag '"+tag+"'")
}

func (c *constructor) scalar(n *yaml.Node, tag string) (any, error) {
	s := n.Value
	switch tag {
	case tagNull:
		return nil, nil
	case tagBool:
		switch strings.ToLower(s) {
		case "yes", "true", "on":
			return true, nil
		case "no", "false", "off":
			return false, nil
		}
		return nil, pyValueError("KeyError: " + value.Repr(strings.ToLower(s)))
	case tagInt:
		return constructInt(saltInt(s))
	case tagFloat:
		return constructFloat(s)
	case tagBinary:
		return decodeBinary(n, s, c.name)
	}
	return s, nil
}

// decodeBinary decodes !!binary text as Python's base64.decodebytes does:
// characters outside the alphabet are skipped and decoding stops at the
// padding that ends a quantum.
func decodeBinary(n *yaml.Node, s, name string) (any, error) {
	fail := func(msg string) error {
		return &Error{Kind: ConstructorError, Name: name,
			Problem: "failed to decode base64 data: " + msg, ProblemMark: mark(n)}
	}
	for _, r := range s {
		if r > 0x7f {
			return nil, &Error{Kind: ConstructorError, Name: name,
				Problem: "failed to convert base64 data: 'ascii' codec can't encode character", ProblemMark: mark(n)}
		}
	}
	out := make([]byte, 0, len(s)*3/4)
	var quad, pads int
	var left byte
loop:
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '=' {
			if quad >= 2 {
				pads++
				if quad+pads >= 4 {
					break loop
				}
			}
			continue
		}
		v := b64Value(ch)
		if v < 0 {
			continue
		}
		pads = 0
		b := byte(v)
		switch quad {
		case 0:
			quad, left = 1, b
		case 1:
			out = append(out, left<<2|b>>4)
			quad, left = 2, b&0xf
		case 2:
			out = append(out, left<<4|b>>2)
			quad, left = 3, b&3
		default:
			out = append(out, left<<6|b)
			quad, left = 0, 0
		}
	}
	if quad == 1 && pads == 0 {
		return nil, fail("Invalid base64-encoded string: number of data characters (" +
			itoa(len(out)/3*4+1) + ") cannot be 1 more than a multiple of 4")
	}
	if quad != 0 && quad+pads < 4 {
		return nil, fail("Incorrect padding")
	}
	return out, nil
}

func b64Value(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// checkAnchors reports an anchor defined twice, as PyYAML's composer does
// (go-yaml lets the second definition win).
func checkAnchors(root *yaml.Node, name string) error {
	seen := map[string]*yaml.Node{}
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n.Anchor != "" && n.Kind != yaml.AliasNode {
			if first, ok := seen[n.Anchor]; ok {
				return &Error{Kind: ComposerError, Name: name,
					Context: "found duplicate anchor; first occurrence", ContextMark: mark(first),
					Problem: "second occurrence", ProblemMark: mark(n)}
			}
			seen[n.Anchor] = n
		}
		if n.Kind == yaml.AliasNode {
			return nil
		}
		for _, ch := range n.Content {
			if err := walk(ch); err != nil {
				return err
			}
		}
		return nil
	}
	if !hasAnchor(root) {
		return nil
	}
	return walk(root)
}

// hasAlias reports whether the tree holds an alias; documents without
// aliases skip the recursion check.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, ch := range n.Content {
		if hasAlias(ch) {
			return true
		}
	}
	return false
}

// hasAnchor is a quick scan so that documents without anchors skip the
// duplicate check's map.
func hasAnchor(n *yaml.Node) bool {
	if n.Anchor != "" {
		return true
	}
	for _, ch := range n.Content {
		if hasAnchor(ch) {
			return true
		}
	}
	return false
}

// drain fills the queued collections, breadth first.
func (c *constructor) drain() error {
	for i := 0; i < len(c.queue); i++ {
		p := c.queue[i]
		c.queue[i] = pending{}
		var err error
		switch p.tag {
		case tagSeq:
			err = c.fillSeq(p.node, p.out.(*value.List))
		case tagSet:
			err = c.fillSet(p.node, p.out.(*value.List))
		case tagPairs:
			err = c.fillPairs(p.node, p.out.(*value.List))
		default:
			err = c.fillMap(p.node, p.out.(*value.Map))
		}
		if err != nil {
			return err
		}
	}
	c.queue = c.queue[:0]
	return nil
}

func (c *constructor) fillSeq(n *yaml.Node, out *value.List) error {
	if n.Kind != yaml.SequenceNode {
		return c.errorAt(n, "expected a sequence node, but found "+nodeID(n))
	}
	out.Items = make([]any, 0, len(n.Content))
	for _, child := range n.Content {
		v, err := c.construct(child)
		if err != nil {
			return err
		}
		out.Items = append(out.Items, v)
	}
	return nil
}

// fillSet builds a !!set as the list of its keys (brine has no set type).
func (c *constructor) fillSet(n *yaml.Node, out *value.List) error {
	m := value.NewMap(len(n.Content) / 2)
	if err := c.fillMap(n, m); err != nil {
		return err
	}
	out.Items = m.Keys()
	return nil
}

// fillPairs builds a !!pairs as a list of (key, value) tuples.
func (c *constructor) fillPairs(n *yaml.Node, out *value.List) error {
	const ctx = "while constructing pairs"
	if n.Kind != yaml.SequenceNode {
		return &Error{Kind: ConstructorError, Name: c.name, Context: ctx, ContextMark: mark(n),
			Problem: "expected a sequence, but found " + nodeID(n), ProblemMark: mark(n)}
	}
	for _, sub := range n.Content {
		sub = deref(sub)
		if sub.Kind != yaml.MappingNode {
			return &Error{Kind: ConstructorError, Name: c.name, Context: ctx, ContextMark: mark(n),
				Problem: "expected a mapping of length 1, but found " + nodeID(sub), ProblemMark: mark(sub)}
		}
		if len(sub.Content) != 2 {
			return &Error{Kind: ConstructorError, Name: c.name, Context: ctx, ContextMark: mark(n),
				Problem: "expected a single mapping item, but found " + itoa(len(sub.Content)/2) + " items", ProblemMark: mark(sub)}
		}
		k, err := c.construct(sub.Content[0])
		if err != nil {
			return err
		}
		v, err := c.construct(sub.Content[1])
		if err != nil {
			return err
		}
		out.Items = append(out.Items, value.Tuple{k, v})
	}
	return nil
}

func itoa(i int) string { return value.Repr(int64(i)) }

const mappingContext = "while constructing a mapping"

func (c *constructor) fillMap(n *yaml.Node, out *value.Map) error {
	if n.Kind != yaml.MappingNode {
		return c.errorAt(n, "expected a mapping node, but found "+nodeID(n))
	}
	if err := c.flatten(n, 0); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := deref(n.Content[i])
		k, err := c.construct(kn)
		if err != nil {
			return err
		}
		if !value.Hashable(k) && (c.plainDicts || !isMap(k)) {
			return &Error{Kind: ConstructorError, Name: c.name, Context: mappingContext, ContextMark: mark(n),
				Problem: "found unacceptable key " + nodeValueRepr(kn), ProblemMark: mark(kn)}
		}
		v, err := c.construct(n.Content[i+1])
		if err != nil {
			return err
		}
		// one lookup: a Set that does not grow the map found a duplicate
		before := out.Len()
		out.Set(k, v)
		if out.Len() == before {
			return &Error{Kind: ConstructorError, Name: c.name, Context: mappingContext, ContextMark: mark(n),
				Problem: "found conflicting ID '" + value.Str(k) + "'", ProblemMark: mark(kn)}
		}
	}
	return nil
}

// isMap reports a mapping used as a key: Salt 3006's OrderedDict hashes by
// identity, so the loader accepts it and the yaml renderer rejects it later
// ("possible double curly-brace").
func isMap(v any) bool {
	_, ok := v.(*value.Map)
	return ok
}

// isMergeKey reports whether a key node is the merge key <<.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && tagOf(k) == tagMerge
}

// flatten applies Salt's flatten_mapping to n in place: merge keys are
// removed and the merged pairs put first, minus those whose key text the
// mapping itself has; a list of mappings merges in reverse order.
func (c *constructor) flatten(n *yaml.Node, depth int) error {
	if depth > 1000 {
		return c.errorAt(n, "found unconstructable recursive node")
	}
	var merge []*yaml.Node
	for i := 0; i+1 < len(n.Content); {
		kn, vn := deref(n.Content[i]), deref(n.Content[i+1])
		if kn == nil || vn == nil {
			i += 2
			continue
		}
		if isMergeKey(kn) {
			if err := c.mergeBudget(n, kn, vn); err != nil {
				return err
			}
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			switch vn.Kind {
			case yaml.MappingNode:
				if err := c.flatten(vn, depth+1); err != nil {
					return err
				}
				merge = append(merge, vn.Content...)
			case yaml.SequenceNode:
				subs := make([][]*yaml.Node, 0, len(vn.Content))
				for _, sub := range vn.Content {
					sub = deref(sub)
					if sub.Kind != yaml.MappingNode {
						return &Error{Kind: ConstructorError, Name: c.name, Context: mappingContext, ContextMark: mark(n),
							Problem: "expected a mapping for merging, but found " + nodeID(sub), ProblemMark: mark(sub)}
					}
					if err := c.flatten(sub, depth+1); err != nil {
						return err
					}
					subs = append(subs, sub.Content)
				}
				for j := len(subs) - 1; j >= 0; j-- {
					merge = append(merge, subs[j]...)
				}
			default:
				return &Error{Kind: ConstructorError, Name: c.name, Context: mappingContext, ContextMark: mark(n),
					Problem: "expected a mapping or list of mappings for merging, but found " + nodeID(vn), ProblemMark: mark(vn)}
			}
			continue
		}
		if kn.Kind == yaml.ScalarNode && tagOf(kn) == tagValue {
			kn.Tag, kn.Style = "!!str", kn.Style|yaml.TaggedStyle
		}
		i += 2
	}
	if len(merge) == 0 {
		return nil
	}
	existing := make(map[string]bool, len(n.Content)/2)
	for i := 0; i < len(n.Content); i += 2 {
		if k := deref(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode {
			existing[k.Value] = true
		}
	}
	out := make([]*yaml.Node, 0, len(merge)+len(n.Content))
	for i := 0; i+1 < len(merge); i += 2 {
		if k := deref(merge[i]); k != nil && k.Kind == yaml.ScalarNode && existing[k.Value] {
			continue
		}
		out = append(out, merge[i], merge[i+1])
	}
	n.Content = append(cutRepeat(out), n.Content...)
	return nil
}

// mergeBudget counts the pairs the merge of vn into n copies and refuses
// a document whose merges copy more than maxMergedPairs in all.
func (c *constructor) mergeBudget(n, kn, vn *yaml.Node) error {
	switch vn.Kind {
	case yaml.MappingNode:
		c.merged += len(vn.Content) / 2
	case yaml.SequenceNode:
		for _, sub := range vn.Content {
			if sub = deref(sub); sub != nil {
				c.merged += len(sub.Content) / 2
			}
		}
	}
	if c.merged > maxMergedPairs {
		return &Error{Kind: ConstructorError, Name: c.name, Context: mappingContext, ContextMark: mark(n),
			Problem: "found more than " + itoa(maxMergedPairs) + " merged keys", ProblemMark: mark(kn)}
	}
	return nil
}

// cutRepeat shortens merged pairs after the first key node that comes
// twice (one mapping merged twice). Constructing the mapping stops there
// with "found conflicting ID" anyway (or earlier), so nothing changes but
// the cost: nested merges of repeated mappings would otherwise grow
// exponentially ("billion laughs" through <<).
func cutRepeat(pairs []*yaml.Node) []*yaml.Node {
	if len(pairs) < 4 {
		return pairs
	}
	seen := make(map[*yaml.Node]bool, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		k := deref(pairs[i])
		if seen[k] {
			return pairs[:i+2]
		}
		seen[k] = true
	}
	return pairs
}

// checkCycles rejects a value that contains itself, which aliases can
// build (`a: &a [*a]`). PyYAML builds such a structure; nothing downstream
// in Salt or brine can use one, so brine reports it as PyYAML does a
// recursive node it cannot construct.
func (c *constructor) checkCycles(v any) error {
	const (
		active = 1
		done   = 2
	)
	state := make(map[any]uint8)
	var cyc any
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v.(type) {
		case *value.Map, *value.List:
		default:
			return false
		}
		switch state[v] {
		case active:
			cyc = v
			return true
		case done:
			return false
		}
		state[v] = active
		found := false
		switch x := v.(type) {
		case *value.Map:
			x.Range(func(k, e any) bool {
				found = walk(k) || walk(e)
				return !found
			})
		case *value.List:
			for _, e := range x.Items {
				if found = walk(e); found {
					break
				}
			}
		}
		state[v] = done
		return found
	}
	if !walk(v) {
		return nil
	}
	for n, obj := range c.objs {
		if obj == cyc {
			return c.errorAt(n, "found unconstructable recursive node")
		}
	}
	return &Error{Kind: ConstructorError, Name: c.name, Problem: "found unconstructable recursive node"}
}
