// Package config holds minion options: Salt 3006's defaults, the minion file
// of a config directory with its minion.d/*.conf includes, and command-line
// overrides. Every option, known or not, stays reachable as the ordered
// mapping templates see as `opts`; typed accessors cover what brine reads.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/value"
)

// Config is one minion's options.
type Config struct {
	opts *value.Map
	// Dir is the configuration directory (-c), "" when none was read.
	Dir string
	// set holds the options the config files or overrides gave.
	set map[string]bool
}

// New returns a Config holding Salt's minion defaults.
func New() *Config { return &Config{opts: MinionDefaults()} }

// FromMap wraps an existing options mapping (used by tests).
func FromMap(opts *value.Map) *Config { return &Config{opts: opts} }

// Load reads dir/minion (a missing file means defaults only), then the files
// matched by default_include and include (relative to dir, sorted, later
// files winning), and finally applies overrides in order. It validates
// file_roots and pillar_roots as Salt does.
func Load(dir string, overrides *value.Map) (*Config, error) {
	c := New()
	c.Dir = dir
	if err := c.readDir(dir, "minion"); err != nil {
		return nil, err
	}
	c.opts.Update(overrides)
	c.markSet(overrides)
	c.apply()
	// A socket path too long for AF_UNIX moves into the cachedir.
	if sock, cache := c.String("sock_dir"), c.String("cachedir"); len(sock) > len(cache)+10 {
		c.opts.Set("sock_dir", filepath.Join(cache, ".salt-unix"))
	}
	c.prependRootDir(minionRootDirOpts, "log_file", "key_logfile")
	return c, nil
}

// readDir merges dir/name (a missing file adds nothing) and the files its
// default_include (name.d/*.conf unless set) and include options name into
// the options, and sets conf_file. An empty dir reads nothing.
func (c *Config) readDir(dir, name string) error {
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, name)
	file, err := readConfFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) {
		slog.Debug("Missing configuration file: " + path)
	}
	if file == nil {
		file = value.NewMap(0)
	}
	defInc := any(name + ".d/*.conf")
	if v, ok := file.Get("default_include"); ok {
		defInc = v
	}
	inc, _ := file.Get("include")
	for _, spec := range []any{defInc, inc} {
		extra, err := includeConfig(spec, path)
		if err != nil {
			return err
		}
		file.Update(extra)
	}
	c.opts.Set("conf_file", path)
	c.opts.Update(file)
	c.markSet(file)
	return nil
}

// markSet records the options m gives as set by the user.
func (c *Config) markSet(m *value.Map) {
	if m == nil {
		return
	}
	if c.set == nil {
		c.set = map[string]bool{}
	}
	m.Range(func(k, _ any) bool {
		c.set[value.Str(k)] = true
		return true
	})
}

// FromFile reports whether the config files or the overrides of Load set
// key (rather than Salt's default).
func (c *Config) FromFile(key string) bool { return c.set[key] }

// readConfFile loads one YAML config file; an empty file is an empty map.
func readConfFile(path string) (*value.Map, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	slog.Debug("Reading configuration from " + path)
	v, err := parseYAML(data, path)
	if err != nil {
		return nil, fmt.Errorf("error parsing configuration file: %s - %w", path, err)
	}
	switch x := v.(type) {
	case nil:
		return value.NewMap(0), nil
	case *value.Map:
		if id, ok := x.Get("id"); ok && id != nil {
			if _, isStr := id.(string); !isStr {
				x.Set("id", value.Str(id))
			}
		}
		return x, nil
	}
	return nil, fmt.Errorf("error parsing configuration file: %s - conf should be a document, not %s", path, value.TypeName(v))
}

// includeConfig reads the files an include option names (a glob or list of
// globs, relative to the including file's directory).
func includeConfig(spec any, origPath string) (*value.Map, error) {
	out := value.NewMap(0)
	var pats []string
	switch x := spec.(type) {
	case nil:
	case string:
		if x != "" {
			pats = []string{x}
		}
	case *value.List:
		for _, p := range x.Items {
			if s, ok := p.(string); ok {
				pats = append(pats, s)
			}
		}
	}
	for _, p := range pats {
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(origPath), p)
		}
		matches, _ := filepath.Glob(p)
		sort.Strings(matches)
		for _, fn := range matches {
			slog.Debug(fmt.Sprintf("Including configuration from '%s'", fn))
			opts, err := readConfFile(fn)
			if err != nil {
				return nil, err
			}
			if inc, ok := opts.Get("include"); ok {
				extra, err := includeConfig(inc, fn)
				if err != nil {
					return nil, err
				}
				opts.Update(extra)
			}
			mergeRecursive(out, opts)
		}
	}
	return out, nil
}

