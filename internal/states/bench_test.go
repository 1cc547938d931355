package states_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// BenchmarkManagedNoop1000 runs 1,000 file.managed states whose files are
// already correct (the common fleet case), next to the cost of reading and
// hashing the same files.
func BenchmarkManagedNoop1000(b *testing.B) {
	dir := b.TempDir()
	chunks := make([]*value.Map, 1000)
	for i := range chunks {
		name := filepath.Join(dir, fmt.Sprintf("f%04d.conf", i))
		content := fmt.Sprintf("key=%d\n", i)
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		chunks[i] = value.MapOf("state", "file", "__id__", name, "name", name, "__sls__", "main", "__env__", "base",
			"contents", content, "mode", "0644", "fun", "managed", "order", int64(10000+i))
	}
	env := &statemod.Env{Exec: execmod.NewContext()}
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ret, err := engine.Run(chunks, engine.RunOptions{Env: env})
			if err != nil {
				b.Fatal(err)
			}
			if !engine.CheckResult(ret, nil) {
				b.Fatal("a state failed")
			}
		}
	})
	b.Run("read+hash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range chunks {
				n, _ := c.Get("name")
				data, err := os.ReadFile(n.(string))
				if err != nil {
					b.Fatal(err)
				}
				_ = sha256.Sum256(data)
				if _, err := os.Stat(n.(string)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
