package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"brine/internal/execmod"
	"brine/internal/ssh/roster"
	"brine/internal/ssh/transport"
	"brine/internal/value"
)

// markFiles says the file roots are on the target.
const markFiles = "@@brine-ssh:files-present@@"

// host runs the command on one target.
func (r *run) host(ctx context.Context, t *roster.Target) *Result {
	start := time.Now()
	st := Stats{}
	res := r.hostRun(ctx, t, &st)
	st.Wall = time.Since(start)
	res.Stats = st
	if res.Failed {
		r.progress(t.ID, "failed")
	} else {
		r.progress(t.ID, "done")
	}
	return res
}

func (r *run) connConfig(t *roster.Target) transport.Config {
	o := r.o
	cfg := transport.Config{
		Host: t.Host, Port: t.Port, User: t.User, Passwd: t.Passwd, PrivPasswd: t.PrivPasswd, Priv: t.Priv,
		Timeout:        time.Duration(t.Timeout * float64(time.Second)),
		KnownHosts:     knownHosts(o.Opts),
		IgnoreHostKeys: o.IgnoreHostKeys || value.Truthy(get(o.Opts, "ignore_host_keys")),
		NoHostKeys:     o.NoHostKeys || value.Truthy(get(o.Opts, "no_host_keys")),
		IdentitiesOnly: t.IdentitiesOnly,
	}
	if v, ok := roster.Option(t.SSHOptions, "StrictHostKeyChecking"); ok && (strings.EqualFold(v, "no") || strings.EqualFold(v, "accept-new") || strings.EqualFold(v, "off")) {
		cfg.IgnoreHostKeys = true
	}
	if v, ok := roster.Option(t.SSHOptions, "UserKnownHostsFile"); ok {
		if v == "/dev/null" {
			if cfg.IgnoreHostKeys {
				cfg.NoHostKeys = true
			}
			cfg.KnownHosts = ""
		} else {
			cfg.KnownHosts = v
		}
	}
	if get(o.Opts, "ssh_keepalive") == nil || value.Truthy(get(o.Opts, "ssh_keepalive")) {
		cfg.KeepaliveInterval = time.Duration(intOpt(o.Opts, "ssh_keepalive_interval", 60)) * time.Second
		cfg.KeepaliveCountMax = int(intOpt(o.Opts, "ssh_keepalive_count_max", 3))
	}
	return cfg
}

// connect logs in to t; with --key-deploy, a refused key is installed
// with the password and the login goes on.
func (r *run) connect(ctx context.Context, t *roster.Target) (*transport.Client, error) {
	cfg := r.connConfig(t)
	if !r.o.KeyDeploy || t.Passwd == "" {
		return transport.Dial(ctx, cfg)
	}
	// The key first; when it is refused, the password, to install it.
	keyOnly := cfg
	keyOnly.Passwd = ""
	c, err := transport.Dial(ctx, keyOnly)
	var te *transport.Error
	if err == nil || !errors.As(err, &te) || !te.Auth {
		return c, err
	}
	cfg.NoKey = true
	c, err = transport.Dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	key, kerr := transport.AuthorizedKey(t.Priv, t.PrivPasswd)
	if kerr != nil {
		c.Close()
		return nil, fmt.Errorf("--key-deploy: %w", kerr)
	}
	q := shellQuote(key)
	cmd := "umask 077; mkdir -p ~/.ssh && touch ~/.ssh/authorized_keys && (grep -qxF " + q + " ~/.ssh/authorized_keys || echo " + q + " >> ~/.ssh/authorized_keys)"
	res, err := c.Run(ctx, cmd, nil, false)
	if err != nil {
		c.Close()
		return nil, err
	}
	if res.Code != 0 {
		c.Close()
		return nil, &transport.Error{Stdout: string(res.Stdout), Stderr: string(res.Stderr), Retcode: res.Code}
	}
	return c, nil
}

