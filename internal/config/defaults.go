package config

import "brine/internal/value"

// Salt's system paths (salt/syspaths.py on Linux).
const (
	rootDir        = "/"
	configDir      = "/etc/salt"
	cacheDir       = "/var/cache/salt"
	sockDir        = "/var/run/salt"
	libStateDir    = "/etc/salt"
	logsDir        = "/var/log/salt"
	pidfileDir     = "/var/run"
	baseFileRoots  = "/srv/salt"
	basePillarRoot = "/srv/pillar"
	spmFormulaPath = "/srv/spm/salt"
	spmPillarPath  = "/srv/spm/pillar"
)

// MinionDefaults returns a fresh copy of Salt 3006's DEFAULT_MINION_OPTS
// for the options brine knows, in Salt's order.
func MinionDefaults() *value.Map {
	l := value.NewList
	m := value.NewMap
	return value.MapOf(
		"interface", "0.0.0.0",
		"master", "salt",
		"master_type", "str",
		"master_port", int64(4506),
		"user", "root",
		"root_dir", rootDir,
		"pki_dir", libStateDir+"/pki/minion",
		"id", "",
		"id_function", m(0),
		"cachedir", cacheDir+"/minion",
		"append_minionid_config_dirs", l(),
		"cache_jobs", false,
		"grains_blacklist", l(),
		"grains_cache", false,
		"grains_cache_expiration", int64(300),
		"grains_deep_merge", false,
		"conf_file", configDir+"/minion",
		"sock_dir", sockDir+"/minion",
		"backup_mode", "",
		"renderer", "jinja|yaml",
		"renderer_whitelist", l(),
		"renderer_blacklist", l(),
		"random_startup_delay", int64(0),
		"failhard", false,
		"autoload_dynamic_modules", true,
		"saltenv", nil,
		"lock_saltenv", false,
		"pillarenv", nil,
		"pillarenv_from_saltenv", false,
		"pillar_opts", false,
		"pillar_source_merging_strategy", "smart",
		"pillar_merge_lists", false,
		"pillar_includes_override_sls", false,
		"pillar_cache", false,
		"pillar_cache_ttl", int64(3600),
		"pillar_cache_backend", "disk",
		"gpg_cache", false,
		"gpg_cache_ttl", int64(86400),
		"gpg_cache_backend", "disk",
		"extension_modules", cacheDir+"/minion/extmods",
		"state_top", "top.sls",
		"state_top_saltenv", nil,
		"startup_states", "",
		"sls_list", l(),
		"top_file", "",
		"file_client", "remote",
		"local", false,
		"use_master_when_local", false,
		"file_roots", value.MapOf("base", l(baseFileRoots, spmFormulaPath)),
		"top_file_merging_strategy", "merge",
		"env_order", l(),
		"default_top", "base",
		"file_recv", false,
		"file_recv_max_size", int64(100),
		"file_buffer_size", int64(262144),
		"salt_cp_chunk_size", int64(65536),
		"file_ignore_regex", l(),
		"file_ignore_glob", l(),
		"fileserver_backend", l("roots"),
		"fileserver_followsymlinks", true,
		"fileserver_ignoresymlinks", false,
		"pillar_roots", value.MapOf("base", l(basePillarRoot, spmPillarPath)),
		"on_demand_ext_pillar", l("libvirt", "virtkey"),
		"decrypt_pillar", l(),
		"decrypt_pillar_delimiter", ":",
		"decrypt_pillar_default", "gpg",
		"decrypt_pillar_renderers", l("gpg"),
		"gpg_decrypt_must_succeed", false,
		"hash_type", "sha256",
		"disable_modules", l(),
		"disable_returners", l(),
		"whitelist_modules", l(),
		"module_dirs", l(),
		"states_dirs", l(),
		"render_dirs", l(),
		"providers", m(0),
		"multiprocessing", true,
		"mine_enabled", true,
		"mine_return_job", false,
		"mine_interval", int64(60),
		"schedule", m(0),
		"loop_interval", int64(1),
		"ipv6", nil,
		"log_file", logsDir+"/minion",
		"log_level", "warning",
		"log_level_logfile", nil,
		"log_granular_levels", m(0),
		"test", false,
		"enable_fqdns_grains", true,
		"enable_gpu_grains", true,
		"state_verbose", true,
		"state_output", "full",
		"state_output_diff", false,
		"state_output_profile", true,
		"state_auto_order", true,
		"state_events", false,
		"state_aggregate", false,
		"state_queue", false,
		"verify_env", true,
		"grains", m(0),
		"default_include", "minion.d/*.conf",
		"pidfile", pidfileDir+"/salt-minion.pid",
		"transport", "zeromq",
		"cmd_safe", true,
		"cache", "localfs",
		"ssh_merge_pillar", true,
		"disabled_requisites", l(),
		"global_state_conditions", nil,
		"fips_mode", false,
	)
}
