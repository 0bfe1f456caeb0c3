package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
)

// vendorHosts are the hosts of hosted APIs that answer every request
// without a key with 401: a provider there with an empty api_key pages the
// operator at its first request (operator review 48). A local or private
// server may need no key, so only these are named.
var vendorHosts = []string{"api.openai.com", "api.anthropic.com", "generativelanguage.googleapis.com",
	"openrouter.ai", "api.groq.com", "api.mistral.ai", "api.deepseek.com", "api.x.ai", "api.together.xyz"}

// configWarnings are what `detour check` warns of in a valid file, beyond
// its listeners: a classify rule naming a provider the file does not
// configure (it is kept, and matches nothing until one is), and a hosted
// API's provider without a key.
func configWarnings(cfg *config.Config) []string {
	var out []string
	if w := decisionsDirWarning(cfg); w != "" {
		out = append(out, w)
	}
	names := make([]string, len(cfg.Providers))
	for i := range cfg.Providers {
		names[i] = cfg.Providers[i].Name
	}
	for i, r := range cfg.Rules {
		if r.Provider != "" && !slices.Contains(names, r.Provider) {
			out = append(out, fmt.Sprintf("%sclassify.rules[%d] names provider %q, which the file does not configure (providers: %s): it matches nothing until one is",
				at(cfg, ruleLine(cfg, i)), i+1, r.Provider, strings.Join(names, ", ")))
		}
	}
	out = append(out, embeddingModelsWarnings(cfg)...)
	if w := budgetRestartWarning(cfg); w != "" {
		out = append(out, w)
	}
	out = append(out, clientKeyWarnings(cfg)...)
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		if v, ok := dialectVersion[p.Dialect]; ok && strings.HasSuffix(strings.ToLower(p.BaseURL), v) {
			out = append(out, fmt.Sprintf("%sprovider %s: base_url ends in %s, which the %s dialect adds itself (it would call %s%s/…): give the API root, without %s",
				at(cfg, p.Line), p.Name, v, p.Dialect, shownURL(p.BaseURL), v, v))
		}
		if w := versionlessWarning(p); w != "" {
			out = append(out, at(cfg, p.Line)+w)
		}
		if u, err := url.Parse(p.BaseURL); err == nil && p.APIKey == "" && !keyHeader(p.Headers) && slices.Contains(vendorHosts, strings.ToLower(u.Hostname())) {
			out = append(out, fmt.Sprintf("%sprovider %s has no api_key, and %s answers every request without one with 401 (is its environment variable set?)", at(cfg, p.Line), p.Name, u.Hostname()))
		}
	}
	return out
}

// at is where a warning's subject is written, "file:line: " (as errors
// give it, so an editor can jump there), or "" where the line is unknown.
func at(cfg *config.Config, line int) string {
	if line <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", cfg.File, line)
}

// ruleLine is the line classify.rules[i] begins at, 0 if unknown.
func ruleLine(cfg *config.Config, i int) int {
	if i < len(cfg.RuleLines) {
		return cfg.RuleLines[i]
	}
	return 0
}

// dialectVersion is the version path a dialect's adapter writes after
// base_url (POST {base_url}/v1/messages, {base_url}/v1beta/models/…): a
// base_url that already ends in it (copied from a vendor's reference)
// doubles it (probe 52a).
var dialectVersion = map[classify.Dialect]string{classify.Anthropic: "/v1", classify.Gemini: "/v1beta"}

// openaiRoots are the API roots of hosted OpenAI-compatible APIs whose host
// alone is not one: the openai dialect calls {base_url}/chat/completions,
// and https://api.openai.com/chat/completions answers every request 404
// "Invalid URL (POST /chat/completions)" — read as the endpoint gone
// (unavailable: it cools for unavailable_cooldown, no page) on the first
// request (newcomer 57; the anthropic and gemini examples carry no version
// path, so this one is written by analogy). DeepSeek serves both.
var openaiRoots = map[string]string{"api.openai.com": "/v1", "openrouter.ai": "/api/v1", "api.groq.com": "/openai/v1",
	"api.mistral.ai": "/v1", "api.x.ai": "/v1", "api.together.xyz": "/v1"}

// bareRoots are hosts that serve the OpenAI API at their root too
// (Perplexity's documented endpoint is https://api.perplexity.ai/chat/completions).
var bareRoots = map[string]bool{"api.deepseek.com": true, "api.perplexity.ai": true}

// shownURL is a base_url as a warning may quote it: scheme, host and path,
// without a user, a password or a query, which may hold a secret (a
// self-hosted server's http://user:password@host; review 61h).
func shownURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(base_url, not shown)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// versionlessWarning names an openai-dialect provider whose base_url has
// no path: at one of openaiRoots' hosts, with the path it needs; elsewhere
// (a self-hosted server), asking, since most serve only under /v1 and a
// 404 there reads as the model gone, cooling the endpoint for
// unavailable_cooldown without a page (operator review 61f: a vLLM-style
// server at http://127.0.0.1:18084 checked "ok" and cooled for 24h on its
// first request).
func versionlessWarning(p *config.Provider) string {
	u, err := url.Parse(p.BaseURL)
	if err != nil || p.Dialect != classify.OpenAI || strings.Trim(u.Path, "/") != "" || bareRoots[strings.ToLower(u.Hostname())] {
		return ""
	}
	root, ok := openaiRoots[strings.ToLower(u.Hostname())]
	if !ok {
		base := strings.TrimRight(shownURL(p.BaseURL), "/")
		return fmt.Sprintf("provider %s: base_url %s has no path, so Detour calls %s/chat/completions; vLLM, Ollama, LM Studio, TGI and SGLang serve it only under /v1 (llama-server and LiteLLM serve both): if this server is one of those, give %s/v1 — a 404 would read as the model gone and cool the endpoint for unavailable_cooldown",
			p.Name, base, base, base)
	}
	return fmt.Sprintf("provider %s: base_url %s has no path, and %s serves its API under %s (it would call %s/chat/completions, which answers 404 \"Invalid URL\"): give %s%s",
		p.Name, shownURL(p.BaseURL), u.Hostname(), root, strings.TrimRight(shownURL(p.BaseURL), "/"), strings.TrimRight(shownURL(p.BaseURL), "/"), root)
}

