package modules

// config.go is salt/modules/config.py: reading a value from the minion
// options, grains or pillar.

import (
	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	execmod.Register("config.get", configGet, "Look key (an a:b path) up in opts, grains, pillar, then pillar['master']; default ''.")
	execmod.Register("config.option", configOption, "Look a top-level key up in opts, grains, pillar, then pillar['master'] (no a:b paths).")
	execmod.Register("config.items", configItems, "Return the minion options.")
}

func configGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs,
		execmod.Req("key"), execmod.Opt("default", ""), execmod.Opt("delimiter", ":"), execmod.Opt("merge", nil),
		execmod.Opt("omit_opts", false), execmod.Opt("omit_pillar", false), execmod.Opt("omit_master", false),
		execmod.Opt("omit_grains", false))
	if err != nil {
		return nil, err
	}
	key, def, delim := execmod.String(v[0]), v[1], execmod.String(v[2])
	omitOpts, omitPillar, omitMaster, omitGrains := value.Truthy(v[4]), value.Truthy(v[5]), value.Truthy(v[6]), value.Truthy(v[7])
	if merge := v[3]; merge != nil {
		strategy := execmod.String(merge)
		if strategy != "recurse" && strategy != "overwrite" {
			strategy = "recurse"
		}
		data := configDefaults()
		data = value.Merge(data, masterPillar(ctx), strategy, "", false)
		data = value.Merge(data, ctx.Pillar, strategy, "", false)
		data = value.Merge(data, ctx.Grains, strategy, "", false)
		data = value.Merge(data, ctx.Opts, strategy, "", false)
		if r, ok := value.Traverse(data, key, delim); ok {
			return r, nil
		}
		return def, nil
	}
	for _, src := range []struct {
		omit bool
		data *value.Map
	}{{omitOpts, ctx.Opts}, {omitGrains, ctx.Grains}, {omitPillar, ctx.Pillar}, {omitMaster, masterPillar(ctx)}, {false, configDefaults()}} {
		if src.omit {
			continue
		}
		if r, ok := value.Traverse(src.data, key, delim); ok {
			return r, nil
		}
	}
	return def, nil
}

// configDefaults is salt/modules/config.py's DEFAULTS: the last place
// config.get and config.option look.
func configDefaults() *value.Map {
	l := value.NewList
	return value.MapOf(
		"mongo.db", "salt", "mongo.password", "", "mongo.port", int64(27017), "mongo.user", "",
		"redis.db", "0", "redis.host", "salt", "redis.port", int64(6379),
		"test.foo", "unconfigured", "ca.cert_base_path", "/etc/pki",
		"solr.cores", l(), "solr.host", "localhost", "solr.port", "8983", "solr.baseurl", "/solr",
		"solr.type", "master", "solr.request_timeout", nil, "solr.init_script", "/etc/rc.d/solr",
		"solr.dih.import_options", value.MapOf("clean", false, "optimize", true, "commit", true, "verbose", false),
		"solr.backup_path", nil, "solr.num_backups", int64(1),
		"poudriere.config", "/usr/local/etc/poudriere.conf", "poudriere.config_dir", "/usr/local/etc/poudriere.d",
		"ldap.uri", "", "ldap.server", "localhost", "ldap.port", "389", "ldap.tls", false,
		"ldap.no_verify", false, "ldap.anonymous", true, "ldap.scope", int64(2), "ldap.attrs", nil,
		"ldap.binddn", "", "ldap.bindpw", "",
		"hosts.file", "/etc/hosts", "aliases.file", "/etc/aliases",
		"virt", value.MapOf("tunnel", false, "images", "/srv/salt-images"),
		"docker.exec_driver", "docker-exec",
		"docker.compare_container_networks", value.MapOf(
			"static", l("Aliases", "Links", "IPAMConfig"),
			"automatic", l("IPAddress", "Gateway", "GlobalIPv6Address", "IPv6Gateway")),
	)
}

func masterPillar(ctx *execmod.Context) *value.Map {
	if m, ok := ctx.Pillar.Get("master"); ok {
		if mm, isMap := m.(*value.Map); isMap {
			return mm
		}
	}
	return value.NewMap(0)
}

func configOption(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("option", args, kwargs,
		execmod.Req("value"), execmod.Opt("default", nil), execmod.Opt("omit_opts", false),
		execmod.Opt("omit_grains", false), execmod.Opt("omit_pillar", false), execmod.Opt("omit_master", false),
		execmod.Opt("omit_all", false), execmod.Opt("wildcard", false))
	if err != nil {
		return nil, err
	}
	key, def := v[0], v[1]
	omitOpts, omitGrains, omitPillar, omitMaster := value.Truthy(v[2]), value.Truthy(v[3]), value.Truthy(v[4]), value.Truthy(v[5])
	if value.Truthy(v[6]) {
		omitOpts, omitGrains, omitPillar, omitMaster = true, true, true, true
	}
	wildcard := value.Truthy(v[7])
	if def == nil {
		if wildcard {
			def = value.NewMap(0)
		} else {
			def = ""
		}
	}
	sources := []struct {
		omit bool
		data *value.Map
	}{{omitOpts, ctx.Opts}, {omitGrains, ctx.Grains}, {omitPillar, ctx.Pillar}, {omitMaster, masterPillar(ctx)}}
	if !wildcard {
		for _, s := range sources {
			if s.omit {
				continue
			}
			if r, ok := s.data.Get(key); ok {
				return r, nil
			}
		}
		if r, ok := configDefaults().Get(key); ok {
			return r, nil
		}
		return def, nil
	}
	pat := execmod.String(key)
	ret := value.NewMap(0)
	for i := len(sources) - 1; i >= 0; i-- {
		s := sources[i]
		if s.omit {
			continue
		}
		s.data.Range(func(k, val any) bool {
			if ks, ok := k.(string); ok && match.Fnmatch(ks, pat) {
				ret.Set(k, val)
			}
			return true
		})
	}
	configDefaults().Range(func(k, val any) bool {
		if ks, ok := k.(string); ok && match.Fnmatch(ks, pat) && !ret.Has(k) {
			ret.Set(k, val)
		}
		return true
	})
	if ret.Len() == 0 {
		return def, nil
	}
	return ret, nil
}

func configItems(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	return ctx.Opts, nil
}
