package jinjasalt

import (
	"strings"
	"testing"
)

func TestGetContext(t *testing.T) {
	src := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\n"
	tests := []struct {
		line int
		want string
	}{
		{1, "---\nl1    <==\nl2\nl3\nl4\nl5\nl6\n[...]\n---"},
		{7, "---\n[...]\nl2\nl3\nl4\nl5\nl6\nl7    <==\nl8\nl9\nl10\nl11\nl12\n[...]\n---"},
		{13, "---\n[...]\nl8\nl9\nl10\nl11\nl12\nl13    <==\n---"},
		{14, src},
	}
	for _, tt := range tests {
		if got := GetContext(src, tt.line, 5, "    <=="); got != tt.want {
			t.Errorf("line %d:\n%s\nwant:\n%s", tt.line, got, tt.want)
		}
	}
}

// Errors raised inside an imported or included file are reported against
// that file's (cached) path with its own context block and no "; line N",
// as Salt 3006 does (expected texts recorded from Salt's
// render_jinja_tmpl).
func TestErrorInImportedFile(t *testing.T) {
	files := dirFiles{root: "testdata/imports", shown: "/cache/files/base"}
	tests := []struct{ main, want string }{
		{"main.sls", "Jinja variable 'nope' is undefined\n/cache/files/base/lib.jinja(2):\n---\n{# c #}\n{% set x = nope.attr %}    <======================\n---"},
		{"main2.sls", "Jinja error: division by zero\n/cache/files/base/lib2.jinja(2):\n---\none\n{% set x = 1/0 %}    <======================\n---\nTraceback (most recent call last):\n"},
		{"main3.sls", "Jinja syntax error: Expected an expression, got 'end of statement block'\n/cache/files/base/lib3.jinja(2):\n---\none\n{% if %}    <======================\n---"},
	}
	for _, tt := range tests {
		src, _, err := files.ReadFile("base", tt.main)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Render(src, &Context{SLS: "main", Saltenv: "base", Files: files})
		if err == nil {
			t.Errorf("%s: no error", tt.main)
			continue
		}
		got := err.Error()
		if strings.HasSuffix(tt.want, "Traceback (most recent call last):\n") {
			if !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, "ZeroDivisionError: division by zero\n\n") {
				t.Errorf("%s:\n%s\nwant prefix:\n%s", tt.main, got, tt.want)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.main, got, tt.want)
		}
	}
}
