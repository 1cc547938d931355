package yamlload

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Dump writes v as YAML text exactly as PyYAML's yaml.dump with the C
// (libyaml 0.2.5) safe dumper does, or with opts.PurePython its
// pure-Python safe dumper (the one Salt's dumpers subclass). Values
// are those of package value; a list or mapping met twice is written once
// with an anchor and then as an alias, as PyYAML does.
func Dump(v any, opts DumpOptions) (string, error) {
	r := representer{opts: &opts}
	root := r.represent(v)
	if r.err != nil {
		return "", r.err
	}
	e := newEmitter(&opts)
	e.anchorNode(root)
	e.document(root)
	return e.out.String(), nil
}

type emitter struct {
	opts       *DumpOptions
	out        strings.Builder
	bestIndent int
	bestWidth  int
	lineBreak  string
	unicode    bool

	indent     int
	indents    []int
	flowLevel  int
	column     int
	whitespace bool
	indention  bool
	openEnded  int

	rootCtx, seqCtx, mapCtx, simpleKeyCtx bool

	// pyBreaks makes a written line break count as whitespace, as in
	// PyYAML's pure-Python emitter (used by Salt's quoting filters).
	pyBreaks bool

	anchors    map[*rnode]string
	serialized map[*rnode]bool
	lastAnchor int
}

func newEmitter(opts *DumpOptions) *emitter {
	e := &emitter{opts: opts, bestIndent: opts.Indent, bestWidth: opts.Width,
		lineBreak: opts.LineBreak, unicode: opts.AllowUnicode, pyBreaks: opts.PurePython}
	if e.bestIndent < 2 || e.bestIndent > 9 {
		e.bestIndent = 2
	}
	if e.bestWidth >= 0 && e.bestWidth <= e.bestIndent*2 {
		e.bestWidth = 80
	}
	if e.bestWidth < 0 {
		e.bestWidth = int(^uint(0) >> 1)
	}
	if e.lineBreak == "" {
		e.lineBreak = "\n"
	}
	e.indent = -1
	e.whitespace, e.indention = true, true
	return e
}

// anchorNode is the serializer's pass that names nodes met twice, in the
// order of their second occurrence.
func (e *emitter) anchorNode(n *rnode) {
	if n.kind == scalarNode {
		return
	}
	if e.anchors == nil {
		e.anchors = make(map[*rnode]string)
	}
	if a, ok := e.anchors[n]; ok {
		if a == "" {
			e.lastAnchor++
			e.anchors[n] = "id" + pad3(e.lastAnchor)
		}
		return
	}
	e.anchors[n] = ""
	for _, c := range n.items {
		e.anchorNode(c)
	}
}

