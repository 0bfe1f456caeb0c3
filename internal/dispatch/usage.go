package dispatch

import (
	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
	"strings"
)

// Usage and cost (docs/design.md, "Usage and cost"). Every attempt records
// the usage its upstream reported and, when its target has a price, its
// cost; the request sums them. A streamed request to an openai-dialect
// target asks for usage (stream_options.include_usage), and the extra
// usage-only chunk that brings is kept from a client that did not ask.

// usageRequest is the request sent to openai-dialect targets of a stream:
// the client's, asking for usage. asked says the client asked itself.
type usageRequest struct {
	done  bool
	req   *provider.Request
	asked bool
}

// usage is the walk's usageRequest, worked out once.
func (w *walk) usage() *usageRequest {
	u := &w.usageReq
	if !u.done {
		u.done = true
		body, asked := includeUsage(w.call.Body)
		u.asked = asked || usageIncluded(w.call.Body)
		u.req = &provider.Request{Body: body, Stream: w.call.Stream, Translated: w.call.Native != nil, CachePrompt: w.call.CachePrompt}
	}
	return u
}

// requestFor is the request to send to e: for a stream to an openai-dialect
// target, one that asks for usage.
func (w *walk) requestFor(e *endpointRT) *provider.Request {
	r := w.call.request()
	if w.call.Stream && e.prov.cfg.Dialect == classify.OpenAI {
		r = w.usage().req
	}
	return w.withoutDropped(e, w.cont.request(e, r)) // a continuation by prefill sends its own
}

// askedUsage reports whether the client asked for the usage chunk itself.
// A door's call (Native set) always does: its translation asks for usage
// and its Output reads the usage chunk into its own usage. It is answered
// without the translation, which a door may leave to the walk
// (Native.Translate): a native whole answer turned into a stream comes
// before any (review 38d).
func (w *walk) askedUsage() bool { return w.call.Native != nil || w.usage().asked }

// stripUsage drops, from an event of e's stream, the usage-only chunks (no
// choices) the gateway asked for and the client did not: an openai-dialect
// upstream's, sent because the gateway asked for usage, and the ones the
// translating adapters send after the finish, as OpenAI does when asked. A
// passthrough's events are the client's own API and stay as they came.
func (w *walk) stripUsage(e *endpointRT, ev *provider.Event) {
	if !w.call.Stream || w.nativeAt(e) != nil || w.askedUsage() {
		return
	}
	kept := ev.Chunks[:0]
	for _, c := range ev.Chunks {
		if !usageOnly(c) {
			kept = append(kept, c)
		}
	}
	ev.Chunks = kept
}

// usageOnly reports whether chunk has an empty "choices" list (and so
// carries nothing but its usage).
func usageOnly(chunk []byte) bool {
	choices, ok := rawjson.ScanArray(rawjson.Member(chunk, "choices"))
	if !ok {
		return false
	}
	_, _, more := choices.Next()
	return !more
}

// usageIncluded reports a body asking for usage as OpenRouter's API does,
// usage: {include: true} (OpenRouter's AI SDK provider sends it with every
// stream, and no stream_options: probe 51c found its streams ended with no
// usage through Detour): the usage chunk is kept for it too.
func usageIncluded(body []byte) bool {
	u := rawjson.Member(body, "usage")
	return u != nil && string(rawjson.Member(u, "include")) == "true"
}

// includeUsageTrue is the stream_options includeUsage adds.
var includeUsageTrue = []byte(`{"include_usage":true}`)

// includeUsage returns body with stream_options.include_usage true, and
// whether the client had already set it. The body is valid JSON, as every
// Call's Body is: it has passed the front's strict reading (a JSON object
// without repeated members, checked whole), or it is a door's translation,
// which encoding/json wrote; so it is not checked again here. Nothing is
// decoded (a long conversation is large, and decoding it costs several
// times its size): the member is found and spliced where it lies, every
// other byte as sent.
func includeUsage(body []byte) ([]byte, bool) {
	start, end, err := rawjson.MemberSpan(body, "stream_options")
	if err != nil {
		return body, false
	}
	if start < 0 { // the common case: add it first
		return rawjson.WithFirst(body, "stream_options", includeUsageTrue), false
	}
	opts := body[start:end]
	switch is, ie, err := rawjson.MemberSpan(opts, "include_usage"); {
	case string(opts) == "null":
		opts = includeUsageTrue
	case err != nil:
		return body, false // not an object: the upstream judges it
	case is < 0:
		opts = rawjson.WithFirst(opts, "include_usage", jsonTrue)
	case string(opts[is:ie]) == "true":
		return body, true
	default:
		opts = rawjson.Replace(opts, is, ie, jsonTrue)
	}
	return rawjson.Replace(body, start, end, opts), false
}

