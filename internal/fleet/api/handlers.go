package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"brine/internal/fleet/client"
	"brine/internal/fleet/events"
	"brine/internal/fleet/keys"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// maxBody bounds a request body.
const maxBody = 16 << 20

func (s *Server) routes() {
	s.mux.HandleFunc("/{$}", s.root)
	s.mux.HandleFunc("/login", s.login)
	s.mux.HandleFunc("/logout", s.logout)
	s.mux.HandleFunc("/minions", s.minions)
	s.mux.HandleFunc("/minions/{mid}", s.minions)
	s.mux.HandleFunc("/jobs", s.jobs)
	s.mux.HandleFunc("/jobs/{jid}", s.jobs)
	s.mux.HandleFunc("/keys", s.keys)
	s.mux.HandleFunc("/keys/{mid}", s.keys)
	s.mux.HandleFunc("/events", s.events)
	s.mux.HandleFunc("/hook", s.hook)
	s.mux.HandleFunc("/hook/{tag...}", s.hook)
}

// reply writes data as JSON, or YAML when the client prefers it (salt-api's
// hypermedia_out).
func (s *Server) reply(w http.ResponseWriter, r *http.Request, status int, data any) {
	ct, body := "application/json", toJSON(data)
	if wantsYAML(r.Header.Get("Accept")) {
		f := false
		if y, err := yamlload.Dump(data, yamlload.DumpOptions{DefaultFlowStyle: &f, AllowUnicode: true, SortKeys: true}); err == nil {
			ct, body = "application/x-yaml", y
		}
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// wantsYAML reports whether an Accept header prefers YAML to JSON.
func wantsYAML(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
		switch mt {
		case "application/json", "*/*", "application/*":
			return false
		case "application/x-yaml", "text/yaml":
			return true
		}
	}
	return false
}

// fail writes an error as salt-api's error answers: status and message.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	st := StatusOf(err)
	msg := err.Error()
	if st == http.StatusInternalServerError && !s.Conf.Debug {
		s.Log.Error("REST API: "+msg, "path", r.URL.Path)
		msg = "An unexpected error occurred"
	}
	if st == http.StatusUnauthorized {
		s.Log.Warn("REST API: "+msg, "path", r.URL.Path)
	}
	s.reply(w, r, st, value.MapOf("status", int64(st), "return", msg))
}

// readBody decodes a request body as salt-api does: JSON, YAML, a form
// (arg and kwarg read as the command line reads them) or text holding
// JSON. It returns the data (nil for an empty body) and the raw text.
func readBody(r *http.Request) (any, string, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, "", err
	}
	raw := string(b)
	if len(b) == 0 {
		return nil, raw, nil
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		v, err := value.FromJSON(b)
		if err != nil {
			return nil, raw, &Error{Status: http.StatusBadRequest, Msg: "Invalid JSON document"}
		}
		return v, raw, nil
	case "application/x-yaml", "text/yaml":
		v, err := yamlload.SafeLoad(b, "request")
		if err != nil {
			return nil, raw, &Error{Status: http.StatusBadRequest, Msg: "Invalid YAML document"}
		}
		return v, raw, nil
	case "text/plain":
		if v, err := value.FromJSON(b); err == nil {
			return v, raw, nil
		}
		return raw, raw, nil
	case "application/x-www-form-urlencoded", "":
		q, err := url.ParseQuery(raw)
		if err != nil {
			return nil, raw, &Error{Status: http.StatusBadRequest, Msg: "Invalid form data"}
		}
		return formData(raw, q), raw, nil
	}
	return nil, raw, &Error{Status: http.StatusNotAcceptable, Msg: "Content type not supported"}
}

