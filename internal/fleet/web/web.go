// Package web is brine's web console, served by the master on the REST
// API's server (package api) under /app/: server-rendered pages for the
// minions, keys, jobs, running a function, the event bus and a minion's
// requisite graph, with a little hand-written JavaScript for live updates
// over the API's event stream. Assets are embedded; nothing is fetched
// from the network. A console session is an API token in a cookie, and
// everything the console does goes through the API's ACL checks.
package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/execmod"
	"brine/internal/fleet/api"
	"brine/internal/fleet/client"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/graph"
	"brine/internal/output"
	"brine/internal/saltspec"
	"brine/internal/value"
	"brine/internal/yamlload"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Console is the web console of an API server.
type Console struct {
	API   *api.Server
	pages map[string]*template.Template
	funcs []string // function names offered for completion
}

// Mount adds the console's pages to the API server, under /app/.
func Mount(s *api.Server) *Console {
	c := &Console{API: s, pages: map[string]*template.Template{}}
	fm := template.FuncMap{"ago": ago, "jidtime": jidTime}
	for _, p := range []string{"login", "minions", "keys", "confirm", "jobs", "job", "run", "events", "graph", "error"} {
		c.pages[p] = template.Must(template.New("layout.html").Funcs(fm).ParseFS(assets, "templates/layout.html", "templates/"+p+".html"))
	}
	c.funcs = functionNames()
	static, _ := fs.Sub(assets, "static")
	s.Handle("GET /app/static/", http.StripPrefix("/app/static/", cacheFor(http.FileServerFS(static))))
	s.Handle("GET /app/{$}", http.RedirectHandler("/app/minions", http.StatusSeeOther))
	s.Handle("GET /app", http.RedirectHandler("/app/minions", http.StatusSeeOther))
	s.Handle("GET /app/login", http.HandlerFunc(c.loginPage))
	s.Handle("POST /app/login", http.HandlerFunc(c.loginPost))
	s.Handle("POST /app/logout", c.authed(c.logout))
	s.Handle("GET /app/minions", c.authed(c.minions))
	s.Handle("GET /app/minions/{id}/graph", c.authed(c.graph))
	s.Handle("GET /app/keys", c.authed(c.keys))
	s.Handle("GET /app/keys/confirm", c.authed(c.confirm))
	s.Handle("POST /app/keys", c.authed(c.keyAction))
	s.Handle("GET /app/jobs", c.authed(c.jobs))
	s.Handle("GET /app/jobs/{jid}", c.authed(c.job))
	s.Handle("GET /app/jobs/{jid}/ret/{id}", c.authed(c.jobReturn))
	s.Handle("GET /app/run", c.authed(c.runPage))
	s.Handle("POST /app/run", c.authed(c.runPost))
	s.Handle("GET /app/functions", c.authed(c.functions))
	s.Handle("GET /app/events", c.authed(c.eventsPage))
	return c
}

func cacheFor(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=300")
		h.ServeHTTP(w, r)
	})
}

