package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/limit"
)

// Client keys (docs/config.md, client_keys): who is calling, what they may
// call, and whether their rate or budget allows one more request.

// clientOf finds the client key r presents. ok is false when client keys
// are configured and r presents none of them; with none configured, every
// request is allowed and the key is nil. Every key is compared, in
// constant time: a literal key with the presented one, a key_sha256 with
// the presented one's SHA-256.
func clientOf(cfg *config.Config, r *http.Request) (k *config.ClientKey, ok bool) {
	got, ok := bearer(r)
	return clientByKey(cfg, got, ok)
}

// keyIndex is which of k's keys r presents, from 1, read as the door that
// admitted it reads them: its Bearer token first (the OpenAI doors admit by
// it alone: review 53b), else its x-api-key; or, at a door that admits by
// x-api-key when one is sent (apiKeyFirst: the Messages door and
// count_tokens, anthropicClient), that first (hostile 68d: a request
// admitted on its old key in x-api-key was recorded as the new one in its
// Bearer token); 0 for none.
func keyIndex(k *config.ClientKey, r *http.Request, apiKeyFirst bool) int {
	got, _ := bearer(r)
	order := []string{got, r.Header.Get("X-Api-Key")}
	if apiKeyFirst {
		order[0], order[1] = order[1], order[0]
	}
	for _, key := range order {
		if i := keySlot(k, key); i > 0 {
			return i
		}
	}
	return 0
}

// keySlot is which of k's keys key is, from 1; 0 for none.
func keySlot(k *config.ClientKey, key string) int {
	if key == "" {
		return 0
	}
	sum := sha256.Sum256([]byte(key))
	for i, s := range k.Sums {
		if s == sum {
			return i + 1
		}
	}
	return 0
}

// clientByKey is clientOf for a key already read from the request (has:
// one was presented).
func clientByKey(cfg *config.Config, got string, has bool) (k *config.ClientKey, ok bool) {
	if len(cfg.Clients) == 0 {
		return nil, true
	}
	if !has {
		return nil, false
	}
	sum := sha256.Sum256([]byte(got))
	found := -1
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		m := 0
		for _, s := range c.Sums { // every key of the client (a rotation's old and new)
			m |= subtle.ConstantTimeCompare(sum[:], s[:])
		}
		found = subtle.ConstantTimeSelect(m&subtle.ConstantTimeEq(int32(found), -1), i, found)
	}
	if found < 0 {
		return nil, false
	}
	return &cfg.Clients[found], true
}

// disabledCode is the code of the 403 a disabled client key gets
// (docs/config.md, "client_keys": disabled).
const disabledCode = "client_key_disabled"

// disabledMessage says client's key is suspended: the operator's act, not
// a key the client mistyped (a 401 would send it looking for a typo).
func disabledMessage(client *config.ClientKey) string {
	return fmt.Sprintf("client key %q is disabled by the gateway's operator; ask them to enable it", client.Name)
}

// refuseDisabled answers a disabled key's request with 403
// client_key_disabled, in d's envelope, and counts it where an operator
// who disabled a leaked key looks for whether it is still used: the front
// refusals' metric (code client_key_disabled), the Keys page's refusals
// since start, and an info line, the first of each minute (operator
// review 61f: the refusals counted as "other", and nothing else showed).
func (s *Server) refuseDisabled(w http.ResponseWriter, d door, client *config.ClientKey) {
	s.countDisabled(d, client)
	d.fail(w, http.StatusForbidden, disabledCode, disabledMessage(client))
}

// countDisabled counts and notes a disabled key's refusal at d (refuse's
// counting, and refuseDisabled's own).
func (s *Server) countDisabled(d door, client *config.ClientKey) {
	if ls := s.state.Load().Limits; ls != nil {
		ls.CountRefusal(client.Name)
	}
	if s.notes.first(client.Name, "disabled", 0, time.Now(), time.Minute) {
		s.log.Info("disabled client key refused: the first refusal of this minute (later ones are counted in detour_front_refusals_total{code=\"client_key_disabled\"})",
			"client", client.Name)
	}
	s.frontRefused(d, http.StatusForbidden, disabledCode, "client", client.Name)
}

// modelsDoor names the model lists (GET /v1/models, either shape) in the
// front refusals' counts.
var modelsDoor = door{name: "models"}