func pad3(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

func (e *emitter) document(root *rnode) {
	if e.opts.ExplicitStart {
		e.writeIndent()
		e.writeIndicator("---", true, false, false)
	}
	e.node(root, true, false, false, false)
	e.writeIndent()
	if e.opts.ExplicitEnd {
		e.writeIndicator("...", true, false, false)
		e.openEnded = 0
		e.writeIndent()
	} else if e.openEnded == 0 {
		e.openEnded = 1
	}
	if e.openEnded == 2 {
		e.writeIndicator("...", true, false, false)
		e.openEnded = 0
		e.writeIndent()
	}
}

func (e *emitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	if e.indent < 0 {
		if flow {
			e.indent = e.bestIndent
		} else {
			e.indent = 0
		}
	} else if !indentless {
		e.indent += e.bestIndent
	}
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

// node emits n in the given context, libyaml's emit_node.
func (e *emitter) node(n *rnode, root, seq, mapping, simpleKey bool) {
	e.rootCtx, e.seqCtx, e.mapCtx, e.simpleKeyCtx = root, seq, mapping, simpleKey
	anchor := e.anchors[n]
	if anchor != "" && e.serialized[n] {
		e.writeIndicator("*", true, false, false)
		e.writeRaw(anchor)
		if simpleKey {
			e.put(' ')
		}
		return
	}
	if anchor != "" {
		if e.serialized == nil {
			e.serialized = make(map[*rnode]bool)
		}
		e.serialized[n] = true
	}
	switch n.kind {
	case scalarNode:
		e.scalar(n, anchor)
	case seqNode:
		e.processAnchor(anchor)
		e.processCollectionTag(n)
		if e.flowLevel > 0 || n.flow || len(n.items) == 0 {
			e.flowSequence(n)
		} else {
			e.blockSequence(n)
		}
	case mapNode:
		e.processAnchor(anchor)
		e.processCollectionTag(n)
		if e.flowLevel > 0 || n.flow || len(n.items) == 0 {
			e.flowMapping(n)
		} else {
			e.blockMapping(n)
		}
	}
}

func (e *emitter) processAnchor(anchor string) {
	if anchor == "" {
		return
	}
	e.writeIndicator("&", true, false, false)
	e.writeRaw(anchor)
}

// processCollectionTag writes nothing: represented collections always carry
// their implicit !!seq or !!map tag.
func (e *emitter) processCollectionTag(*rnode) {}

func (e *emitter) flowSequence(n *rnode) {
	e.writeIndicator("[", true, true, false)
	e.increaseIndent(true, false)
	e.flowLevel++
	for i, it := range n.items {
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > e.bestWidth {
			e.writeIndent()
		}
		e.node(it, false, true, false, false)
	}
	e.flowLevel--
	e.popIndent()
	e.writeIndicator("]", false, false, false)
}

func (e *emitter) flowMapping(n *rnode) {
	e.writeIndicator("{", true, true, false)
	e.increaseIndent(true, false)
	e.flowLevel++
	for i := 0; i+1 < len(n.items); i += 2 {
		k, v := n.items[i], n.items[i+1]
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > e.bestWidth {
			e.writeIndent()
		}
		if e.checkSimpleKey(k) {
			e.node(k, false, false, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, false)
			e.node(k, false, false, true, false)
			if e.column > e.bestWidth {
				e.writeIndent()
			}
			e.writeIndicator(":", true, false, false)
		}
		e.node(v, false, false, true, false)
	}
	e.flowLevel--
	e.popIndent()
	e.writeIndicator("}", false, false, false)
}

func (e *emitter) blockSequence(n *rnode) {
	e.increaseIndent(false, e.mapCtx && !e.indention)
	for _, it := range n.items {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.node(it, false, true, false, false)
	}
	e.popIndent()
}

func (e *emitter) blockMapping(n *rnode) {
	e.increaseIndent(false, false)
	for i := 0; i+1 < len(n.items); i += 2 {
		k, v := n.items[i], n.items[i+1]
		e.writeIndent()
		if e.checkSimpleKey(k) {
			e.node(k, false, false, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, true)
			e.node(k, false, false, true, false)
			e.writeIndent()
			e.writeIndicator(":", true, false, true)
		}
		e.node(v, false, false, true, false)
	}
	e.popIndent()
}

// scalarInfo is what the emitter needs to know about a scalar node.
type scalarInfo struct {
	an             analysis
	plainImplicit  bool
	quotedImplicit bool
	handle, suffix string // the tag to write, empty when implicit
}

func (e *emitter) scalarInfo(n *rnode) scalarInfo {
	si := scalarInfo{an: analyzeScalar(n.value, e.unicode, e.pyBreaks)}
	si.plainImplicit = Resolve(n.value) == n.tag
	si.quotedImplicit = n.tag == tagStr
	if !si.plainImplicit && !si.quotedImplicit {
		if strings.HasPrefix(n.tag, tagPrefix) {
			si.handle, si.suffix = "!!", n.tag[len(tagPrefix):]
		} else {
			si.suffix = n.tag
		}
	}
	return si
}

// checkSimpleKey is libyaml's check_simple_key.
func (e *emitter) checkSimpleKey(n *rnode) bool {
	length := 0
	if a := e.anchors[n]; a != "" {
		length += len(a)
		if e.serialized[n] {
			return length <= 128
		}
	}
	switch n.kind {
	case scalarNode:
		si := e.scalarInfo(n)
		if si.an.multiline {
			return false
		}
		length += len(si.handle) + len(si.suffix) + len(n.value)
	default:
		if len(n.items) != 0 {
			return false
		}
	}
	return length <= 128
}

type scalarStyle uint8

const (
	plainStyle scalarStyle = iota
	singleStyle
	doubleStyle
	literalStyle
)

func (e *emitter) scalar(n *rnode, anchor string) {
	si := e.scalarInfo(n)
	noTag := si.handle == "" && si.suffix == ""
	style := plainStyle
	if n.literal {
		style = literalStyle
	}
	if e.simpleKeyCtx && si.an.multiline {
		style = doubleStyle
	}
	if style == plainStyle {
		if e.flowLevel > 0 && !si.an.flowPlain || e.flowLevel == 0 && !si.an.blockPlain {
			style = singleStyle
		}
		if n.value == "" && (e.flowLevel > 0 || e.simpleKeyCtx) {
			style = singleStyle
		}
		if noTag && !si.plainImplicit {
			style = singleStyle
		}
	}
	if style == singleStyle && !si.an.singleQuoted {
		style = doubleStyle
	}
	if style == literalStyle && (!si.an.block || e.flowLevel > 0 || e.simpleKeyCtx) {
		style = doubleStyle
	}
	if noTag && !si.quotedImplicit && style != plainStyle {
		si.handle = "!"
	}
	e.processAnchor(anchor)
	if si.handle != "" {
		if !e.whitespace {
			e.put(' ')
		}
		e.writeRaw(si.handle)
		if si.suffix != "" {
			e.writeRaw(si.suffix)
		}
	} else if si.suffix != "" {
		e.writeIndicator("!<", true, false, false)
		e.writeRaw(si.suffix)
		e.writeIndicator(">", false, false, false)
	}
	e.increaseIndent(true, false)
	allowBreaks := !e.simpleKeyCtx
	switch style {
	case plainStyle:
		e.writePlain(n.value, allowBreaks)
	case singleStyle:
		e.writeSingle(n.value, allowBreaks)
	case doubleStyle:
		e.writeDouble(n.value, allowBreaks)
	case literalStyle:
		e.writeLiteral(n.value)
	}
	e.popIndent()
}

// analysis is libyaml's scalar analysis.
type analysis struct {
	multiline    bool
	flowPlain    bool
	blockPlain   bool
	singleQuoted bool
	block        bool
}

func isBreak(r rune) bool {
	return r == '\r' || r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029
}

func isBlankz(r rune) bool {
	return r == ' ' || r == '\t' || r == 0 || isBreak(r)
}

// isPrintable is libyaml's IS_PRINTABLE.
func isPrintable(r rune) bool {
	switch {
	case r == 0x0A, r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return r != 0xFEFF
	}
	return false
}

// isPrintablePy is the pure-Python emitter's idea of a character that
// needs no escape (given allow_unicode): unlike libyaml 0.2.5 it takes
// NEL and characters beyond the Basic Multilingual Plane.
func isPrintablePy(r rune) bool {
	return isPrintable(r) || r == 0x85 || r >= 0x10000 && r < 0x10FFFF
}

// analyzeScalar is libyaml's scalar analysis, or with py that of PyYAML's
// pure-Python emitter.
func analyzeScalar(s string, unicode, py bool) analysis {
	if s == "" {
		return analysis{blockPlain: true, singleQuoted: true}
	}
	var blockInd, flowInd, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockInd, flowInd = true, true
	}
	preceded := true
	var prevSpace, prevBreak bool
	first := true
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		next := i + w
		followed := true
		if next < len(s) {
			nr, _ := utf8.DecodeRuneInString(s[next:])
			followed = isBlankz(nr)
		}
		if first {
			switch r {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowInd, blockInd = true, true
			case '?', ':':
				flowInd = true
				if followed {
					blockInd = true
				}
			case '-':
				if followed {
					flowInd, blockInd = true, true
				}
			}
		} else {
			switch r {
			case ',', '?', '[', ']', '{', '}':
				flowInd = true
			case ':':
				flowInd = true
				if followed {
					blockInd = true
				}
			case '#':
				if preceded {
					flowInd, blockInd = true, true
				}
			}
		}
		printable := isPrintable(r)
		if py {
			printable = isPrintablePy(r)
		}
		if !printable || r >= 0x80 && !unicode {
			special = true
		}
		last := next >= len(s)
		switch {
		case r == ' ':
			if first {
				leadingSpace = true
			}
			if last {
				trailingSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case isBreak(r):
			lineBreaks = true
			if first {
				leadingBreak = true
			}
			if last {
				trailingBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		preceded = isBlankz(r)
		first = false
		i = next
	}
	a := analysis{multiline: lineBreaks, flowPlain: true, blockPlain: true, singleQuoted: true, block: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.flowPlain, a.blockPlain = false, false
	}
	if trailingSpace {
		a.block = false
	}
	if breakSpace {
		a.flowPlain, a.blockPlain, a.singleQuoted = false, false, false
	}
	if spaceBreak || special {
		a.flowPlain, a.blockPlain, a.singleQuoted, a.block = false, false, false, false
	}
	if lineBreaks {
		a.flowPlain, a.blockPlain = false, false
	}
	if flowInd {
		a.flowPlain = false
	}
	if blockInd {
		a.blockPlain = false
	}
	return a
}

// Low-level writers, following libyaml's column and whitespace tracking.

func (e *emitter) put(b byte) {
	e.out.WriteByte(b)
	e.column++
}

func (e *emitter) putBreak() {
	e.out.WriteString(e.lineBreak)
	e.column = 0
}

// writeRune writes one character.
func (e *emitter) writeRune(r rune) {
	e.out.WriteRune(r)
	e.column++
}

// writeBreak is libyaml's WRITE_BREAK: '\n' becomes the configured line
// break, other breaks are copied.
func (e *emitter) writeBreak(r rune) {
	if r == '\n' {
		e.putBreak()
	} else {
		e.out.WriteRune(r)
		e.column = 0
	}
	if e.pyBreaks {
		e.whitespace = true
	}
}

func (e *emitter) writeRaw(s string) {
	for _, r := range s {
		e.writeRune(r)
	}
	e.whitespace, e.indention = false, false
}

func (e *emitter) writeIndent() {
	indent := e.indent
	if indent < 0 {
		indent = 0
	}
	if !e.indention || e.column > indent || e.column == indent && !e.whitespace {
		e.putBreak()
	}
	for e.column < indent {
		e.put(' ')
	}
	e.whitespace, e.indention = true, true
}

func (e *emitter) writeIndicator(ind string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	for _, r := range ind {
		e.writeRune(r)
	}
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

func (e *emitter) writePlain(s string, allowBreaks bool) {
	if e.pyBreaks && e.rootCtx {
		// PyYAML ends a document whose root is a plain scalar with "..."
		e.openEnded = 2
	}
	if !e.whitespace && (s != "" || e.flowLevel > 0) {
		e.put(' ')
	}
	spaces, breaks := false, false
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ':
			if allowBreaks && !spaces && e.column > e.bestWidth && !(i+1 < len(s) && s[i+1] == ' ') {
				e.writeIndent()
			} else {
				e.writeRune(r)
			}
			spaces = true
		case isBreak(r):
			if !breaks && r == '\n' {
				e.putBreak()
			}
			e.writeBreak(r)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			e.writeRune(r)
			e.indention = false
			spaces, breaks = false, false
		}
		i += w
	}
	e.whitespace, e.indention = false, false
}

func (e *emitter) writeSingle(s string, allowBreaks bool) {
	e.writeIndicator("'", true, false, false)
	spaces, breaks := false, false
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if e.pyBreaks && breaks && r == ' ' {
			// PyYAML ends a run of breaks with an indent at once
			e.writeIndent()
			breaks = false
		}
		switch {
		case r == ' ':
			if allowBreaks && !spaces && e.column > e.bestWidth && i != 0 && i != len(s)-1 &&
				!(i+1 < len(s) && s[i+1] == ' ') {
				e.writeIndent()
			} else {
				e.writeRune(r)
			}
			spaces = true
		case isBreak(r):
			if !breaks && r == '\n' {
				e.putBreak()
			}
			e.writeBreak(r)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			if r == '\'' {
				e.put('\'')
			}
			e.writeRune(r)
			e.indention = false
			spaces, breaks = false, false
		}
		i += w
	}
	if breaks {
		e.writeIndent()
	}
	e.writeIndicator("'", false, false, false)
	e.whitespace, e.indention = false, false
}

const hexDigits = "0123456789ABCDEF"

func (e *emitter) writeDouble(s string, allowBreaks bool) {
	if e.pyBreaks {
		e.writeDoublePy(s, allowBreaks)
		return
	}
	e.writeIndicator("\"", true, false, false)
	spaces := false
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case !isPrintable(r) || !e.unicode && r >= 0x80 || r == 0xFEFF || isBreak(r) || r == '"' || r == '\\':
			e.writeEscape(r)
			spaces = false
		case r == ' ':
			if allowBreaks && !spaces && e.column > e.bestWidth && i != 0 && i != len(s)-1 {
				e.writeIndent()
				if i+1 < len(s) && s[i+1] == ' ' {
					e.put('\\')
				}
			} else {
				e.writeRune(r)
			}
			spaces = true
		default:
			e.writeRune(r)
			spaces = false
		}
		i += w
	}
	e.writeIndicator("\"", false, false, false)
	e.whitespace, e.indention = false, false
}