func (r *run) hostRun(ctx context.Context, t *roster.Target, st *Stats) *Result {
	r.progress(t.ID, "connecting")
	t0 := time.Now()
	c, err := r.connect(ctx, t)
	st.Connect = time.Since(t0)
	if err != nil {
		return failErr(t.ID, err)
	}
	defer func() {
		st.RoundTrips = int(c.RoundTrips.Load())
		st.BytesOut = c.BytesOut.Load()
		st.BytesIn = c.BytesIn.Load()
		c.Close()
	}()
	sh := &remote{c: c, t: t, thin: thinDir(t), fun: r.o.Fun, args: r.o.Args}
	if r.o.Raw {
		r.progress(t.ID, "running")
		res, err := sh.run(ctx, strings.Join(r.o.Args, " "), nil, true)
		if err != nil {
			return failErr(t.ID, err)
		}
		if f := sudoFailure(t, res); f != nil {
			return failure(t.ID, string(res.Stdout), f.Error(), res.Code)
		}
		ret := value.MapOf("stdout", string(res.Stdout), "stderr", string(res.Stderr), "retcode", int64(res.Code))
		r.wipe(ctx, sh)
		return &Result{ID: t.ID, Return: ret, Out: "nested", Retcode: res.Code}
	}

	// The dialogue: one command reports the machine, whether the binary
	// and the file roots are there and, when the binary is, the grains;
	// then reads the run (config, pillar compiled here from those grains,
	// missing files) from stdin and runs the function. A target without
	// the binary gets it first, and the dialogue starts again.
	var tree *fileTree
	if needsFiles(r.o.Fun) {
		if tree, err = r.tree.get(r.o.Opts); err != nil {
			return failure(t.ID, "", "packing the file roots: "+err.Error(), 1)
		}
	}
	bin, _ := r.bins.For(r.cache.arch(t.ID))
	if r.o.RegenThin {
		bin = nil
	}
	for attempt := 0; ; attempt++ {
		r.progress(t.ID, "probing")
		t2 := time.Now()
		d, err := sh.start(ctx, bin, tree)
		if err != nil {
			return failErr(t.ID, err)
		}
		if bin == nil || !d.binary {
			d.abort()
			if attempt > 0 {
				return failure(t.ID, "", "the brine binary sent to the target is not there", 1)
			}
			if bin, err = r.bins.For(d.machine); err != nil {
				return failure(t.ID, "", err.Error(), 1)
			}
			r.progress(t.ID, fmt.Sprintf("sending brine (%.1f MB)", float64(bin.Size)/1e6))
			t1 := time.Now()
			if err := sh.upload(ctx, r.bins, bin, cacheDir(r.o.Opts)); err != nil {
				return failErr(t.ID, err)
			}
			st.Transfer = time.Since(t1)
			st.BinarySent = true
			continue
		}
		res := r.converse(ctx, t, sh, d, tree)
		st.Remote = time.Since(t2)
		return res
	}
}

// converse is the second half of the dialogue: grains in, run out.
func (r *run) converse(ctx context.Context, t *roster.Target, sh *remote, d *dialogue, tree *fileTree) *Result {
	if d.grains == nil {
		res, err := d.s.Wait(ctx)
		if err != nil {
			return failErr(t.ID, err)
		}
		if f := sudoFailure(t, res); f != nil {
			return failure(t.ID, d.grainsOut, f.Error(), res.Code)
		}
		code := d.grainsCode
		if code == 0 {
			code = 1
		}
		return failure(t.ID, d.grainsOut, strings.TrimSpace(string(res.Stderr)), code)
	}
	grains, _ := d.grains.(*value.Map)
	if grains == nil {
		grains = value.NewMap(0)
	}
	overlayGrains(grains, get(r.o.Opts, "ssh_grains"))
	overlayGrains(grains, t.Grains)
	r.cache.store(t.ID, grains)

	r.progress(t.ID, "compiling pillar")
	saltenv, pillarenv := callEnvs(r.o.Args)
	pil, err := compilePillar(r.o.Opts, t.ID, grains, saltenv, pillarenv)
	if err != nil {
		d.abort()
		return failure(t.ID, "", "compiling pillar: "+err.Error(), 1)
	}
	var send *fileTree
	if tree != nil && !d.files {
		send = tree
	}
	envs := pillarEnvs(r.o.Opts, pillarenv)
	bundle, err := runBundle(minionConfig(r.o.Opts, t, sh.thin, d.runDir, tree, envs), envs, pil, send)
	if err != nil {
		d.abort()
		return failure(t.ID, "", "packing the run: "+err.Error(), 1)
	}
	r.progress(t.ID, "running "+r.o.Fun)
	if _, err := d.s.Stdin.Write(bundle); err != nil {
		d.abort()
		return failErr(t.ID, d.s.Dropped(err))
	}
	res, err := d.s.Wait(ctx)
	if err != nil {
		return failErr(t.ID, err)
	}
	if res.Code == 74 {
		return failure(t.ID, string(res.Stdout), "unpacking the run on the target: "+strings.TrimSpace(string(res.Stderr)), res.Code)
	}
	if f := sudoFailure(t, res); f != nil {
		return failure(t.ID, string(res.Stdout), f.Error(), res.Code)
	}
	ret, perr := parseLocal(res)
	r.wipe(ctx, sh)
	if ret == nil {
		if perr.code == 0 {
			perr.code = 1
		}
		return failure(t.ID, perr.stdout, perr.stderr, perr.code)
	}
	out := "nested"
	if e := execmod.Default.Entry(r.o.Fun); e != nil && e.Outputter != "" {
		out = e.Outputter
	}
	return &Result{ID: t.ID, Return: ret, Out: out, Retcode: res.Code}
}

