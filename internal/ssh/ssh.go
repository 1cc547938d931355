// Package ssh is brine's agentless mode, salt-ssh's job: it reads the
// roster, connects to each target over SSH, sends the brine binary (once,
// cached on the target by content hash under thin_dir), collects the
// target's grains there, compiles its pillar here, sends the generated
// minion config, the pillar and the file roots the run needs, runs
// `brine call --local` there and hands back each target's return in
// salt-ssh's shapes. Failures are per target; the others go on.
package ssh

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"brine/internal/execmod"
	"brine/internal/highstate"
	"brine/internal/pillar"
	"brine/internal/ssh/roster"
	"brine/internal/ssh/transport"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// Options is one brine ssh command.
type Options struct {
	// Opts are the master options (Salt's defaults applied); ConfigDir is
	// the master's config directory (the roster's default home).
	Opts      *value.Map
	ConfigDir string
	// Tgt and TgtType select roster targets (glob, pcre, list, grain,
	// grain_pcre, nodegroup).
	Tgt, TgtType string
	// Roster is the roster backend: flat (default), scan or ansible.
	Roster     string
	RosterFile string
	// Fun and Args are the function and its arguments as typed; with Raw,
	// Args is a shell command run as is.
	Fun  string
	Args []string
	Raw  bool
	// IgnoreHostKeys accepts and records unknown host keys; NoHostKeys
	// accepts any and records nothing.
	IgnoreHostKeys, NoHostKeys bool
	// KeyDeploy installs the key in the target's authorized_keys when it
	// is refused and a password is known.
	KeyDeploy bool
	// Wipe removes the thin dir after the run (-w); RegenThin sends the
	// binary even to targets that have it (-t).
	Wipe, RegenThin bool
	// RandThinDir gives targets without a roster thin_dir a random one
	// for this run, /var/tmp/.XXXXXX, wiped after (-W).
	RandThinDir bool
	// MaxProcs is how many targets run at once (ssh_max_procs).
	MaxProcs int
	// Progress, when set, is told what each target is doing.
	Progress func(id, phase string)
}

// Stats are measurements of one target's run.
type Stats struct {
	Wall       time.Duration // everything, from connecting to the return
	Connect    time.Duration // TCP, handshake and login
	Transfer   time.Duration // sending the brine binary
	Remote     time.Duration // the run command (bundle upload and brine call)
	BinarySent bool
	BytesOut   int64 // stdin sent (binary, bundle)
	BytesIn    int64
	RoundTrips int // commands run over the connection
}

// Result is one target's outcome, ready for an outputter: Return is what
// salt-ssh prints under the target's id (the function's return, or the
// {stdout, stderr, retcode} mapping of a failure, or an ssh error text),
// Out the outputter the function asks for.
type Result struct {
	ID      string
	Return  any
	Out     string
	Retcode int
	// Failed is set when the target could not run the function at all
	// (connection, login, sudo, architecture, deployment).
	Failed bool
	Stats  Stats
}