// bearer is the key of r's "Authorization: Bearer <key>" (the scheme in any case).
func bearer(r *http.Request) (string, bool) {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(got, " "), true
}

// visible is names, less those a client key may not call (allowed nil: all).
// catalogue calls route for every route and target for every target client
// may call (all of them for nil allowed: no client keys, or a key without a
// routes list), in configuration order: what /v1/models lists in either
// API's shape.
func catalogue(cfg *config.Config, allowed map[string]bool, route func(*config.Route), target func(*config.Target)) {
	for i := range cfg.Routes {
		if allowed == nil || allowed[cfg.Routes[i].Name] {
			route(&cfg.Routes[i])
		}
	}
	for i := range cfg.Targets {
		if allowed == nil || allowed[cfg.Targets[i].Name] {
			target(&cfg.Targets[i])
		}
	}
}

func visible(names []string, allowed map[string]bool) []string {
	if allowed == nil {
		return names
	}
	var out []string
	for _, n := range names {
		if allowed[n] {
			out = append(out, n)
		}
	}
	return out
}

// refused applies a's client's max_concurrent, rate and budget before any
// upstream is called. Over one, the client gets 429 with Retry-After (1 s
// for max_concurrent, else until the limit's window turns) and a message
// naming the limit, in d's envelope, and refused reports true. Otherwise
// the request holds one of the client's max_concurrent slots until s.end.
// A request refused by max_concurrent is not counted against the rate.
func (s *Server) refused(w http.ResponseWriter, r *http.Request, d door, a *admitted) bool {
	client := a.client
	if client == nil {
		return false
	}
	if a.slot == "" { // admit took it, unless the request came another way
		slot, ok := s.takeSlot(w, d, client)
		if !ok {
			return true
		}
		a.slot = slot
	}
	if a.st.Limits == nil {
		return false
	}
	ref := a.st.Limits.Admit(r.Context(), client)
	if ref == nil {
		return false
	}
	if a.slot != "" { // refused: the slot is not held after all
		s.slots.give(a.slot)
		a.slot = ""
	}
	s.refuseLimited(w, d, client, ref)
	return true
}

// refuseLimited answers 429 for client's limit ref, in d's envelope.
func (s *Server) refuseLimited(w http.ResponseWriter, d door, client *config.ClientKey, ref *limit.Refusal) {
	s.metrics.Refused(client.Name, ref.Limit)
	s.state.Load().Limits.CountRefusal(client.Name)
	w.Header().Set("Retry-After", strconv.FormatInt(limit.RetryAfterSeconds(ref.RetryAfter), 10))
	if ref.RetryAfter > dispatch.RetryHorizon { // a day's or a month's budget: not a retry's wait
		w.Header().Set("X-Should-Retry", "false")
	}
	code := "client_rate_limit_exceeded"
	if strings.HasPrefix(ref.Limit, "usd_") {
		code = "client_budget_exceeded"
	}
	if s.notes.first(client.Name, ref.Limit, limit.Cap(client, ref.Limit), time.Now(), ref.RetryAfter) {
		s.noteRefusal(client, ref)
	}
	// Who and which limit (operator review 52b: the line named neither,
	// and a refusal leaves no decision record).
	s.refuse(w, d, http.StatusTooManyRequests, code, ref.Message, "client", client.Name, "limit", ref.Limit)
}

// noteRefusal logs at info that client was refused by its limit ref, with
// where the key stood against it: the first refusal of its window
// (refusalNotes), so the log answers "when were we refused, and why".
func (s *Server) noteRefusal(client *config.ClientKey, ref *limit.Refusal) {
	attrs := []any{"client", client.Name, "limit", ref.Limit, "until", time.Now().Add(ref.RetryAfter).UTC().Format(time.RFC3339)}
	if ls := s.state.Load().Limits; ls != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		for _, st := range ls.Standings(ctx, client) {
			if st.Limit == ref.Limit {
				attrs = append(attrs, "used", st.Used, "cap", st.Cap)
			}
		}
		cancel()
	}
	s.log.Info("client key refused by its limit: the first refusal of this window (later ones are counted in detour_limit_refusals_total)", attrs...)
}

