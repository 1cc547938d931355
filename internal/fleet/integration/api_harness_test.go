package integration

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// apiCluster is a cluster whose master serves the REST API with file
// eauth: admin may do everything, webdev only test.* on web*.
type apiCluster struct {
	*cluster
	base string // https://127.0.0.1:port
	http *http.Client
}

func newAPICluster(t *testing.T, extra string) *apiCluster {
	t.Helper()
	port := freePort(t)
	dir := t.TempDir()
	users := filepath.Join(dir, "users.txt")
	if err := os.WriteFile(users, []byte("admin:s3cret\nwebdev:webpass\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`rest_brine:
  host: 127.0.0.1
  port: %d
netapi_enable_clients: [local, local_async, runner, wheel]
external_auth:
  file:
    ^filename: %s
    ^filetype: text
    admin:
      - .*
      - '@runner'
      - '@wheel'
    webdev:
      - 'web*':
        - test.*
%s`, port, users, extra)
	c := newCluster(t, conf)
	c.startMaster()
	ac := &apiCluster{cluster: c, base: fmt.Sprintf("https://127.0.0.1:%d", port)}
	ca, err := os.ReadFile(filepath.Join(c.dir, "master/pki/tls/ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	ac.http = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	// The API comes up right after the master.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := ac.http.Get(ac.base + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API never answered: %v\n%s", err, c.log("master"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return ac
}

// call makes a request and decodes the JSON answer.
func (a *apiCluster) call(t *testing.T, method, path, token, ctype, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, a.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("X-Auth-Token", token)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %q", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode, out
}

// login returns a token of user.
func (a *apiCluster) login(t *testing.T, user, pass string) string {
	t.Helper()
	st, out := a.call(t, "POST", "/login", "", "application/json", fmt.Sprintf(`{"username": %q, "password": %q, "eauth": "file"}`, user, pass))
	if st != 200 {
		t.Fatalf("login %s: %d %v", user, st, out)
	}
	ret := out["return"].([]any)[0].(map[string]any)
	return ret["token"].(string)
}

func jsonBody(v any) string {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	return b.String()
}
