package diag

import "testing"

func TestFormat(t *testing.T) {
	src := func(file string) (string, bool) {
		if file == "web/init.sls" {
			return "a:\n  test.nop:\n\t- name: {{ nope }}\n", true
		}
		return "", false
	}
	d := &Diagnostic{
		Summary: "undefined variable 'nope'",
		Detail:  "Define it or use |default.",
		Subject: &Range{File: "web/init.sls", Start: Pos{3, 10}, End: Pos{3, 20}},
		Chain:   []Range{{File: "top.sls", Start: Pos{Line: 4}}, {File: "web/map.jinja"}},
	}
	want := "Error: undefined variable 'nope'\n\n  on web/init.sls line 3:\n   3: \t- name: {{ nope }}\n      \t        ^^^^^^^^^^\n\nDefine it or use |default.\n  included from web/map.jinja\n  included from top.sls line 4\n"
	if got := Format(d, src); got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
	if got := d.Error(); got != "web/init.sls:3:10: undefined variable 'nope'" {
		t.Errorf("Error() = %q", got)
	}
	ds := Diagnostics{d, {Severity: Warning, Summary: "w"}}
	if !ds.HasErrors() || ds.Error() != "web/init.sls:3:10: undefined variable 'nope'\nw" {
		t.Errorf("Diagnostics: %v %q", ds.HasErrors(), ds.Error())
	}
}
