package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/output"
	"brine/internal/ssh"
	"brine/internal/ssh/roster"
	"brine/internal/value"
)

// exitAggregate is salt-ssh's exit code when a target failed
// (salt.defaults.exitcodes.EX_AGGREGATE).
const exitAggregate = 20

// sshFlags are salt-ssh's options that brine ssh supports.
type sshFlags struct {
	fleetFlags
	pcre, list, grain, grainPCRE, nodegroup bool

	raw            bool
	roster         string
	rosterFile     string
	maxProcs       int
	priv           string
	privPasswd     string
	ignoreHostKeys bool
	noHostKeys     bool
	user           string
	passwd         string
	keyDeploy      bool
	identitiesOnly bool
	sudo           bool
	wipe           bool
	regenThin      bool
	randThinDir    bool
	refresh        bool
	static         bool
	verbose        bool
	hosts          bool
	sshOptions     []string
	out            string
	outIndent      int
	noColor        bool
	forceColor     bool
	stateOutput    string
	stateVerbose   string
}

func sshFlagSet(f *sshFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine ssh")
	f.add(fs)
	fs.BoolVarP(&f.pcre, "pcre", "E", false, "the target is a regular expression on roster ids")
	fs.BoolVarP(&f.list, "list", "L", false, "the target is a comma-separated list of roster ids")
	fs.BoolVarP(&f.grain, "grain", "G", false, "the target is a grain, key:value (glob), matched on the grains cached from earlier runs")
	fs.BoolVar(&f.grainPCRE, "grain-pcre", false, "the target is a grain, key:regex, on the cached grains")
	fs.BoolVarP(&f.nodegroup, "nodegroup", "N", false, "the target is a nodegroup (ssh_list_nodegroups, else nodegroups; an Ansible group)")
	fs.BoolVarP(&f.raw, "raw", "r", false, "run the arguments as a shell command on the targets, without brine")
	fs.BoolVar(&f.raw, "raw-shell", false, "same as --raw")
	fs.StringVar(&f.roster, "roster", "flat", "roster backend: flat, scan or ansible")
	fs.StringVar(&f.rosterFile, "roster-file", "", "roster file (default: roster_file, else CONFIG_DIR/roster)")
	fs.IntVar(&f.maxProcs, "max-procs", 0, "targets run at once (default: ssh_max_procs, 25)")
	fs.StringVar(&f.priv, "priv", "", "private key file (default: ssh_priv, else PKI_DIR/ssh/salt-ssh.rsa, created when missing)")
	fs.StringVar(&f.privPasswd, "priv-passwd", "", "passphrase of the private key")
	fs.BoolVarP(&f.ignoreHostKeys, "ignore-host-keys", "i", false, "accept unknown host keys and record them (StrictHostKeyChecking=no)")
	fs.BoolVar(&f.noHostKeys, "no-host-keys", false, "accept any host key and record none")
	fs.StringVar(&f.user, "user", "", "user to log in as (default: ssh_user, root)")
	fs.StringVar(&f.passwd, "passwd", "", "password to log in (and for sudo) when the key is refused")
	fs.BoolVar(&f.keyDeploy, "key-deploy", false, "install the key on targets that refuse it, logging in with the password")
	fs.BoolVar(&f.identitiesOnly, "identities-only", false, "use only the given key (IdentitiesOnly=yes)")
	fs.BoolVar(&f.sudo, "sudo", false, "run through sudo on the targets")
	fs.BoolVarP(&f.wipe, "wipe", "w", false, "remove the thin dir from the targets after the run")
	fs.BoolVarP(&f.randThinDir, "rand-thin-dir", "W", false, "use a random thin dir (/var/tmp/.XXXXXX) for this run and remove it after")
	fs.BoolVarP(&f.regenThin, "regen-thin", "t", false, "send the brine binary again even when the target has it")
	fs.BoolVar(&f.regenThin, "thin", false, "same as --regen-thin")
	fs.BoolVar(&f.refresh, "refresh", false, "refresh the cached target data (grains are collected on every run)")
	fs.BoolVar(&f.refresh, "refresh-cache", false, "same as --refresh")
	fs.BoolVarP(&f.static, "static", "s", false, "print every return together at the end")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "say which job runs before the returns")
	fs.BoolVarP(&f.hosts, "hosts", "H", false, "list the roster's hosts and exit")
	fs.StringArrayVar(&f.sshOptions, "ssh-option", nil, "an ssh -o option (StrictHostKeyChecking=no, UserKnownHostsFile=FILE); repeatable")
	fs.StringVar(&f.out, "out", "", "outputter: json, yaml, nested, raw, txt, quiet, highstate")
	fs.IntVar(&f.outIndent, "out-indent", 0, "indentation of the json and yaml outputters")
	fs.BoolVar(&f.noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&f.forceColor, "force-color", false, "force coloured output")
	fs.StringVar(&f.stateOutput, "state-output", "", "state_output: full, terse, mixed, changes, ...")
	fs.StringVar(&f.stateVerbose, "state-verbose", "", "state_verbose: True or False")
	for _, h := range []string{"raw-shell", "thin", "refresh-cache"} {
		_ = fs.MarkHidden(h)
	}
	return fs
}

