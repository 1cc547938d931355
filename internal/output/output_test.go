package output

import (
	"errors"
	"testing"
)

func TestDisplay(t *testing.T) {
	r := NewRegistry()
	r.Register("nested", func(data any, _ *Options) (string, error) { return "nested\n\n", nil }, "")
	r.Register("raw", func(data any, _ *Options) (string, error) { return "raw", nil }, "")
	r.Register("broken", func(any, *Options) (string, error) { return "", errors.New("boom") }, "")
	r.Register("quiet", func(any, *Options) (string, error) { return "  \n", nil }, "")
	r.Register("txt", func(any, *Options) (string, error) { return "txt", nil }, "")
	tests := []struct{ out, want string }{
		{"", "nested\n"},
		{"nested", "nested\n"},
		{"nosuch", "nested\n"},
		{"broken", "nested\n"},
		{"raw", "raw\n"},
		{"text", "txt\n"},
		{"quiet", ""},
	}
	for _, tt := range tests {
		if got := r.Display(nil, tt.out, &Options{}); got != tt.want {
			t.Errorf("Display(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
	if _, ok := r.Resolve("nosuch"); ok {
		t.Error("Resolve of an unknown outputter reported ok")
	}
}

func TestRegisterPanics(t *testing.T) {
	r := NewRegistry()
	r.Register("a", func(any, *Options) (string, error) { return "", nil }, "")
	for _, name := range []string{"a", "", "x y", "a.b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			r.Register(name, func(any, *Options) (string, error) { return "", nil }, "")
		}()
	}
}

func TestColors(t *testing.T) {
	if c := GetColors(false); c != (Colors{}) {
		t.Error("colours off must be empty")
	}
	c := GetColors(true)
	if c.Red != "\x1b[0;31m" || c.LightYellow != "\x1b[0;1;33m" || c.EndC != "\x1b[0;0m" {
		t.Errorf("unexpected codes %q %q %q", c.Red, c.LightYellow, c.EndC)
	}
}
