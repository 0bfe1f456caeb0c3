package server

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"

	"github.com/detour-llm/detour/internal/config"
)

// Browsers must not be able to drive the gateway for a web page the
// operator did not name: a page may POST cross-origin without asking (a
// "simple" request: text/plain, a form), and a DNS-rebinding page reaches a
// loopback listener under its own name. guard runs before any handler:
//
//   - Host: on a loopback connection, or whenever allowed_hosts is set, the
//     Host must be an IP address, localhost (or *.localhost), or listed.
//   - Origin: a request that carries one is refused unless it is listed in
//     cors.allowed_origins; a listed one gets CORS headers, and its
//     preflights are answered.
//   - Sec-Fetch-Site: without an Origin, "cross-site" and "same-site" are
//     refused (a page of another site, or another port of this host), but
//     for a link followed to a console page (consoleNavigation).
//
// Requests from SDKs and curl carry no Origin and no Sec-Fetch-Site and pass
// unchanged. See docs/security.md.

// corsAllowHeaders are the request headers a listed origin may send.
const corsAllowHeaders = "Authorization, Content-Type, X-Detour-Max-Attempts, X-Detour-Max-Billable-Attempts"

// corsExposeHeaders are the response headers a listed origin's page may read.
const corsExposeHeaders = "X-Detour-Decision, X-Detour-Route, X-Detour-Target, X-Detour-Provider, X-Detour-Attempts, X-Detour-Class, X-Request-Id, Request-Id, Retry-After, Retry-After-Ms, X-Should-Retry"

// guard applies the front's browser and Host checks; it reports whether the
// request may go on (otherwise the answer is written).
func guard(cfg *config.Config, w http.ResponseWriter, r *http.Request) bool {
	if !hostAllowed(cfg, r) {
		closeAfter(w)
		refuse(w, http.StatusForbidden, "invalid_request_error", "host_not_allowed",
			"this gateway does not answer to Host "+quoteHeader(r.Host)+" (a guard against DNS rebinding): use localhost or an IP address, or list the name in allowed_hosts")
		return false
	}
	if len(cfg.CORS.AllowedOrigins) > 0 {
		w.Header().Add("Vary", "Origin") // answers differ by Origin: caches must know
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if site := r.Header.Get("Sec-Fetch-Site"); (site == "cross-site" || site == "same-site") && !consoleNavigation(r) {
			closeAfter(w)
			refuse(w, http.StatusForbidden, "invalid_request_error", "cross_site_request",
				"requests made by web pages of another site are refused (this one sent no Origin, so cors.allowed_origins cannot allow it); to open a console page, follow a link to it or paste its address")
			return false
		}
		return true
	}
	if !originAllowed(cfg, origin) {
		closeAfter(w)
		refuse(w, http.StatusForbidden, "invalid_request_error", "origin_not_allowed",
			"requests from web pages at origin "+quoteHeader(origin)+" are refused; list it in cors.allowed_origins to allow it")
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		allow := corsAllowHeaders
		// The origin is trusted: the extra headers its client library sends
		// (e.g. an SDK's own) are allowed as asked, when well formed.
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" && headerList(req) {
			allow += ", " + req
		}
		h.Set("Access-Control-Allow-Headers", allow)
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return false
	}
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	return true
}

// consoleNavigation reports whether r is a link followed, in a tab of its
// own, to a page of the console: a top-level GET navigation to /ui/ but
// its data API. Such a link shared in a chat or a ticket opened nothing
// (hostile 56); what it opens is read-only, and the page that linked can
// neither frame it (frame-ancestors 'none': a frame's destination is not
// "document") nor read it, and the page's own data requests are
// same-origin.
func consoleNavigation(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document" &&
		(r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, "/ui/") && !strings.HasPrefix(r.URL.Path, "/ui/api/"))
}

// refusalPolicy lets a refusal's JSON be nothing but data: no script, no
// frame, no fetch (docs/security.md, the browser's part).
const refusalPolicy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// refuse writes a refusal of the front (a foreign Host, a cross-site page,
// a missing admin key), which is often the first answer a browser gets:
// it carries the headers the console's own answers carry (docs/console.md,
// Security), so no page can frame it, sniff it into markup or learn where
// it was asked from.
func refuse(w http.ResponseWriter, status int, typ, code, msg string) {
	h := w.Header()
	h.Set("Content-Security-Policy", refusalPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	writeError(w, status, typ, code, msg)
}

// originAllowed compares origin, as a browser serializes it, with the list.
func originAllowed(cfg *config.Config, origin string) bool {
	for _, o := range cfg.CORS.AllowedOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// hostAllowed is the DNS-rebinding guard. An attacker's page can make a
// browser reach this listener only under the attacker's own host name, so a
// Host that is an IP address or localhost is always fine; another name is
// refused on loopback connections unless allowed_hosts lists it, and on
// every connection once allowed_hosts is set.
func hostAllowed(cfg *config.Config, r *http.Request) bool {
	host := r.Host
	if host == "" { // HTTP/1.0 without Host: not a browser
		return true
	}
	if p := lastIPHost.Load(); p != nil && *p == host {
		return true
	}
	whole := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(host, ".")
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		kept := whole // a variable of its own: only a new Host allocates
		lastIPHost.Store(&kept)
		return true
	}
	if strings.EqualFold(host, "localhost") || len(host) > len(".localhost") &&
		strings.EqualFold(host[len(host)-len(".localhost"):], ".localhost") {
		return true
	}
	for _, h := range cfg.AllowedHosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	if len(cfg.AllowedHosts) > 0 {
		return false
	}
	return !loopbackConn(r)
}

// lastIPHost is the last Host found to name an IP address, which is fine
// whatever the configuration and the connection: a client sends the same
// Host on every request, and this spares parsing it each time
// (docs/benchmarks.md, "Round 23").
var lastIPHost atomic.Pointer[string]

// loopbackConn reports whether r arrived on a loopback address.
func loopbackConn(r *http.Request) bool {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if a == nil {
		return false
	}
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().IsLoopback()
}

// headerList reports whether s is a comma-separated list of header names.
func headerList(s string) bool {
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return false
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
				return false
			}
		}
	}
	return true
}

// jsonContentType reports whether a Content-Type names JSON:
// application/json or application/*+json, parameters allowed.
func jsonContentType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(mt)
	const app = "application/"
	if len(mt) <= len(app) || !strings.EqualFold(mt[:len(app)], app) {
		return false
	}
	sub := mt[len(app):]
	return strings.EqualFold(sub, "json") || len(sub) > len("+json") && strings.EqualFold(sub[len(sub)-len("+json"):], "+json")
}

// quoteHeader quotes a client's header value for a message, cut to 100 bytes.
func quoteHeader(v string) string {
	if len(v) > 100 {
		v = v[:100] + "…"
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' {
			return '?'
		}
		return r
	}, v) + `"`
}

// closeAfter makes the answer being written the connection's last. A
// refusal made before a client key is known (a guard's 403, a 401, a 405,
// an unknown path) closes the connection, so a client without a key cannot
// keep idle connections open for the idle timeout (docs/security.md).
func closeAfter(w http.ResponseWriter) { w.Header().Set("Connection", "close") }
