package execmod

import (
	"sync"
	"testing"
)

func TestCache(t *testing.T) {
	c := NewContext().Cache()
	steps := []struct {
		op, key string
		val     any
		want    any
		found   bool
	}{
		{"load", "mod.a", nil, nil, false},
		{"store", "mod.a", 1, nil, false},
		{"load", "mod.a", nil, 1, true},
		{"get", "mod.a", nil, 1, true},
		{"loadorstore", "mod.a", 2, 1, true},
		{"loadorstore", "mod.b", "x", "x", false},
		{"get", "mod.b", nil, "x", true},
		{"delete", "mod.a", nil, nil, false},
		{"load", "mod.a", nil, nil, false},
		{"get", "mod.a", nil, nil, false},
		{"delete", "mod.none", nil, nil, false},
	}
	for i, s := range steps {
		var got any
		var found bool
		switch s.op {
		case "load":
			got, found = c.Load(s.key)
		case "get":
			got = c.Get(s.key)
			found = got != nil
		case "store":
			c.Store(s.key, s.val)
			continue
		case "delete":
			c.Delete(s.key)
			continue
		case "loadorstore":
			got, found = c.LoadOrStore(s.key, s.val)
		}
		if got != s.want || found != s.found {
			t.Errorf("step %d %s(%s) = %v, %v; want %v, %v", i, s.op, s.key, got, found, s.want, s.found)
		}
	}
}

// TestCacheOwnership checks which contexts share a __context__: a context
// built without NewContext gets one on first use, Fork and NewCache give
// a fresh one, a plain copy shares it.
func TestCacheOwnership(t *testing.T) {
	var zero Context
	zero.Cache().Store("k", 1)
	if zero.Cache().Get("k") != 1 {
		t.Error("a zero Context does not keep its cache")
	}
	ctx := NewContext()
	ctx.Cache().Store("k", "run")
	cp := *ctx
	if cp.Cache().Get("k") != "run" {
		t.Error("a copy of a context does not share its cache")
	}
	cp.NewCache()
	if cp.Cache().Get("k") != nil || ctx.Cache().Get("k") != "run" {
		t.Error("NewCache did not give the copy a cache of its own")
	}
	f := ctx.Fork()
	defer f.Release()
	if f.Cache().Get("k") != nil {
		t.Error("a forked context sees the run's cache")
	}
}

// TestCacheConcurrent uses one cache, the retcode and the services from
// several goroutines (run with -race): every LoadOrStore of a key gives
// the same value.
func TestCacheConcurrent(t *testing.T) {
	ctx := &Context{}
	const n = 16
	got := make([]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = ctx.Cache().LoadOrStore("shared", i)
			ctx.Cache().Store("mine", i)
			ctx.Cache().Delete("mine")
			ctx.SetRetcode(i)
			_ = ctx.Retcode()
			ctx.SetService("svc", i)
			_ = ctx.Service("svc")
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("LoadOrStore gave %v and %v", got[0], got[i])
		}
	}
	if v, _ := ctx.Cache().Load("shared"); v != got[0] {
		t.Errorf("stored %v, LoadOrStore returned %v", v, got[0])
	}
}
