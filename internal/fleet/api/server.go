// Package api is brine's REST API, the role of salt-api's rest_cherrypy:
// a master process with rest_brine (or rest_cherrypy) in its config
// serves POST /login (eauth tokens), POST / (lowstate: the local,
// local_async, runner and wheel clients, checked against the user's
// external_auth ACL), GET /minions, /jobs and /keys, GET /events (the
// event bus as Server-Sent Events) and POST /hook/<tag> (events fired on
// the bus), over TLS with the master's certificates by default. Every
// call is logged with its user. The web console (package web) mounts its
// pages on the same server and shares its tokens.
package api

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"brine/internal/fleet/client"
	"brine/internal/fleet/master"
	"brine/internal/value"
)

// Server is a running API.
type Server struct {
	Conf Config
	Opts *value.Map // the master's options
	Log  *slog.Logger

	// Dial makes the administrative connection (nil: client.Dial).
	Dial func(opts *value.Map) (*client.Client, error)

	tokens tokenStore
	mux    *http.ServeMux
	srv    *http.Server
	ln     net.Listener

	mu sync.Mutex
	cl *client.Client
}

// New prepares the API of the master with options opts.
func New(conf Config, opts *value.Map, log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	dir := str(mget(opts, "token_dir"))
	if dir == "" {
		dir = filepath.Join(str(mget(opts, "cachedir")), "tokens")
	}
	s := &Server{Conf: conf, Opts: opts, Log: log, tokens: tokenStore{dir: dir}, mux: http.NewServeMux()}
	s.routes()
	return s
}

// Handle adds a handler (the web console's pages) before Start.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Client returns the administrative connection to the master, dialled on
// first use.
func (s *Server) Client() (*client.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cl != nil {
		return s.cl, nil
	}
	dial := s.Dial
	if dial == nil {
		dial = client.Dial
	}
	c, err := dial(s.Opts)
	if err != nil {
		return nil, &Error{Status: http.StatusServiceUnavailable, Msg: "Salt Master is not available."}
	}
	s.cl = c
	return c, nil
}

// Start listens on the configured address, with TLS unless disable_ssl.
func (s *Server) Start() error {
	addr := net.JoinHostPort(s.Conf.Host, fmt.Sprint(s.Conf.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("REST API: %w", err)
	}
	s.srv = &http.Server{Handler: s.logged(s.mux), ReadHeaderTimeout: 30 * time.Second}
	if !s.Conf.DisableSSL {
		crt, key := s.Conf.SSLCrt, s.Conf.SSLKey
		if crt == "" || key == "" {
			crt, key = str(mget(s.Opts, "tls_cert")), str(mget(s.Opts, "tls_key"))
		}
		if crt == "" || key == "" {
			f := master.GeneratedTLS(str(mget(s.Opts, "pki_dir")))
			crt, key = f.Cert, f.Key
		}
		pair, err := tls.LoadX509KeyPair(crt, key)
		if err != nil {
			ln.Close()
			return fmt.Errorf("REST API: loading the certificate: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12})
	}
	s.ln = ln
	go func() { _ = s.srv.Serve(ln) }()
	scheme := "https"
	if s.Conf.DisableSSL {
		scheme = "http"
	}
	s.Log.Info(fmt.Sprintf("REST API listening on %s://%s", scheme, ln.Addr()))
	return nil
}

// Addr is the address the API listens on.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Close stops the server and closes the master connection.
func (s *Server) Close() {
	if s.srv != nil {
		// Event streams do not end by themselves: they get a moment,
		// then are cut.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if s.srv.Shutdown(ctx) != nil {
			_ = s.srv.Close()
		}
		cancel()
	}
	s.mu.Lock()
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	s.mu.Unlock()
}

// Error is an HTTP error with Salt's message.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

func errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

// StatusOf returns the HTTP status of err (500 for a plain error).
func StatusOf(err error) int {
	var he *Error
	if errors.As(err, &he) {
		return he.Status
	}
	return http.StatusInternalServerError
}

// --- logging ---

type logKey struct{}

// reqInfo is what the logging wrapper learns from the handlers.
type reqInfo struct{ user string }

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets the event stream through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// logged logs every call with its user, status and duration.
func (s *Server) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &reqInfo{}
		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		h.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), logKey{}, info)))
		user := info.user
		if user == "" {
			user = "-"
		}
		s.Log.Info("api call", "user", user, "method", r.Method, "path", r.URL.Path,
			"status", sw.status, "remote", r.RemoteAddr, "duration", time.Since(start).Round(time.Millisecond).String())
	})
}

// SetUser records the user of a request for its log line.
func SetUser(r *http.Request, user string) {
	if info, ok := r.Context().Value(logKey{}).(*reqInfo); ok {
		info.user = user
	}
}
