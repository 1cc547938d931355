package modules

// http.go is salt/modules/http.py with salt.utils.http.query: HTTP
// requests from the minion with Go's client, answered in Salt's shape
// (body, status, headers, text, dict, error).

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/value"
)

func init() {
	execmod.Register("http.query", httpQuery, "Query url (method, params, data, header_dict, username/password, decode, status, headers, text, verify_ssl, ...) and return body, status, headers, text or dict.")
	execmod.Register("http.update_ca_bundle", httpUpdateCABundle, "Download the CA bundle at source (default curl's) to target (default the bundle in use) and append merge_files.")
	execmod.Register("http.wait_for_successful_query", httpWaitForSuccessfulQuery, "Repeat http.query (every request_interval seconds) until it succeeds or wait_for seconds (default 300) pass.")
}

// httpOpts are salt.utils.http.query's parameters that brine reads.
var httpParams = []execmod.Param{
	execmod.Opt("method", "GET"), execmod.Opt("params", nil), execmod.Opt("data", nil), execmod.Opt("data_file", nil),
	execmod.Opt("header_dict", nil), execmod.Opt("header_list", nil), execmod.Opt("header_file", nil),
	execmod.Opt("username", nil), execmod.Opt("password", nil), execmod.Opt("auth", nil),
	execmod.Opt("decode", false), execmod.Opt("decode_type", "auto"), execmod.Opt("status", false),
	execmod.Opt("headers", false), execmod.Opt("text", false), execmod.Opt("test", false), execmod.Opt("test_url", nil),
	execmod.Opt("backend", nil), execmod.Opt("ca_bundle", nil), execmod.Opt("verify_ssl", nil), execmod.Opt("cert", nil),
	execmod.Opt("text_out", nil), execmod.Opt("headers_out", nil), execmod.Opt("decode_out", nil),
	execmod.Opt("agent", nil), execmod.Opt("raise_error", true), execmod.Opt("decode_body", true),
	execmod.Opt("hide_fields", nil), execmod.Opt("node", "minion"), execmod.Opt("port", int64(80)),
	// Accepted and without effect here, as in Salt for these values.
	execmod.Opt("cookies", nil), execmod.Opt("cookie_jar", nil), execmod.Opt("cookie_format", "lwp"),
	execmod.Opt("persist_session", false), execmod.Opt("session_cookie_jar", nil),
	execmod.Opt("data_render", false), execmod.Opt("data_renderer", nil), execmod.Opt("header_render", false),
	execmod.Opt("header_renderer", nil), execmod.Opt("template_dict", nil), execmod.Opt("stream", false),
	execmod.Opt("handle", false), execmod.Opt("formdata", false), execmod.Opt("formdata_fieldname", nil),
	execmod.Opt("formdata_filename", nil),
}

const (
	hMethod = iota
	hParams
	hData
	hDataFile
	hHeaderDict
	hHeaderList
	hHeaderFile
	hUsername
	hPassword
	hAuth
	hDecode
	hDecodeType
	hStatus
	hHeaders
	hText
	hTest
	hTestURL
	hBackend
	hCABundle
	hVerifySSL
	hCert
	hTextOut
	hHeadersOut
	hDecodeOut
	hAgent
	hRaiseError
	hDecodeBody
	hHideFields
	hNode
	hPort
)

// httpOpt returns opts[key] (the "opts" keyword merged over the minion's).
func httpOpt(opts *value.Map, key string, def any) any {
	if v, ok := opts.Get(key); ok {
		return v
	}
	return def
}

func httpQuery(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("query", args, kwargs, append([]execmod.Param{execmod.Req("url"), execmod.Opt("opts", nil)}, httpParams...)...)
	if err != nil {
		return nil, err
	}
	opts := ctx.Opts.Copy()
	if o, ok := v[1].(*value.Map); ok {
		o.Range(func(k, x any) bool { opts.Set(k, x); return true })
	}
	ret, err := httpDo(execmod.String(v[0]), opts, v[2:])
	if err != nil {
		return nil, &execmod.CommandExecutionError{Msg: err.Error()}
	}
	return ret, nil
}

// httpQuoteForm is urllib.parse.urlencode of an ordered mapping.
func httpQuoteForm(m *value.Map) string {
	var parts []string
	m.Range(func(k, x any) bool {
		parts = append(parts, url.QueryEscape(value.Str(k))+"="+url.QueryEscape(value.Str(x)))
		return true
	})
	return strings.Join(parts, "&")
}

