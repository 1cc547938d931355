package modules

import (
	"compress/gzip"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

func httpServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a": [1, 2], "b": {"c": null}}`)
	})
	mux.HandleFunc("/yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-yaml")
		fmt.Fprint(w, "a: 1\nb: [x, y]\n")
	})
	mux.HandleFunc("/xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprint(w, `<root><item><name>one</name><v>1</v><v>2</v></item><leaf>text</leaf></root>`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		user, pass, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Test", "yes")
		fmt.Fprintf(w, "%s %s?%s body=%s ua=%s ct=%s auth=%s:%s x=%s", r.Method, r.URL.Path, r.URL.RawQuery, body,
			r.Header.Get("User-Agent"), r.Header.Get("Content-Type"), user, pass, r.Header.Get("X-Custom"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusNotFound)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/json", http.StatusFound)
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/plain")
		zw := gzip.NewWriter(w)
		fmt.Fprint(zw, "squeezed")
		zw.Close()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPQuery(t *testing.T) {
	srv := httpServer(t)
	ctx := testContext()
	u := srv.URL
	closed, _ := net.Listen("tcp4", "127.0.0.1:0")
	deadURL := "http://" + closed.Addr().String() + "/"
	closed.Close()
	for _, tc := range []struct {
		name string
		kw   []any
		want string
	}{
		{"body", []any{"url", u + "/json"}, `{'body': '{"a": [1, 2], "b": {"c": null}}'}`},
		{"decode json", []any{"url", u + "/json", "decode", true}, `{'body': '{"a": [1, 2], "b": {"c": null}}', 'dict': {'a': [1, 2], 'b': {'c': None}}}`},
		{"decode yaml", []any{"url", u + "/yaml", "decode", true, "status", true}, "{'body': 'a: 1\\nb: [x, y]\\n', 'status': 200, 'dict': {'a': 1, 'b': ['x', 'y']}}"},
		{"decode xml", []any{"url", u + "/xml", "decode", true}, "{'body': '<root><item><name>one</name><v>1</v><v>2</v></item><leaf>text</leaf></root>', " +
			"'dict': [{'name': 'one', 'v': ['1', {'v': '2'}]}, {'leaf': 'text'}]}"},
		{"decode plain gives text", []any{"url", u + "/yaml", "decode", true, "decode_type", "plain"}, "{'body': 'a: 1\\nb: [x, y]\\n', 'text': 'a: 1\\nb: [x, y]\\n'}"},
		{"bad decode_type", []any{"url", u + "/json", "decode", true, "decode_type", "csv"},
			`{'body': '{"a": [1, 2], "b": {"c": null}}', 'error': "Invalid decode_type specified. Valid decode types are: ('json', 'xml', 'yaml', 'plain')"}`},
		{"get with params, auth, headers", []any{"url", u + "/echo", "params", value.MapOf("q", "a b", "n", int64(1)), "username", "me", "password", "pw",
			"header_dict", value.MapOf("X-Custom", "c1"), "text", true},
			"{'body': 'GET /echo?q=a+b&n=1 body= ua=Salt/3006.9 http.query() ct= auth=me:pw x=c1', 'text': 'GET /echo?q=a+b&n=1 body= ua=Salt/3006.9 http.query() ct= auth=me:pw x=c1'}"},
		{"post form data", []any{"url", u + "/echo?z=1", "method", "POST", "data", value.MapOf("k", "v w", "k2", "x"), "header_list", value.NewList("X-Custom: from-list")},
			"{'body': 'POST /echo?z=1 body=k=v+w&k2=x ua=Salt/3006.9 http.query() ct=application/x-www-form-urlencoded auth=: x=from-list'}"},
		{"put raw data, own agent", []any{"url", u + "/echo", "method", "PUT", "data", "raw", "agent", "brine-test"},
			"{'body': 'PUT /echo? body=raw ua=brine-test ct= auth=: x='}"},
		{"headers", []any{"url", u + "/echo", "headers", true, "status", true}, ""},
		{"404", []any{"url", u + "/missing", "status", true}, "{'status': 404, 'error': 'HTTP 404: Not Found'}"},
		{"404 without raise_error", []any{"url", u + "/missing", "status", true, "raise_error", false}, "{'body': 'no\\n', 'status': 404}"},
		{"404 urllib2", []any{"url", u + "/missing", "backend", "urllib2"}, "{'Error': 'HTTP Error 404: Not Found'}"},
		{"redirect followed", []any{"url", u + "/redirect", "decode", true}, `{'body': '{"a": [1, 2], "b": {"c": null}}', 'dict': {'a': [1, 2], 'b': {'c': None}}}`},
		{"gzip", []any{"url", u + "/gzip"}, "{'body': 'squeezed'}"},
		{"refused", []any{"url", deadURL, "status", true}, "{'status': 0, 'error': '[Errno 111] Connection refused'}"},
		{"refused urllib2", []any{"url", deadURL, "backend", "urllib2"}, "{'Error': '<urlopen error [Errno 111] Connection refused>'}"},
		{"test mode without test_url", []any{"url", u + "/json", "test", true}, "{}"},
		{"test mode with test_url", []any{"url", "http://unused.invalid/", "test", true, "test_url", u + "/gzip"}, "{'test': True, 'body': 'squeezed'}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := call(t, ctx, "http.query", nil, tc.kw...)
			if tc.name == "headers" {
				h, _ := got.(*value.Map).Get("headers")
				x, _ := h.(*value.Map).Get("X-Test")
				ct, _ := h.(*value.Map).Get("Content-Type")
				if x != "yes" || ct != "text/plain; charset=utf-8" {
					t.Errorf("headers = %s", value.Repr(h))
				}
				return
			}
			if r := value.Repr(got); r != tc.want {
				t.Errorf("got  %s\nwant %s", r, tc.want)
			}
		})
	}
	if _, err := ctx.Call("http.query", nil, value.MapOf("url", u+"/missing", "backend", "requests")); err == nil ||
		err.Error() != "404 Client Error: Not Found for url: "+u+"/missing" {
		t.Errorf("requests 404: %v", err)
	}
	if _, err := ctx.Call("http.query", nil, value.MapOf("url", u+"/echo", "decode", true, "decode_type", "json")); err == nil ||
		err.Error() != "Expecting value: line 1 column 1 (char 0)" {
		t.Errorf("bad json: %v", err)
	}
	// text_out and decode_out write the text.
	dir := t.TempDir()
	call(t, ctx, "http.query", nil, "url", u+"/json", "decode", true, "text_out", filepath.Join(dir, "t"), "decode_out", filepath.Join(dir, "d"))
	for _, f := range []string{"t", "d"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); !strings.HasPrefix(string(b), `{"a"`) {
			t.Errorf("%s = %q", f, b)
		}
	}
}

