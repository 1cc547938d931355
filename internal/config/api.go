package config

import "brine/internal/value"

// netapiDefaults are Salt 3006's master options of external
// authentication and of salt-api that brine's REST API and web console
// read (the rest_brine or rest_cherrypy block itself has no default: the
// API is served only when one is configured).
func netapiDefaults(opts *value.Map) {
	for _, kv := range [][2]any{
		{"external_auth", value.NewMap(0)},
		{"token_expire", int64(43200)}, // seconds a login token lives
		{"token_expire_user_override", false},
		{"token_dir", ""}, // "": cachedir/tokens
		{"keep_acl_in_token", false},
		{"permissive_acl", false},
		{"netapi_enable_clients", value.NewList()},
	} {
		opts.Set(kv[0], kv[1])
	}
}