// httpURLConcat is tornado's url_concat.
func httpURLConcat(u string, params any) string {
	m, ok := params.(*value.Map)
	if !ok || m.Len() == 0 {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
		if strings.HasSuffix(u, "?") || strings.HasSuffix(u, "&") {
			sep = ""
		}
	}
	return u + sep + httpQuoteForm(m)
}

// httpPyError words a transport error as Python's socket and ssl errors.
func httpPyError(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unk x509.UnknownAuthorityError
	var host x509.HostnameError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "[Errno 111] Connection refused"
	case errors.Is(err, syscall.ENETUNREACH):
		return "[Errno 101] Network is unreachable"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "[Errno 113] No route to host"
	case errors.Is(err, syscall.ECONNRESET):
		return "[Errno 104] Connection reset by peer"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "[Errno -2] Name or service not known"
		}
		return "[Errno -3] Temporary failure in name resolution"
	case errors.As(err, &host):
		return "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, certificate is not valid for '" + host.Host + "'. (_ssl.c:1006)"
	case errors.As(err, &unk), errors.As(err, &certErr):
		return "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// httpDecodeText is the body as text: the charset of a text/* type, else
// UTF-8 (when decode_body).
func httpDecodeText(body []byte, ctype string, decodeBody bool) (any, error) {
	if !decodeBody {
		return body, nil
	}
	if mt, params, err := mime.ParseMediaType(ctype); err == nil && strings.HasPrefix(mt, "text/") {
		if cs := strings.ToLower(params["charset"]); cs == "latin-1" || cs == "iso-8859-1" || cs == "latin1" {
			r := make([]rune, len(body))
			for i, b := range body {
				r[i] = rune(b)
			}
			return string(r), nil
		}
	}
	if !utf8.Valid(body) {
		i := 0
		for i < len(body) {
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return nil, fmt.Errorf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", body[i], i)
	}
	return string(body), nil
}

// httpXMLNode is an element for salt.utils.xmlutil.to_dict.
type httpXMLNode struct {
	XMLName  xml.Name
	Content  string        `xml:",chardata"`
	Children []httpXMLNode `xml:",any"`
}

func (n httpXMLNode) text() any {
	if n.Content == "" {
		return nil
	}
	return n.Content
}

// httpXMLToDict is xmlutil._to_dict.
func httpXMLToDict(n httpXMLNode) any {
	if len(n.Children) == 0 {
		return value.MapOf(n.XMLName.Local, n.text())
	}
	d := value.NewMap(0)
	for _, c := range n.Children {
		name := c.XMLName.Local
		cur, ok := d.Get(name)
		if !ok {
			if len(c.Children) > 0 {
				d.Set(name, httpXMLToDict(c))
			} else {
				d.Set(name, c.text())
			}
			continue
		}
		l, isList := cur.(*value.List)
		if !isList {
			l = value.NewList(cur)
			d.Set(name, l)
		}
		l.Append(httpXMLToDict(c))
	}
	return d
}

func httpDo(rawURL string, opts *value.Map, v []any) (*value.Map, error) {
	ret := value.NewMap(0)
	backend := execmod.String(v[hBackend])
	if backend == "" {
		backend = execmod.String(httpOpt(opts, "backend", "tornado"))
	}
	method := execmod.String(v[hMethod])
	full := httpURLConcat(rawURL, v[hParams])
	verify := v[hVerifySSL]
	if verify == nil {
		verify = httpOpt(opts, "verify_ssl", true)
	}
	caBundle := execmod.String(v[hCABundle])
	if v[hCABundle] == nil {
		caBundle = httpCABundle(opts)
	}
	cert := v[hCert]
	if cert == nil {
		cert = httpOpt(opts, "cert", nil)
	}
	var body []byte
	data := v[hData]
	if v[hDataFile] != nil {
		b, err := os.ReadFile(execmod.String(v[hDataFile]))
		if err != nil {
			return nil, err
		}
		data = string(b)
	}
	switch d := data.(type) {
	case nil:
	case *value.Map:
		body = []byte(httpQuoteForm(d))
	case []byte:
		body = d
	default:
		body = []byte(value.Str(d))
	}
	headers := value.NewMap(0)
	if hd, ok := v[hHeaderDict].(*value.Map); ok {
		headers = hd.Copy()
	}
	var headerList []string
	if v[hHeaderFile] != nil {
		b, err := os.ReadFile(execmod.String(v[hHeaderFile]))
		if err != nil {
			return nil, err
		}
		headerList = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	} else if hl, ok := v[hHeaderList].(*value.List); ok {
		for _, h := range hl.Items {
			headerList = append(headerList, value.Str(h))
		}
	}
	for _, h := range headerList {
		c := strings.Split(h, ":")
		if len(c) < 2 {
			continue
		}
		headers.Set(strings.TrimSpace(c[0]), strings.TrimSpace(c[1]))
	}
	user, pass := v[hUsername], v[hPassword]
	if a, ok := v[hAuth].(*value.List); ok && a.Len() == 2 {
		user, pass = a.Items[0], a.Items[1]
	}
	agent := execmod.String(v[hAgent])
	if v[hAgent] == nil {
		agent = "Salt/" + grains.SaltVersion + " http.query()"
	}
	headers.Set("User-agent", agent)
	if value.Truthy(v[hTest]) {
		if v[hTestURL] == nil {
			return ret, nil
		}
		full = httpURLConcat(execmod.String(v[hTestURL]), v[hParams])
		ret.Set("test", true)
	}

	tlsConf := &tls.Config{InsecureSkipVerify: !value.Truthy(verify)}
	if caBundle != "" && value.Truthy(verify) && strings.HasPrefix(full, "https:") {
		pem, err := os.ReadFile(caBundle)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				msg := pe.Err.Error()
				msg = strings.ToUpper(msg[:1]) + msg[1:]
				ret.Set("error", fmt.Sprintf("[Errno %d] %s: %s", httpErrno(pe.Err), msg, value.Repr(caBundle)))
				return ret, nil
			}
			return nil, err
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tlsConf.RootCAs = pool
	}
	switch c := cert.(type) {
	case string:
		if pair, err := tls.LoadX509KeyPair(c, c); err == nil {
			tlsConf.Certificates = []tls.Certificate{pair}
		}
	case *value.List:
		if c.Len() == 2 {
			if pair, err := tls.LoadX509KeyPair(value.Str(c.Items[0]), value.Str(c.Items[1])); err == nil {
				tlsConf.Certificates = []tls.Certificate{pair}
			}
		}
	}
	connectTimeout := httpSeconds(httpOpt(opts, "http_connect_timeout", 20.0))
	requestTimeout := httpSeconds(httpOpt(opts, "http_request_timeout", 3600.0))
	maxBody := int64(100 * 1024 * 1024)
	if n, ok := httpOpt(opts, "http_max_body", nil).(int64); ok {
		maxBody = n
	}
	tr := &http.Transport{
		Proxy:              nil,
		DialContext:        (&net.Dialer{Timeout: connectTimeout}).DialContext,
		TLSClientConfig:    tlsConf,
		DisableCompression: true,
	}
	if ph := execmod.String(httpOpt(opts, "proxy_host", nil)); ph != "" && httpOpt(opts, "proxy_port", nil) != nil {
		pu := &url.URL{Scheme: "http", Host: net.JoinHostPort(ph, value.Str(httpOpt(opts, "proxy_port", nil)))}
		if pu2 := execmod.String(httpOpt(opts, "proxy_username", nil)); pu2 != "" {
			pu.User = url.UserPassword(pu2, execmod.String(httpOpt(opts, "proxy_password", nil)))
		}
		noProxy := map[string]bool{}
		for _, h := range splitInput(httpOpt(opts, "no_proxy", nil)) {
			noProxy[value.Str(h)] = true
		}
		tr.Proxy = func(r *http.Request) (*url.URL, error) {
			if noProxy[r.URL.Hostname()] {
				return nil, nil
			}
			return pu, nil
		}
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport: tr,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) > 5 {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
	rctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	var rdr io.Reader
	if body != nil {
		rdr = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, full, rdr)
	if err != nil {
		return nil, err
	}
	headers.Range(func(k, x any) bool {
		req.Header.Set(value.Str(k), value.Str(x))
		return true
	})
	if body != nil && method == "POST" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if user != nil && pass != nil && value.Truthy(user) && value.Truthy(pass) {
		req.SetBasicAuth(value.Str(user), value.Str(pass))
	}
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			msg := "Timeout while connecting"
			if errors.Is(err, context.DeadlineExceeded) {
				msg = "Timeout during request"
			}
			switch backend {
			case "requests":
				return nil, errors.New(msg)
			case "urllib2":
				return value.MapOf("Error", "<urlopen error timed out>"), nil
			}
			ret.Set("status", int64(599))
			ret.Set("error", "HTTP 599: "+msg)
			return ret, nil
		}
		msg := httpPyError(err)
		switch backend {
		case "requests":
			return nil, errors.New(msg)
		case "urllib2":
			return value.MapOf("Error", "<urlopen error "+msg+">"), nil
		}
		if value.Truthy(v[hStatus]) {
			ret.Set("status", int64(0))
		}
		ret.Set("error", msg)
		return ret, nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > maxBody {
		ret.Set("status", int64(599))
		ret.Set("error", "HTTP 599: Stream closed")
		return ret, nil
	}
	reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode)))
	if reason == "" {
		reason = http.StatusText(resp.StatusCode)
	}
	if reason == "" {
		reason = "Unknown"
	}
	if resp.StatusCode >= 400 || (resp.StatusCode >= 300 && resp.StatusCode < 400) {
		switch backend {
		case "requests":
			if resp.StatusCode >= 400 {
				kind := "Client"
				if resp.StatusCode >= 500 {
					kind = "Server"
				}
				return nil, fmt.Errorf("%d %s Error: %s for url: %s", resp.StatusCode, kind, reason, resp.Request.URL)
			}
		case "urllib2":
			return value.MapOf("Error", fmt.Sprintf("HTTP Error %d: %s", resp.StatusCode, reason)), nil
		default:
			if value.Truthy(v[hRaiseError]) {
				ret.Set("status", int64(resp.StatusCode))
				ret.Set("error", fmt.Sprintf("HTTP %d: %s", resp.StatusCode, reason))
				return ret, nil
			}
		}
	}
	switch strings.ToLower(resp.Header.Get("Content-Encoding")) {
	case "gzip":
		if zr, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
			if b, err := io.ReadAll(zr); err == nil {
				raw = b
			}
		}
	case "deflate":
		if b, err := io.ReadAll(flate.NewReader(bytes.NewReader(raw))); err == nil {
			raw = b
		}
	}
	text, err := httpDecodeText(raw, resp.Header.Get("Content-Type"), value.Truthy(v[hDecodeBody]))
	if err != nil {
		return nil, err
	}
	ret.Set("body", text)
	rh := value.NewMap(len(resp.Header))
	for _, k := range httpHeaderOrder(resp) {
		rh.Set(k, strings.Join(resp.Header.Values(k), ","))
	}
	if p := execmod.String(v[hTextOut]); p != "" {
		if err := os.WriteFile(p, []byte(value.Str(text)), 0o644); err != nil {
			return nil, err
		}
	}
	if p := execmod.String(v[hHeadersOut]); p != "" {
		if _, err := os.Stat(p); err == nil {
			if err := os.WriteFile(p, []byte(value.Str(rh)), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if value.Truthy(v[hStatus]) {
		ret.Set("status", int64(resp.StatusCode))
	}
	if value.Truthy(v[hHeaders]) {
		ret.Set("headers", rh)
	}
	wantText := value.Truthy(v[hText])
	if value.Truthy(v[hDecode]) {
		dt := execmod.String(v[hDecodeType])
		if dt == "auto" {
			ct := resp.Header.Get("Content-Type")
			if ct == "" {
				ct = "application/json"
			}
			switch {
			case strings.Contains(ct, "xml"):
				dt = "xml"
			case strings.Contains(ct, "json"):
				dt = "json"
			case strings.Contains(ct, "yaml"):
				dt = "yaml"
			default:
				dt = "plain"
			}
		}
		s := value.Str(text)
		switch dt {
		case "json":
			d, err := value.FromJSON([]byte(s))
			if err != nil {
				if msg := pyJSONSyntaxError(s); msg != "" {
					return nil, errors.New(msg)
				}
				return nil, err
			}
			ret.Set("dict", d)
		case "xml":
			var root httpXMLNode
			if err := xml.Unmarshal([]byte(s), &root); err != nil {
				return nil, fmt.Errorf("syntax error: %v", err)
			}
			l := value.NewList()
			for _, c := range root.Children {
				l.Append(httpXMLToDict(c))
			}
			ret.Set("dict", l)
		case "yaml":
			d, err := deserializeYAML(s, nil)
			if err != nil {
				return nil, err
			}
			ret.Set("dict", d)
		case "plain":
			wantText = true
		default:
			ret.Set("error", "Invalid decode_type specified. Valid decode types are: ('json', 'xml', 'yaml', 'plain')")
			return ret, nil
		}
		if p := execmod.String(v[hDecodeOut]); p != "" {
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if wantText {
		ret.Set("text", text)
	}
	return ret, nil
}

// httpHeaderOrder lists the response's header names sorted (Go does not
// keep the order they came in).
func httpHeaderOrder(resp *http.Response) []string {
	var ks []string
	for k := range resp.Header {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func httpSeconds(x any) time.Duration {
	switch n := x.(type) {
	case int64:
		return time.Duration(n) * time.Second
	case float64:
		return time.Duration(n * float64(time.Second))
	}
	return 20 * time.Second
}

func httpWaitForSuccessfulQuery(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("wait_for_successful_query", args, kwargs, execmod.Req("url"), execmod.Opt("wait_for", int64(300)))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	wait := httpSeconds(v[1])
	var interval time.Duration
	if iv, ok := rest.Get("request_interval"); ok {
		interval = httpSeconds(iv)
	}
	qkw := rest.Copy()
	qkw.Set("url", v[0])
	for {
		var result any
		var caught error
		r, err := httpQuery(ctx, nil, qkw)
		if err != nil {
			caught = err
		} else {
			result = r
			m := r.(*value.Map)
			e1, _ := m.Get("Error")
			e2, _ := m.Get("error")
			if !value.Truthy(e1) && !value.Truthy(e2) {
				return r, nil
			}
		}
		if time.Since(start) > wait {
			if !value.Truthy(result) && caught != nil {
				return nil, caught
			}
			return result, nil
		}
		if interval > 0 {
			time.Sleep(interval)
		} else {
			// Salt retries at once; a short pause keeps the loop from
			// spinning a core.
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// httpCABundle is salt.utils.http.get_ca_bundle: the ca_bundle option,
// a cacert.pem or ca-bundle.crt in the base file roots, else the
// system's bundle ("" when none).
func httpCABundle(opts *value.Map) string {
	if b := execmod.String(httpOpt(opts, "ca_bundle", nil)); b != "" {
		if _, err := os.Stat(b); err == nil {
			return b
		}
	}
	roots := []any{"/srv/salt"}
	if fr, ok := httpOpt(opts, "file_roots", nil).(*value.Map); ok {
		roots = nil
		if base, ok := fr.Get("base"); ok {
			roots = splitInput(base)
		}
	}
	for _, r := range roots {
		for _, name := range []string{"cacert.pem", "ca-bundle.crt"} {
			p := filepath.Join(value.Str(r), name)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	for _, p := range []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
		"/etc/pki/tls/certs/ca-bundle.trust.crt", "/etc/ssl/certs/ca-bundle.crt", "/var/lib/ca-certificates/ca-bundle.pem", "/etc/ssl/cert.pem"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// httpUpdateCABundle is http.update_ca_bundle: the bundle at source
// (ca_bundle_url, default curl's) written to target (ca_bundle, default
// the bundle in use), then merge_files appended. It returns None, as Salt.
func httpUpdateCABundle(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("update_ca_bundle", args, kwargs, execmod.Opt("target", nil), execmod.Opt("source", nil), execmod.Opt("merge_files", nil))
	if err != nil {
		return nil, err
	}
	target, source := v[0], v[1]
	if target == nil {
		if target, err = ctx.Call("config.get", []any{"ca_bundle", nil}, nil); err != nil {
			return nil, err
		}
	}
	if source == nil {
		if source, err = ctx.Call("config.get", []any{"ca_bundle_url", nil}, nil); err != nil {
			return nil, err
		}
	}
	t := execmod.String(target)
	if target == nil {
		t = httpCABundle(ctx.Opts)
	}
	if t == "" {
		slog.Error("Unable to detect location to write CA bundle to")
		return nil, nil
	}
	src := execmod.String(source)
	if source == nil {
		src = execmod.String(httpOpt(ctx.Opts, "ca_bundle_url", "http://curl.haxx.se/ca/cacert.pem"))
	}
	q := make([]any, len(httpParams))
	for i, p := range httpParams {
		q[i] = p.Default
	}
	q[hText], q[hTextOut] = true, t
	if _, err := httpDo(src, ctx.Opts, q); err != nil {
		return nil, &execmod.CommandExecutionError{Msg: err.Error()}
	}
	if v[2] == nil {
		return nil, nil
	}
	var files []string
	switch m := v[2].(type) {
	case string:
		files = []string{m}
	case *value.List:
		for _, f := range m.Items {
			files = append(files, value.Str(f))
		}
	default:
		slog.Error("A value was passed as merge_files which was not either a string or a list")
		return nil, nil
	}
	merge := ""
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			if !os.IsNotExist(err) {
				slog.Error(fmt.Sprintf("Reading from %s caused the following error: %s", f, err))
			}
			continue
		}
		merge = merge + "\n" + string(b)
	}
	if merge != "" {
		fh, err := os.OpenFile(t, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = fh.WriteString("\n" + merge)
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			slog.Error(fmt.Sprintf("Writing to %s caused the following error: %s", t, err))
		}
	}
	return nil, nil
}

func httpErrno(err error) int {
	var en syscall.Errno
	if errors.As(err, &en) {
		return int(en)
	}
	return 0
}