// Targets resolves the roster targets of o, sorted by id.
func Targets(o *Options) ([]*roster.Target, error) {
	opts := o.Opts
	if o.RosterFile != "" {
		opts = opts.Copy()
		opts.Set("roster_file", o.RosterFile)
	}
	d := roster.DefaultsFrom(opts, privPath(opts))
	var raw *value.Map
	switch o.Roster {
	case "", "flat":
		path, err := roster.File(opts, o.ConfigDir)
		if err != nil {
			return nil, err
		}
		ctx := execmod.NewContext()
		ctx.Opts = opts
		raw, err = roster.LoadFlat(path, opts, ctx.Callable)
		if err != nil {
			return nil, err
		}
	case "scan":
		var err error
		raw, err = roster.Scan(o.Tgt, opts)
		if err != nil {
			return nil, err
		}
		o.TgtType = "glob"
		o.Tgt = "*"
	case "ansible":
		path, err := roster.File(opts, o.ConfigDir)
		if err != nil {
			return nil, err
		}
		inv, err := roster.LoadAnsible(path)
		if err != nil {
			return nil, err
		}
		raw = inv.Hosts
		// Ansible groups are the nodegroups (ansible.py's _get_hosts_from_group).
		groups := value.NewMap(len(inv.Groups))
		for g, hs := range inv.Groups {
			groups.Set(g, value.NewList(anySlice(hs)...))
		}
		opts = opts.Copy()
		opts.Set("ssh_list_nodegroups", groups)
	default:
		return nil, fmt.Errorf("unknown roster %q: brine ssh reads the flat, scan and ansible rosters", o.Roster)
	}
	tt := o.TgtType
	if tt == "" {
		tt = "glob"
	}
	cache := grainCache(opts)
	ids, err := roster.Select(raw, o.Tgt, tt, opts, cache.load)
	if err != nil {
		return nil, err
	}
	out := make([]*roster.Target, 0, len(ids))
	for _, id := range ids {
		e, _ := raw.Get(id)
		t, err := roster.Resolve(id, e, opts, d)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// ErrNoTargets is a target expression matching nothing in the roster.
var ErrNoTargets = errors.New("No matching targets found in roster.")

// Run runs o on its targets, at most MaxProcs at a time, and hands each
// result to emit as it comes (emit is called from one goroutine at a
// time). The error is for the run as a whole (a roster that does not
// load, no target); a target's failure is its Result.
func Run(ctx context.Context, o *Options, emit func(*Result)) error {
	targets, err := Targets(o)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		return ErrNoTargets
	}
	return RunTargets(ctx, o, targets, emit)
}

// RunTargets is Run on targets already resolved.
func RunTargets(ctx context.Context, o *Options, targets []*roster.Target, emit func(*Result)) error {
	if err := ensureKey(privPath(o.Opts)); err != nil {
		return err
	}
	if o.RandThinDir {
		dir := "/var/tmp/." + randHex(3)
		for _, t := range targets {
			if t.ThinDir == "" {
				t.ThinDir = dir
			}
		}
		o.Wipe = true
	}
	r := &run{o: o, bins: newBinaries(o.Opts), cache: grainCache(o.Opts)}
	max := o.MaxProcs
	if max <= 0 {
		max = int(intOpt(o.Opts, "ssh_max_procs", 25))
	}
	sem := make(chan struct{}, max)
	var emitMu sync.Mutex
	var wg sync.WaitGroup
	for _, t := range targets {
		wg.Add(1)
		sem <- struct{}{}
		go func(t *roster.Target) {
			defer wg.Done()
			defer func() { <-sem }()
			res := r.host(ctx, t)
			emitMu.Lock()
			defer emitMu.Unlock()
			emit(res)
		}(t)
	}
	wg.Wait()
	return nil
}

// run is what the targets of one command share.
type run struct {
	o     *Options
	bins  *binaries
	tree  treeOnce
	cache *grains
}

func (r *run) progress(id, phase string) {
	if r.o.Progress != nil {
		r.o.Progress(id, phase)
	}
}

// failure is salt-ssh's return of a target that failed before or while
// running: {stdout, stderr, retcode}, or the bare text of an ssh error.
func failure(id string, stdout, stderr string, retcode int) *Result {
	var ret any = value.MapOf("stdout", stdout, "stderr", stderr, "retcode", int64(retcode))
	if strings.HasPrefix(stderr, "ssh:") {
		ret = stderr
	}
	return &Result{ID: id, Return: ret, Out: "nested", Retcode: retcode, Failed: true}
}

func failErr(id string, err error) *Result {
	var te *transport.Error
	if errors.As(err, &te) {
		return failure(id, te.Stdout, te.Stderr, te.Retcode)
	}
	return failure(id, "", err.Error(), 1)
}

// thinDir is the target's thin_dir: the roster's, else salt-ssh's default
// /var/tmp/.USER_XXXXXX_salt where XXXXXX names the controller.
func thinDir(t *roster.Target) string {
	if t.ThinDir != "" {
		return t.ThinDir
	}
	user := t.User
	if user == "" {
		user = "root"
	}
	host, _ := os.Hostname()
	return "/var/tmp/." + user + "_" + fqdnUUID(host) + "_salt"
}

// fqdnUUID is the first six hex digits of uuid3(NAMESPACE_DNS, host): a
// version 3 UUID is an MD5 whose first bytes are kept as they are.
func fqdnUUID(host string) string {
	ns := []byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	sum := md5.Sum(append(ns, host...))
	return hex.EncodeToString(sum[:3])
}

// privPath is the key salt-ssh logs in with: ssh_priv, else
// pki_dir/ssh/salt-ssh.rsa.
func privPath(opts *value.Map) string {
	if p := strOpt(opts, "ssh_priv"); p != "" {
		return p
	}
	if value.Truthy(get(opts, "ssh_use_home_key")) {
		if home, err := os.UserHomeDir(); err == nil {
			if p := filepath.Join(home, ".ssh", "id_rsa"); fileExists(p) {
				return p
			}
		}
	}
	return filepath.Join(strOpt(opts, "pki_dir"), "ssh", "salt-ssh.rsa")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// knownHosts is the known_hosts file checked: known_hosts_file, else
// ~/.ssh/known_hosts.
func knownHosts(opts *value.Map) string {
	if p := strOpt(opts, "known_hosts_file"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".ssh", "known_hosts")
}

// compilePillar compiles the target's pillar here, with the master's
// pillar options and roots and the target's grains.
func compilePillar(opts *value.Map, id string, grains *value.Map, saltenv, pillarenv string) (*value.Map, error) {
	opts = opts.Copy()
	opts.Set("id", id)
	opts.Set("__role", "minion")
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = grains
	ctx.Files = highstate.FileRoots(opts)
	svc := pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}
	ctx.SetService("pillar", svc)
	return svc.Compile(opts, grains, id, saltenv, pillarenv, nil, nil)
}

// callEnvs are the saltenv and pillarenv the function's arguments ask for.
func callEnvs(args []string) (saltenv, pillarenv string) {
	_, kw := yamlload.ParseInput(args, nil)
	if v, ok := kw.Get("saltenv"); ok && v != nil {
		saltenv = value.Str(v)
	}
	if v, ok := kw.Get("pillarenv"); ok && v != nil {
		pillarenv = value.Str(v)
	}
	return saltenv, pillarenv
}

// needsFiles says whether a function may read the file server: all but
// those known not to.
func needsFiles(fun string) bool {
	mod, _, _ := strings.Cut(fun, ".")
	switch mod {
	case "cmd", "test", "grains", "pillar", "sys", "network", "status", "disk", "user", "group", "service", "pkg", "saltutil", "config":
		return false
	}
	return true
}

func get(m *value.Map, k string) any {
	if m == nil {
		return nil
	}
	v, _ := m.Get(k)
	return v
}

func strOpt(m *value.Map, k string) string {
	v := get(m, k)
	if v == nil {
		return ""
	}
	return value.Str(v)
}

func intOpt(m *value.Map, k string, def int64) int64 {
	switch x := get(m, k).(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return def
}

func strList(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case *value.List:
		out := make([]string, 0, len(x.Items))
		for _, e := range x.Items {
			out = append(out, value.Str(e))
		}
		return out
	}
	return nil
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
