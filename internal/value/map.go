// Package value is brine's dynamic data model: the values that rendered
// templates, YAML documents, pillar, high data, low chunks and state returns
// are made of.
//
// A value is one of these Go types:
//
//	nil        Python None
//	bool       bool
//	int64      int (values beyond int64 are *big.Int)
//	*big.Int   int too large for int64
//	float64    float
//	string     str
//	[]byte     bytes (YAML !!binary)
//	*Map       dict, insertion ordered, mutable
//	*List      list, mutable
//	Tuple      tuple, immutable
//
// Other packages may add their own types (Jinja's Undefined, Markup, macros);
// functions here treat unknown types conservatively.
package value

// hashSmall is the size up to which a Map finds keys by a linear scan and
// keeps no index.
const hashSmall = 16

// Map is an insertion-ordered mapping with Python dict semantics: keys are
// compared by Python equality (1, 1.0 and True are the same key), setting an
// existing key keeps its position, deleting removes it.
type Map struct {
	keys []any
	vals []any
	// Indexes, built once the map outgrows a linear scan: string keys
	// (the common case, kept unboxed) and every other normalized key (idx
	// only once there is one; sidx is set whenever the map is indexed).
	sidx map[string]int
	idx  map[any]int
	// ordered marks a Python OrderedDict (what Salt's YAML loader builds):
	// outputters that sort a plain dict's keys keep an OrderedDict's order.
	ordered bool
	// inl holds the keys and values of a map made for at most two entries
	// (most maps in SLS data have one), saving an allocation.
	inl [4]any
}

// SetOrdered marks m as an OrderedDict (true) or a plain dict (false) and
// returns m.
func (m *Map) SetOrdered(ordered bool) *Map {
	m.ordered = ordered
	return m
}

// Ordered reports whether m is an OrderedDict rather than a plain dict.
func (m *Map) Ordered() bool { return m != nil && m.ordered }

// NewMap returns an empty map with room for n entries.
func NewMap(n int) *Map {
	if n <= 2 {
		m := &Map{}
		m.keys, m.vals = m.inl[0:0:2], m.inl[2:2:4]
		return m
	}
	// one allocation for both slices; appending past n moves each away
	buf := make([]any, 2*n)
	return &Map{keys: buf[:0:n], vals: buf[n : n : 2*n]}
}

