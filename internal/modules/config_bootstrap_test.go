package modules

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

// TestGatherBootstrapScript serves a script on loopback and checks where
// config.gather_bootstrap_script writes it and what it returns (Salt 3006
// returned the same for the same calls: the path, None for an HTTP error,
// the TypeError of hashing text it was given).
func TestGatherBootstrapScript(t *testing.T) {
	const script = "#!/bin/sh\necho bootstrap\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/x/boot.sh" && r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(script))
	}))
	defer srv.Close()
	conf := t.TempDir()
	local := filepath.Join(t.TempDir(), "local-boot.sh")
	if err := os.WriteFile(local, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(t.TempDir(), "extra")
	deploy := filepath.Join(conf, "cloud.deploy.d")
	for _, tc := range []struct {
		name string
		opts []any
		args []any
		want any
		file string // the file written and its content
		data string
		err  string
	}{
		{name: "url", args: []any{srv.URL + "/x/boot.sh"}, want: filepath.Join(deploy, "boot.sh"), file: "boot.sh", data: script},
		{name: "option", opts: []any{"bootstrap_script_url", srv.URL + "/"}, want: filepath.Join(deploy, "bootstrap-salt.sh"), file: "bootstrap-salt.sh", data: script},
		{name: "http error", args: []any{srv.URL + "/x/missing.sh"}, want: nil},
		{name: "local file", args: []any{local}, want: filepath.Join(deploy, "local-boot.sh"), file: "local-boot.sh", data: "#!/bin/sh\n"},
		{name: "search path", opts: []any{"deploy_scripts_search_path", value.NewList(extra)}, args: []any{local}, want: filepath.Join(deploy, "local-boot.sh")},
		{name: "text", args: []any{"echo hi"}, err: "Strings must be encoded before hashing."},
		{name: "no source", opts: []any{"bootstrap_script_url", ""}, err: "Cant get any source to update"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext()
			ctx.Opts = value.MapOf(append([]any{"conf_file", filepath.Join(conf, "minion"), "config_dir", conf}, tc.opts...)...)
			got, err := ctx.Call("config.gather_bootstrap_script", tc.args, value.NewMap(0))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "search path" {
				// A missing directory of the option is not created.
				if isDir(extra) {
					t.Errorf("%s created", extra)
				}
			}
			if !value.Equal(got, tc.want) {
				t.Errorf("got %s, want %s", value.Repr(got), value.Repr(tc.want))
			}
			if tc.file != "" {
				if data, err := os.ReadFile(filepath.Join(deploy, tc.file)); err != nil || string(data) != tc.data {
					t.Errorf("%s: %q, %v", tc.file, data, err)
				}
			}
		})
	}
	// An existing directory of deploy_scripts_search_path is written first.
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := testContext()
	ctx.Opts = value.MapOf("conf_file", filepath.Join(conf, "minion"), "config_dir", conf, "deploy_scripts_search_path", value.NewList(extra))
	if got := call(t, ctx, "config.gather_bootstrap_script", []any{local}); got != filepath.Join(extra, "local-boot.sh") {
		t.Errorf("with %s: got %s", extra, value.Repr(got))
	}
	if !isFileAt(filepath.Join(deploy, "local-boot.sh")) {
		t.Errorf("not written to %s as well", deploy)
	}
}
