// Command benchreport reads `go test -bench -json` output on stdin and
// prints a table of the ns/state and allocs/state metrics each benchmark
// reported (b.ReportMetric), one row per benchmark, in the order they ran.
// Benchmarks named Stage/<stage>/<size> (BenchmarkStages in
// internal/highstate) get a stage and a size column. Failures are printed
// below the table and make the exit status 1, as does a run with no
// ns/state metric at all.
//
//	go test -run '^$' -bench Stages -benchtime 1x -json ./internal/highstate | go run ./tools/benchreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
)

// event is the part of a test2json event benchreport reads.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// result is one benchmark's line.
type result struct {
	name    string // without the Benchmark prefix and the -GOMAXPROCS suffix
	n       int64  // iterations
	metrics map[string]float64
}

func main() {
	results, failed, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(2)
	}
	if write(os.Stdout, results, failed) == 0 || len(failed) > 0 {
		os.Exit(1)
	}
}

// parse reads test2json events; a benchmark's line may be split over
// several output events, so each test's output is joined before it is cut
// into lines. It returns the results and the failed tests or packages.
func parse(r io.Reader) ([]result, []string, error) {
	out := map[string]*strings.Builder{}
	var keys, failed []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // go build output, say
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, nil, err
		}
		key := e.Package + " " + e.Test
		b, ok := out[key]
		if !ok {
			b = &strings.Builder{}
			out[key] = b
			keys = append(keys, key)
		}
		switch e.Action {
		case "output":
			b.WriteString(e.Output)
		case "fail":
			name := e.Package
			if e.Test != "" {
				name += " " + e.Test
			}
			failed = append(failed, name)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	var results []result
	for _, k := range keys {
		for _, l := range strings.Split(out[k].String(), "\n") {
			if r, ok := parseLine(l); ok {
				results = append(results, r)
			}
		}
	}
	return results, failed, nil
}

// parseLine reads "BenchmarkName-2  N  V unit  V unit ...".
func parseLine(l string) (result, bool) {
	f := strings.Fields(l)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return result{}, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return result{}, false
	}
	name := strings.TrimPrefix(f[0], "Benchmark")
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	r := result{name: name, n: n, metrics: map[string]float64{}}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return result{}, false
		}
		r.metrics[f[i+1]] = v
	}
	return r, true
}

// write prints the table of the results that report ns/state and returns
// the number of rows.
func write(w io.Writer, results []result, failed []string) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tsize\tns/state\tallocs/state\tms/op\t")
	rows := 0
	for _, r := range results {
		ns, ok := r.metrics["ns/state"]
		if !ok {
			continue
		}
		stage, size := r.name, ""
		if parts := strings.Split(r.name, "/"); len(parts) == 3 && parts[0] == "Stages" {
			stage, size = parts[1], parts[2]
		}
		allocs := "-"
		if a, ok := r.metrics["allocs/state"]; ok {
			allocs = strconv.FormatFloat(a, 'f', 1, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%.1f\t\n", stage, size, ns, allocs, r.metrics["ns/op"]/1e6)
		rows++
	}
	tw.Flush()
	if rows == 0 {
		fmt.Fprintln(w, "(no benchmark reported ns/state)")
	}
	for _, f := range failed {
		fmt.Fprintln(w, "FAIL", f)
	}
	return rows
}