// MapOf builds a map from alternating keys and values.
func MapOf(kv ...any) *Map {
	m := NewMap(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return m
}

// Len returns the number of entries; a nil map has none.
func (m *Map) Len() int {
	if m == nil {
		return 0
	}
	return len(m.keys)
}

func (m *Map) find(k any) int {
	if m == nil {
		return -1
	}
	if ks, ok := k.(string); ok {
		if m.sidx != nil {
			if i, ok := m.sidx[ks]; ok {
				return i
			}
			return -1
		}
		for i, key := range m.keys {
			if s, ok := key.(string); ok && s == ks {
				return i
			}
		}
		return -1
	}
	hk := HashKey(k)
	if m.sidx != nil {
		if i, ok := m.idx[hk]; ok {
			return i
		}
		return -1
	}
	for i, key := range m.keys {
		if HashKey(key) == hk {
			return i
		}
	}
	return -1
}

// Get returns the value stored under k.
func (m *Map) Get(k any) (any, bool) {
	i := m.find(k)
	if i < 0 {
		return nil, false
	}
	return m.vals[i], true
}

// GetString is Get for a string key, the common case.
func (m *Map) GetString(k string) (any, bool) { return m.Get(k) }

// Has reports whether k is a key.
func (m *Map) Has(k any) bool { return m.find(k) >= 0 }

// Set stores v under k, keeping k's position when it is already present.
func (m *Map) Set(k, v any) {
	if i := m.find(k); i >= 0 {
		m.vals[i] = v
		return
	}
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
	if m.sidx != nil {
		m.index(k, len(m.keys)-1)
	} else if len(m.keys) > hashSmall {
		m.reindex()
	}
}

func (m *Map) index(k any, i int) {
	if s, ok := k.(string); ok {
		m.sidx[s] = i
	} else {
		if m.idx == nil {
			m.idx = make(map[any]int)
		}
		m.idx[HashKey(k)] = i
	}
}

func (m *Map) reindex() {
	m.sidx = make(map[string]int, len(m.keys))
	m.idx = nil
	for i, k := range m.keys {
		m.index(k, i)
	}
}

// Delete removes k and returns its value.
func (m *Map) Delete(k any) (any, bool) {
	i := m.find(k)
	if i < 0 {
		return nil, false
	}
	v := m.vals[i]
	m.keys = append(m.keys[:i], m.keys[i+1:]...)
	m.vals = append(m.vals[:i], m.vals[i+1:]...)
	if m.sidx != nil {
		if len(m.keys) > hashSmall {
			m.reindex()
		} else {
			m.sidx, m.idx = nil, nil
		}
	}
	return v, true
}

// Clear removes every entry.
func (m *Map) Clear() {
	m.keys, m.vals, m.sidx, m.idx = m.keys[:0], m.vals[:0], nil, nil
}

// Keys returns the keys in order. The slice is the map's own: do not modify.
func (m *Map) Keys() []any {
	if m == nil {
		return nil
	}
	return m.keys
}

// Values returns the values in key order. The slice is the map's own.
func (m *Map) Values() []any {
	if m == nil {
		return nil
	}
	return m.vals
}

// At returns the i-th entry.
func (m *Map) At(i int) (k, v any) { return m.keys[i], m.vals[i] }

// SetAt replaces the value of the i-th entry.
func (m *Map) SetAt(i int, v any) { m.vals[i] = v }

// Range calls f for each entry in order until f returns false.
// The map must not be modified during the walk.
func (m *Map) Range(f func(k, v any) bool) {
	if m == nil {
		return
	}
	for i, k := range m.keys {
		if !f(k, m.vals[i]) {
			return
		}
	}
}

// Copy returns a shallow copy.
func (m *Map) Copy() *Map {
	if m == nil {
		return NewMap(0)
	}
	c := NewMap(len(m.keys))
	c.keys = append(c.keys, m.keys...)
	c.vals = append(c.vals, m.vals...)
	c.ordered = m.ordered
	if m.sidx != nil {
		c.reindex()
	}
	return c
}

// Update sets every entry of o into m, in o's order (Python dict.update).
func (m *Map) Update(o *Map) {
	o.Range(func(k, v any) bool { m.Set(k, v); return true })
}

// Pop removes and returns the first entry (used for Python's popitem order
// variants by callers that need it).
func (m *Map) PopFirst() (k, v any, ok bool) {
	if m.Len() == 0 {
		return nil, nil, false
	}
	k, v = m.keys[0], m.vals[0]
	m.Delete(k)
	return k, v, true
}

// Insert places k at position i (0 <= i <= Len), moving it if present.
func (m *Map) Insert(i int, k, v any) {
	m.Delete(k)
	if i > len(m.keys) {
		i = len(m.keys)
	}
	m.keys = append(m.keys, nil)
	m.vals = append(m.vals, nil)
	copy(m.keys[i+1:], m.keys[i:])
	copy(m.vals[i+1:], m.vals[i:])
	m.keys[i], m.vals[i] = k, v
	if m.sidx != nil || len(m.keys) > hashSmall {
		m.reindex()
	}
}

// List is a mutable Python list.
type List struct {
	Items []any
}

// NewList returns a list holding items (not copied).
func NewList(items ...any) *List { return &List{Items: items} }

// Len returns the number of items; a nil list has none.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.Items)
}

// Append adds items at the end.
func (l *List) Append(v ...any) { l.Items = append(l.Items, v...) }

// Tuple is an immutable Python tuple.
type Tuple []any
