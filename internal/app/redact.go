package app

import (
	"net/url"
	"strings"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/redact"
)

// rulesFor is what the scrubber of cfg removes (see docs/design.md,
// "Operator secrets"): every provider key, every client key, the value of
// every provider header but those known to carry no secret (publicHeader),
// the password of the Redis URL; and each provider's base URL.
func rulesFor(cfg *config.Config) redact.Rules {
	var r redact.Rules
	for _, p := range cfg.Providers {
		r.Secrets = append(r.Secrets, p.APIKey)
		for k, v := range p.Headers {
			if !publicHeader(k) {
				r.Secrets = append(r.Secrets, v)
			}
		}
		if u, err := url.Parse(p.BaseURL); err == nil && u.User != nil {
			pw, _ := u.User.Password()
			r.Secrets = append(r.Secrets, u.User.Username(), pw)
		}
		r.Providers = append(r.Providers, redact.Provider{Name: p.Name, BaseURL: p.BaseURL})
	}
	r.Secrets = append(r.Secrets, cfg.ClientKeys...)
	r.Secrets = append(r.Secrets, cfg.AdminKeys...)
	r.Secrets = append(r.Secrets, cfg.State.Password)
	for _, s := range append(append([]string{cfg.State.URL}, cfg.State.Cluster...), cfg.State.Sentinel.Addrs...) {
		if u, err := url.Parse(s); err == nil && u.User != nil {
			pw, _ := u.User.Password()
			r.Secrets = append(r.Secrets, pw)
		}
	}
	return r
}

// publicHeaders are the provider headers known to carry no secret: an
// app's attribution (OpenRouter's HTTP-Referer and X-Title), the client's
// name, an API version or beta, an organisation or project id. Any other
// header's value is scrubbed, whatever its name: a gateway's key may come
// under any name (X-Custom-Gateway), and a name's words were once all that
// decided (review 33c). Scrubbing a value that was no secret costs a word
// in a message; missing one leaks a key.
var publicHeaders = []string{"HTTP-Referer", "Referer", "X-Title", "User-Agent",
	"anthropic-version", "anthropic-beta", "OpenAI-Organization", "OpenAI-Project", "OpenAI-Beta"}

// publicHeader reports whether a header of this name carries no secret.
func publicHeader(name string) bool {
	for _, h := range publicHeaders {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// scrubFor builds the scrubber of cfg and the rules it was built from.
// Secrets and providers of the configurations served before stay in it: a
// key rotated out may still be valid, and requests that used it may still be
// running. Serving cfg makes both current (see use).
func (a *App) scrubFor(cfg *config.Config) (*redact.Scrubber, redact.Rules) {
	r := rulesFor(cfg).With(a.rules)
	return redact.New(r), r
}

// use makes s, built from r, the scrubber of the logs, decision records and
// alerts.
func (a *App) use(s *redact.Scrubber, r redact.Rules) {
	a.rules = r
	a.scrub.Set(s)
}
