package config

import (
	"brine/internal/value"
)

// MasterDefaults returns the options of a brine master: the minion
// defaults (the master compiles pillar with the same options a minion
// would), overlaid with Salt 3006's master options brine knows and
// brine's fleet options (nats_*, tls_*, job_*).
func MasterDefaults() *value.Map {
	opts := MinionDefaults()
	for _, kv := range [][2]any{
		{"interface", "0.0.0.0"},
		{"ret_port", int64(4506)},
		{"pki_dir", libStateDir + "/pki/master"},
		{"cachedir", cacheDir + "/master"},
		{"auto_accept", false},
		{"nodegroups", value.NewMap(0)},
		{"keep_jobs", int64(24)}, // hours a job and its returns are kept
		{"timeout", int64(5)},
		// brine: an external NATS server instead of the embedded one.
		{"nats_url", ""},
		{"nats_creds", ""}, // nkey seed file of the master's NATS user
		// brine: with an external server, the authorization block the
		// master keeps up to date (default pki_dir/nats-auth.conf) and the
		// server's pid file, to signal it to reload.
		{"nats_auth_file", ""},
		{"nats_server_pid_file", ""},
		// brine: TLS of the embedded server; a CA is generated under
		// pki_dir/tls when no certificate is configured.
		{"tls", true},
		{"tls_cert", ""},
		{"tls_key", ""},
		{"tls_ca", ""},
		// brine: how far back (seconds) a reconnecting minion may pick up
		// jobs it missed.
		{"job_catchup_window", int64(600)},
		{"jetstream_dir", ""},
		// Returners and file copy (Salt's names and master defaults).
		{"event_return", ""},
		{"event_return_queue", int64(0)},
		{"event_return_queue_max_seconds", int64(0)},
		{"event_return_whitelist", value.NewList()},
		{"event_return_blacklist", value.NewList()},
		{"file_recv_max_size", int64(100)},
		{"file_buffer_size", int64(1048576)},
		{"salt_cp_chunk_size", int64(98304)},
		// The event bus and the reactor (Salt's names and defaults).
		{"reactor", value.NewList()},
		{"reactor_worker_threads", int64(10)},
		{"reactor_worker_hwm", int64(10000)},
		{"presence_events", false},
		{"loop_interval", int64(60)},
		// brine: seconds the master keeps recent events for listeners
		// that ask for them (`brine event listen --since`); 0: none.
		{"event_retention", int64(300)},
	} {
		opts.Set(kv[0], kv[1])
	}
	netapiDefaults(opts)
	return opts
}

// LoadMaster reads dir/master (missing means defaults) with its
// master.d/*.conf and include files, then applies overrides, as Salt's
// master_config does for the options brine knows.
func LoadMaster(dir string, overrides *value.Map) (*Config, error) {
	c := &Config{opts: MasterDefaults(), Dir: dir}
	if err := c.readDir(dir, "master"); err != nil {
		return nil, err
	}
	c.opts.Update(overrides)
	c.apply()
	c.prependRootDir(masterRootDirOpts, "log_file", "key_logfile", "ssh_log_file")
	c.opts.Set("__role", "master")
	return c, nil
}
