package config

import (
	"net/url"

	"go.yaml.in/yaml/v3"
)

// Defaults of the console and tracing sections, as documented in
// docs/config.md.
const (
	DefaultConsoleRingSize    = 1000
	MaxConsoleRingSize        = 100000
	DefaultTracingServiceName = "detour"
)

// Console configures the operator console at /ui. The zero value serves it
// with the default ring.
type Console struct {
	// Disabled turns /ui off (console: {enabled: false}).
	Disabled bool
	// RingSize is how many recent decision records this replica keeps in
	// memory for the console; 0 means DefaultConsoleRingSize.
	RingSize int
}

// Ring is the ring size in effect.
func (c Console) Ring() int {
	if c.RingSize == 0 {
		return DefaultConsoleRingSize
	}
	return c.RingSize
}

// Tracing configures OpenTelemetry traces. The zero value is off.
type Tracing struct {
	// OTLPEndpoint is the OTLP/HTTP collector URL, e.g.
	// http://127.0.0.1:4318 (spans go to its /v1/traces unless the URL
	// names a path); "" turns tracing off.
	OTLPEndpoint string
	// ServiceName is the service.name resource attribute; "" means
	// DefaultTracingServiceName.
	ServiceName string
}

// Service is the service name in effect.
func (t Tracing) Service() string {
	if t.ServiceName == "" {
		return DefaultTracingServiceName
	}
	return t.ServiceName
}

// decodeObserve decodes the console and tracing sections.
func (d *decoder) decodeObserve(f fields, cfg *Config) {
	if f.has("console") {
		if g, ok := d.mapping(f.vals["console"], "console", "enabled", "ring_size"); ok {
			if v, ok := g.str("enabled", false); ok {
				var on bool
				if d.boolean(v, "console enabled", &on) {
					cfg.Console.Disabled = !on
				}
			}
			g.setInt("ring_size", &cfg.Console.RingSize, 1)
			if cfg.Console.RingSize > MaxConsoleRingSize {
				d.errorf(g.vals["ring_size"], "console ring_size must be at most %d, not %d", MaxConsoleRingSize, cfg.Console.RingSize)
			}
		}
	}
	if f.has("tracing") {
		d.decodeTracing(f.vals["tracing"], &cfg.Tracing)
	}
}

func (d *decoder) decodeTracing(n *yaml.Node, t *Tracing) {
	g, ok := d.mapping(n, "tracing", "otlp_endpoint", "service_name")
	if !ok {
		return
	}
	// The URL may carry credentials (user:password@): it is never echoed.
	// An empty value (${OTLP_ENDPOINT:-}) leaves tracing off.
	if v, ok := g.str("otlp_endpoint", true); ok && v.s != "" {
		if u, err := url.Parse(v.s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.RawQuery != "" || u.Fragment != "" {
			d.errorf(v.node, "tracing otlp_endpoint must be an http:// or https:// URL with a host and no query, e.g. http://127.0.0.1:4318 (value not shown)")
		} else {
			t.OTLPEndpoint = v.s
		}
	}
	g.setStr("service_name", &t.ServiceName, false)
}

// boolean sets *dst from v, true or false, and reports whether it could.
func (d *decoder) boolean(v value, what string, dst *bool) bool {
	switch v.s {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		d.errorf(v.node, "%s must be true or false, not %s", what, v.show())
		return false
	}
	return true
}
