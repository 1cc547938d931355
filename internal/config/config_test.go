package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"brine/internal/value"
)

func TestDefaults(t *testing.T) {
	c := New()
	tests := []struct {
		key  string
		want any
	}{
		{"renderer", "jinja|yaml"},
		{"state_top", "top.sls"},
		{"file_client", "remote"},
		{"failhard", false},
		{"state_verbose", true},
		{"state_output", "full"},
		{"pillar_source_merging_strategy", "smart"},
		{"top_file_merging_strategy", "merge"},
		{"default_top", "base"},
		{"pillarenv", nil},
		{"saltenv", nil},
		{"cachedir", "/var/cache/salt/minion"},
		{"test", false},
	}
	for _, tt := range tests {
		got, ok := c.Get(tt.key)
		if !ok || !value.Equal(got, tt.want) {
			t.Errorf("default %s = %v (set %v), want %v", tt.key, value.Repr(got), ok, value.Repr(tt.want))
		}
	}
}

func TestLoad(t *testing.T) {
	c, err := Load("testdata/conf", value.MapOf("id", "override"))
	if err != nil {
		t.Fatal(err)
	}
	if c.ID() != "override" {
		t.Errorf("ID = %q, want the override", c.ID())
	}
	if got := c.StateOutput(); got != "mixed" {
		t.Errorf("state_output = %q, want mixed (last include wins)", got)
	}
	// Includes replace whole top-level values of the main file.
	if got := value.Repr(c.Grains()); got != "{'site': 'east'}" {
		t.Errorf("grains = %s", got)
	}
	if got := c.Renderer(); got != "jinja | yaml" {
		t.Errorf("renderer = %q", got)
	}
	want := []Roots{{"base", []string{"/srv/a", "/srv/b"}}, {"dev", []string{"/srv/dev"}}}
	if got := c.FileRoots(); !reflect.DeepEqual(got, want) {
		t.Errorf("FileRoots = %v, want %v", got, want)
	}
	if got := c.PillarRoots(); !reflect.DeepEqual(got, []Roots{{"base", []string{"/srv/pillar"}}}) {
		t.Errorf("PillarRoots of a non-mapping = %v, want the default", got)
	}
	custom, ok := c.Opts().Get("custom_option")
	if !ok || value.Repr(custom) != "{'nested': 644}" {
		t.Errorf("unknown key custom_option = %s, want kept and YAML-typed", value.Repr(custom))
	}
	if got := c.String("conf_file"); got != filepath.Join("testdata/conf", "minion") {
		t.Errorf("conf_file = %q", got)
	}
}

func TestLoadMissingDirIsDefaults(t *testing.T) {
	c, err := Load(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Renderer() != "jinja|yaml" {
		t.Errorf("renderer = %q", c.Renderer())
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"not a mapping", "- a\n- b\n", "conf should be a document, not list"},
		{"bad yaml", "a: [\n", "error parsing configuration file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "minion"), []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestIDNotString(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "minion"), []byte("id: 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Get("id"); v != "42" {
		t.Errorf("id = %s, want the string '42'", value.Repr(v))
	}
}

func TestJinjaEnv(t *testing.T) {
	c := FromMap(value.MapOf(
		"jinja_env", value.MapOf("trim_blocks", true),
		"jinja_sls_env", "not a mapping",
		"jinja_lstrip_blocks", true,
	))
	if got := value.Repr(c.JinjaEnv()); got != "{'trim_blocks': True, 'lstrip_blocks': True}" {
		t.Errorf("JinjaEnv = %s", got)
	}
	if got := value.Repr(c.JinjaSLSEnv()); got != "{'lstrip_blocks': True}" {
		t.Errorf("JinjaSLSEnv = %s", got)
	}
}
