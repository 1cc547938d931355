package jinja

import (
	"errors"
	"runtime"
	"testing"

	"brine/internal/value"
)

// allocated is the number of bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBoundedCost renders hostile templates: each ends with a clear error
// (or its correct result) having allocated a bounded amount of memory.
func TestBoundedCost(t *testing.T) {
	const (
		big   = "{% set s = 'a' * 100000 %}"
		many  = big + "{% set l = [s] * 100000 %}"
		toStr = "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"
	)
	tests := []struct {
		name, src  string
		typ, msg   string // the error's Python class and message ("" for none)
		out        string // the output when there is no error
		kind       Kind
		maxAlloced uint64
	}{
		{"str.replace", big + "{{ s.replace('a', s)|length }}", "MemoryError", "result too large", "", KindRuntime, 16 << 20},
		{"replace filter", big + "{{ s|replace('a', s)|length }}", "MemoryError", "result too large", "", KindRuntime, 16 << 20},
		{"replace filter autoescape", big + "{{ s|replace('a', s|e)|length }}", "MemoryError", "result too large", "", KindRuntime, 16 << 20},
		{"join filter", many + "{{ l|join|length }}", "MemoryError", "result too large", "", KindRuntime, 16 << 20},
		{"join filter separator", many + "{{ l|join(s)|length }}", "MemoryError", "result too large", "", KindRuntime, 16 << 20},
		{"str.join", many + "{{ ''.join(l)|length }}", "MemoryError", "result too large", "", KindRuntime, 16 << 20},
		{"repeat", big + "{% set t = s * 6000 %}{{ (t ~ t)|length }}", "MemoryError", "result too large", "", KindRuntime, 16 << 20},
		{"output", big + "{% for i in range(100000) %}{{ s }}{% endfor %}", "MemoryError", "output too large (more than 8388608 bytes)", "", KindRuntime, 64 << 20},
		{"int filter", "{{ ('9' * 10**7)|int }}", "OverflowError", "cannot convert float infinity to integer", "", KindRuntime, 64 << 20},
		{"int filter zeros", "{{ ('0' * 10**6)|int }}", "", "", "0", 0, 64 << 20},
		{"print big int", "{{ 2 ** 100000 }}", "ValueError", toStr, "", KindRuntime, 1 << 20},
		{"%d big int", "{{ '%d' % 2 ** 100000 }}", "ValueError", toStr, "", KindRuntime, 1 << 20},
		{"namespace nesting", "{% set ns = namespace(x=[]) %}{% for i in range(30000) %}{% set ns.x = [ns.x] %}{% endfor %}ok", "", "", "ok", 0, 64 << 20},
		{"namespace cycle", "{% set ns = namespace(x=[]) %}{% set l = [[ns]] %}{% set ns.x = l %}", "RecursionError", "a container cannot be made to contain itself", "", KindRuntime, 1 << 20},
		{"namespace cycle after append", "{% set ns = namespace(x=[]) %}{% set l = [[1]] %}{% set ns.x = l %}{% do l[0].append(ns) %}{% set ns.y = l %}", "RecursionError", "a container cannot be made to contain itself", "", KindRuntime, 1 << 20},
		{"unsafe attribute", "{{ ''.__class__ }}", "SecurityError", "access to attribute '__class__' of 'str' object is unsafe.", "", KindSecurity, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := New()
			env.MaxOutput = 512 << 20
			if tt.name == "output" {
				env.MaxOutput = 8 << 20
			}
			var out string
			var err error
			n := allocated(func() { out, err = env.RenderString("t", tt.src, value.NewMap(0)) })
			if tt.typ == "" {
				if err != nil || out != tt.out {
					t.Fatalf("got %q, %v; want %q", out, err, tt.out)
				}
			} else {
				var je *Error
				if !errors.As(err, &je) {
					t.Fatalf("err = %v (output %.40q), want %s: %s", err, out, tt.typ, tt.msg)
				}
				if je.Type != tt.typ || je.Msg != tt.msg || je.Kind != tt.kind {
					t.Fatalf("err = %s %s: %s, want %s %s: %s", je.Kind, je.Type, je.Msg, tt.kind, tt.typ, tt.msg)
				}
			}
			if n > tt.maxAlloced {
				t.Errorf("allocated %d MiB, want < %d MiB", n>>20, tt.maxAlloced>>20)
			}
		})
	}
}

// A smaller MaxOutput bounds the results of string-building filters too.
func TestBoundedCostMaxOutput(t *testing.T) {
	env := New()
	env.MaxOutput = 1 << 20
	_, err := env.RenderString("t", "{{ (['a' * 1000] * 2000)|join }}", value.NewMap(0))
	var je *Error
	if !errors.As(err, &je) || je.Type != "MemoryError" {
		t.Fatalf("err = %v, want MemoryError", err)
	}
}

// A caller-supplied function that changes a list in place (as Salt's
// defaults.merge changes a dict) is not hidden from the namespace cycle
// check by what the check remembers of the list.
func TestNamespaceCycleThroughGoFunction(t *testing.T) {
	env := New()
	env.AddGlobal("push", value.Func(func(args []any, _ *value.Map) (any, error) {
		l := args[0].(*value.List)
		l.Items = append(l.Items, args[1])
		return nil, nil
	}))
	_, err := env.RenderString("t", "{% set ns = namespace(x=1) %}{% set l = [[1]] %}{% set ns.x = l %}{% set _ = push(l[0], ns) %}{% set ns.y = l %}", value.NewMap(0))
	var je *Error
	if !errors.As(err, &je) || je.Type != "RecursionError" {
		t.Fatalf("err = %v, want RecursionError", err)
	}
}