// mergeRecursive is salt.utils.dictupdate.update(dest, src, recursive_update=True, merge_lists=True).
func mergeRecursive(dest, src *value.Map) {
	src.Range(func(k, v any) bool {
		cur, ok := dest.Get(k)
		switch sv := v.(type) {
		case *value.Map:
			if dm, isMap := cur.(*value.Map); ok && isMap {
				mergeRecursive(dm, sv)
				return true
			}
		case *value.List:
			if dl, isList := cur.(*value.List); ok && isList {
				for _, it := range sv.Items {
					found := false
					for _, have := range dl.Items {
						if value.Equal(have, it) {
							found = true
							break
						}
					}
					if !found {
						dl.Append(it)
					}
				}
				return true
			}
		}
		dest.Set(k, v)
		return true
	})
}

// apply normalizes options after loading, as salt.config.apply_minion_config.
func (c *Config) apply() {
	c.opts.Set("__role", "minion")
	for _, key := range []string{"file_roots", "pillar_roots"} {
		v, _ := c.opts.Get(key)
		c.opts.Set(key, normalizeRoots(v, key))
	}
	if v, _ := c.opts.Get("extension_modules"); !value.Truthy(v) {
		c.opts.Set("extension_modules", filepath.Join(c.String("cachedir"), "extmods"))
	}
	if sv, ok := c.opts.Get("saltenv"); ok && sv == nil {
		if ev, ok := c.opts.Get("environment"); ok && ev != nil {
			c.opts.Set("saltenv", ev)
		}
	}
}

// The path options Salt places under root_dir (apply_minion_config,
// apply_master_config), besides the log files, which it places only when
// they are not URLs (udp://, file://).
var (
	minionRootDirOpts = []string{"pki_dir", "cachedir", "pidfile", "sock_dir", "extension_modules"}
	masterRootDirOpts = []string{"pki_dir", "cachedir", "pidfile", "sock_dir", "extension_modules",
		"autosign_file", "autoreject_file", "token_dir", "syndic_dir", "sqlite_queue_dir", "autosign_grains_dir"}
)

// prependRootDir is salt.config.prepend_root_dir: each path option that is
// relative, or absolute under Salt's default root ("/"), is moved under
// root_dir and normalised (salt.utils.path.join); logKeys are added when
// their value has no URL scheme.
func (c *Config) prependRootDir(keys []string, logKeys ...string) {
	for _, k := range logKeys {
		if s, ok := c.opts.Get(k); ok {
			if str, isStr := s.(string); isStr {
				if u, err := url.Parse(str); err == nil && u.Scheme == "" {
					keys = append(keys, k)
				}
			}
		}
	}
	root, _ := c.opts.Get("root_dir")
	rootStr, ok := root.(string)
	if !ok || rootStr == "" {
		return
	}
	if abs, err := filepath.Abs(rootStr); err == nil {
		rootStr = abs
	}
	for _, k := range keys {
		v, ok := c.opts.Get(k)
		p, isStr := v.(string)
		if !ok || !isStr {
			continue
		}
		c.opts.Set(k, underRoot(rootStr, p))
	}
}

// underRoot places path under root as prepend_root_dir does. Salt's
// default root is "/" (empty once its separator is stripped), so every
// absolute path counts as under it; a path below root keeps only its part
// below root (root itself, leaving nothing, is placed whole: /r/r).
func underRoot(root, path string) string {
	rel := path
	if root != "/" && strings.HasPrefix(path, root+"/") {
		rel = path[len(root):]
	}
	return filepath.Join(root, strings.TrimLeft(filepath.Clean(rel), "/"))
}

// normalizeRoots mirrors _validate_file_roots: a non-mapping falls back to
// the default root; each environment's value becomes a list of strings with
// shell globs expanded.
func normalizeRoots(v any, key string) *value.Map {
	m, ok := v.(*value.Map)
	if !ok {
		def := baseFileRoots
		if key == "pillar_roots" {
			def = basePillarRoot
		}
		return value.MapOf("base", value.NewList(def))
	}
	out := value.NewMap(m.Len())
	m.Range(func(env, dirs any) bool {
		var list []any
		switch d := dirs.(type) {
		case nil:
		case *value.List:
			list = d.Items
		case value.Tuple:
			list = d
		default:
			list = []any{d}
		}
		var res []any
		for _, p := range list {
			s := value.Str(p)
			if strings.ContainsAny(s, "*?[") {
				matches, _ := filepath.Glob(s)
				for _, mm := range matches {
					res = append(res, mm)
				}
				continue
			}
			res = append(res, s)
		}
		out.Set(value.Str(env), value.NewList(res...))
		return true
	})
	return out
}

// Opts returns the options mapping (shared, not a copy): the `opts` of
// templates and Salt's __opts__.
func (c *Config) Opts() *value.Map { return c.opts }

// Get returns an option.
func (c *Config) Get(key string) (any, bool) { return c.opts.Get(key) }

// Set sets an option.
func (c *Config) Set(key string, v any) { c.opts.Set(key, v) }