// functionNames are the execution functions brine has and those Salt
// 3006 has, for the run page's completion.
func functionNames() []string {
	seen := map[string]bool{}
	for _, n := range execmod.Default.Names() {
		seen[n] = true
	}
	for _, mod := range saltspec.Modules(saltspec.Exec) {
		for _, f := range saltspec.FunctionNames(saltspec.Exec, mod) {
			if !strings.Contains(f, ".") {
				f = mod + "." + f
			}
			seen[f] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// page is what every template gets.
type page struct {
	Title, Nav string
	User       string
	CSRF       string
	Error      string
	Notice     string
	Data       any
	tok        *api.Token
	status     int
}

type handler func(w http.ResponseWriter, r *http.Request, p *page)

// authed wraps a page needing a session: without a valid token the
// browser goes to the login page (a fragment request gets 401).
func (c *Console) authed(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, err := c.API.Authenticate(r)
		if err != nil {
			if r.Method == http.MethodGet && !strings.Contains(r.URL.Path, "/ret/") {
				http.Redirect(w, r, "/app/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		p := &page{User: t.Name, CSRF: csrf(t.Token), tok: t}
		if r.Method == http.MethodPost && r.PostFormValue("csrf") != p.CSRF {
			http.Error(w, "Bad or missing form token: reload the page", http.StatusForbidden)
			return
		}
		h(w, r, p)
	})
}

// csrf is the form token of a session: a hash of its API token, so a
// page of another site cannot post forms in the user's name.
func csrf(tok string) string {
	sum := sha256.Sum256([]byte("brine-console-form:" + tok))
	return hex.EncodeToString(sum[:16])
}

func (c *Console) render(w http.ResponseWriter, name string, p *page) {
	var b bytes.Buffer
	if err := c.pages[name].Execute(&b, p); err != nil {
		c.API.Log.Error("web console: rendering "+name, "err", err)
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	if p.status != 0 {
		w.WriteHeader(p.status)
	}
	_, _ = w.Write(b.Bytes())
}

// fail shows an error page (or the error on the page being built).
func (c *Console) fail(w http.ResponseWriter, p *page, err error) {
	p.Error = err.Error()
	p.status = api.StatusOf(err)
	if p.Title == "" {
		p.Title = "Error"
	}
	c.render(w, "error", p)
}

// denied rewrites the API's refusals for people.
func denied(err error) string {
	if api.StatusOf(err) == http.StatusUnauthorized {
		return "Your account may not do this (" + err.Error() + ")"
	}
	return err.Error()
}

func (c *Console) client() (*client.Client, error) { return c.API.Client() }

// --- login ---

type loginData struct {
	Eauths   []string
	Next     string
	Username string
}

func (c *Console) eauths() []string {
	var out []string
	if ea, ok := c.API.Opts.Get("external_auth"); ok {
		if m, ok := ea.(*value.Map); ok {
			m.Range(func(k, _ any) bool {
				out = append(out, value.Str(k))
				return true
			})
		}
	}
	return out
}

func safeNext(next string) string {
	if !strings.HasPrefix(next, "/app/") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return "/app/minions"
	}
	return next
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, "login", &page{Title: "Log in", Data: loginData{Eauths: c.eauths(), Next: safeNext(r.URL.Query().Get("next"))}})
}

func (c *Console) loginPost(w http.ResponseWriter, r *http.Request) {
	user, eauth := r.PostFormValue("username"), r.PostFormValue("eauth")
	api.SetUser(r, eauth+":"+user)
	t, _, err := c.API.Login(eauth, user, r.PostFormValue("password"), 0)
	if err != nil {
		c.render(w, "login", &page{Title: "Log in", Error: "Login failed: wrong user name or password.", status: http.StatusUnauthorized,
			Data: loginData{Eauths: c.eauths(), Next: safeNext(r.PostFormValue("next")), Username: user}})
		return
	}
	c.API.SetCookie(w, t)
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request, p *page) {
	c.API.Logout(p.tok.Token)
	c.API.ClearCookie(w)
	http.Redirect(w, r, "/app/login", http.StatusSeeOther)
}

// --- minions ---

type minionRow struct {
	ID        string
	Connected string // "yes", "no" or "" (unknown)
	OS        string
	Kernel    string
	IPs       string
	Seen      time.Time
	HSJID     string
	HSSummary string
	HSOK      bool
}

func (c *Console) minions(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Minions", "minions"
	cl, err := c.client()
	if err != nil {
		c.fail(w, p, err)
		return
	}
	store, err := keys.OpenStore(c.opt("pki_dir"))
	if err != nil {
		c.fail(w, p, err)
		return
	}
	ids, err := store.List(keys.Accepted)
	if err != nil {
		c.fail(w, p, err)
		return
	}
	ids = c.API.Visible(p.tok, ids)
	sort.Strings(ids)
	rows := make([]*minionRow, len(ids))
	byID := map[string]*minionRow{}
	for i, id := range ids {
		rows[i] = &minionRow{ID: id}
		byID[id] = rows[i]
	}
	if absent, known, err := cl.Presence(ids); err == nil && known {
		for _, row := range rows {
			row.Connected = "yes"
			if absent[row.ID] {
				row.Connected = "no"
			}
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	js, err := jetstream.New(cl.NC)
	if err == nil {
		c.minionGrains(ctx, js, byID)
		c.lastSeen(ctx, js, byID)
	}
	c.lastHighstates(ctx, cl, byID)
	p.Data = rows
	c.render(w, "minions", p)
}

// minionGrains fills in the grains summary from the master's minion cache.
func (c *Console) minionGrains(ctx context.Context, js jetstream.JetStream, rows map[string]*minionRow) {
	kv, err := js.KeyValue(ctx, proto.MinionBucket)
	if err != nil {
		return
	}
	for id, row := range rows {
		e, err := kv.Get(ctx, proto.Token(id))
		if err != nil {
			continue
		}
		var v proto.ValueJSON
		if v.UnmarshalJSON(e.Value()) != nil {
			continue
		}
		g, _ := getPath(v.V, "grains").(*value.Map)
		if g == nil {
			continue
		}
		row.OS = strings.TrimSpace(value.Str(getPath(g, "os")) + " " + value.Str(getPath(g, "osrelease")))
		row.Kernel = strings.TrimSpace(value.Str(getPath(g, "kernel")) + " " + value.Str(getPath(g, "kernelrelease")))
		if l, ok := getPath(g, "ipv4").(*value.List); ok {
			var ips []string
			for _, ip := range l.Items {
				if s := value.Str(ip); s != "127.0.0.1" {
					ips = append(ips, s)
				}
			}
			row.IPs = strings.Join(ips, ", ")
		}
		if e.Created().After(row.Seen) {
			row.Seen = e.Created()
		}
	}
}

// lastSeen sets each minion's last-seen time from its newest return.
func (c *Console) lastSeen(ctx context.Context, js jetstream.JetStream, rows map[string]*minionRow) {
	kv, err := js.KeyValue(ctx, proto.ReturnBucket)
	if err != nil {
		return
	}
	lister, err := kv.ListKeys(ctx)
	if err != nil {
		return
	}
	for k := range lister.Keys() {
		jid, tok, ok := strings.Cut(k, ".")
		if !ok {
			continue
		}
		id, err := proto.IDFromToken(tok)
		if err != nil || rows[id] == nil {
			continue
		}
		if t, err := proto.JIDTime(jid); err == nil && t.After(rows[id].Seen) {
			rows[id].Seen = t
		}
	}
}

// isStateRun reports whether fun is a state run the highstate outputter
// shows.
func isStateRun(fun string) bool {
	switch fun {
	case "state.apply", "state.highstate", "state.sls", "state.single", "state.sls_id", "state.top":
		return true
	}
	return false
}

// lastHighstates finds each minion's newest state run and summarises it.
func (c *Console) lastHighstates(ctx context.Context, cl *client.Client, rows map[string]*minionRow) {
	jobs, err := cl.Jobs(ctx)
	if err != nil {
		return
	}
	left := len(rows)
	for i := len(jobs) - 1; i >= 0 && left > 0; i-- {
		j := jobs[i]
		if !isStateRun(j.Fun) {
			continue
		}
		var want []string
		for _, id := range j.Minions {
			if row := rows[id]; row != nil && row.HSJID == "" {
				want = append(want, id)
			}
		}
		if len(want) == 0 {
			continue
		}
		got, err := cl.Returns(ctx, j.JID, nil, nil)
		if err != nil {
			continue
		}
		for _, id := range want {
			r, ok := got[id]
			if !ok {
				continue
			}
			row := rows[id]
			row.HSJID = j.JID
			row.HSSummary, row.HSOK = summarise(r)
			left--
		}
	}
}

// summarise counts a state run's results as the highstate outputter's
// summary does.
func summarise(r proto.Return) (string, bool) {
	m, ok := r.Return.V.(*value.Map)
	if !ok {
		return "error", false
	}
	var okN, failN, changedN int
	m.Range(func(_, v any) bool {
		s, _ := v.(*value.Map)
		if s == nil {
			return true
		}
		res, _ := s.Get("result")
		switch res {
		case false:
			failN++
		default:
			okN++
		}
		if ch, ok := getPath(s, "changes").(*value.Map); ok && ch.Len() > 0 {
			changedN++
		}
		return true
	})
	test := ""
	if args := fmt.Sprint(r.FunArgs.V); strings.Contains(args, "test") {
		test = " (test)"
	}
	return fmt.Sprintf("%d succeeded, %d failed, %d changed%s", okN, failN, changedN, test), failN == 0 && r.Retcode == 0
}

func getPath(v any, k string) any {
	m, ok := v.(*value.Map)
	if !ok {
		return nil
	}
	x, _ := m.Get(k)
	return x
}

func (c *Console) opt(k string) string {
	v, _ := c.API.Opts.Get(k)
	if v == nil {
		return ""
	}
	return value.Str(v)
}

// --- keys ---

type keyGroup struct {
	State, Title string
	IDs          []string
	Actions      []string
}

func (c *Console) keys(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Keys", "keys"
	p.Notice = r.URL.Query().Get("done")
	ret, err := c.API.Exec(r.Context(), p.tok, value.MapOf("client", "wheel", "fun", "key.list_all"))
	if err != nil {
		p.Error = denied(err)
		c.render(w, "keys", p)
		return
	}
	data, _ := getPath(getPath(ret, "data"), "return").(*value.Map)
	var groups []keyGroup
	for _, g := range []keyGroup{
		{State: "minions_pre", Title: "Pending", Actions: []string{"accept", "reject"}},
		{State: "minions", Title: "Accepted", Actions: []string{"reject", "delete"}},
		{State: "minions_rejected", Title: "Rejected", Actions: []string{"accept", "delete"}},
		{State: "minions_denied", Title: "Denied", Actions: []string{"delete"}},
	} {
		if l, ok := getPath(data, g.State).(*value.List); ok {
			for _, id := range l.Items {
				g.IDs = append(g.IDs, value.Str(id))
			}
		}
		groups = append(groups, g)
	}
	p.Data = groups
	c.render(w, "keys", p)
}

type confirmData struct{ Action, ID string }

var keyActions = map[string]string{"accept": "key.accept", "reject": "key.reject", "delete": "key.delete"}

func (c *Console) confirm(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Confirm", "keys"
	q := r.URL.Query()
	if keyActions[q.Get("action")] == "" || q.Get("id") == "" {
		c.fail(w, p, &api.Error{Status: http.StatusBadRequest, Msg: "unknown key action"})
		return
	}
	p.Data = confirmData{Action: q.Get("action"), ID: q.Get("id")}
	c.render(w, "confirm", p)
}

func (c *Console) keyAction(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Keys", "keys"
	action, id := r.PostFormValue("action"), r.PostFormValue("id")
	fun := keyActions[action]
	if fun == "" || id == "" {
		c.fail(w, p, &api.Error{Status: http.StatusBadRequest, Msg: "unknown key action"})
		return
	}
	// Salt's key functions take a glob: the console acts on the one key.
	_, err := c.API.Exec(r.Context(), p.tok, value.MapOf("client", "wheel", "fun", fun, "match", globEscape(id)))
	if err != nil {
		p.Error = denied(err)
		c.render(w, "keys", p)
		return
	}
	past := map[string]string{"accept": "accepted", "reject": "rejected", "delete": "deleted"}[action]
	http.Redirect(w, r, "/app/keys?done="+url.QueryEscape("Key for minion "+id+" "+past+"."), http.StatusSeeOther)
}

// globEscape quotes the glob characters of an id.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("*?[", r) {
			b.WriteString("[" + string(r) + "]")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// --- jobs ---

type jobRow struct {
	JID, Fun, Tgt, TgtType, User, Args string
	Minions                            int
	Start                              time.Time
}

func (c *Console) jobs(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Jobs", "jobs"
	cl, err := c.client()
	if err != nil {
		c.fail(w, p, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	jobs, err := cl.Jobs(ctx)
	if err != nil {
		c.fail(w, p, err)
		return
	}
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q")))
	reach := c.API.Reach(p.tok)
	var rows []jobRow
	for i := len(jobs) - 1; i >= 0; i-- {
		j := jobs[i]
		if j.Fun == client.FindJob || len(reach.Filter(j.Minions)) == 0 {
			continue
		}
		row := jobRow{JID: j.JID, Fun: j.Fun, Tgt: j.Tgt, TgtType: j.TgtType, User: j.User, Minions: len(j.Minions), Args: argsText(j)}
		row.Start, _ = proto.JIDTime(j.JID)
		hay := strings.ToLower(strings.Join([]string{row.JID, row.Fun, row.Tgt, row.User, row.Args}, " "))
		if q != "" && !strings.Contains(hay, q) {
			continue
		}
		rows = append(rows, row)
		if len(rows) == 500 {
			break
		}
	}
	p.Data = struct {
		Q    string
		Jobs []jobRow
	}{r.URL.Query().Get("q"), rows}
	c.render(w, "jobs", p)
}

func argsText(j proto.Job) string {
	var parts []string
	if l, ok := j.Arg.V.(*value.List); ok {
		for _, a := range l.Items {
			parts = append(parts, value.Str(a))
		}
	}
	if m, ok := j.Kwarg.V.(*value.Map); ok {
		m.Range(func(k, v any) bool {
			parts = append(parts, value.Str(k)+"="+value.Str(v))
			return true
		})
	}
	return strings.Join(parts, " ")
}

type minionResult struct {
	ID      string
	HTML    template.HTML
	Done    bool
	Failed  bool
	Retcode int
}

func (c *Console) job(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Job", "jobs"
	jid := r.PathValue("jid")
	if !proto.ValidJID(jid) {
		c.fail(w, p, &api.Error{Status: http.StatusNotFound, Msg: "no such job"})
		return
	}
	cl, err := c.client()
	if err != nil {
		c.fail(w, p, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	j, err := cl.Job(ctx, jid)
	if err != nil {
		c.fail(w, p, &api.Error{Status: http.StatusNotFound, Msg: "no such job: " + jid})
		return
	}
	visible := c.API.Visible(p.tok, j.Minions)
	if len(visible) == 0 {
		c.fail(w, p, &api.Error{Status: http.StatusNotFound, Msg: "no such job: " + jid})
		return
	}
	got, err := cl.Returns(ctx, jid, nil, nil)
	if err != nil {
		c.fail(w, p, err)
		return
	}
	sort.Strings(visible)
	var results []minionResult
	for _, id := range visible {
		res := minionResult{ID: id}
		if ret, ok := got[id]; ok {
			res = c.result(ret)
		}
		results = append(results, res)
	}
	row := jobRow{JID: j.JID, Fun: j.Fun, Tgt: j.Tgt, TgtType: j.TgtType, User: j.User, Minions: len(j.Minions), Args: argsText(j)}
	row.Start, _ = proto.JIDTime(j.JID)
	p.Title = "Job " + jid
	p.Data = struct {
		Job     jobRow
		Results []minionResult
	}{row, results}
	c.render(w, "job", p)
}

// result renders a minion's return as the command line would print it:
// the highstate outputter for state runs, else the function's outputter
// or nested, with the outputter's colours.
func (c *Console) result(ret proto.Return) minionResult {
	out := ret.Out
	if out == "" {
		out = "nested"
	}
	if isStateRun(ret.Fun) {
		out = "highstate"
	}
	text := output.Default.Display(value.MapOf(ret.ID, ret.Return.V), out, &output.Options{Opts: c.API.Opts, Color: true, Retcode: ret.Retcode})
	return minionResult{ID: ret.ID, HTML: template.HTML(ansiHTML(text)), Done: true, Failed: ret.Retcode != 0, Retcode: ret.Retcode}
}

// jobReturn is the fragment of one minion's rendered return (204 while
// it has not returned), fetched by the job page as returns arrive.
func (c *Console) jobReturn(w http.ResponseWriter, r *http.Request, p *page) {
	jid, id := r.PathValue("jid"), r.PathValue("id")
	if !proto.ValidJID(jid) || len(c.API.Visible(p.tok, []string{id})) == 0 {
		http.NotFound(w, r)
		return
	}
	cl, err := c.client()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	got, err := cl.Returns(ctx, jid, nil, nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ret, ok := got[id]
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	res := c.result(ret)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if res.Failed {
		w.Header().Set("X-Brine-Failed", "1")
	}
	_, _ = w.Write([]byte(res.HTML))
}

// --- run ---

type runData struct {
	Tgt, TgtType, Fun, Args string
	TgtTypes                []string
}

var tgtTypes = []string{"glob", "pcre", "list", "grain", "grain_pcre", "pillar", "pillar_pcre", "nodegroup", "ipcidr", "compound"}

func (c *Console) runPage(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Run", "run"
	q := r.URL.Query()
	d := runData{Tgt: q.Get("tgt"), TgtType: q.Get("tgt_type"), Fun: q.Get("fun"), Args: q.Get("args"), TgtTypes: tgtTypes}
	if d.Tgt == "" {
		d.Tgt = "*"
	}
	if d.TgtType == "" {
		d.TgtType = "glob"
	}
	p.Data = d
	c.render(w, "run", p)
}

// functions is the list of function names the run page completes, one a
// line; the page loads it once and the browser caches it.
func (c *Console) functions(w http.ResponseWriter, _ *http.Request, _ *page) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "private, max-age=300")
	_, _ = w.Write([]byte(strings.Join(c.funcs, "\n")))
}

func (c *Console) runPost(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Run", "run"
	d := runData{Tgt: r.PostFormValue("tgt"), TgtType: r.PostFormValue("tgt_type"), Fun: strings.TrimSpace(r.PostFormValue("fun")),
		Args: r.PostFormValue("args"), TgtTypes: tgtTypes}
	p.Data = d
	words, err := splitArgs(d.Args)
	if err != nil {
		p.Error, p.status = err.Error(), http.StatusBadRequest
		c.render(w, "run", p)
		return
	}
	pos, kwargs := yamlload.ParseInput(words, nil)
	low := value.MapOf("client", "local_async", "tgt", d.Tgt, "tgt_type", d.TgtType, "fun", d.Fun, "arg", value.NewList(pos...), "kwarg", kwargs)
	ret, err := c.API.Exec(r.Context(), p.tok, low)
	if err != nil {
		p.Error, p.status = denied(err), api.StatusOf(err)
		c.render(w, "run", p)
		return
	}
	jid, _ := getPath(ret, "jid").(string)
	if jid == "" {
		p.Error, p.status = "No minions matched the target. No command was sent, no jid was assigned.", http.StatusOK
		c.render(w, "run", p)
		return
	}
	http.Redirect(w, r, "/app/jobs/"+jid, http.StatusSeeOther)
}

// splitArgs splits an argument line as a shell would for the simple
// cases: words separated by spaces, with single or double quotes.
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote in the arguments")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// --- events ---

func (c *Console) eventsPage(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title, p.Nav = "Events", "events"
	tag := r.URL.Query().Get("tag")
	if tag == "" {
		tag = "*"
	}
	p.Data = tag
	c.render(w, "events", p)
}

// --- graph ---

type graphData struct {
	ID       string
	SVG      template.HTML
	Text     string
	Notes    []string
	ResultOf string // the job whose results colour the graph
}

func (c *Console) graph(w http.ResponseWriter, r *http.Request, p *page) {
	id := r.PathValue("id")
	p.Title, p.Nav = "State graph of "+id, "minions"
	ret, err := c.API.Exec(r.Context(), p.tok, value.MapOf("client", "local", "tgt", id, "tgt_type", "list", "fun", "state.show_lowstate"))
	if err != nil {
		p.Error, p.status = denied(err), api.StatusOf(err)
		c.render(w, "graph", p)
		return
	}
	low, ok := getPath(ret, id).(*value.List)
	if !ok {
		p.Error = fmt.Sprintf("%s did not compile its highstate: %s", id, value.Str(getPath(ret, id)))
		if getPath(ret, id) == nil {
			p.Error = id + " did not return"
		}
		c.render(w, "graph", p)
		return
	}
	var chunks []*value.Map
	for _, it := range low.Items {
		if m, ok := it.(*value.Map); ok {
			chunks = append(chunks, m)
		}
	}
	g := graph.Build(chunks, graph.Options{DisabledRequisites: graph.DisabledRequisites(c.API.Opts)})
	d := graphData{ID: id}
	// Colour the states by the minion's newest state run.
	results := map[string]any(nil)
	if cl, err := c.client(); err == nil {
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		rows := map[string]*minionRow{id: {ID: id}}
		c.lastHighstates(ctx, cl, rows)
		if jid := rows[id].HSJID; jid != "" {
			if got, err := cl.Returns(ctx, jid, []string{id}, nil); err == nil {
				if m, ok := got[id].Return.V.(*value.Map); ok {
					results = map[string]any{}
					m.Range(func(k, v any) bool {
						results[value.Str(k)] = getPath(v, "result")
						return true
					})
					d.ResultOf = jid
				}
			}
		}
		cancel()
	}
	d.SVG = template.HTML(graphSVG(g, results))
	var b bytes.Buffer
	_ = g.WriteText(&b)
	d.Text = b.String()
	p.Data = d
	c.render(w, "graph", p)
}

// --- template helpers ---

func ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Format("2006-01-02 15:04")
}

func jidTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }
