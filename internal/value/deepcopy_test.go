package value

import (
	"runtime"
	"testing"
)

// TestDeepCopyShared: like Python's copy.deepcopy, a container reached
// twice is copied once and the copies are shared the same way, so nested
// sharing (YAML aliases) costs what it shares, and a cycle terminates.
func TestDeepCopyShared(t *testing.T) {
	// 9 levels of 9 references to the level below: 9**9 leaves expanded.
	var v any = NewList("lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol")
	for range 8 {
		items := make([]any, 9)
		for i := range items {
			items[i] = v
		}
		v = NewList(items...)
	}
	m := MapOf("a", v, "b", v, "t", Tuple{v, v})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := DeepCopy(m).(*Map)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("DeepCopy allocated %d bytes, want < 1 MiB", n)
	}
	a, _ := c.Get("a")
	b, _ := c.Get("b")
	if a == v {
		t.Fatal("not copied")
	}
	if a != b {
		t.Error("a shared list is copied twice")
	}
	l := a.(*List)
	if l.Items[0] != l.Items[8] {
		t.Error("nested sharing lost")
	}
	tu, _ := c.Get("t")
	if tu.(Tuple)[0] != a {
		t.Error("sharing through a tuple lost")
	}
	if !Equal(c, m) {
		t.Error("copy differs")
	}
	// The copy is independent of the original.
	l.Items[0] = "x"
	if v.(*List).Items[0] == "x" {
		t.Error("copy aliases the original")
	}

	// A cycle is copied as a cycle.
	cyc := NewList(int64(1))
	cyc.Items = append(cyc.Items, cyc)
	cc := DeepCopy(cyc).(*List)
	if cc == cyc || cc.Items[1] != cc {
		t.Error("cycle not copied as a cycle")
	}

	// Scalars and empty containers.
	if DeepCopy("s") != "s" || DeepCopy(int64(3)) != int64(3) {
		t.Error("scalars changed")
	}
	if tt, ok := DeepCopy(Tuple{}).(Tuple); !ok || len(tt) != 0 {
		t.Error("empty tuple")
	}
}

func BenchmarkDeepCopy(b *testing.B) {
	items := make([]any, 100)
	for i := range items {
		items[i] = MapOf("name", "x", "n", int64(i), "l", NewList("a", "b"))
	}
	v := MapOf("items", NewList(items...))
	b.ReportAllocs()
	for b.Loop() {
		DeepCopy(v)
	}
}