var jsonTrue = []byte("true")

// usageOf reads the usage of a whole OpenAI chat.completion (nil when none).
// The body is an adapter's Response: valid JSON, so only its "usage"
// member is decoded.
func usageOf(body []byte) *provider.Usage {
	return parseUsage(rawjson.Member(body, "usage"))
}

// parseUsage decodes a raw "usage" member (nil when there is none or it
// does not decode).
func parseUsage(raw []byte) *provider.Usage {
	if raw == nil {
		return nil
	}
	u, err := provider.ParseUsage(raw)
	if err != nil {
		return nil
	}
	return u
}

// account sets a's usage and cost from o at t's price; sent is the
// request's body as it went upstream, nil when no client limit reads an
// estimate. The usage of a stream cut after its commit point is
// what its upstream had counted when it reported (an Anthropic stream
// reports at its start): incomplete. A billable attempt with no usage at
// all, or only an incomplete one, gets an Estimate of its input and of the
// output the client was served (o.delivered) for client limits. Tokens an
// upstream counts in total_tokens beyond prompt and completion are output: xAI and Gemini's OpenAI-compatible endpoint
// report reasoning beside completion_tokens, not in it, and bill it as
// output (review 33b; docs/config.md, "Usage and cost").
func account(a *decision.Attempt, t *config.Target, o *outcome, sent, body []byte) {
	if u := o.usage; u != nil {
		// The cache's reads and writes are parts of the prompt: together
		// never more than it. A count past what an answer to body can
		// have used is billed at that bound where the request had the
		// upstream run tools of its own, at Detour's estimate otherwise
		// (ceiling.go).
		prompt := count(u.PromptTokens)
		total := count(u.TotalTokens)
		completion := max(count(u.CompletionTokens), total-prompt)
		p, c, capped := withinCeilings(body, o.answerBytes, prompt, completion)
		if capped && !serverWork(body) {
			// Nothing the upstream ran for the request could have made
			// such a count: a broken server's number, and Detour's
			// estimate stands in (ceiling.go).
			if p < prompt {
				p = inputEstimate(body)
			}
			if c < completion {
				c = max(int(o.answerBytes/4), o.delivered)
			}
		}
		if inNeg, outNeg := u.PromptTokens < 0, u.CompletionTokens < 0 || u.TotalTokens < 0; inNeg || outNeg {
			// A negative count is none an answer can have (a signed
			// underflow): no count, as one past the bound, and Detour's
			// estimate stands in for it, tools or not (review 69j: counts
			// of -5 billed an answer nothing).
			if inNeg {
				p = inputEstimate(body)
			}
			if outNeg {
				c = max(c, int(o.answerBytes/4), o.delivered)
			}
			capped = true
		}
		prompt, completion = p, c
		if capped {
			total = min(prompt+completion, maxCount)
		}
		cached := min(count(u.Cached()), prompt)
		written := min(count(u.CacheWrite()), prompt-cached)
		a.Usage = &decision.Usage{PromptTokens: prompt, CompletionTokens: completion,
			TotalTokens: total, CachedTokens: cached, CacheWriteTokens: written,
			CacheWrite1hTokens: min(count(u.CacheWrite1h()), written), Incomplete: cutStream(o), Capped: capped}
		if d := u.CompletionTokensDetails; d != nil { // within the output
			a.Usage.ReasoningTokens = min(count(d.ReasoningTokens), a.Usage.CompletionTokens)
		}
		// Audio, priced apart (hostile 57: 9,900 audio tokens counted at
		// the text price, 1/33 of their cost): within the input neither
		// read from nor written to the cache, and within the output.
		a.Usage.AudioInputTokens = min(count(u.AudioIn()), prompt-cached-written)
		a.Usage.AudioOutputTokens = min(count(u.AudioOut()), a.Usage.CompletionTokens)
		// The server tools' uses, each within what the answer's bytes can
		// show (ceiling.go): a broken or lying count must not spend a
		// key's month at $10 per 1,000.
		// A use of a tool the request did not offer is none, and uses
		// past the request's max_uses are none (serverToolUses).
		var c1, c2 bool
		a.Usage.WebSearchRequests, c1 = withinUses(o.answerBytes, u.WebSearches)
		a.Usage.WebFetchRequests, c2 = withinUses(o.answerBytes, u.WebFetches)
		// Read only where an answer counts uses: the scan of the body's
		// tools is no cost of every answer.
		if n := a.Usage.WebSearchRequests; n > 0 {
			if most := serverToolUses(body, "web_search"); most >= 0 && n > most {
				a.Usage.WebSearchRequests, c1 = most, true
			}
		}
		if n := a.Usage.WebFetchRequests; n > 0 {
			if most := serverToolUses(body, "web_fetch"); most >= 0 && n > most {
				a.Usage.WebFetchRequests, c2 = most, true
			}
		}
		a.Usage.Capped = a.Usage.Capped || c1 || c2
	}
	p := t.Price
	if u := o.usage; u != nil && u.Fast && p != nil && p.Fast != nil {
		p, a.PriceTier = p.Fast, "fast" // a premium fast mode the answer says it was served in
	}
	if o.billable && (a.Usage == nil || a.Usage.Incomplete) && sent != nil {
		// What the client was served counts too: a stream left or cut
		// before its count arrived was generated, and billed, all the same
		// (review 37a: a key left each stream after 400 chunks and paid
		// for its prompt only).
		e := &decision.Estimate{InputTokens: inputEstimate(sent), OutputTokens: o.delivered}
		if o.unread {
			// A whole answer sent and never read: its upstream wrote, and
			// bills, all of it; counted at the most the request allowed
			// (unreadOutput; review 67d: a $1.00 answer past the timeout
			// was charged $0.000013 on a $0.50 day).
			if c := unreadOutput(body, t, o.sentLimit); c > e.OutputTokens {
				e.OutputTokens, e.OutputCeiling = c, true
			}
		}
		// What the upstream had counted is a floor: an Anthropic or Gemini
		// stream counts its whole prompt at its start, which knows a
		// document or a PDF better than the estimate's 1,600 tokens for
		// inline data (hostile 52), and which part of it was read from or
		// written to the cache, priced as the bill prices it (hostile 57:
		// all at the plain input price, a cached prompt counted ten times
		// its cost and a written one under it). Input past its count is
		// plain.
		est := decision.Usage{PromptTokens: e.InputTokens, CompletionTokens: e.OutputTokens}
		if u := a.Usage; u != nil {
			est = *u
			est.PromptTokens = max(e.InputTokens, u.PromptTokens)
			est.CompletionTokens = max(e.OutputTokens, u.CompletionTokens)
			e.InputTokens, e.OutputTokens = est.PromptTokens, est.CompletionTokens
		}
		if p != nil {
			if p.For(e.InputTokens) != p {
				a.PriceTier = withTier(a.PriceTier, "long_context")
			}
			e.USD = decision.USD(cost(p, &est))
		}
		a.Estimate = e
	}
	switch {
	case p == nil:
	case !o.billable:
		// Not billable costs nothing, whatever count the upstream had sent
		// before it failed (an Anthropic stream's message_start, then an
		// error event before any content): the record must not say
		// billable: false beside a cost, nor a client's budget pay it.
		c := decision.USD(0)
		a.CostUSD = &c
	case a.Usage != nil:
		if in, cached, written := a.Usage.Input(); p.For(in+cached+written) != p {
			a.PriceTier = withTier(a.PriceTier, "long_context")
		}
		c := decision.USD(cost(p, a.Usage))
		a.CostUSD = &c
	default:
		a.CostUSD, a.CostUnknown = decision.Unknown(), true
	}
}