// pyEscaped reports whether PyYAML's pure-Python emitter escapes r in a
// double-quoted scalar: it keeps only printable ASCII and, with
// allow_unicode, the printable part of the Basic Multilingual Plane.
func (e *emitter) pyEscaped(r rune) bool {
	switch r {
	case '"', '\\', 0x85, 0x2028, 0x2029, 0xFEFF:
		return true
	}
	if r >= 0x20 && r <= 0x7E {
		return false
	}
	return !e.unicode || !(r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD)
}

// writeEscape writes the double-quoted escape sequence of r.
func (e *emitter) writeEscape(r rune) {
	e.put('\\')
	var c byte
	switch r {
	case 0:
		c = '0'
	case 0x07:
		c = 'a'
	case 0x08:
		c = 'b'
	case 0x09:
		c = 't'
	case 0x0A:
		c = 'n'
	case 0x0B:
		c = 'v'
	case 0x0C:
		c = 'f'
	case 0x0D:
		c = 'r'
	case 0x1B:
		c = 'e'
	case '"':
		c = '"'
	case '\\':
		c = '\\'
	case 0x85:
		c = 'N'
	case 0xA0:
		c = '_'
	case 0x2028:
		c = 'L'
	case 0x2029:
		c = 'P'
	}
	if c != 0 {
		e.put(c)
		return
	}
	digits := 8
	switch {
	case r <= 0xFF:
		e.put('x')
		digits = 2
	case r <= 0xFFFF:
		e.put('u')
		digits = 4
	default:
		e.put('U')
	}
	for k := (digits - 1) * 4; k >= 0; k -= 4 {
		e.put(hexDigits[(r>>uint(k))&0xF])
	}
}