// SSH runs `brine ssh TARGET FUNCTION [ARG ...]`, which mirrors salt-ssh.
func SSH(args []string, stdout, stderr io.Writer) int {
	var f sshFlags
	fs := sshFlagSet(&f)
	if rc, ok := parseCommand("ssh", fs, args, stdout, stderr); !ok {
		return rc
	}
	rest := fs.Args()
	if f.hosts {
		rest = append(rest, "x", "x")
	}
	if len(rest) < 2 {
		fmt.Fprintln(stderr, "Usage: brine ssh [options] TARGET FUNCTION [ARG ...] [KEY=VALUE ...]\n\nbrine ssh: error: Insufficient arguments")
		return exitUsage
	}
	cfg, err := loadMaster(&f.fleetFlags, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	opts := cfg.Opts()
	applySSHFlags(fs, &f, opts)
	o := &ssh.Options{
		Opts: opts, ConfigDir: cfg.Dir, Tgt: rest[0], TgtType: sshTgtType(&f), Roster: f.roster, RosterFile: f.rosterFile,
		Fun: rest[1], Args: rest[2:], Raw: f.raw, IgnoreHostKeys: f.ignoreHostKeys, NoHostKeys: f.noHostKeys,
		KeyDeploy: f.keyDeploy || value.Truthy(mustGetOpt(opts, "ssh_key_deploy")), Wipe: f.wipe, RegenThin: f.regenThin, RandThinDir: f.randThinDir, MaxProcs: f.maxProcs,
	}
	if f.raw {
		o.Fun, o.Args = "", rest[1:]
	}
	if f.hosts {
		return sshHosts(o, cfg, stdout, stderr)
	}
	targets, err := ssh.Targets(o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	if len(targets) == 0 {
		slog.Error(ssh.ErrNoTargets.Error())
		return exitOK
	}
	if f.verbose {
		msg := fmt.Sprintf("Executing job with jid %s", time.Now().Format("20060102150405.000000"))
		msg = strings.Replace(msg, ".", "", 1)
		fmt.Fprintf(stdout, "%s\n%s\n\n\n", msg, strings.Repeat("-", len(msg)))
	}
	p := newSSHProgress(stderr, len(targets))
	o.Progress = p.update
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	show := func(data *value.Map, out string, rc int) {
		if f.out != "" && (f.out != "highstate" || out == "highstate") {
			out = f.out
		}
		oo := &output.Options{Opts: opts, Indent: f.outIndent, HasIndent: fs.Changed("out-indent"), Color: useColor(stdout, f.forceColor, f.noColor), Retcode: rc}
		p.clear()
		fmt.Fprint(stdout, output.Default.Display(data, out, oo))
	}
	start := time.Now()
	var results []*ssh.Result
	static := value.NewMap(len(targets))
	staticOut := "nested"
	rc := exitOK
	_ = ssh.RunTargets(ctx, o, targets, func(r *ssh.Result) {
		p.finished(r)
		results = append(results, r)
		if r.Retcode != 0 || r.Failed {
			rc = exitAggregate
		}
		if f.static {
			static.Set(r.ID, r.Return)
			staticOut = r.Out
			return
		}
		show(value.MapOf(r.ID, r.Return), r.Out, r.Retcode)
	})
	p.clear()
	if f.static {
		sorted := value.NewMap(static.Len())
		ids := make([]string, 0, static.Len())
		for _, k := range static.Keys() {
			ids = append(ids, value.Str(k))
		}
		sort.Strings(ids)
		for _, id := range ids {
			v, _ := static.Get(id)
			sorted.Set(id, v)
		}
		show(sorted, staticOut, rc)
	}
	sshSummary(stderr, results, time.Since(start))
	return rc
}

func mustGetOpt(m *value.Map, k string) any { v, _ := m.Get(k); return v }

func sshTgtType(f *sshFlags) string {
	switch {
	case f.pcre:
		return "pcre"
	case f.list:
		return "list"
	case f.grain:
		return "grain"
	case f.grainPCRE:
		return "grain_pcre"
	case f.nodegroup:
		return "nodegroup"
	}
	return "glob"
}

// applySSHFlags lays the command line over the master's ssh_* options.
func applySSHFlags(fs *pflag.FlagSet, f *sshFlags, opts *value.Map) {
	set := func(flag, key string, v any) {
		if fs.Changed(flag) {
			opts.Set(key, v)
		}
	}
	set("priv", "ssh_priv", f.priv)
	set("priv-passwd", "ssh_priv_passwd", f.privPasswd)
	set("user", "ssh_user", f.user)
	set("passwd", "ssh_passwd", f.passwd)
	set("sudo", "ssh_sudo", f.sudo)
	set("identities-only", "ssh_identities_only", f.identitiesOnly)
	set("max-procs", "ssh_max_procs", int64(f.maxProcs))
	set("state-output", "state_output", f.stateOutput)
	if fs.Changed("state-verbose") {
		opts.Set("state_verbose", strings.EqualFold(f.stateVerbose, "true"))
	}
	if len(f.sshOptions) > 0 {
		l := value.NewList()
		for _, s := range f.sshOptions {
			l.Append(s)
		}
		opts.Set("ssh_options", l)
	}
}

// sshHosts prints the roster's hosts, as salt-ssh -H does.
func sshHosts(o *ssh.Options, cfg *config.Config, stdout, stderr io.Writer) int {
	o.Tgt, o.TgtType = "*", "glob"
	targets, err := ssh.Targets(o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	file := o.RosterFile
	if file == "" {
		file, _ = roster.File(cfg.Opts(), cfg.Dir)
	}
	hosts := value.NewMap(len(targets))
	for _, t := range targets {
		hosts.Set(t.ID, t.Host)
	}
	fmt.Fprint(stdout, output.Default.Display(value.MapOf(file, hosts), "nested", &output.Options{Opts: cfg.Opts()}))
	return exitOK
}

// sshProgress shows what the targets are doing on one line of a
// terminal: "[done/total] id: phase", redrawn in place.
type sshProgress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	total   int
	done    int
	shown   bool
	current map[string]string
	last    time.Time
}

func newSSHProgress(w io.Writer, total int) *sshProgress {
	f, ok := w.(*os.File)
	return &sshProgress{w: w, on: ok && useColor(f, false, false), total: total, current: map[string]string{}}
}

func (p *sshProgress) update(id, phase string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if phase == "done" || phase == "failed" {
		delete(p.current, id)
		return
	}
	p.current[id] = phase
	if time.Since(p.last) < 50*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw(id, phase)
}

func (p *sshProgress) draw(id, phase string) {
	line := fmt.Sprintf("[%d/%d] %s: %s", p.done, p.total, id, phase)
	if n := len(p.current); n > 1 {
		line += fmt.Sprintf(" (+%d running)", n-1)
	}
	if len(line) > 78 {
		line = line[:77] + "…"
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.shown = true
}

func (p *sshProgress) finished(r *ssh.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
}

func (p *sshProgress) clear() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// sshSummary says how the run went, on stderr.
func sshSummary(w io.Writer, results []*ssh.Result, took time.Duration) {
	var failed, nonzero []string
	for _, r := range results {
		switch {
		case r.Failed:
			failed = append(failed, r.ID)
		case r.Retcode != 0:
			nonzero = append(nonzero, r.ID)
		}
	}
	sort.Strings(failed)
	sort.Strings(nonzero)
	msg := fmt.Sprintf("brine ssh: %d target(s) in %.2fs: %d returned", len(results), took.Seconds(), len(results)-len(failed))
	if len(nonzero) > 0 {
		msg += fmt.Sprintf(", %d with a non-zero retcode (%s)", len(nonzero), strings.Join(nonzero, ", "))
	}
	if len(failed) > 0 {
		msg += fmt.Sprintf(", %d unreachable or failed (%s)", len(failed), strings.Join(failed, ", "))
	}
	fmt.Fprintln(w, msg)
}
