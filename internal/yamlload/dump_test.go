package yamlload

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"

	"brine/internal/value"
)

// dumpCase is one entry of testdata/dump_golden.json, written by
// testdata/gen/dump_golden.py with PyYAML's C dumper, or its pure-Python
// one where opts.py is set.
type dumpCase struct {
	Value json.RawMessage `json:"value"`
	Opts  struct {
		DefaultFlowStyle *bool  `json:"default_flow_style"`
		Indent           int    `json:"indent"`
		Width            int    `json:"width"`
		AllowUnicode     *bool  `json:"allow_unicode"`
		ExplicitStart    bool   `json:"explicit_start"`
		ExplicitEnd      bool   `json:"explicit_end"`
		SortKeys         *bool  `json:"sort_keys"`
		LineBreak        string `json:"line_break"`
		Py               bool   `json:"py"`
	} `json:"opts"`
	Out string `json:"out"`
}

// tagDecoder rebuilds values from the generator's tagged JSON; plain
// dicts are remembered so that only they are sorted.
type tagDecoder struct {
	dicts  map[*value.Map]bool
	shared map[string]any
}

func (d *tagDecoder) decode(t *testing.T, raw any) any {
	if raw == nil {
		return nil
	}
	m := raw.(map[string]any)
	for tag, x := range m {
		switch tag {
		case "def":
			v := d.decode(t, m["v"])
			d.shared[x.(string)] = v
			return v
		case "v":
			continue
		case "use":
			return d.shared[x.(string)]
		case "str":
			return x.(string)
		case "bool":
			return x.(bool)
		case "int":
			n, ok := new(big.Int).SetString(x.(string), 10)
			if !ok {
				t.Fatalf("bad int %v", x)
			}
			return value.NormInt(n)
		case "float":
			switch x.(string) {
			case "nan":
				return math.NaN()
			case "inf":
				return math.Inf(1)
			case "-inf":
				return math.Inf(-1)
			}
			f, err := strconv.ParseFloat(x.(string), 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		case "bytes":
			b, err := base64.StdEncoding.DecodeString(x.(string))
			if err != nil {
				t.Fatal(err)
			}
			return b
		case "seq":
			l := value.NewList()
			for _, e := range x.([]any) {
				l.Append(d.decode(t, e))
			}
			return l
		case "tuple":
			var tu value.Tuple
			for _, e := range x.([]any) {
				tu = append(tu, d.decode(t, e))
			}
			if tu == nil {
				tu = value.Tuple{}
			}
			return tu
		case "map", "dict":
			mp := value.NewMap(0)
			for _, p := range x.([]any) {
				pair := p.([]any)
				mp.Set(d.decode(t, pair[0]), d.decode(t, pair[1]))
			}
			if tag == "dict" {
				d.dicts[mp] = true
			} else {
				mp.SetOrdered(true)
			}
			return mp
		}
	}
	t.Fatalf("bad tagged value %v", raw)
	return nil
}

func TestDumpGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/dump_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []dumpCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 200 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for i, c := range cases {
		d := tagDecoder{dicts: map[*value.Map]bool{}, shared: map[string]any{}}
		var raw any
		if err := json.Unmarshal(c.Value, &raw); err != nil {
			t.Fatal(err)
		}
		v := d.decode(t, raw)
		sortKeys := c.Opts.SortKeys == nil || *c.Opts.SortKeys
		opts := DumpOptions{
			DefaultFlowStyle: c.Opts.DefaultFlowStyle,
			Indent:           c.Opts.Indent,
			Width:            c.Opts.Width,
			AllowUnicode:     c.Opts.AllowUnicode == nil || *c.Opts.AllowUnicode,
			ExplicitStart:    c.Opts.ExplicitStart,
			ExplicitEnd:      c.Opts.ExplicitEnd,
			LineBreak:        c.Opts.LineBreak,
			PurePython:       c.Opts.Py,
			SortKeys:         sortKeys,
		}
		if i%2 == 1 {
			// the same through the per-map hook
			opts.SortKeys = false
			opts.SortMap = func(m *value.Map) bool { return sortKeys && d.dicts[m] }
		}
		got, err := Dump(v, opts)
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		if got != c.Out {
			t.Errorf("case %d %s opts %+v:\n got %q\nwant %q", i, value.Repr(v), c.Opts, got, c.Out)
		}
	}
}

// TestDumpOutYAML rebuilds the state return of the conformance case
// runtime/out_yaml and checks Salt's `--out yaml` text (safe_dump with
// default_flow_style=False; state returns are plain dicts, so sorted).
func TestDumpOutYAML(t *testing.T) {
	want, err := os.ReadFile("../../../shared/conformance/cases/runtime/out_yaml/expected.txt")
	if err != nil {
		t.Skip("conformance case not found")
	}
	chunk := func(id, name, comment string, result bool, run int64, changes *value.Map) *value.Map {
		return value.MapOf("name", name, "changes", changes, "result", result, "comment", comment,
			"__sls__", "main", "__run_num__", run, "start_time", "10:00:00.123456", "duration", 1.234, "__id__", id)
	}
	ret := value.MapOf("local", value.MapOf(
		"test_|-changer_|-changer_|-succeed_with_changes", chunk("changer", "changer", "Success!", true, 0,
			value.MapOf("testing", value.MapOf("old", "Unchanged", "new", "Something pretended to change"))),
		"test_|-broken_|-broken_|-fail_without_changes", chunk("broken", "broken", "Failure!", false, 1, value.NewMap(0)),
		"cmd_|-run_it_|-echo hi_|-run", chunk("run_it", "echo hi", `Command "echo hi" run`, true, 2,
			value.MapOf("pid", int64(4242), "retcode", int64(0), "stdout", "hi", "stderr", "")),
	))
	got, err := Dump(ret, DumpOptions{DefaultFlowStyle: FlowStyle(false), AllowUnicode: true, SortKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	got = strings.NewReplacer("pid: 4242", "pid: {pid}", "duration: 1.234", "duration: {duration}",
		"start_time: '10:00:00.123456'", "start_time: {start_time}").Replace(got)
	if got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