// writeDoublePy is PyYAML's pure-Python write_double_quoted: a line is
// broken at a space, or after an escape, once the text written and the
// run still pending pass the width; the broken line ends with '\' and a
// space starting the next line is escaped as '\ '. Characters outside
// the BMP are escaped even with allow_unicode.
func (e *emitter) writeDoublePy(s string, allowBreaks bool) {
	e.writeIndicator("\"", true, false, false)
	n := utf8.RuneCountInString(s)
	// start and end count runes, as Python indexes a str; startByte and
	// endByte are the same positions in s.
	start, startByte, end := 0, 0, 0
	for endByte := 0; end <= n; end++ {
		r, w := rune(-1), 0
		if end < n {
			r, w = utf8.DecodeRuneInString(s[endByte:])
		}
		if r < 0 || e.pyEscaped(r) {
			if start < end {
				e.writeRun(s[startByte:endByte], end-start)
				start, startByte = end, endByte
			}
			if r >= 0 {
				e.writeEscape(r)
				start, startByte = end+1, endByte+w
			}
		}
		if allowBreaks && end > 0 && end < n-1 && (r == ' ' || start >= end) &&
			e.column+(end-start) > e.bestWidth {
			if start < end {
				e.writeRun(s[startByte:endByte], end-start)
				start, startByte = end, endByte
			}
			e.put('\\')
			e.writeIndent()
			e.whitespace, e.indention = false, false
			if s[startByte] == ' ' {
				e.put('\\')
			}
		}
		endByte += w
	}
	e.writeIndicator("\"", false, false, false)
	e.whitespace, e.indention = false, false
}

