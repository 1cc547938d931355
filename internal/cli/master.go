package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/fleet/master"
	"brine/internal/fleet/runners"
)

// fleetFlags are the options every fleet command shares.
type fleetFlags struct {
	configDir string
	logLevel  string
}

func (f *fleetFlags) add(fs *pflag.FlagSet) {
	f.addConfig(fs)
	fs.StringVarP(&f.logLevel, "log-level", "l", "", "console log level: all, garbage, trace, debug, info, warning, error, critical, quiet")
}

func (f *fleetFlags) addConfig(fs *pflag.FlagSet) {
	fs.StringVarP(&f.configDir, "config-dir", "c", "/etc/salt", "directory holding the master (or minion) config file")
}

func newFleetFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetInterspersed(true)
	return fs
}

// loadMaster reads the master configuration and sets up logging.
func loadMaster(f *fleetFlags, stderr io.Writer) (*config.Config, error) {
	cfg, err := config.LoadMaster(f.configDir, nil)
	if err != nil {
		return nil, err
	}
	lv := f.logLevel
	if lv == "" {
		lv = cfg.String("log_level")
	}
	setupLogging(lv, stderr)
	return cfg, nil
}

// masterFlags are brine master's options.
type masterFlags struct {
	fleetFlags
	writeAuth bool
}

// masterFlagSet defines brine master's flags on f.
func masterFlagSet(f *masterFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine master")
	f.add(fs)
	fs.BoolVar(&f.writeAuth, "write-nats-auth", false, "write the authorization file an external nats-server includes (nats_auth_file) and exit")
	return fs
}

// Master runs `brine master`: the master daemon, until SIGINT or SIGTERM.
func Master(args []string, stdout, stderr io.Writer) int {
	var mf masterFlags
	if rc, ok := parseCommand("master", masterFlagSet(&mf), args, stdout, stderr); !ok {
		return rc
	}
	f, writeAuth := mf.fleetFlags, mf.writeAuth
	cfg, err := loadMaster(&f, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	// The daemon logs as configured: log_file, log_level_logfile,
	// log_fmt_*, log_format.
	if err := setupLoggingConfig(cfg, f.logLevel, "", stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	m, err := master.New(cfg, slog.Default())
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	if writeAuth {
		accepted, err := m.Store.Accepted()
		if err == nil {
			err = m.WriteNATSAuth(accepted)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitGeneric
		}
		fmt.Fprintln(stdout, m.NATSAuthFile())
		return exitOK
	}
	m.Runner = runners.Caller{Opts: cfg.Opts()}
	if err := m.Start(); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	slog.Info(fmt.Sprintf("brine master listening on %s", m.URL()))
	if stopAPI, err := startAPI(cfg); err != nil {
		slog.Error(err.Error())
	} else if stopAPI != nil {
		defer stopAPI()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	slog.Info("brine master shutting down")
	m.Close()
	return exitOK
}
