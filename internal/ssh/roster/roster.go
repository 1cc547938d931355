// Package roster reads salt-ssh rosters (salt/roster): the flat YAML file
// (rendered through the master's renderer pipeline, jinja|yaml by default),
// Ansible INI inventories and the scan roster, applies the master's ssh_*
// defaults and selects the targets of a command line as
// salt/utils/roster_matcher.py does.
package roster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"brine/internal/match"
	"brine/internal/render"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// Target is one host of the roster with the master's defaults applied.
type Target struct {
	ID   string // the roster key, the minion id of the target
	Host string
	Port int
	User string
	// Passwd is the login (and sudo) password; PrivPasswd the private
	// key's passphrase.
	Passwd, PrivPasswd string
	// Priv is the private key file ("agent-forwarding": the agent only).
	Priv           string
	Sudo           bool
	SudoUser       string
	TTY            bool
	Timeout        float64 // seconds to connect
	ThinDir        string  // "" means the default for the user
	IdentitiesOnly bool
	SSHOptions     []string // ssh -o options: StrictHostKeyChecking, UserKnownHostsFile, ...
	MinionOpts     *value.Map
	Grains         *value.Map // roster grains, laid over the collected ones
	// Raw is the roster entry as written (with roster_defaults applied).
	Raw *value.Map
}

// Defaults are the master options a roster entry falls back to (the
// defaults dict of salt/client/ssh's SSH class).
type Defaults struct {
	User, Passwd, Priv, PrivPasswd, SudoUser string
	Port                                     int
	Timeout                                  float64
	Sudo, IdentitiesOnly                     bool
	SSHOptions                               []string
}

// DefaultsFrom reads the ssh_* options of the master options opts, with
// Salt 3006's defaults for those not set. priv is the key file to use
// when ssh_priv is not set.
func DefaultsFrom(opts *value.Map, priv string) Defaults {
	d := Defaults{
		User:           str(opts, "ssh_user", "root"),
		Passwd:         str(opts, "ssh_passwd", ""),
		Priv:           str(opts, "ssh_priv", priv),
		PrivPasswd:     str(opts, "ssh_priv_passwd", ""),
		SudoUser:       str(opts, "ssh_sudo_user", ""),
		Sudo:           boolOpt(opts, "ssh_sudo"),
		IdentitiesOnly: boolOpt(opts, "ssh_identities_only"),
		SSHOptions:     strList(get(opts, "ssh_options")),
	}
	d.Port, _ = toInt(get(opts, "ssh_port"))
	if d.Port == 0 {
		d.Port = 22
	}
	// salt-ssh waits ssh_timeout plus the master's timeout to connect.
	st, ok := toFloat(get(opts, "ssh_timeout"))
	if !ok {
		st = 60
	}
	t, ok := toFloat(get(opts, "timeout"))
	if !ok {
		t = 5
	}
	d.Timeout = st + t
	return d
}

// File returns the roster file salt-ssh reads: roster_file when set, else
// CONFIG_DIR/roster (get_roster_file), and checks that it can be read.
func File(opts *value.Map, configDir string) (string, error) {
	path := str(opts, "roster_file", "")
	if path == "" {
		path = filepath.Join(configDir, "roster")
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("Roster file %q not found", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("Access denied to roster %q", path)
	}
	f.Close()
	return path, nil
}

// Error is a roster that does not load: the file and, for a syntax error,
// the line and column.
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: roster: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: roster: %s", e.File, e.Msg)
}

