package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/fleet/minion"
	"brine/internal/grains"
	"brine/internal/pillar"
	"brine/internal/value"
)

// loadMinionConfig reads the minion configuration (id defaulting to the
// host name) and collects the grains.
func loadMinionConfig(dir string, overrides *value.Map) (*config.Config, *value.Map, error) {
	cfg, err := config.Load(dir, overrides)
	if err != nil {
		return nil, nil, err
	}
	if cfg.ID() == "" {
		host, _ := os.Hostname()
		cfg.Set("id", host)
	}
	g, gerr := grains.Collect(cfg.Opts())
	if gerr != nil {
		slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", gerr))
	}
	return cfg, g, nil
}

// minionFlags are brine minion's options.
type minionFlags struct {
	fleetFlags
	id     string
	runJob bool
}

// minionFlagSet defines brine minion's flags on f.
func minionFlagSet(f *minionFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine minion")
	f.add(fs)
	fs.StringVar(&f.id, "id", "", "minion id")
	fs.BoolVar(&f.runJob, "run-job", false, "run one job given on stdin (the minion's job processes)")
	_ = fs.MarkHidden("run-job")
	return fs
}

// Minion runs `brine minion`: the minion daemon, until SIGINT or SIGTERM.
func Minion(args []string, stdout, stderr io.Writer) int {
	var mf minionFlags
	if rc, ok := parseCommand("minion", minionFlagSet(&mf), args, stdout, stderr); !ok {
		return rc
	}
	f, id, runJob := mf.fleetFlags, mf.id, mf.runJob
	if runJob {
		// A job process logs as its minion does: to log_file too.
		setupLogging(f.logLevel, stderr)
		if cfg, err := config.Load(f.configDir, nil); err == nil {
			_ = setupLoggingConfig(cfg, f.logLevel, "", stderr)
		}
		return minion.RunJobProcess()
	}
	ov := value.NewMap(1)
	if id != "" {
		ov.Set("id", id)
	}
	cfg, err := config.Load(f.configDir, ov)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	lv := f.logLevel
	if lv == "" {
		lv = cfg.String("log_level")
	}
	if err := setupLoggingConfig(cfg, f.logLevel, "", stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	cfg, g, err := loadMinionConfig(f.configDir, ov)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	// Each job in a process of its own (multiprocessing: False, which
	// minion.New reads, runs them in this one).
	var jobProcess []string
	if exe, err := os.Executable(); err == nil {
		jobProcess = []string{exe, "minion", "--run-job", "--log-level", lv, "--config-dir", f.configDir}
	} else {
		slog.Warn("running jobs in the minion process", "err", err)
	}
	// Salt's process_count_max bounds the jobs run at once (the
	// default, -1, leaves minion.New's own bound).
	parallel := 0
	if v, ok := cfg.Get("process_count_max"); ok {
		if n, ok := v.(int64); ok && n > 0 {
			parallel = int(n)
		}
	}
	// Jobs in processes of their own start their own Python: the worker
	// that ran the custom grains here would only sit idle.
	ownProcesses := jobProcess != nil
	if v, ok := cfg.Get("multiprocessing"); ok && !value.Truthy(v) {
		ownProcesses = false
	}
	if ownProcesses {
		grains.Release()
	}
	collect := func() *value.Map {
		grains.Refresh()
		g, err := grains.Collect(cfg.Opts())
		if err != nil {
			slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", err))
		}
		if ownProcesses {
			grains.Release()
		}
		return g
	}
	mn, err := minion.New(minion.Options{Opts: cfg.Opts(), Grains: g, CollectGrains: collect, Log: slog.Default(), JobProcess: jobProcess, Parallel: parallel, LocalBus: true})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := mn.Run(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	return exitOK
}

// remoteSession connects `brine call` to the minion's master when the
// call is not --local, file_client is remote and this machine holds a
// minion key (`brine minion` ran here). It returns nil otherwise.
func remoteSession(local bool, cfg *config.Config, g *value.Map) (*minion.Session, func(), error) {
	noop := func() {}
	if local || cfg.String("file_client") == "local" {
		return nil, noop, nil
	}
	keyPath := minion.KeyPath(cfg.String("pki_dir"))
	if _, err := os.Stat(keyPath); err != nil {
		// salt-call would wait for its master here, retrying for ever;
		// brine has no master to wait for without a minion key, so it
		// runs locally, and says so.
		slog.Warn(fmt.Sprintf("No minion key at %s, so no brine master to ask: running locally, as with --local (salt-call would keep waiting for its master %q). Pass --local or set file_client: local to silence this.", keyPath, cfg.String("master")))
		return nil, noop, nil
	}
	kp, err := minion.LoadKey(cfg.Opts())
	if err != nil {
		return nil, noop, err
	}
	never := 0
	conn, err := minion.Dial(cfg.Opts(), cfg.ID(), kp, minion.DialOptions{Name: "brine-call " + cfg.ID(), MaxReconnects: &never})
	if err != nil {
		return nil, noop, fmt.Errorf("connecting to the master %s: %w (salt-call would keep retrying; brine call stops: start the master, or pass --local to run without it)", minion.MasterURL(cfg.Opts()), err)
	}
	return minion.NewSession(conn, cfg.Opts(), g), conn.Close, nil
}

// compilePillar gives `brine call` its pillar: from the master in fleet
// mode (files are synced from the master first), else compiled locally.
func compilePillar(sess *minion.Session, ctx *execmod.Context, svc pillar.Service, cfg *config.Config) (*value.Map, error) {
	if sess == nil {
		return svc.Compile(ctx.Opts, ctx.Grains, cfg.ID(), ctx.Saltenv, ctx.Pillarenv, nil, nil)
	}
	if err := sess.Attach(ctx, true, true); err != nil {
		return nil, err
	}
	return ctx.Pillar, nil
}
