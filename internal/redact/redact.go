package redact

import (
	"sort"
	"strings"
	"sync/atomic"
)

// Replacements.
const (
	// Redacted replaces a secret or a key-shaped token.
	Redacted = "[redacted]"
	// Address replaces a network address that no provider owns (client text only).
	Address = "[address]"
)

// Patterns (RE2) of the replacements, for readers of scrubbed text that
// must match what a replacement hid (a rule suggested from a decision
// record matches the raw answer): SecretPattern matches Redacted;
// PlacePattern matches Address and a provider's "[provider NAME]" (names
// hold no blank). What followed an address's place (a URL's path) stays.
const (
	SecretPattern = `\[redacted\]`
	PlacePattern  = `\[(?:address|provider [^\]\s]+)\]`
)

// Provider is an upstream whose whereabouts are replaced by its name.
type Provider struct {
	Name    string
	BaseURL string
}

// Rules are what a Scrubber removes. The zero value removes only key-shaped
// tokens.
type Rules struct {
	// Secrets are provider keys, client keys and other credentials. Those
	// shorter than Window bytes are ignored.
	Secrets []string
	// Providers are named instead of their base URLs, hosts and addresses.
	Providers []Provider
}

// With returns r plus what of prev r lacks: a key rotated out by a reload
// stays a secret (it may still be valid, and requests that used it may
// still be finishing), and a removed provider stays hidden.
func (r Rules) With(prev Rules) Rules {
	out := Rules{Secrets: append([]string(nil), r.Secrets...), Providers: append([]Provider(nil), r.Providers...)}
	seen := map[string]bool{}
	for _, s := range r.Secrets {
		seen[s] = true
	}
	for _, s := range prev.Secrets {
		if !seen[s] {
			seen[s] = true
			out.Secrets = append(out.Secrets, s)
		}
	}
	urls := map[string]bool{}
	for _, p := range r.Providers {
		urls[p.BaseURL] = true
	}
	for _, p := range prev.Providers {
		if !urls[p.BaseURL] {
			urls[p.BaseURL] = true
			out.Providers = append(out.Providers, p)
		}
	}
	return out
}

// Scrubber removes secrets and provider whereabouts from text. Build it
// once per configuration with New; it is safe for concurrent use. A nil
// *Scrubber removes only key-shaped tokens.
type Scrubber struct {
	secrets windows
	places  places
}

// New builds the Scrubber for r.
func New(r Rules) *Scrubber {
	s := &Scrubber{}
	for _, k := range r.Secrets {
		s.secrets.add(k)
	}
	s.places = newPlaces(r.Providers)
	return s
}

// String scrubs msg for the operator's eyes (decision records, logs, alerts):
// every secret fragment, key-shaped token and provider place; a network
// address only when the message ties it to a provider.
func (s *Scrubber) String(msg string) string { return s.scrub(msg, nil, false) }

// ForClient scrubs msg for the client that sent the request body sent. As
// String, but a run of secret bytes whose every 8-byte window occurs in
// sent, as written or with its JSON escapes decoded (once, or twice for JSON
// inside its strings), is left as it is (the client wrote it; scrubbing it
// would tell the client which of its strings are part of a key); of any
// other run only the stretches that reveal a secret are scrubbed (Reveals:
// the client may have steered the upstream to write the rest), and every
// network address in a Go network error is replaced, by its provider or by
// "[address]", as are internal hosts in URLs (internalEdits) and the
// operator's account ids and usage (accountEdits).
func (s *Scrubber) ForClient(msg string, sent []byte) string { return s.scrub(msg, sent, true) }

func (s *Scrubber) scrub(msg string, sent []byte, client bool) string {
	if msg == "" {
		return msg
	}
	var eds edits
	tied := ""
	if s != nil {
		msg = s.secretRuns(msg, sent, client)
	}
	lower := asciiLower(msg)
	if s != nil {
		tied = s.places.edits(msg, lower, &eds)
	}
	addrs := shapeEdits(msg, lower, &eds)
	addrEdits(msg, addrs, tied, client, &eds)
	if client {
		internalEdits(msg, lower, &eds)
		accountEdits(msg, lower, &eds)
	}
	return eds.apply(msg)
}

// secretRuns replaces every run of secret bytes.
func (s *Scrubber) secretRuns(msg string, sent []byte, client bool) string {
	runs := s.secrets.find(msg)
	if len(runs) == 0 {
		return msg
	}
	var known map[uint64]bool
	var b strings.Builder
	last := 0
	for _, r := range runs {
		if client {
			if known == nil {
				// What the client sent, as written and as the upstream
				// read it: JSON escapes decoded, and decoded again for JSON
				// inside its strings (a tool call's arguments, which
				// Detour sends on as JSON). An echo of any is the client's
				// own text.
				known = s.secrets.known(sent)
				for level, b := 0, sent; level < 2; level++ {
					if b = unescapeJSON(b); b == nil {
						break
					}
					for w := range s.secrets.known(b) {
						known[w] = true
					}
				}
			}
			// Only the stretches of one secret that reveal it, each on its
			// own: a run joins the windows of every secret, and scrubbed
			// whole it would take in a guessed byte beside a secret the
			// client knows (its own key) only when the guess is right.
			for _, x := range s.secrets.revealed(msg[r.from:r.to]) {
				x.from, x.to = x.from+r.from, x.to+r.from
				if x.from < last || allKnown(msg[x.from:x.to], known) {
					continue
				}
				b.WriteString(msg[last:x.from])
				b.WriteString(Redacted)
				last = x.to
			}
			continue
		}
		b.WriteString(msg[last:r.from])
		b.WriteString(Redacted)
		last = r.to
	}
	if last == 0 {
		return msg
	}
	b.WriteString(msg[last:])
	return b.String()
}

// edit replaces msg[from:to] with with.
type edit struct {
	from, to int
	with     string
}

type edits []edit

func (e *edits) add(from, to int, with string) { *e = append(*e, edit{from, to, with}) }

// apply makes the edits on s; of overlapping edits the one starting first
// (then the longer) wins.
func (e edits) apply(s string) string {
	if len(e) == 0 {
		return s
	}
	sort.Slice(e, func(i, j int) bool {
		if e[i].from != e[j].from {
			return e[i].from < e[j].from
		}
		return e[i].to > e[j].to
	})
	var b strings.Builder
	last := 0
	for _, x := range e {
		if x.from < last {
			continue
		}
		b.WriteString(s[last:x.from])
		b.WriteString(x.with)
		last = x.to
	}
	b.WriteString(s[last:])
	return b.String()
}

// Current holds the Scrubber of the configuration being served. The zero
// value holds none (nil: shape rules only). It is safe for concurrent use.
type Current struct{ p atomic.Pointer[Scrubber] }

// Set makes s current.
func (c *Current) Set(s *Scrubber) { c.p.Store(s) }

// Get returns the current Scrubber (nil when none was set).
func (c *Current) Get() *Scrubber {
	if c == nil {
		return nil
	}
	return c.p.Load()
}

// String scrubs msg with the current Scrubber (see Scrubber.String).
func (c *Current) String(msg string) string { return c.Get().String(msg) }
