package api

import (
	"fmt"

	"brine/internal/value"
)

// Config is the API's block of the master config: rest_brine, or Salt's
// rest_cherrypy with the same option names.
type Config struct {
	Host       string // address to listen on (0.0.0.0)
	Port       int
	SSLCrt     string // certificate and key; the master's TLS files by default
	SSLKey     string
	DisableSSL bool
	// WebhookDisableAuth lets /hook be called without a token.
	WebhookDisableAuth bool
	// Debug puts the error text of unexpected failures in the answer.
	Debug bool
	// Section is the name of the block read ("rest_brine" or "rest_cherrypy").
	Section string
}

// ReadConfig reads the API's block from the master options; ok is false
// when the master config has neither rest_brine nor rest_cherrypy.
func ReadConfig(opts *value.Map) (c Config, ok bool, err error) {
	var m *value.Map
	for _, k := range []string{"rest_brine", "rest_cherrypy"} {
		if v, has := opts.Get(k); has && v != nil {
			mm, isMap := v.(*value.Map)
			if !isMap {
				return c, true, fmt.Errorf("%s must be a mapping", k)
			}
			m, c.Section = mm, k
			break
		}
	}
	if m == nil {
		return c, false, nil
	}
	c.Host = "0.0.0.0"
	if v, has := m.Get("host"); has && v != nil {
		c.Host = value.Str(v)
	}
	switch p := mget(m, "port").(type) {
	case int64:
		c.Port = int(p)
	case string:
		if _, err := fmt.Sscanf(p, "%d", &c.Port); err != nil {
			return c, true, fmt.Errorf("%s:port: %q is not a port", c.Section, p)
		}
	case nil:
		return c, true, fmt.Errorf("%s: a port is required", c.Section)
	default:
		return c, true, fmt.Errorf("%s:port: %v is not a port", c.Section, p)
	}
	if c.Port < 0 || c.Port > 65535 {
		return c, true, fmt.Errorf("%s:port: %d is not a port", c.Section, c.Port)
	}
	c.SSLCrt = str(mget(m, "ssl_crt"))
	c.SSLKey = str(mget(m, "ssl_key"))
	c.DisableSSL = value.Truthy(mget(m, "disable_ssl"))
	c.WebhookDisableAuth = value.Truthy(mget(m, "webhook_disable_auth"))
	c.Debug = value.Truthy(mget(m, "debug"))
	return c, true, nil
}

func mget(m *value.Map, k string) any {
	if m == nil {
		return nil
	}
	v, _ := m.Get(k)
	return v
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return value.Str(v)
}
