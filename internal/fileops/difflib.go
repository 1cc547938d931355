package fileops

import (
	"fmt"
	"strings"
)

// This file is Python's difflib.SequenceMatcher and unified_diff over
// lines, which Salt uses for the "diff" in file states' changes.

type matchBlock struct{ a, b, size int }

type seqMatcher struct {
	a, b    []string
	b2j     map[string][]int
	popular map[string]bool
}

func newSeqMatcher(a, b []string) *seqMatcher {
	m := &seqMatcher{a: a, b: b, b2j: map[string][]int{}}
	for i, line := range b {
		m.b2j[line] = append(m.b2j[line], i)
	}
	// autojunk: with 200 or more lines, lines making up more than 1% of b
	// (plus one) are treated as junk.
	if n := len(b); n >= 200 {
		ntest := n/100 + 1
		m.popular = map[string]bool{}
		for line, idx := range m.b2j {
			if len(idx) > ntest {
				m.popular[line] = true
				delete(m.b2j, line)
			}
		}
	}
	return m
}

// longest is find_longest_match without a junk predicate (Salt passes
// none; only popular lines are junk).
func (m *seqMatcher) longest(alo, ahi, blo, bhi int) matchBlock {
	besti, bestj, bestsize := alo, blo, 0
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		newj2len := map[int]int{}
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			newj2len[j] = k
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		j2len = newj2len
	}
	// Extend with equal lines on both sides (popular lines are not junk
	// here, so difflib's first extension pass takes them).
	for besti > alo && bestj > blo && m.a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.a[besti+bestsize] == m.b[bestj+bestsize] {
		bestsize++
	}
	return matchBlock{besti, bestj, bestsize}
}

func (m *seqMatcher) matchingBlocks() []matchBlock {
	la, lb := len(m.a), len(m.b)
	queue := [][4]int{{0, la, 0, lb}}
	var blocks []matchBlock
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		alo, ahi, blo, bhi := q[0], q[1], q[2], q[3]
		x := m.longest(alo, ahi, blo, bhi)
		if x.size > 0 {
			blocks = append(blocks, x)
			if alo < x.a && blo < x.b {
				queue = append(queue, [4]int{alo, x.a, blo, x.b})
			}
			if x.a+x.size < ahi && x.b+x.size < bhi {
				queue = append(queue, [4]int{x.a + x.size, ahi, x.b + x.size, bhi})
			}
		}
	}
	// sort
	for i := 1; i < len(blocks); i++ {
		for j := i; j > 0 && (blocks[j].a < blocks[j-1].a || blocks[j].a == blocks[j-1].a && blocks[j].b < blocks[j-1].b); j-- {
			blocks[j], blocks[j-1] = blocks[j-1], blocks[j]
		}
	}
	// collapse adjacent blocks
	var out []matchBlock
	i1, j1, k1 := 0, 0, 0
	for _, b := range blocks {
		if i1+k1 == b.a && j1+k1 == b.b {
			k1 += b.size
		} else {
			if k1 > 0 {
				out = append(out, matchBlock{i1, j1, k1})
			}
			i1, j1, k1 = b.a, b.b, b.size
		}
	}
	if k1 > 0 {
		out = append(out, matchBlock{i1, j1, k1})
	}
	return append(out, matchBlock{la, lb, 0})
}

type opcode struct {
	tag            byte // 'r'eplace, 'd'elete, 'i'nsert, 'e'qual
	i1, i2, j1, j2 int
}

func (m *seqMatcher) opcodes() []opcode {
	i, j := 0, 0
	var out []opcode
	for _, b := range m.matchingBlocks() {
		var tag byte
		switch {
		case i < b.a && j < b.b:
			tag = 'r'
		case i < b.a:
			tag = 'd'
		case j < b.b:
			tag = 'i'
		}
		if tag != 0 {
			out = append(out, opcode{tag, i, b.a, j, b.b})
		}
		i, j = b.a+b.size, b.b+b.size
		if b.size > 0 {
			out = append(out, opcode{'e', b.a, i, b.b, j})
		}
	}
	return out
}

func (m *seqMatcher) groupedOpcodes(n int) [][]opcode {
	codes := m.opcodes()
	if len(codes) == 0 {
		codes = []opcode{{'e', 0, 1, 0, 1}}
	}
	if codes[0].tag == 'e' {
		c := &codes[0]
		c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
	}
	if last := &codes[len(codes)-1]; last.tag == 'e' {
		last.i2, last.j2 = min(last.i2, last.i1+n), min(last.j2, last.j1+n)
	}
	nn := n + n
	var groups [][]opcode
	var group []opcode
	for _, c := range codes {
		if c.tag == 'e' && c.i2-c.i1 > nn {
			group = append(group, opcode{'e', c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)})
			groups = append(groups, group)
			group = nil
			c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}

func formatRange(start, stop int) string {
	beginning := start + 1
	length := stop - start
	if length == 1 {
		return fmt.Sprint(beginning)
	}
	if length == 0 {
		beginning--
	}
	return fmt.Sprintf("%d,%d", beginning, length)
}

// UnifiedDiff is "".join(difflib.unified_diff(a, b)) with empty file names
// and n=3 context lines; a and b are lines with their line endings.
func UnifiedDiff(a, b []string, fromFile, toFile string) string {
	var sb strings.Builder
	started := false
	for _, group := range newSeqMatcher(a, b).groupedOpcodes(3) {
		if !started {
			started = true
			sb.WriteString("--- " + fromFile + "\n")
			sb.WriteString("+++ " + toFile + "\n")
		}
		first, last := group[0], group[len(group)-1]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", formatRange(first.i1, last.i2), formatRange(first.j1, last.j2))
		for _, c := range group {
			if c.tag == 'e' {
				for _, line := range a[c.i1:c.i2] {
					sb.WriteString(" " + line)
				}
				continue
			}
			if c.tag == 'r' || c.tag == 'd' {
				for _, line := range a[c.i1:c.i2] {
					sb.WriteString("-" + line)
				}
			}
			if c.tag == 'r' || c.tag == 'i' {
				for _, line := range b[c.j1:c.j2] {
					sb.WriteString("+" + line)
				}
			}
		}
	}
	return sb.String()
}

// SplitLines splits text as Python's file.readlines does: each line keeps
// its "\n".
func SplitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// LineDiff is "\n".join(difflib.unified_diff(a, b)) on lines without
// their newlines, as file.append reports it.
func LineDiff(a, b []string) string {
	// Python yields headers ending in "\n" and lines without one; the
	// elements are joined with "\n".
	var parts []string
	for _, g := range newSeqMatcher(a, b).groupedOpcodes(3) {
		if len(parts) == 0 {
			parts = append(parts, "--- \n", "+++ \n")
		}
		first, last := g[0], g[len(g)-1]
		parts = append(parts, fmt.Sprintf("@@ -%s +%s @@\n", formatRange(first.i1, last.i2), formatRange(first.j1, last.j2)))
		for _, op := range g {
			if op.tag == 'e' {
				for _, l := range a[op.i1:op.i2] {
					parts = append(parts, " "+l)
				}
				continue
			}
			if op.tag == 'r' || op.tag == 'd' {
				for _, l := range a[op.i1:op.i2] {
					parts = append(parts, "-"+l)
				}
			}
			if op.tag == 'r' || op.tag == 'i' {
				for _, l := range b[op.j1:op.j2] {
					parts = append(parts, "+"+l)
				}
			}
		}
	}
	return strings.Join(parts, "\n")
}
