package config

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// The HTTP front's defences against hostile clients: which web origins and
// Host names it answers, how many request-body bytes it holds at once, and
// where its operator endpoints are served. See docs/config.md and
// docs/security.md.

// DefaultMaxInflightBodyBytes is the default cap on request-body bytes held
// across all requests; it is raised to max_body_bytes when that is larger.
const DefaultMaxInflightBodyBytes = 64 << 20

// CORS lists the web origins allowed to call the gateway from a browser.
type CORS struct {
	// AllowedOrigins are serialized origins ("https://app.example.com",
	// lower-case, without a default port); empty means no web page may.
	AllowedOrigins []string
}

var frontKeys = []string{"cors", "allowed_hosts", "max_inflight_body_bytes", "admin_listen", "admin_keys"}

// decodeFront decodes the top-level keys of the front, after max_body_bytes.
func (d *decoder) decodeFront(f fields, cfg *Config) {
	if f.has("cors") {
		if g, ok := d.mapping(f.vals["cors"], "cors", "allowed_origins"); ok {
			items, _, _ := g.seq("allowed_origins")
			for _, n := range items {
				if v, ok := d.scalar(n, "cors allowed_origins entry", false); ok {
					if o, ok := d.origin(v); ok {
						cfg.CORS.AllowedOrigins = append(cfg.CORS.AllowedOrigins, o)
					}
				}
			}
		}
	}
	if items, _, ok := f.seq("allowed_hosts"); ok {
		for _, n := range items {
			if v, ok := d.scalar(n, "allowed_hosts entry", false); ok && d.hostName(v) {
				cfg.AllowedHosts = append(cfg.AllowedHosts, strings.ToLower(strings.TrimSuffix(v.s, ".")))
			}
		}
	}
	cfg.MaxInflightBodyBytes = max(DefaultMaxInflightBodyBytes, cfg.MaxBodyBytes)
	if v, ok := f.str("max_inflight_body_bytes", false); ok {
		switch i, err := strconv.ParseInt(v.s, 10, 64); {
		case err != nil || i <= 0:
			d.errorf(v.node, "max_inflight_body_bytes must be a whole number of bytes greater than zero, not %s", v.show())
		case i < cfg.MaxBodyBytes:
			d.errorf(v.node, "max_inflight_body_bytes (%d) is smaller than max_body_bytes (%d): no request of the largest accepted size could ever be read", i, cfg.MaxBodyBytes)
		default:
			cfg.MaxInflightBodyBytes = i
		}
	}
	if v, ok := f.str("admin_listen", false); ok && d.checkListen(v, "admin_listen") {
		if v.s == cfg.Listen {
			d.errorf(v.node, "admin_listen is the same address as listen (%s): leave it out to serve /metrics, /v1/health, /v1/health/reset and /ui on the main listener", v.s)
		} else {
			cfg.AdminListen = v.s
		}
	}
	if items, _, ok := f.seq("admin_keys"); ok {
		for _, n := range items {
			if v, ok := d.scalar(n, "admin_keys entry", true); ok && v.s != "" {
				if d.token(v, "admin_keys entry") {
					cfg.AdminKeys = append(cfg.AdminKeys, v.s)
				}
			}
		}
	}
}

// origin checks an allowed origin and returns it as browsers send it in the
// Origin header: scheme://host[:port], lower-case, no default port.
func (d *decoder) origin(v value) (string, bool) {
	u, err := url.Parse(v.s)
	switch {
	case v.s == "*":
		d.errorf(v.node, `cors allowed_origins entry "*" is not supported: list each origin that may call the gateway`)
		return "", false
	case v.s == "null":
		d.errorf(v.node, `cors allowed_origins entry "null" is not allowed: sandboxed pages and local files send it, so it names no one`)
		return "", false
	case err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "":
		d.errorf(v.node, "cors allowed_origins entry must be an origin such as https://app.example.com, not %s", v.show())
		return "", false
	case u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(v.s, "?") || strings.HasSuffix(v.s, "#"):
		d.errorf(v.node, "cors allowed_origins entry %s must be scheme://host[:port] only (no path, not even /; no query)", v.show())
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	scheme := strings.ToLower(u.Scheme)
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		return scheme + "://" + host, true
	}
	return scheme + "://" + host + ":" + port, true
}

// hostName checks an allowed_hosts entry: a host name without scheme,
// port or path.
func (d *decoder) hostName(v value) bool {
	if v.s == "" || strings.ContainsAny(v.s, ":/ \t@?#*") || !validName(v.s) {
		d.errorf(v.node, "allowed_hosts entry must be a host name such as detour.internal (no scheme, port or path), not %s", v.show())
		return false
	}
	return true
}

// token checks that a value sent in a header or a request line (a key, a
// base URL) has no whitespace or control characters, which no header could
// carry intact and which are never meant. The value is never shown: it may
// be a key, or hold one.
func (d *decoder) token(v value, what string) bool {
	if strings.IndexFunc(v.s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		d.errorf(v.node, "%s contains whitespace or a control character (value not shown)", what)
		return false
	}
	return true
}
