package engine

import (
	"strings"

	"brine/internal/match"
	"brine/internal/value"
)

// chunkIndex speeds up requisite resolution: Salt scans every chunk for
// every requisite (quadratic in the size of the low state); the index
// answers literal names, IDs and SLS names from maps and scans only for
// glob patterns, with the same results in the same order.
type chunkIndex struct {
	chunks               []*value.Map
	state, id, name, sls []string
	byName, byID, bySLS  map[string][]int
}

func newChunkIndex(chunks []*value.Map) *chunkIndex {
	n := len(chunks)
	ix := &chunkIndex{
		chunks: chunks,
		state:  make([]string, n), id: make([]string, n), name: make([]string, n), sls: make([]string, n),
		byName: make(map[string][]int, n), byID: make(map[string][]int, n), bySLS: map[string][]int{},
	}
	for i, c := range chunks {
		ix.state[i] = getStr(c, "state")
		ix.id[i] = getStr(c, "__id__")
		ix.name[i] = getStr(c, "name")
		ix.sls[i] = getStr(c, "__sls__")
		ix.byName[ix.name[i]] = append(ix.byName[ix.name[i]], i)
		ix.byID[ix.id[i]] = append(ix.byID[ix.id[i]], i)
		ix.bySLS[ix.sls[i]] = append(ix.bySLS[ix.sls[i]], i)
	}
	return ix
}

func isGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// find returns, in low-state order, the positions of the chunks rq refers
// to (Salt's matching in check_requisite and call_chunk).
func (ix *chunkIndex) find(rq req, val string) []int {
	if rq.key == "sls" {
		if !isGlob(val) {
			return ix.bySLS[val]
		}
		var out []int
		for i, s := range ix.sls {
			if match.Fnmatch(s, val) {
				out = append(out, i)
			}
		}
		return out
	}
	keep := func(i int) bool { return rq.key == "id" || ix.state[i] == rq.key }
	var out []int
	if !isGlob(val) {
		a, b := ix.byName[val], ix.byID[val]
		for len(a) > 0 || len(b) > 0 {
			var i int
			switch {
			case len(b) == 0 || (len(a) > 0 && a[0] < b[0]):
				i, a = a[0], a[1:]
			case len(a) == 0 || b[0] < a[0]:
				i, b = b[0], b[1:]
			default: // same chunk by name and by ID
				i, a, b = a[0], a[1:], b[1:]
			}
			if keep(i) {
				out = append(out, i)
			}
		}
		return out
	}
	for i := range ix.chunks {
		if (match.Fnmatch(ix.name[i], val) || match.Fnmatch(ix.id[i], val)) && keep(i) {
			out = append(out, i)
		}
	}
	return out
}

// index returns the index of chunks, building it on first use.
func (r *runner) index(chunks []*value.Map) *chunkIndex {
	if r.ix != nil && len(r.ix.chunks) == len(chunks) && (len(chunks) == 0 || &r.ix.chunks[0] == &chunks[0]) {
		return r.ix
	}
	r.ix = newChunkIndex(chunks)
	return r.ix
}