func (r *run) wipe(ctx context.Context, sh *remote) {
	if r.o.Wipe {
		_, _ = sh.run(ctx, "rm -rf "+shellQuote(sh.thin), nil, true)
	}
}

// overlayGrains lays the grains of a roster entry (or ssh_grains) over
// the collected ones.
func overlayGrains(grains *value.Map, extra any) {
	m, ok := extra.(*value.Map)
	if !ok {
		return
	}
	for _, k := range m.Keys() {
		v, _ := m.Get(k)
		grains.Set(k, v)
	}
}

// remote runs the commands of one target.
type remote struct {
	c    *transport.Client
	t    *roster.Target
	thin string
	fun  string
	args []string
}

// run runs cmd, through sudo when the target wants it (asSudo), with
// the sudo password first on stdin when there is one.
func (s *remote) run(ctx context.Context, cmd string, stdin []byte, asSudo bool) (*transport.Result, error) {
	var in []byte
	if asSudo && s.t.Sudo {
		pre := "sudo -n "
		if s.t.Passwd != "" {
			// The password is read from the first line of stdin, never put
			// on a command line.
			pre = `IFS= read -r _brine_pw; printf '%s\n' "$_brine_pw" | sudo -S -p '' `
			in = append([]byte(s.t.Passwd+"\n"), in...)
		}
		if s.t.SudoUser != "" {
			pre += "-u " + shellQuote(s.t.SudoUser) + " "
		}
		cmd = pre + "-- sh -c " + shellQuote(cmd)
	}
	in = append(in, stdin...)
	var r *bytes.Reader
	if in != nil {
		r = bytes.NewReader(in)
	}
	if r == nil {
		return s.c.Run(ctx, cmd, nil, asSudo && s.t.TTY)
	}
	return s.c.Run(ctx, cmd, r, asSudo && s.t.TTY)
}

// brine is the command line running the target's binary.
func (s *remote) brine(bin *binary, args ...string) string {
	q := make([]string, 0, len(args)+6)
	q = append(q, shellQuote(s.thin+"/"+bin.Name()), "call", "--local", "-c", shellQuote(s.thin+"/conf"), "--id", shellQuote(s.t.ID))
	for _, a := range args {
		q = append(q, shellQuote(a))
	}
	return strings.Join(q, " ")
}

// Markers of the dialogue's output.
const (
	markMachine   = "@@brine-ssh:machine@@"
	markNoBinary  = "@@brine-ssh:no-binary@@"
	markGrains    = "@@brine-ssh:grains@@"
	markGrainsEnd = "@@brine-ssh:grains-end@@"
)

// dialogue is the run command under way, its first half read.
type dialogue struct {
	s             *transport.Session
	machine       string
	binary, files bool
	grains        any
	grainsOut     string
	grainsCode    int
	runDir        string
}

func (d *dialogue) abort() { d.s.Abort() }