// String returns an option as a string ("" when unset or None; other
// scalars by Python's str()).
func (c *Config) String(key string) string {
	v, _ := c.opts.Get(key)
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

// Bool returns an option's truthiness.
func (c *Config) Bool(key string) bool {
	v, _ := c.opts.Get(key)
	return value.Truthy(v)
}

// Map returns an option that is a mapping, or an empty mapping.
func (c *Config) Map(key string) *value.Map {
	v, _ := c.opts.Get(key)
	if m, ok := v.(*value.Map); ok {
		return m
	}
	return value.NewMap(0)
}

// Roots is the directory list of one environment, in configured order.
type Roots struct {
	Env  string
	Dirs []string
}

func roots(m *value.Map) []Roots {
	out := make([]Roots, 0, m.Len())
	m.Range(func(k, v any) bool {
		r := Roots{Env: value.Str(k)}
		if l, ok := v.(*value.List); ok {
			for _, d := range l.Items {
				r.Dirs = append(r.Dirs, value.Str(d))
			}
		}
		out = append(out, r)
		return true
	})
	return out
}

// FileRoots returns file_roots as environments in configured order.
func (c *Config) FileRoots() []Roots { return roots(c.Map("file_roots")) }

// PillarRoots returns pillar_roots as environments in configured order.
func (c *Config) PillarRoots() []Roots { return roots(c.Map("pillar_roots")) }

// ID is the minion id.
func (c *Config) ID() string { return c.String("id") }

// StateTop is the top file name (state_top, default "top.sls").
func (c *Config) StateTop() string { return c.String("state_top") }

// Renderer is the default render pipeline (renderer, default "jinja|yaml").
func (c *Config) Renderer() string { return c.String("renderer") }

// Grains is the static grains mapping of the config (grains).
func (c *Config) Grains() *value.Map { return c.Map("grains") }

// Cachedir is the minion cache directory.
func (c *Config) Cachedir() string { return c.String("cachedir") }

// Saltenv is the saltenv option ("" when None).
func (c *Config) Saltenv() string { return c.String("saltenv") }

// Pillarenv is the pillarenv option ("" when None).
func (c *Config) Pillarenv() string { return c.String("pillarenv") }

// Test is the test option.
func (c *Config) Test() bool { return c.Bool("test") }

// Failhard is the failhard option.
func (c *Config) Failhard() bool { return c.Bool("failhard") }

// StateOutput is state_output (full, terse, mixed, changes, ...).
func (c *Config) StateOutput() string { return c.String("state_output") }

// StateVerbose is state_verbose.
func (c *Config) StateVerbose() bool { return c.Bool("state_verbose") }

// JinjaEnv returns the jinja_env option (Jinja environment settings for
// templates that are not SLS files), with the legacy jinja_trim_blocks and
// jinja_lstrip_blocks options folded in as Salt's templates do.
func (c *Config) JinjaEnv() *value.Map { return c.jinjaOpts("jinja_env") }

// JinjaSLSEnv returns jinja_sls_env, the settings for SLS files.
func (c *Config) JinjaSLSEnv() *value.Map { return c.jinjaOpts("jinja_sls_env") }

func (c *Config) jinjaOpts(key string) *value.Map {
	out := c.Map(key).Copy()
	if c.Bool("jinja_trim_blocks") {
		out.Set("trim_blocks", true)
	}
	if c.Bool("jinja_lstrip_blocks") {
		out.Set("lstrip_blocks", true)
	}
	return out
}

// PillarenvFromSaltenv is pillarenv_from_saltenv.
func (c *Config) PillarenvFromSaltenv() bool { return c.Bool("pillarenv_from_saltenv") }

// PillarSourceMergingStrategy is pillar_source_merging_strategy (smart,
// recurse, aggregate, overwrite, none).
func (c *Config) PillarSourceMergingStrategy() string {
	return c.String("pillar_source_merging_strategy")
}

// PillarMergeLists is pillar_merge_lists.
func (c *Config) PillarMergeLists() bool { return c.Bool("pillar_merge_lists") }

// TopFileMergingStrategy is top_file_merging_strategy (merge, same,
// merge_all).
func (c *Config) TopFileMergingStrategy() string { return c.String("top_file_merging_strategy") }

// DefaultTop is default_top.
func (c *Config) DefaultTop() string { return c.String("default_top") }

// EnvOrder is env_order as strings.
func (c *Config) EnvOrder() []string { return c.Strings("env_order") }

// Strings returns a list option as strings (nil when it is not a list).
func (c *Config) Strings(key string) []string {
	v, _ := c.opts.Get(key)
	l, ok := v.(*value.List)
	if !ok {
		return nil
	}
	out := make([]string, 0, l.Len())
	for _, e := range l.Items {
		out = append(out, value.Str(e))
	}
	return out
}
