package cli

import (
	"log/slog"

	"brine/internal/config"
	"brine/internal/fleet/api"
	"brine/internal/fleet/web"
)

// startAPI starts the REST API (and the web console on it) when the
// master config has rest_brine or rest_cherrypy; it returns the function
// that stops it (nil when none runs).
func startAPI(cfg *config.Config) (func(), error) {
	conf, ok, err := api.ReadConfig(cfg.Opts())
	if err != nil || !ok {
		return nil, err
	}
	srv := api.New(conf, cfg.Opts(), slog.Default())
	web.Mount(srv)
	if err := srv.Start(); err != nil {
		return nil, err
	}
	return srv.Close, nil
}