// formData turns form fields into a lowstate mapping, keys in the order
// they first appear: a key given once is a string, more often a list;
// kwarg and each arg are read as YAML (salt.utils.args.yamlify_arg).
func formData(raw string, q url.Values) *value.Map {
	m := value.NewMap(len(q))
	for _, pair := range strings.Split(raw, "&") {
		k, _, _ := strings.Cut(pair, "=")
		k, err := url.QueryUnescape(k)
		if err != nil || m.Has(k) || len(q[k]) == 0 {
			continue
		}
		vals := q[k]
		switch {
		case k == "arg":
			l := value.NewList()
			for _, v := range vals {
				l.Append(yamlload.LoadArg(v))
			}
			m.Set(k, l)
		case k == "kwarg" && len(vals) == 1:
			m.Set(k, yamlload.LoadArg(vals[0]))
		case len(vals) == 1:
			m.Set(k, vals[0])
		default:
			l := value.NewList()
			for _, v := range vals {
				l.Append(v)
			}
			m.Set(k, l)
		}
	}
	return m
}

// lowstate returns the lowstate chunks of a body (a mapping is one chunk).
func lowstate(data any) ([]*value.Map, error) {
	switch x := data.(type) {
	case *value.Map:
		if a, ok := x.Get("arg"); ok {
			if _, isList := a.(*value.List); !isList {
				x.Set("arg", value.NewList(a))
			}
		}
		return []*value.Map{x}, nil
	case *value.List:
		out := make([]*value.Map, 0, len(x.Items))
		for _, it := range x.Items {
			m, ok := it.(*value.Map)
			if !ok {
				return nil, &Error{Status: http.StatusBadRequest, Msg: "Lowstates must be a list"}
			}
			if a, ok := m.Get("arg"); ok {
				if _, isList := a.(*value.List); !isList {
					m.Set("arg", value.NewList(a))
				}
			}
			out = append(out, m)
		}
		return out, nil
	}
	return nil, &Error{Status: http.StatusBadRequest, Msg: "Lowstates must be a list"}
}

func (s *Server) root(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		cl := value.NewList()
		for _, c := range Clients {
			cl.Append(c)
		}
		s.reply(w, r, http.StatusOK, value.MapOf("return", "Welcome", "clients", cl))
	case http.MethodPost:
		t, ok := s.authed(w, r, "")
		if !ok {
			return
		}
		data, _, err := readBody(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		chunks, err := lowstate(data)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out := value.NewList()
		for _, low := range chunks {
			ret, err := s.Exec(r.Context(), t, low)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			out.Append(ret)
		}
		s.reply(w, r, http.StatusOK, value.MapOf("return", out))
	default:
		s.notAllowed(w, r)
	}
}

func (s *Server) notAllowed(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, &Error{Status: http.StatusMethodNotAllowed, Msg: "Method not allowed"})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.reply(w, r, http.StatusUnauthorized, value.MapOf("status", int64(401), "return", "Please log in"))
		return
	}
	if r.Method != http.MethodPost {
		s.notAllowed(w, r)
		return
	}
	data, _, err := readBody(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	creds, _ := data.(*value.Map)
	if l, ok := data.(*value.List); ok && len(l.Items) > 0 {
		creds, _ = l.Items[0].(*value.Map)
	}
	if creds == nil {
		s.fail(w, r, &Error{Status: http.StatusUnauthorized, Msg: "Could not authenticate using provided credentials"})
		return
	}
	user := str(mget(creds, "username"))
	SetUser(r, str(mget(creds, "eauth"))+":"+user)
	var expire float64
	switch x := mget(creds, "token_expire").(type) {
	case int64:
		expire = float64(x)
	case float64:
		expire = x
	}
	t, perms, err := s.Login(str(mget(creds, "eauth")), user, str(mget(creds, "password")), expire)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("X-Auth-Token", t.Token)
	s.SetCookie(w, t)
	s.reply(w, r, http.StatusOK, value.MapOf("return", value.NewList(value.MapOf(
		"token", t.Token, "expire", t.Expire, "start", t.Start,
		"user", t.Name, "eauth", t.Eauth, "perms", value.NewList(perms...),
	))))
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authed(w, r, http.MethodPost)
	if !ok {
		return
	}
	s.Logout(t.Token)
	s.ClearCookie(w)
	s.reply(w, r, http.StatusOK, value.MapOf("return", "Your token has been cleared"))
}

