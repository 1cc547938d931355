package engine

import "brine/internal/value"

// RunID runs the chunks whose __id__ equals id, each with its requisites,
// as Salt's state.sls_id does: every matching chunk goes through
// call_chunk with a fresh running dictionary (so requisites shared by two
// matches run twice) and the results are merged in order. No listen
// handlers run afterwards. The result is empty when no chunk matches.
func RunID(chunks []*value.Map, id any, opts RunOptions) (*value.Map, error) {
	r := newRunner(chunks, opts)
	ret := value.NewMap(0)
	for _, low := range r.chunks {
		cid, _ := low.Get("__id__")
		if !value.Equal(cid, id) {
			continue
		}
		if err := r.ctx.Err(); err != nil {
			return ret, err
		}
		running := r.callChunk(low, value.NewMap(0), r.chunks, 0)
		r.reconcileProcs(running, true)
		ret.Update(running)
		if r.err != nil {
			return ret, r.err
		}
	}
	return ret, nil
}

// Call runs one low chunk directly, as Salt's state.single and state.low
// do with State.verify_data and State.call: a chunk that fails
// verification does not run and errs lists why; otherwise the checks
// (onlyif, unless, creates, check_cmd) and retries apply, but requisites
// are not looked at. modInit runs the module's mod_init first
// (state.single). The caller's map is not changed.
func Call(low *value.Map, modInit bool, opts RunOptions) (ret *value.Map, errs []string) {
	r := newRunner([]*value.Map{low}, opts)
	c := r.chunks[0]
	if errs := r.verifyData(c); len(errs) > 0 {
		return nil, errs
	}
	if modInit {
		r.modInitCheck(c)
	}
	ret = r.call(c, r.chunks, value.NewMap(0), 1)
	// A parallel state finishes here; its result is merged into ret.
	r.reconcileProcs(value.MapOf(r.tag(c), ret), true)
	return ret, nil
}