// LoadFlat renders the flat roster at path with the master options opts
// (the renderer option picks the pipeline, a shebang line overrides it)
// and returns its entries in file order. A string entry is a host name.
func LoadFlat(path string, opts *value.Map, salt render.SaltLookup) (*value.Map, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rc := &render.Context{Path: path, Opts: opts, Grains: value.NewMap(0), Pillar: value.NewMap(0), Salt: salt}
	ro := render.Options{Default: str(opts, "renderer", "jinja|yaml"), Whitelist: strList(get(opts, "renderer_whitelist")), Blacklist: strList(get(opts, "renderer_blacklist"))}
	data, err := render.Render(src, rc, ro)
	if err != nil {
		var unknown *render.UnknownRendererError
		if !errors.As(err, &unknown) {
			return nil, renderError(path, src, err)
		}
	}
	if data == nil {
		return value.NewMap(0), nil
	}
	m, ok := data.(*value.Map)
	if !ok {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the roster must be a mapping of target ids, not %s", value.TypeName(data))}
	}
	out := value.NewMap(m.Len())
	for _, k := range m.Keys() {
		v, _ := m.Get(k)
		out.Set(value.Str(k), v)
	}
	return out, nil
}

// renderError turns a render failure into an Error with the line of the
// YAML problem when there is one.
func renderError(path string, src []byte, err error) error {
	var ye *yamlload.Error
	if errors.As(err, &ye) {
		mk := ye.ProblemMark
		if mk.Line == 0 {
			mk = ye.ContextMark
		}
		msg := ye.Problem
		if ye.Context != "" {
			msg = ye.Context + ": " + ye.Problem
		}
		return &Error{File: path, Line: mk.Line, Column: mk.Column, Msg: msg}
	}
	msg := err.Error()
	// A renderer error that names a line ("... line 3 ...") keeps it.
	return &Error{File: path, Line: lineIn(msg), Msg: msg}
}

// lineIn finds "line N" in a message; 0 when there is none.
func lineIn(msg string) int {
	i := strings.Index(msg, "line ")
	if i < 0 {
		return 0
	}
	j := i + 5
	for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
		j++
	}
	n, _ := strconv.Atoi(msg[i+5 : j])
	return n
}

// Select returns the ids of raw (a roster's entries) that tgt selects with
// tgtType: glob, pcre, list, nodegroup (ssh_list_nodegroups, then the
// master's nodegroups), grain and grain_pcre (on the grains cached from
// earlier runs, cached(id)). Ids are sorted.
func Select(raw *value.Map, tgt, tgtType string, opts *value.Map, cached func(id string) *value.Map) ([]string, error) {
	var ids []string
	switch tgtType {
	case "list":
		want := map[string]bool{}
		for _, s := range strings.Split(tgt, ",") {
			want[strings.TrimSpace(s)] = true
		}
		for _, k := range raw.Keys() {
			if want[value.Str(k)] {
				ids = append(ids, value.Str(k))
			}
		}
	case "nodegroup":
		if g, ok := get(opts, "ssh_list_nodegroups").(*value.Map); ok {
			if members, ok := g.Get(tgt); ok {
				want := map[string]bool{}
				for _, s := range strList(members) {
					for _, p := range strings.Split(s, ",") {
						want[p] = true
					}
				}
				for _, k := range raw.Keys() {
					if want[value.Str(k)] {
						ids = append(ids, value.Str(k))
					}
				}
				break
			}
		}
		groups, _ := get(opts, "nodegroups").(*value.Map)
		if groups == nil || !groups.Has(tgt) {
			return nil, nil
		}
		return selectWith(raw, tgt, "nodegroup", groups, cached)
	case "glob", "pcre", "grain", "grain_pcre":
		return selectWith(raw, tgt, tgtType, nil, cached)
	default:
		return nil, fmt.Errorf("salt-ssh cannot target by %s", tgtType)
	}
	sort.Strings(ids)
	return ids, nil
}

