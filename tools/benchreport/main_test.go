package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestReport: a recorded `go test -bench Stages -json` run (benchmark
// lines split over events, as go test writes them) gives the golden table.
func TestReport(t *testing.T) {
	f, err := os.Open("testdata/stages.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results, failed, err := parse(f)
	if err != nil || len(failed) > 0 {
		t.Fatalf("parse: %v, failed %v", err, failed)
	}
	var b strings.Builder
	write(&b, results, failed)
	if *update {
		if err := os.WriteFile("testdata/stages.txt", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/stages.txt")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestParseLine(t *testing.T) {
	for _, tt := range []struct {
		line, name string
		ok         bool
		ns         float64
	}{
		{"BenchmarkStages/render/1k-2  \t 1\t 3885116 ns/op\t 24.69 allocs/state\t 3877 ns/state", "Stages/render/1k", true, 3877},
		{"BenchmarkLoad-16 100 5 ns/op", "Load", true, 0},
		{"BenchmarkStages/compile/1k", "", false, 0},
		{"BenchmarkX-2 1 oops ns/op", "", false, 0},
		{"ok  \tbrine/internal/highstate\t0.3s", "", false, 0},
	} {
		r, ok := parseLine(tt.line)
		if ok != tt.ok || r.name != tt.name || r.metrics["ns/state"] != tt.ns {
			t.Errorf("parseLine(%q) = %+v, %v", tt.line, r, ok)
		}
	}
	// a failure is listed after the table
	results, failed, err := parse(strings.NewReader(`{"Action":"fail","Package":"p","Test":"BenchmarkStages/render/1k"}` + "\n"))
	var b strings.Builder
	write(&b, results, failed)
	if err != nil || !strings.Contains(b.String(), "FAIL p BenchmarkStages/render/1k") {
		t.Errorf("got %q, %v", b.String(), err)
	}
}