// spender is the state and the key whose limits a's request spends
// against when it ends: the key of that name in the configuration served
// now, so that a budget or rate a reload added or changed counts the
// requests already in flight (review 33b: a budget added to stop a
// runaway key's spending must count its long streams); the key it was
// admitted under when a reload has removed it since.
func (s *Server) spender(a *admitted) (*State, *config.ClientKey) {
	cur := s.state.Load()
	if cur == a.st || cur == nil || a.client == nil {
		return a.st, a.client
	}
	for i := range cur.Config.Clients {
		if k := &cur.Config.Clients[i]; k.Name == a.client.Name {
			return cur, k
		}
	}
	return a.st, a.client
}

// spendFor spends what the request of a used (rec) against its key's
// limits as the configuration served now has them (spender), under the
// read lock a reload's swap takes (Swap): never between a reload's count
// of what its keys spent and the swap.
func (s *Server) spendFor(r *http.Request, a *admitted, rec *decision.Decision) {
	if a.client == nil {
		return // no key, no limits: nothing to spend, and no lock to take
	}
	s.spending.RLock()
	defer s.spending.RUnlock()
	st, client := s.spender(a)
	spend(r, st, client, rec)
}

// spend records what the request used against client's limits: each
// billable attempt's tokens and cost as its upstream reported them (an
// attempt the provider does not charge for spends nothing), where known, an
// attempt reporting less than nothing counting as nothing (it must not take
// back what another attempt spent); a billable attempt whose upstream never
// said, or said only part (a stream cut or left after its first count),
// counts at least its Estimate (its input), so a client cannot spend for
// free by leaving a stream before its count arrives, nor after a count of
// 0 (review 33b: servers that learn the input only at the end).
func spend(r *http.Request, st *State, client *config.ClientKey, rec *decision.Decision) {
	if st.Limits == nil || client == nil || rec == nil {
		return
	}
	var tokens int
	var usd float64
	for _, a := range rec.Attempts { // what is known, even when some is not
		if !a.Billable {
			// An attempt the provider does not charge for (an overload before
			// the first content, a refusal before the request was sent)
			// spends none of the client's minute or budget, whatever usage it
			// reported (docs/config.md, "rate.tokens_per_minute").
			continue
		}
		t := 0
		if u := a.Usage; u != nil {
			t = max(u.TotalTokens, u.PromptTokens+u.CompletionTokens, 0)
		}
		if e := a.Estimate; e != nil { // usage unknown or partial
			t = max(t, e.InputTokens+e.OutputTokens)
		}
		tokens += min(t, limit.Ceiling)
		usd += a.BudgetUSD()
	}
	st.Limits.Spend(context.WithoutCancel(r.Context()), client, tokens, usd)
}

// takeSlot holds one of client's max_concurrent slots, returning its name
// ("" for a client without the limit), or answers 429 and returns false
// when all are held. On an advisory door (count_tokens) the slots are a
// pool of their own, as many again (countSlot): the key's requests in
// progress never refuse an estimate, but its uploads still hold at most
// their share of the body allowance.
func (s *Server) takeSlot(w http.ResponseWriter, d door, client *config.ClientKey) (string, bool) {
	if client == nil || client.MaxConcurrent <= 0 {
		return "", true
	}
	n := client.MaxConcurrent
	name, what := client.Name, "requests"
	if d.advisory {
		name, what = name+countSlot, "count_tokens requests"
	}
	if !s.slots.take(name, n) {
		s.metrics.Refused(client.Name, "max_concurrent")
		s.state.Load().Limits.CountRefusal(client.Name)
		if s.notes.first(name, "max_concurrent", float64(n), time.Now(), time.Minute) {
			// The first of a minute, as a windowed limit's first of its
			// window (operator review 60: none was logged at info).
			s.log.Info("client key refused by its limit: the first refusal of this minute (later ones are counted in detour_limit_refusals_total)",
				"client", client.Name, "limit", "max_concurrent", "cap", n, "of", what)
		}
		w.Header().Set("Retry-After", "1")
		s.refuse(w, d, http.StatusTooManyRequests, "client_concurrency_limit_exceeded",
			fmt.Sprintf("client key %q has %d %s in progress, its max_concurrent %d; retry when one ends", client.Name, n, what, n),
			"client", client.Name, "limit", "max_concurrent")
		return "", false
	}
	return name, true
}

// countSlot names, after a client's name, the pool of its count_tokens
// slots (a name holds no space).
const countSlot = " count_tokens"

// giveSlot gives back a slot takeSlot held ("" holds none).
func (s *Server) giveSlot(slot string) {
	if slot != "" {
		s.slots.give(slot)
	}
}