func selectWith(raw *value.Map, tgt, kind string, groups *value.Map, cached func(string) *value.Map) ([]string, error) {
	var ids []string
	for _, k := range raw.Keys() {
		id := value.Str(k)
		c := &match.Context{ID: id, Grains: value.NewMap(0), Pillar: value.NewMap(0), Nodegroups: groups}
		if (kind == "grain" || kind == "grain_pcre" || kind == "nodegroup") && cached != nil {
			if g := cached(id); g != nil {
				c.Grains = g
			}
		}
		ok, err := match.Match(c, kind, tgt)
		if err != nil {
			return nil, err
		}
		if ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Resolve returns the target id of raw with roster_defaults (opts) and d
// applied, as roster_matcher's get_data and SSH.handle_ssh do. A string
// entry is the host; the host defaults to the id.
func Resolve(id string, entry any, opts *value.Map, d Defaults) (*Target, error) {
	m := value.NewMap(0)
	if rd, ok := get(opts, "roster_defaults").(*value.Map); ok {
		m = rd.Copy()
	}
	switch e := entry.(type) {
	case string:
		m.Set("host", e)
	case *value.Map:
		for _, k := range e.Keys() {
			v, _ := e.Get(k)
			m.Set(value.Str(k), v)
		}
	case nil:
	default:
		return nil, fmt.Errorf("roster entry %s is a %s, not a host or a mapping", id, value.TypeName(entry))
	}
	t := &Target{ID: id, Raw: m, User: d.User, Port: d.Port, Passwd: d.Passwd, Priv: d.Priv, PrivPasswd: d.PrivPasswd,
		Sudo: d.Sudo, SudoUser: d.SudoUser, Timeout: d.Timeout, IdentitiesOnly: d.IdentitiesOnly, SSHOptions: d.SSHOptions}
	t.Host = str(m, "host", id)
	if v, ok := m.Get("port"); ok && v != nil {
		p, ok := toInt(v)
		if !ok || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("roster entry %s: invalid port %v", id, value.Str(v))
		}
		t.Port = p
	}
	t.User = str(m, "user", t.User)
	t.Passwd = str(m, "passwd", t.Passwd)
	t.Priv = str(m, "priv", t.Priv)
	t.PrivPasswd = str(m, "priv_passwd", t.PrivPasswd)
	t.SudoUser = str(m, "sudo_user", t.SudoUser)
	t.ThinDir = str(m, "thin_dir", "")
	if v, ok := m.Get("sudo"); ok {
		t.Sudo = value.Truthy(v)
	}
	if v, ok := m.Get("tty"); ok {
		t.TTY = value.Truthy(v)
	}
	if v, ok := m.Get("identities_only"); ok {
		t.IdentitiesOnly = value.Truthy(v)
	}
	if v, ok := m.Get("timeout"); ok && v != nil {
		f, ok := toFloat(v)
		if !ok {
			return nil, fmt.Errorf("roster entry %s: invalid timeout %v", id, value.Str(v))
		}
		t.Timeout = f
	}
	if v, ok := m.Get("ssh_options"); ok && v != nil {
		t.SSHOptions = strList(v)
	}
	t.MinionOpts, _ = get(m, "minion_opts").(*value.Map)
	t.Grains, _ = get(m, "grains").(*value.Map)
	return t, nil
}

// Option returns the value of an ssh -o option (case-insensitive name, as
// ssh reads them) among opts; ok is false when it is not set.
func Option(opts []string, name string) (string, bool) {
	for _, o := range opts {
		k, v, found := strings.Cut(o, "=")
		if !found {
			k, v, found = strings.Cut(strings.TrimSpace(o), " ")
		}
		if found && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func get(m *value.Map, k string) any {
	if m == nil {
		return nil
	}
	v, _ := m.Get(k)
	return v
}

func str(m *value.Map, k, def string) string {
	v := get(m, k)
	if v == nil {
		return def
	}
	if s := value.Str(v); s != "" {
		return s
	}
	return def
}

func boolOpt(m *value.Map, k string) bool { return value.Truthy(get(m, k)) }

func strList(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
		return []string{x}
	case *value.List:
		out := make([]string, 0, x.Len())
		for _, e := range x.Items {
			out = append(out, value.Str(e))
		}
		return out
	}
	return []string{value.Str(v)}
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), true
	case float64:
		return int(x), x == float64(int(x))
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}
