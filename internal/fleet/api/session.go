package api

import (
	"net/http"
	"strings"

	"brine/internal/value"
)

// CookieName is the cookie holding the token (salt-api's session cookie).
const CookieName = "session_id"

// eauthConf returns external_auth:<eauth>, nil when that system is not
// enabled.
func (s *Server) eauthConf(eauth string) *value.Map {
	ea, _ := mget(s.Opts, "external_auth").(*value.Map)
	if ea == nil {
		return nil
	}
	v, ok := ea.Get(eauth)
	if !ok {
		return nil
	}
	m, _ := v.(*value.Map)
	if m == nil {
		m = value.NewMap(0)
	}
	return m
}

// Login authenticates username with password through the eauth system
// and mints a token (Salt's LoadAuth.mk_token). It returns the token and
// the user's permissions as salt-api's login answer lists them.
func (s *Server) Login(eauth, username, password string, expire float64) (*Token, []any, error) {
	fail := &Error{Status: http.StatusUnauthorized, Msg: "Could not authenticate using provided credentials"}
	conf := s.eauthConf(eauth)
	b, known := backends[eauth]
	if conf == nil || !known {
		s.Log.Warn("Authentication failure of type \"eauth\" occurred.", "eauth", eauth, "user", username)
		return nil, nil, fail
	}
	if !b.auth(conf, username, password) {
		s.Log.Warn("Authentication failure of type \"eauth\" occurred.", "eauth", eauth, "user", username)
		return nil, nil, fail
	}
	life := float64(intOpt(s.Opts, "token_expire", 43200))
	if expire > 0 && s.customExpire(eauth, username) {
		life = expire
	}
	start := now()
	t := &Token{Start: start, Expire: start + life, Name: username, Eauth: eauth, Groups: b.groups(conf, username)}
	if value.Truthy(mget(s.Opts, "keep_acl_in_token")) {
		t.AuthList = &JSONValue{V: value.NewList(fillAuthList(conf, username, t.Groups, s.permissive())...)}
	}
	if err := s.tokens.create(t); err != nil {
		return nil, nil, err
	}
	return t, sumPermissions(conf, username, t.Groups), nil
}

// customExpire is Salt's _allow_custom_expire (token_expire_user_override).
func (s *Server) customExpire(eauth, user string) bool {
	switch o := mget(s.Opts, "token_expire_user_override").(type) {
	case bool:
		return o
	case *value.Map:
		v, _ := o.Get(eauth)
		for _, u := range items(v) {
			if value.Str(u) == user {
				return true
			}
		}
	}
	return false
}

func (s *Server) permissive() bool { return value.Truthy(mget(s.Opts, "permissive_acl")) }

// Logout removes a token.
func (s *Server) Logout(tok string) { s.tokens.remove(tok) }

// RequestToken is the token a request carries: the X-Auth-Token header,
// else the session cookie, else (for the event stream, which browsers
// open without headers) the token query parameter.
func RequestToken(r *http.Request) string {
	if t := r.Header.Get("X-Auth-Token"); t != "" {
		return t
	}
	if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
		return c.Value
	}
	if t := r.URL.Query().Get("token"); t != "" {
		return t
	}
	return r.URL.Query().Get("salt_token")
}

// Authenticate returns the valid token of a request and records its user
// for the log; a missing, unknown or expired token is a 401.
func (s *Server) Authenticate(r *http.Request) (*Token, error) {
	raw := RequestToken(r)
	if raw == "" {
		return nil, &Error{Status: http.StatusUnauthorized, Msg: "No authentication credentials given"}
	}
	if !validToken(raw) {
		return nil, &Error{Status: http.StatusUnauthorized, Msg: "Invalid token"}
	}
	t, err := s.tokens.get(raw)
	if err != nil {
		return nil, &Error{Status: http.StatusUnauthorized, Msg: "Authentication failure of type \"token\" occurred."}
	}
	SetUser(r, t.Eauth+":"+t.Name)
	return t, nil
}

// Valid reports whether tok is still a valid token.
func (s *Server) Valid(tok string) bool {
	_, err := s.tokens.get(tok)
	return err == nil
}

// AuthList returns the ACL of a token's user (Salt's get_auth_list).
func (s *Server) AuthList(t *Token) []any {
	if t.AuthList != nil && value.Truthy(mget(s.Opts, "keep_acl_in_token")) {
		return items(t.AuthList.V)
	}
	conf := s.eauthConf(t.Eauth)
	if conf == nil {
		return nil
	}
	return fillAuthList(conf, t.Name, t.Groups, s.permissive())
}

// SetCookie gives the browser the token as its session cookie.
func (s *Server) SetCookie(w http.ResponseWriter, t *Token) {
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: t.Token, Path: "/", HttpOnly: true,
		Secure: !s.Conf.DisableSSL, SameSite: http.SameSiteStrictMode,
		MaxAge: int(t.Expire - now()),
	})
}

// ClearCookie expires the session cookie.
func (s *Server) ClearCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true})
}

// Visible returns those of ids the token's ACL reaches with some
// function: every minion when a plain function entry exists, else the
// minions of the target entries. The console shows a user only these.
func (s *Server) Visible(t *Token, ids []string) []string {
	return s.Reach(t).Filter(ids)
}

// Reach is the set of minions an ACL reaches (All: every minion).
type Reach struct {
	All bool
	IDs map[string]bool
}

// Filter returns those of ids in the set.
func (r Reach) Filter(ids []string) []string {
	if r.All {
		return ids
	}
	var out []string
	for _, id := range ids {
		if r.IDs[id] {
			out = append(out, id)
		}
	}
	return out
}

// Reach computes the minions t's ACL reaches, resolving each target
// entry once.
func (s *Server) Reach(t *Token) Reach {
	r := Reach{IDs: map[string]bool{}}
	for _, ind := range s.AuthList(t) {
		if sv, ok := ind.(string); ok {
			if !strings.HasPrefix(sv, "@") {
				return Reach{All: true}
			}
			continue
		}
		tgt, _, ok := single(ind)
		if !ok || strings.HasPrefix(tgt, "@") {
			continue
		}
		if ms, err := s.resolve(tgt, "compound"); err == nil {
			for _, m := range ms {
				r.IDs[m] = true
			}
		}
	}
	return r
}

func (s *Server) resolve(tgt, tgtType string) ([]string, error) {
	c, err := s.Client()
	if err != nil {
		return nil, err
	}
	return c.Resolve(tgt, tgtType)
}

func intOpt(opts *value.Map, k string, def int64) int64 {
	switch x := mget(opts, k).(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return def
}