// withTier is the price tiers tiers ("fast", "fast,long_context") with
// tier, once (review 53b: a cut stream priced twice said it twice).
func withTier(tiers, tier string) string {
	if tiers == "" {
		return tier
	}
	if strings.Contains(","+tiers+",", ","+tier+",") {
		return tiers
	}
	return tiers + "," + tier
}

// maxCount is where a reported token count stops: 2^53, past every cap
// (docs/config.md, client_keys), where a float64 still holds every integer.
const maxCount = 1 << 53

// count is an upstream's token count as Detour records it: a negative count
// (which would take back what the output cost) is nothing, a huge one stops
// at maxCount.
func count(n int) int { return min(max(n, 0), maxCount) }

// cost is the price of u in USD (docs/config.md, "Usage and cost"):
// uncached input, cached input, input written to the cache and the part of
// it written to the 1-hour cache (each at the input price when the target
// names no cached_input or cache_write price; the 1-hour writes, when it
// names no cache_write_1h, at twice the input price, Anthropic's, or the
// cache_write price if higher: hostile review 51 found a client marking
// every block "1h" billed at the 5-minute price, under what it cost),
// output Audio input (within the uncached input) and audio output are
// at the audio_input and audio_output prices, when the target names them,
// else at the input and output prices.
func cost(p *config.Price, u *decision.Usage) float64 {
	in, cached, written := u.Input()
	p = p.For(in + cached + written) // above a long-context threshold, every token at its prices
	cachedPrice, writePrice := p.Input, p.Input
	if p.CachedInput != nil {
		cachedPrice = *p.CachedInput
	}
	if p.CacheWrite != nil {
		writePrice = *p.CacheWrite
	}
	write1hPrice := max(writePrice, 2*p.Input)
	if p.CacheWrite1h != nil {
		write1hPrice = *p.CacheWrite1h
	}
	hour := u.Written1h()
	audioIn, audioOut := u.Audio()
	audioInPrice, audioOutPrice := p.Input, p.Output
	if p.AudioInput != nil {
		audioInPrice = *p.AudioInput
	}
	if p.AudioOutput != nil {
		audioOutPrice = *p.AudioOutput
	}
	return (float64(in-audioIn)*p.Input+float64(audioIn)*audioInPrice+float64(cached)*cachedPrice+
		float64(written-hour)*writePrice+float64(hour)*write1hPrice+
		float64(max(u.CompletionTokens, 0)-audioOut)*p.Output+float64(audioOut)*audioOutPrice)/1e6 + fees(p, u)
}

