package modules

// config.go is salt/modules/config.py: reading a value from the minion
// options, grains or pillar, and the helpers around them (backup_mode,
// manage_mode, valid_fileproto, dot_vals, merge).

import (
	"net/url"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
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

func init() {
	execmod.Register("config.backup_mode", configBackupMode, "Return backup, else the backup_mode option.")
	execmod.Register("config.manage_mode", configManageMode, "Return a file mode normalized the way file states compare modes ('0644').")
	execmod.Register("config.valid_fileproto", configValidFileproto, "True when the URI's scheme is one the file client fetches (salt, http, https, ftp, swift, s3, file).")
	execmod.Register("config.dot_vals", configDotVals, "Return the options and master-pillar keys starting with value + '.'.")
	execmod.Register("config.merge", configMergeValue, "Return value from opts, the master pillar and the pillar, merging dicts and lists found in several.")
}

func configBackupMode(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("backup_mode", args, kwargs, execmod.Opt("backup", ""))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[0]) {
		return v[0], nil
	}
	return ctx.Call("config.option", []any{"backup_mode"}, nil)
}

func configManageMode(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("manage_mode", args, kwargs, execmod.Req("mode"))
	if err != nil {
		return nil, err
	}
	return fileops.NormalizeMode(v[0]), nil
}

func configValidFileproto(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("valid_fileproto", args, kwargs, execmod.Req("uri"))
	if err != nil {
		return nil, err
	}
	scheme := ""
	if u, err := url.Parse(value.Str(v[0])); err == nil {
		scheme = strings.ToLower(u.Scheme)
	}
	switch scheme {
	case "salt", "file", "http", "https", "ftp", "swift", "s3":
		return true, nil
	}
	return false, nil
}

func configDotVals(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("dot_vals", args, kwargs, execmod.Req("value"))
	if err != nil {
		return nil, err
	}
	prefix := value.Str(v[0]) + "."
	ret := value.NewMap(0)
	for _, m := range []*value.Map{masterPillar(ctx), ctx.Opts} {
		m.Range(func(k, val any) bool {
			if ks, ok := k.(string); ok && strings.HasPrefix(ks, prefix) {
				ret.Set(k, val)
			}
			return true
		})
	}
	return ret, nil
}

func configMergeValue(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("merge", args, kwargs, execmod.Req("value"), execmod.Opt("default", ""), execmod.Opt("omit_opts", false),
		execmod.Opt("omit_master", false), execmod.Opt("omit_pillar", false))
	if err != nil {
		return nil, err
	}
	key := v[0]
	var ret any
	found := false
	if !value.Truthy(v[2]) {
		if r, ok := ctx.Opts.Get(key); ok {
			if _, isStr := r.(string); isStr {
				return r, nil
			}
			ret, found = r, true
		}
	}
	combine := func(src *value.Map) (any, bool) {
		tmp, ok := src.Get(key)
		if !ok {
			return nil, false
		}
		if !found {
			ret, found = tmp, true
			_, isStr := ret.(string)
			return ret, isStr
		}
		switch r := ret.(type) {
		case *value.Map:
			if t, ok := tmp.(*value.Map); ok {
				t.Update(r)
				ret = t
			}
		case *value.List:
			if t, ok := tmp.(*value.List); ok {
				ret = value.NewList(append(append([]any(nil), r.Items...), t.Items...)...)
			}
		}
		return nil, false
	}
	if !value.Truthy(v[3]) {
		if r, done := combine(masterPillar(ctx)); done {
			return r, nil
		}
	}
	if !value.Truthy(v[4]) {
		if r, done := combine(ctx.Pillar); done {
			return r, nil
		}
	}
	if !found {
		if d, ok := configDefaults().Get(key); ok {
			return d, nil
		}
		return v[1], nil
	}
	return ret, nil
}