// start starts the run command and reads its report: the machine, the
// files marker, then either "no binary" (the command has exited) or the
// grains, after which it waits for the run on stdin.
func (s *remote) start(ctx context.Context, bin *binary, tree *fileTree) (*dialogue, error) {
	thin := shellQuote(s.thin)
	d := &dialogue{runDir: s.thin + "/run-" + randHex(6)}
	rd := shellQuote(d.runDir)
	var b strings.Builder
	pw := s.t.Sudo && s.t.Passwd != ""
	if pw {
		b.WriteString("IFS= read -r _brine_pw\n")
	}
	b.WriteString("echo " + markMachine + " $(uname -m)\nmkdir -p " + thin + " && chmod 700 " + thin + " || exit 73\n")
	if tree != nil {
		b.WriteString("test -d " + shellQuote(s.thin+"/files-"+tree.Hash) + " && echo " + markFiles + "\n")
	}
	if bin == nil {
		b.WriteString("echo " + markNoBinary + "; exit 0\n")
	} else {
		exe := shellQuote(s.thin + "/" + bin.Name())
		b.WriteString("test -x " + exe + " || { echo " + markNoBinary + "; exit 0; }\n")
		b.WriteString("echo " + markGrains + "\n")
		b.WriteString(s.sudo(s.brine(bin, "--out", "json", "grains.items")) + " </dev/null\n")
		b.WriteString("echo; echo " + markGrainsEnd + " $?\n")
		b.WriteString("umask 077; mkdir -p " + rd + " && tar xzf - -C " + rd + " || exit 74\n")
		if tree != nil {
			b.WriteString("if [ -d " + rd + "/files ]; then rm -rf " + thin + "/files-*; mv " + rd + "/files " + shellQuote(s.thin+"/files-"+tree.Hash) + " || exit 74; fi\n")
		}
		call := []string{exe, "call", "--local", "-c", shellQuote(d.runDir + "/conf"), "--out", "json", "--retcode-passthrough", shellQuote(s.fun)}
		for _, a := range s.args {
			call = append(call, shellQuote(a))
		}
		b.WriteString(s.sudo(strings.Join(call, " ")) + " </dev/null\nrc=$?; rm -rf " + rd + "; exit $rc\n")
	}
	ss, err := s.c.Start(b.String())
	if err != nil {
		return nil, err
	}
	d.s = ss
	if pw {
		if _, err := ss.Stdin.Write([]byte(s.t.Passwd + "\n")); err != nil {
			ss.Abort()
			return nil, ss.Dropped(err)
		}
	}
	fail := func() (*dialogue, error) {
		res, err := ss.Wait(ctx)
		if err != nil {
			return nil, err
		}
		if f := sudoFailure(s.t, res); f != nil {
			return nil, &transport.Error{Stdout: string(res.Stdout), Stderr: f.Error(), Retcode: res.Code}
		}
		code := res.Code
		if code == 0 {
			code = 1
		}
		return nil, &transport.Error{Stdout: string(res.Stdout), Stderr: strings.TrimSpace(string(res.Stderr)), Retcode: code}
	}
	var grains strings.Builder
	inGrains := false
	for {
		line, err := ss.Stdout.ReadString('\n')
		if err != nil {
			if inGrains {
				d.grainsOut = grains.String() + line
			}
			if d.machine == "" || inGrains {
				return fail()
			}
			return d, nil // "no binary": the command has ended
		}
		l := strings.TrimRight(line, "\n")
		switch {
		case inGrains && strings.HasPrefix(l, markGrainsEnd):
			d.grainsOut = grains.String()
			d.grainsCode, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(l, markGrainsEnd)))
			d.grains, _ = parseLocal(&transport.Result{Stdout: []byte(d.grainsOut)})
			return d, nil
		case inGrains:
			grains.WriteString(line)
		case strings.HasPrefix(l, markMachine):
			d.machine = strings.TrimSpace(strings.TrimPrefix(l, markMachine))
		case l == markFiles:
			d.files = true
		case l == markNoBinary:
			d.binary = false
		case l == markGrains:
			d.binary, inGrains = true, true
		}
	}
}

// sudo wraps cmd in sudo when the target wants it; with a password, the
// dialogue read it into $_brine_pw from its first line of stdin.
func (s *remote) sudo(cmd string) string {
	if !s.t.Sudo {
		return cmd
	}
	pre := "sudo -n "
	if s.t.Passwd != "" {
		pre = `printf '%s\n' "$_brine_pw" | sudo -S -p '' `
	}
	return pre + sudoUser(s.t) + "-- sh -c " + shellQuote(cmd)
}

func sudoUser(t *roster.Target) string {
	if t.SudoUser == "" {
		return ""
	}
	return "-u " + shellQuote(t.SudoUser) + " "
}