// fees is what u's uses of the provider's server tools cost at p's
// web_search and web_fetch prices (USD per 1,000 uses); a use p does not
// price costs nothing (docs/config.md, "Usage and cost").
func fees(p *config.Price, u *decision.Usage) float64 {
	searches, fetches := u.ToolUses()
	usd := 0.0
	if p.WebSearch != nil {
		usd += float64(searches) * *p.WebSearch
	}
	if p.WebFetch != nil {
		usd += float64(fetches) * *p.WebFetch
	}
	return usd / 1e3
}

// cutStream reports whether o is a stream cut after its commit point: part of
// an answer reached the client, and its upstream's count of it is partial
// or missing.
func cutStream(o *outcome) bool { return o.committed && !o.ok }

// totals sums the attempts' usage and cost into the request's record. The
// sum is incomplete when an attempt's usage is, or when partial is set (a
// stream was cut after its commit point, whether or not its upstream
// reported a count: docs/behaviour.md#decision-record).
func totals(rec *decision.Decision, partial bool) {
	var u decision.Usage
	var sum float64
	usage, priced := false, false
	for i := range rec.Attempts {
		a := &rec.Attempts[i]
		if a.Usage != nil && a.Billable { // the tokens billed (operator review 54: an overload's input beside no cost)
			u.Add(*a.Usage)
			usage = true
		}
		if a.CostUSD == nil && !a.CostUnknown {
			continue
		}
		priced = true
		if a.CostUnknown {
			rec.CostUnknown = true
		} else {
			sum += float64(*a.CostUSD)
		}
	}
	if usage {
		u.Incomplete = u.Incomplete || partial
		rec.Usage = &u
	}
	switch {
	case rec.CostUnknown:
		rec.CostUSD = decision.Unknown()
	case priced:
		c := decision.USD(sum)
		rec.CostUSD = &c
	}
}

// meter counts a's tokens, when billable, and its cost in metrics.
func (w *walk) meter(e *endpointRT, a *decision.Attempt) {
	m := w.d.opt.Metrics
	if u := a.Usage; u != nil && a.Billable {
		in, cached, written := u.Input()
		m.Usage(w.call.Client, w.r.name, e.key.Target, e.key.Provider, in, cached, written, u.CompletionTokens)
	}
	if a.CostUSD != nil || a.CostUnknown {
		var usd float64
		if a.CostUSD.Known() {
			usd = float64(*a.CostUSD)
		}
		m.Cost(w.call.Client, w.r.name, e.key.Target, e.key.Provider, usd, a.CostInFull())
	}
}
