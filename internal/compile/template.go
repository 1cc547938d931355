package compile

import "brine/internal/value"

// PrepareRendered is the part of Salt's render_state that follows the
// rendering of one SLS, for data rendered outside the file server (Salt's
// local render_state, used by state.template): the include list is taken
// out (and returned, with ok false when it is not a list), then extend,
// exclude and the state declarations are handled (the auto order is
// applied by AutoOrder, once the includes are merged). st is nil when data is empty or not a mapping (then errs says
// so).
func (c *Compiler) PrepareRendered(data any, sls, env string) (st *value.Map, include []any, errs []string) {
	n := &node{env: env, sls: sls, data: data}
	if m, ok := data.(*value.Map); ok {
		if inc, has := m.Get("include"); has {
			if l, isList := inc.(*value.List); isList {
				n.include = l.Items
				for _, it := range l.Items {
					if im, isMap := it.(*value.Map); isMap {
						it = im.Copy() // prepare pops the item, as Salt does
					}
					include = append(include, it)
				}
			} else {
				n.badInc = true
			}
		}
	}
	st, _, errs = c.prepare(n)
	return st, include, errs
}

// AutoOrder is Salt's _handle_iorder: with state_auto_order, every state
// declaration of st without an order gets the compiler's next one.
func (c *Compiler) AutoOrder(st *value.Map) { c.handleIorder(st) }