// minions is GET /minions[/mid] (grains.items on the minions) and POST
// /minions (a local_async job).
func (s *Server) minions(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authed(w, r, "")
	if !ok {
		return
	}
	switch r.Method {
	case http.MethodGet:
		tgt := r.PathValue("mid")
		if tgt == "" {
			tgt = "*"
		}
		ret, err := s.Exec(r.Context(), t, value.MapOf("client", "local", "tgt", tgt, "fun", "grains.items"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.reply(w, r, http.StatusOK, value.MapOf("return", value.NewList(ret)))
	case http.MethodPost:
		data, _, err := readBody(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		chunks, err := lowstate(data)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out, links := value.NewList(), value.NewList()
		for _, low := range chunks {
			low.Set("client", "local_async")
			ret, err := s.Exec(r.Context(), t, low)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			out.Append(ret)
			if m, ok := ret.(*value.Map); ok {
				if jid, ok := m.Get("jid"); ok {
					links.Append(value.MapOf("href", "/jobs/"+value.Str(jid)))
				}
			}
		}
		s.reply(w, r, http.StatusAccepted, value.MapOf("return", out, "_links", value.MapOf("jobs", links)))
	default:
		s.notAllowed(w, r)
	}
}

// jobs is GET /jobs (runner jobs.list_jobs) and GET /jobs/jid (runner
// jobs.list_job: its description under info, the returns under return).
func (s *Server) jobs(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authed(w, r, http.MethodGet)
	if !ok {
		return
	}
	jid := r.PathValue("jid")
	low := value.MapOf("client", "runner", "fun", "jobs.list_jobs")
	if jid != "" {
		low = value.MapOf("client", "runner", "fun", "jobs.list_job", "jid", jid)
	}
	ret, err := s.Exec(r.Context(), t, low)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if jid == "" {
		s.reply(w, r, http.StatusOK, value.MapOf("return", value.NewList(ret)))
		return
	}
	returns := value.NewMap(0)
	if m, ok := ret.(*value.Map); ok {
		if res, ok := mget(m, "Result").(*value.Map); ok {
			res.Range(func(id, v any) bool {
				returns.Set(id, mget(asMap(v), "return"))
				return true
			})
		}
	}
	s.reply(w, r, http.StatusOK, value.MapOf("info", value.NewList(ret), "return", value.NewList(returns)))
}

func asMap(v any) *value.Map {
	m, _ := v.(*value.Map)
	return m
}

// keys is GET /keys (wheel key.list_all) and GET /keys/mid (the key's
// fingerprint, as wheel key.finger gives it).
func (s *Server) keys(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authed(w, r, http.MethodGet)
	if !ok {
		return
	}
	mid := r.PathValue("mid")
	if mid == "" {
		ret, err := s.Exec(r.Context(), t, value.MapOf("client", "wheel", "fun", "key.list_all"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.reply(w, r, http.StatusOK, value.MapOf("return", mget(asMap(mget(asMap(ret), "data")), "return")))
		return
	}
	if !specCheck(s.AuthList(t), "key.finger", nil, value.NewMap(0), "wheel") {
		s.fail(w, r, errorf(http.StatusUnauthorized, "Authentication failure of type \"token\" occurred for user %s.", t.Name))
		return
	}
	ht := str(mget(s.Opts, "hash_type"))
	if ht == "" {
		ht = "sha256"
	}
	ret, err := Fingers(str(mget(s.Opts, "pki_dir")), mid, ht)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.reply(w, r, http.StatusOK, value.MapOf("return", ret))
}

// Fingers returns the fingerprints of the keys whose ids match the glob
// pattern, by key state (Salt's key.finger).
func Fingers(pki, pattern, hashType string) (*value.Map, error) {
	store, err := keys.OpenStore(pki)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(0)
	for _, st := range []keys.State{keys.Accepted, keys.Pending, keys.Rejected, keys.Denied} {
		ids, err := store.List(st)
		if err != nil {
			return nil, err
		}
		m := value.NewMap(0)
		for _, id := range ids {
			if !exprMatch(id, pattern) {
				continue
			}
			if f, err := store.Finger(st, id, hashType); err == nil {
				m.Set(id, f)
			}
		}
		if m.Len() > 0 {
			out.Set(string(st), m)
		}
	}
	return out, nil
}

// events streams the event bus as Server-Sent Events, each as salt-api
// writes them: a tag line and a data line holding {"tag", "data"}.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authed(w, r, "")
	if !ok {
		return
	}
	c, err := s.Client()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var filter events.Filter
	if g := r.URL.Query().Get("tag"); g != "" {
		filter = events.Glob(g)
	}
	// Salt shows every event to every token; a user whose ACL reaches
	// only some minions is not shown the others' events here.
	var only *Reach
	if reach := s.Reach(t); !reach.All {
		only = &reach
	}
	s.streamEvents(w, r, t, c, filter, only)
}

// streamEvents writes the bus's events (those of reach's minions, when
// given) until the client goes or the token ends.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request, t *Token, c *client.Client, filter events.Filter, reach *Reach) {
	l, err := events.Listen(c.NC, filter, 1024)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer l.Close()
	fl, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "retry: 400\n\n")
	if fl != nil {
		fl.Flush()
	}
	for {
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		ev, err := l.Next(ctx)
		cancel()
		if r.Context().Err() != nil {
			return
		}
		if !s.Valid(t.Token) {
			return // the token expired or was cleared
		}
		if errors.Is(err, context.DeadlineExceeded) {
			_, err = io.WriteString(w, ": keep-alive\n\n") // a comment, so proxies keep the stream
		} else if err != nil {
			return
		} else if reach == nil || reach.allows(ev.Data) {
			_, err = fmt.Fprintf(w, "tag: %s\ndata: %s\n\n", ev.Tag, toJSON(value.MapOf("tag", ev.Tag, "data", ev.Data)))
		}
		if err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// hook fires salt/netapi/hook/<tag> with the request's body, its decoded
// data and its headers.
func (s *Server) hook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.notAllowed(w, r)
		return
	}
	if !s.Conf.WebhookDisableAuth {
		if _, err := s.Authenticate(r); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	data, raw, err := readBody(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if data == nil {
		data = value.NewMap(0)
	}
	headers := value.NewMap(len(r.Header))
	for k, v := range r.Header {
		// Salt passes every header on; the credentials would leak
		// to everyone reading the bus.
		if k == "X-Auth-Token" || k == "Cookie" || k == "Authorization" {
			continue
		}
		headers.Set(k, strings.Join(v, ", "))
	}
	tag := "salt/netapi/hook"
	if p := strings.Trim(r.PathValue("tag"), "/"); p != "" {
		tag += "/" + p
	}
	c, err := s.Client()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	err = events.Publish(c.NC, tag, value.MapOf("body", raw, "post", data, "headers", headers))
	if err == nil {
		err = c.NC.Flush()
	}
	s.reply(w, r, http.StatusOK, value.MapOf("success", err == nil))
}

// allows reports whether an event's data concerns only minions of the
// set: its minion id (returns, minion and key events) and its minions
// list (new jobs) must be in it.
func (r *Reach) allows(data *value.Map) bool {
	if id, ok := mget(data, "id").(string); ok && !r.IDs[id] {
		return false
	}
	if l, ok := mget(data, "minions").(*value.List); ok {
		for _, m := range l.Items {
			if r.IDs[value.Str(m)] {
				return true
			}
		}
		return len(l.Items) == 0
	}
	return true
}

// authed checks the request's method (when method is not "") and its
// token, and answers the request itself when either is wrong.
func (s *Server) authed(w http.ResponseWriter, r *http.Request, method string) (*Token, bool) {
	if method != "" && r.Method != method {
		s.notAllowed(w, r)
		return nil, false
	}
	t, err := s.Authenticate(r)
	if err != nil {
		s.fail(w, r, err)
		return nil, false
	}
	return t, true
}