// upload sends the binary (gzipped) into the thin dir, replacing older
// ones, and writes the base config the grains run uses.
func (s *remote) upload(ctx context.Context, bins *binaries, bin *binary, cachedir string) error {
	gz, err := bins.compressed(bin, cachedir)
	if err != nil {
		return fmt.Errorf("compressing brine: %w", err)
	}
	data, err := os.ReadFile(gz)
	if err != nil {
		return err
	}
	dst := shellQuote(s.thin + "/" + bin.Name())
	tmp := shellQuote(s.thin + "/.upload-" + randHex(4))
	conf := shellQuote(s.thin + "/conf")
	cache := s.thin + "/running_data/cache"
	base := "file_client: local\ncachedir: " + jsonString(cache) + "\nlog_file: " + jsonString(s.thin+"/running_data/log/brine-call.log") + "\n"
	script := "umask 077; gzip -dc > " + tmp + " && chmod 755 " + tmp +
		" && rm -f " + shellQuote(s.thin) + "/brine-* && mv " + tmp + " " + dst +
		" && mkdir -p " + conf + " && printf '%s' " + shellQuote(base) + " > " + conf + "/minion"
	res, err := s.run(ctx, script, data, false)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return &transport.Error{Stdout: string(res.Stdout), Stderr: "sending brine: " + strings.TrimSpace(string(res.Stderr)), Retcode: res.Code}
	}
	return nil
}

// callFailure is a brine call whose stdout held no return.
type callFailure struct {
	stdout, stderr string
	code           int
}

// parseLocal reads the {"local": RETURN} document brine call printed.
func parseLocal(res *transport.Result) (any, callFailure) {
	fail := callFailure{stdout: string(res.Stdout), stderr: strings.TrimSpace(string(res.Stderr)), code: res.Code}
	out := bytes.TrimSpace(res.Stdout)
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return nil, fail
	}
	v, err := value.FromJSON(out[i:])
	if err != nil {
		return nil, fail
	}
	m, ok := v.(*value.Map)
	if !ok || m.Len() != 1 {
		return nil, fail
	}
	ret, ok := m.Get("local")
	if !ok {
		return nil, fail
	}
	if ret == nil {
		return value.NewMap(0), fail // keep "local: null" a return, not a failure
	}
	return ret, fail
}

