package jinjasalt

import (
	"sync"
	"testing"

	"brine/internal/value"
)

// Render is safe for concurrent use.
func TestRenderConcurrent(t *testing.T) {
	src := []byte("{{ 'a1b2' | regex_replace('\\\\d', '#') }} {{ [3, 1] | unique | max }} {{ grains.os }}\n")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				out, err := Render(src, &Context{SLS: "x", Grains: value.MapOf("os", "Debian")})
				if err != nil || out != "a#b# 3 Debian\n" {
					t.Errorf("got %q, %v", out, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
