package highstate

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"brine/internal/value"
)

func BenchmarkZZHeap(b *testing.B) {
	ctx := benchContext(b, "/tmp/trees/mix100k")
	r := NewRun(ctx, value.NewMap(0))
	chunks, _, _ := r.CompileLowChunks()
	out := value.ToJSON(chunkList(chunks), value.JSONOptions{Indent: 4})
	defer runtime.KeepAlive(out)
	runtime.GC()
	f, _ := os.Create("/tmp/heap100k.prof")
	pprof.WriteHeapProfile(f)
	f.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(chunks)
	b.Logf("chunks %d heapalloc %d MB", len(chunks), ms.HeapAlloc>>20)
}