// writeRun writes a run of n characters without escapes.
func (e *emitter) writeRun(s string, n int) {
	e.out.WriteString(s)
	e.column += n
}

func (e *emitter) writeLiteral(s string) {
	e.writeIndicator("|", true, false, false)
	e.blockScalarHints(s)
	e.putBreak()
	e.indention, e.whitespace = true, true
	breaks := true
	for _, r := range s {
		if isBreak(r) {
			e.writeBreak(r)
			e.indention = true
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent()
		}
		e.writeRune(r)
		e.indention = false
		breaks = false
	}
}

func (e *emitter) blockScalarHints(s string) {
	if s != "" {
		r, _ := utf8.DecodeRuneInString(s)
		if r == ' ' || isBreak(r) {
			e.writeIndicator(strconv.Itoa(e.bestIndent), false, false, false)
		}
	}
	e.openEnded = 0
	chomp := ""
	if s == "" {
		chomp = "-"
	} else {
		last, w := utf8.DecodeLastRuneInString(s)
		switch {
		case !isBreak(last):
			chomp = "-"
		case len(s) == w:
			chomp = "+"
			e.openEnded = 2
		default:
			prev, _ := utf8.DecodeLastRuneInString(s[:len(s)-w])
			if isBreak(prev) {
				chomp = "+"
				e.openEnded = 2
			}
		}
	}
	if chomp != "" {
		e.writeIndicator(chomp, false, false, false)
	}
}