// budgetRestartWarning names the budgeted client keys whose spend a
// restart forgets: counted in memory (state memory), it is restored only
// from a decision log in a file (app: restoreBudgets), so with decisions
// on stdout or off every restart gives every key its budget back
// (operator review 52).
func budgetRestartWarning(cfg *config.Config) string {
	if cfg.State.Store == config.StoreRedis || cfg.Decisions.Path != "" && cfg.Decisions.Path != "-" {
		return ""
	}
	var names []string
	line := 0
	for i := range cfg.Clients {
		if b := cfg.Clients[i].Budget; b.USDPerDay > 0 || b.USDPerMonth > 0 {
			names = append(names, cfg.Clients[i].Name)
			if line == 0 {
				line = cfg.Clients[i].Line // the first of them
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return at(cfg, line) + fmt.Sprintf("client keys %s have budgets counted in this process's memory, and decisions are not written to a file to restore them from: every restart gives them their budget back (set decisions.path to a file, or state: redis)",
		strings.Join(names, ", "))
}

// embeddingModelsWarnings names each route whose embeddings targets (those
// that declare dimensions) are different models: a failover between them
// answers 200 with vectors from another model's space, which an index built
// from the first cannot be searched with, at any size (probe 52a). Models
// are compared by their last path segment, case aside, so one model under a
// relay's name (openai/text-embedding-3-small) is one model.
func embeddingModelsWarnings(cfg *config.Config) []string {
	var out []string
	for i := range cfg.Routes {
		r := &cfg.Routes[i]
		var models, seen []string
		for _, n := range append(append([]string(nil), r.Targets...), r.Tail...) {
			t, ok := cfg.Target(n)
			if !ok || t.Dimensions == 0 {
				continue
			}
			m := strings.ToLower(t.Model[strings.LastIndexByte(t.Model, '/')+1:])
			if !slices.Contains(seen, m) {
				seen = append(seen, m)
				models = append(models, fmt.Sprintf("%s (target %s)", t.Model, t.Name))
			}
		}
		if len(models) > 1 {
			out = append(out, fmt.Sprintf("%sroute %s fails over between embedding models %s: their vectors are not comparable, even of one size, so an index built from one answers wrongly when queried with another's (docs/doors.md, embeddings); give each model its own route unless that is what you want",
				at(cfg, r.Line), r.Name, strings.Join(models, ", ")))
		}
	}
	return out
}

// keyHeader reports whether headers carry a credential of their own
// (Authorization, x-api-key, api-key, x-goog-api-key): a provider's key
// may be given there instead of api_key (review 48).
func keyHeader(headers map[string]string) bool {
	for h, v := range headers {
		switch strings.ToLower(h) {
		case "authorization", "x-api-key", "api-key", "x-goog-api-key":
			if strings.TrimSpace(v) != "" {
				return true
			}
		}
	}
	return false
}

// count is n and noun, plural but for one ("1 provider", "2 providers").
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// decisionsDirWarning says where decisions.path lies in a directory this
// machine does not have: serve opens the file at start and refuses to start
// without it (operator review 51: check said ok, and serve then failed).
// A warning, not an error: the file may be checked on another machine than
// the one that serves it.
func decisionsDirWarning(cfg *config.Config) string {
	p := cfg.Decisions.Path
	if p == "" || p == "-" {
		return ""
	}
	dir := filepath.Dir(p)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return ""
	}
	// The path is not shown: it may have come from the environment, whose
	// values an error never echoes (docs/config.md).
	return at(cfg, cfg.Decisions.Line) + "decisions.path: its directory does not exist here: serve refuses to start where it does not (create it, or change decisions.path)"
}

// clientKeyWarnings are slips in client keys that load: a day's budget
// above the month's (the month's refuses first, so the day's never does),
// and a key shorter than the 8 characters the logs' scrubber needs to
// tell a secret from a word (operator review 60). Never the key.
func clientKeyWarnings(cfg *config.Config) []string {
	var out []string
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		if b := k.Budget; b.USDPerDay > 0 && b.USDPerMonth > 0 && b.USDPerDay > b.USDPerMonth {
			out = append(out, fmt.Sprintf("%sclient key %q: usd_per_day ($%g) is above usd_per_month ($%g): the month's refuses first, and the day's never does", at(cfg, k.Line), k.Name, b.USDPerDay, b.USDPerMonth))
		}
		if n := len(k.Key); n > 0 && n < 8 {
			out = append(out, fmt.Sprintf("%sclient key %q: its key is %d characters: too short to be told from a word, so the logs' scrubber leaves it, and easy to guess (use 32 or more random characters)", at(cfg, k.Line), k.Name, n))
		}
	}
	return out
}