// sudoFailure recognises sudo refusing to run the command and words it
// as salt-ssh does.
func sudoFailure(t *roster.Target, res *transport.Result) error {
	if !t.Sudo || res.Code == 0 {
		return nil
	}
	e := string(res.Stderr)
	switch {
	case strings.Contains(e, "sudo: a password is required"), strings.Contains(e, "no askpass program"):
		if t.Passwd == "" {
			return errors.New("Sudo password is required but not provided")
		}
		return errors.New("sudo expected a password, NOPASSWD required")
	case strings.Contains(e, "incorrect password"), strings.Contains(e, "Sorry, try again"):
		return errors.New("Sudo password was not accepted: " + firstLine(e))
	case strings.Contains(e, "not in the sudoers file"), strings.Contains(e, "is not allowed to execute"):
		return fmt.Errorf("Permissions problem, user %s may not use sudo on the target:\n %s", t.User, firstLine(e))
	case strings.Contains(e, "sudo: not found"), strings.Contains(e, "sudo: command not found"):
		return errors.New("sudo is not installed on the target (roster sudo: True): " + firstLine(e))
	case strings.Contains(e, "you must have a tty to run sudo"):
		return errors.New("sudo is configured with requiretty")
	}
	return nil
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// minionConfig is the config brine call reads on the target: the
// master's state options, ssh_minion_opts and the roster's minion_opts,
// then what the run needs (id, the sent roots, the cache in thin_dir).
func minionConfig(opts *value.Map, t *roster.Target, thin, runDir string, tree *fileTree, pillarEnvs []string) string {
	m := value.NewMap(0)
	for _, k := range masterStateOpts {
		if v, ok := opts.Get(k); ok {
			m.Set(k, v)
		}
	}
	m.Set("grains_cache", true)
	overlayGrains(m, get(opts, "ssh_minion_opts"))
	overlayGrains(m, t.MinionOpts)
	fr := value.NewMap(0)
	if tree != nil {
		for _, e := range tree.Envs {
			fr.Set(e, value.NewList(thin+"/files-"+tree.Hash+"/"+e))
		}
	}
	pr := value.NewMap(0)
	for _, e := range pillarEnvs {
		pr.Set(e, value.NewList(runDir+"/pillar/"+e))
	}
	m.Set("id", t.ID)
	m.Set("file_client", "local")
	m.Set("file_roots", fr)
	m.Set("pillar_roots", pr)
	m.Set("cachedir", thin+"/running_data/cache")
	m.Set("log_file", thin+"/running_data/log/brine-call.log")
	// The grains the pillar was compiled with, roster grains included.
	static := value.NewMap(0)
	overlayGrains(static, get(opts, "ssh_grains"))
	overlayGrains(static, t.Grains)
	if static.Len() > 0 {
		m.Set("grains", static)
	}
	return value.ToJSON(m, value.JSONOptions{Indent: 1})
}

// masterStateOpts are the master options that shape a state run on the
// target (salt-ssh compiles states with the master's options).
var masterStateOpts = []string{
	"renderer", "renderer_whitelist", "renderer_blacklist", "state_top", "top_file_merging_strategy",
	"env_order", "default_top", "state_auto_order", "state_aggregate", "failhard", "state_verbose",
	"state_output", "state_output_diff", "state_output_profile", "state_tabular", "hash_type",
	"jinja_env", "jinja_sls_env", "jinja_trim_blocks", "jinja_lstrip_blocks", "file_ignore_regex",
	"file_ignore_glob", "fileserver_followsymlinks", "fileserver_ignoresymlinks", "pillar_safe_render_error",
	"pillar_merge_lists", "pillar_source_merging_strategy", "pillarenv_from_saltenv", "saltenv", "pillarenv",
	"lock_saltenv", "test", "state_events", "yaml_utf8", "decrypt_pillar", "ssh_merge_pillar",
}

// pillarEnvs are the environments the target's pillar_roots name: those
// of the master's, and the call's pillarenv.
func pillarEnvs(opts *value.Map, pillarenv string) []string {
	envs := []string{"base"}
	seen := map[string]bool{"base": true}
	if pr, ok := get(opts, "pillar_roots").(*value.Map); ok {
		for _, k := range pr.Keys() {
			if e := value.Str(k); !seen[e] && e != "__env__" {
				seen[e] = true
				envs = append(envs, e)
			}
		}
	}
	if pillarenv != "" && !seen[pillarenv] {
		envs = append(envs, pillarenv)
	}
	return envs
}

// shellQuote quotes s for POSIX sh.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == ',' || r == '@' || r == '+' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ensureKey creates salt-ssh's key pair at priv when there is none, as
// salt-ssh does on first use (an RSA key, mode 0600, with the .pub).
func ensureKey(priv string) error {
	if priv == "" || priv == "agent-forwarding" || fileExists(priv) {
		return nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 3072)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(priv), 0o700); err != nil {
		return fmt.Errorf("salt-ssh could not be run because it could not generate keys (%v).\n\nYou can probably resolve this by executing this script with increased permissions via sudo or by running as root.\nYou could also use the '-c' option to supply a configuration directory that you have permissions to read and write to.", err)
	}
	block := &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}
	if err := os.WriteFile(priv, pem.EncodeToMemory(block), 0o600); err != nil {
		return err
	}
	pub, err := gossh.NewPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	return os.WriteFile(priv+".pub", gossh.MarshalAuthorizedKey(pub), 0o644)
}

// grains caches the grains collected from targets under the master's
// cachedir (minions/ID/ssh_grains.json), for -G targeting and the next
// run's architecture.
type grains struct {
	dir string
	mu  sync.Mutex
}

func grainCache(opts *value.Map) *grains {
	return &grains{dir: filepath.Join(cacheDir(opts), "minions")}
}

// cacheDir is the master's cachedir.
func cacheDir(opts *value.Map) string {
	if d := strOpt(opts, "cachedir"); d != "" {
		return d
	}
	return "/var/cache/salt/master"
}

func (g *grains) path(id string) string {
	name := strings.ReplaceAll(id, "/", "_")
	if strings.HasPrefix(name, ".") {
		name = "_" + name
	}
	return filepath.Join(g.dir, name, "ssh_grains.json")
}

func (g *grains) load(id string) *value.Map {
	data, err := os.ReadFile(g.path(id))
	if err != nil {
		return nil
	}
	v, err := value.FromJSON(data)
	if err != nil {
		return nil
	}
	m, _ := v.(*value.Map)
	return m
}

func (g *grains) store(id string, m *value.Map) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.path(id)
	if os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, []byte(value.ToJSON(m, value.JSONOptions{Indent: -1})), 0o600) == nil {
		_ = os.Rename(tmp, p)
	}
}

// arch is the cached `uname -m` of a target (its cpuarch grain), or this
// machine's when unknown.
func (g *grains) arch(id string) string {
	if m := g.load(id); m != nil {
		if v, ok := m.Get("cpuarch"); ok {
			return value.Str(v)
		}
	}
	return unameArch[goarch()][0]
}