func TestHTTPWaitForSuccessfulQuery(t *testing.T) {
	srv := httpServer(t)
	ctx := testContext()
	got := call(t, ctx, "http.wait_for_successful_query", []any{srv.URL + "/json"}, "status", true)
	if value.Repr(got) != `{'body': '{"a": [1, 2], "b": {"c": null}}', 'status': 200}` {
		t.Errorf("wait_for_successful_query = %s", value.Repr(got))
	}
	// wait_for=0: one try, its failing result returned.
	got = call(t, ctx, "http.wait_for_successful_query", []any{srv.URL + "/missing"}, "wait_for", int64(0), "status", true)
	if value.Repr(got) != "{'status': 404, 'error': 'HTTP 404: Not Found'}" {
		t.Errorf("wait_for_successful_query (failing) = %s", value.Repr(got))
	}
}

func TestHTTPUpdateCABundle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	}))
	defer srv.Close()
	ctx := testContext()
	dir := t.TempDir()
	target, extra := filepath.Join(dir, "bundle.pem"), filepath.Join(dir, "extra.pem")
	if err := os.WriteFile(extra, []byte("EXTRA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := call(t, ctx, "http.update_ca_bundle", []any{target, srv.URL + "/cacert.pem"}, "merge_files", value.NewList(extra, filepath.Join(dir, "missing")))
	if got != nil {
		t.Errorf("update_ca_bundle = %s", value.Repr(got))
	}
	data, _ := os.ReadFile(target)
	if string(data) != "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n\n\nEXTRA\n" {
		t.Errorf("bundle = %q", data)
	}
	// The ca_bundle and ca_bundle_url options are the defaults.
	ctx.Opts.Set("ca_bundle", filepath.Join(dir, "from-opts.pem"))
	ctx.Opts.Set("ca_bundle_url", srv.URL+"/x")
	call(t, ctx, "http.update_ca_bundle", nil)
	if data, _ := os.ReadFile(filepath.Join(dir, "from-opts.pem")); !strings.HasPrefix(string(data), "-----BEGIN") {
		t.Errorf("bundle from the options = %q", data)
	}
}

func TestHTTPTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secure")
	}))
	defer srv.Close()
	ctx := testContext()
	got := call(t, ctx, "http.query", []any{srv.URL}, "status", true)
	if e, _ := got.(*value.Map).Get("error"); !strings.HasPrefix(value.Str(e), "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed") {
		t.Errorf("unverified server: %s", value.Repr(got))
	}
	if got := call(t, ctx, "http.query", []any{srv.URL}, "verify_ssl", false); value.Repr(got) != "{'body': 'secure'}" {
		t.Errorf("verify_ssl=False: %s", value.Repr(got))
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	writePEM(t, caFile, srv.Certificate().Raw)
	if got := call(t, ctx, "http.query", []any{srv.URL}, "ca_bundle", caFile); value.Repr(got) != "{'body': 'secure'}" {
		t.Errorf("with the server's CA: %s", value.Repr(got))
	}
	missing := filepath.Join(t.TempDir(), "none.pem")
	if got := call(t, ctx, "http.query", []any{srv.URL}, "ca_bundle", missing); value.Repr(got) !=
		"{'error': \"[Errno 2] No such file or directory: '"+missing+"'\"}" {
		t.Errorf("missing ca_bundle: %s", value.Repr(got))
	}
}

func writePEM(t *testing.T, path string, der []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pem.Encode(f, &pem.Block{Type: "CERTIFICATE", Bytes: der}); err != nil {
		t.Fatal(err)
	}
}
