package decision

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// Action is what happened after an attempt; it is serialised as its string.
// The zero value "" means not yet decided.
type Action string

// Actions: what happened after an attempt.
const (
	ActionDone         Action = "done"          // the attempt answered the client
	ActionRetry               = "retry"         // the same endpoint is tried again
	ActionNextEndpoint        = "next_endpoint" // the target's next endpoint is tried
	ActionNextTarget          = "next_target"   // the route's next target is tried
	ActionTail                = "tail"          // the route's guarded tail is tried
	ActionStop                = "stop"          // nothing further; the client gets this answer
)

// Outcomes of a request.
const (
	OutcomeOK       = "ok"
	OutcomeError    = "error"
	OutcomeCanceled = "canceled"
	// OutcomeShutdown: the request was still in flight when the shutdown
	// grace period ended; the gateway ended it (an SSE error event for a
	// committed stream, a 503 otherwise).
	OutcomeShutdown = "shutdown"
)

// Decision is one request's record.
type Decision struct {
	ID       string    `json:"id"`
	Time     time.Time `json:"time"`
	Route    string    `json:"route"`
	Strategy string    `json:"strategy"`
	// API is the client API the request came through: "chat" (also when
	// empty, for records written before doors existed), "messages",
	// "responses", "embeddings", "completions" or "gemini" (docs/doors.md).
	API         string       `json:"api,omitempty"`
	Stream      bool         `json:"stream"`
	Outcome     string       `json:"outcome"`
	Status      int          `json:"status"`
	Class       string       `json:"class,omitempty"`
	MS          float64      `json:"ms"`
	Attempts    []Attempt    `json:"attempts"`
	Skipped     []Skip       `json:"skipped,omitempty"`
	Transitions []Transition `json:"transitions"`
	// Client names the client key the request used, never the key itself:
	// its configured name, or for a bare key "key:" and the first 8 hex
	// digits of its SHA-256; empty when no client keys are configured.
	Client string `json:"client,omitempty"`
	// ClientKey is which of the client's keys the request presented, from
	// 1, where its entry lists several (a rotation's old and new:
	// docs/deploy.md, "Reloading"); 0 otherwise. It says who still uses an
	// old key before it is removed (operator review 53b).
	ClientKey int `json:"client_key,omitempty"`
	// Usage sums the usage of the billable attempts that reported one: the
	// tokens billed (an overload before any content reports its input,
	// unbilled: operator review 54).
	Usage *Usage `json:"usage,omitempty"`
	// CostUSD sums the attempts' costs: absent when no attempt's target has
	// a price; null, with CostUnknown, when a billable attempt's usage is
	// unknown (see Attempt.CostUSD).
	CostUSD     *USD `json:"cost_usd,omitempty"`
	CostUnknown bool `json:"cost_unknown,omitempty"`
}

// The evidence of an attempt Detour did not send: the class is Detour's
// own judgment of the request for that target, and no upstream answered
// (docs/behaviour.md, "Decision record").
const (
	// EvidenceUntranslated: the target's dialect cannot express the request.
	EvidenceUntranslated = "translate"
	// EvidenceAllowance: its translation does not fit the request-body
	// allowance now, beside the other requests (max_inflight_body_bytes).
	EvidenceAllowance = "allowance"
	// EvidenceTooCostly: its translation would cost more than any one
	// request may.
	EvidenceTooCostly = "translation-cost"
)

// UnservedPathEvidence is the evidence of a bare 404 (no code, no words)
// from a passthrough path the operator declared its provider serves (a
// provider's completions: true or responses: true, named by option): most
// likely a server without the path, read as unknown so that nothing cools
// (docs/config.md). Its fix is the option, not a rule: the console's
// Unknowns and `detour classify --suggest` leave it out (UnservedPath).
func UnservedPathEvidence(path, option string) string {
	return unservedLead + path + "; check the provider's " + option + ": true)"
}

// unservedLead opens every UnservedPathEvidence.
const unservedLead = "status:404 (no words: most likely a server without {base_url}"

// UnservedPath reports whether evidence is an UnservedPathEvidence.
func UnservedPath(evidence string) bool { return strings.HasPrefix(evidence, unservedLead) }

// Unsent reports whether an attempt's evidence says Detour did not send it.
// The console's script keeps the same list (internal/console/ui/app.js,
// unsentEvidence).
func Unsent(evidence string) bool {
	switch evidence {
	case EvidenceUntranslated, EvidenceAllowance, EvidenceTooCostly:
		return true
	}
	return false
}

// Attempt is one call to one endpoint.
type Attempt struct {
	Target   string `json:"target"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Status is the upstream HTTP status, 0 when none arrived (an attempt
	// Detour did not send among them: Unsent).
	Status int `json:"status"`
	// UpstreamRequestID is the id the upstream gave its answer (x-request-id,
	// request-id, …), for a ticket with the vendor; absent when it gave none
	// or one that is not a plain token (docs/behaviour.md#decision-record).
	UpstreamRequestID string `json:"upstream_request_id,omitempty"`
	Class             string `json:"class,omitempty"`
	Evidence          string `json:"evidence,omitempty"`
	Action            Action `json:"action"`
	// Counted: the attempt counted against the endpoint's or account's health.
	Counted bool `json:"counted"`
	// Billable: the upstream may have run (and charged for) the attempt.
	Billable bool `json:"billable"`
	// Probe: the attempt was the one probe of a recovering endpoint.
	Probe bool    `json:"probe,omitempty"`
	MS    float64 `json:"ms"`
	// TTFBMS is the time to the upstream's first byte (headers).
	TTFBMS float64 `json:"ttfb_ms,omitempty"`
	// FirstTokenMS is a stream's time to its first content, what its
	// client waited for (its headers may come long before).
	FirstTokenMS float64 `json:"first_token_ms,omitempty"`
	RetryAfterMS int64   `json:"retry_after_ms,omitempty"`
	// Malformed counts stream chunks skipped because they did not parse.
	Malformed int    `json:"malformed,omitempty"`
	Usage     *Usage `json:"usage,omitempty"`
	// CostUSD is the attempt's cost at its target's price: absent when the
	// target has none; 0 when not billable; null, with CostUnknown, when it
	// was billable but its usage is unknown (a cut stream, a timeout).
	CostUSD     *USD `json:"cost_usd,omitempty"`
	CostUnknown bool `json:"cost_unknown,omitempty"`
	// PriceTier names the price of the target's that priced the attempt
	// other than its base one: "long_context" (its input was over the
	// price's long_context threshold) or "fast" (the answer was served in
	// Anthropic's fast mode); "" for the base price (operator review 53:
	// two records of the same tokens cost $0.10 and $0.60, and nothing
	// said why).
	PriceTier string `json:"price_tier,omitempty"`
	// Estimate stands in for Usage and CostUSD in client limits, for a
	// billable attempt whose upstream never said what it used (a stream
	// left or cut before its count, a timeout): nil otherwise. It is
	// recorded, so what a budget charged can be read (operator review 50:
	// a key was refused with every report saying $0), but it is never a
	// cost: the record keeps cost_unknown, and `detour usage` counts it
	// apart (EST_USD).
	Estimate *Estimate `json:"estimate,omitempty"`

	// StartMS is when the attempt began, in milliseconds after the request's
	// Time, so waits between attempts (backoff, Retry-After) can be seen.
	StartMS float64 `json:"start_ms"`
	// Message is a failed attempt's upstream message as UpstreamMessage
	// records it (quoted values masked, ≤ MaxMessage bytes): why it
	// failed, in the upstream's words; an unknown's is what `detour
	// classify --suggest` turns into rules. "" when no upstream answered.
	Message string `json:"message,omitempty"`
	// Continuation is set on an attempt that continued a stream cut after
	// its commit point (a route's on_stream_cut: continue); nil otherwise.
	Continuation *Continuation `json:"continuation,omitempty"`
	// Batches is set on an embeddings attempt sent in several upstream
	// calls (docs/doors.md, "Embeddings"); nil otherwise.
	Batches *Batches `json:"batches,omitempty"`
	// ResentWithout names what the upstream refused by name that Detour
	// then sent the same endpoint the request again without, at once: a
	// member ("encoding_format", "temperature", …) or "thought_signature"
	// (docs/behaviour.md, "Decision record"). Such a refusal is handled,
	// not unplaced: the console's Unknowns and `detour classify --suggest`
	// leave it out (Handled). "" when the attempt was not so answered.
	ResentWithout string `json:"resent_without,omitempty"`
}

// Handled reports whether Detour answered a's failure itself, sending the
// request again adapted (ResentWithout): the operator has nothing to place.
func (a *Attempt) Handled() bool { return a.ResentWithout != "" }

// BudgetUSD is what a's billing counts against a client's budget: 0 when
// not billable; else its known cost, or its Estimate's when that is larger
// (usage unknown or partial). The limits count it so as a request ends,
// and the budget restore reads it back from the log the same way.
func (a *Attempt) BudgetUSD() float64 {
	if !a.Billable {
		return 0
	}
	d := 0.0
	if a.CostUSD.Known() && *a.CostUSD > 0 {
		d = float64(*a.CostUSD)
	}
	if e := a.Estimate; e != nil && e.USD.Known() {
		d = max(d, float64(e.USD))
	}
	return d
}

// CostInFull reports whether a's cost, if priced, is known in full: not
// unknown, and not the lower bound of a cut stream's partial count
// (usage.incomplete), which /metrics and `detour usage` count as unknown
// beside the cost they add (docs/config.md, "Usage and cost").
func (a *Attempt) CostInFull() bool {
	return !a.CostUnknown && (a.Usage == nil || !a.Usage.Incomplete)
}

// Batches describes an embeddings attempt sent as several upstream calls,
// because its endpoint takes fewer inputs per call than the request holds
// (Gemini: 100).
type Batches struct {
	// Of is how many calls the request takes at the endpoint.
	Of int `json:"of"`
	// Reused counts the calls an earlier attempt at the same endpoint
	// answered, whose vectors this one used instead of asking again (a
	// retry starts at the call that failed).
	Reused int `json:"reused,omitempty"`
	// Answered counts the calls this attempt made that came back with
	// their vectors, in order: each ran and is billed by the upstream,
	// whatever became of the attempt.
	Answered int `json:"answered"`
}

// Estimate is what client limits count for an attempt of unknown usage:
// its input, estimated from the size of the request (docs/config.md,
// client_keys); its output, at least one token for each event with content
// the stream relayed to the client; and those at the target's prices (0
// without a price).
type Estimate struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// OutputCeiling: OutputTokens is the most output the request allowed,
	// not a count of any: a whole answer's attempt of a limited key that
	// was sent and ended billable with no answer read (a timeout after the
	// send, a gateway's 504 or 524), whose upstream wrote and billed it all
	// the same (docs/behaviour.md#budgets; review 67d).
	OutputCeiling bool `json:"output_ceiling,omitempty"`
	// USD is the tokens at the target's price; 0 without one.
	USD USD `json:"usd,omitempty"`
}

// Continuation describes how an attempt continued a cut stream
// (docs/behaviour.md#streams).
type Continuation struct {
	// N counts the cuts of this stream continued so far, this one included.
	N int `json:"n"`
	// Mode is "prefill" (the delivered text sent as a trailing assistant
	// message) or "replay" (the request sent again, its output held back
	// until it reproduced the delivered text).
	Mode string `json:"mode"`
	// OffsetChars is how much text, in characters (Unicode code points),
	// the client had received when the stream was cut.
	OffsetChars int `json:"offset_chars"`
	// CutClass is the class of the cut (server_error for an end without a
	// finish reason, timeout for an idle upstream, or an error event's).
	CutClass string `json:"cut_class"`
}

// Usage is the token accounting the upstream reported.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CachedTokens is the part of PromptTokens read from the provider's
	// prompt cache.
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheWriteTokens is the part of PromptTokens written to the
	// provider's prompt cache, which Anthropic bills above plain input
	// (docs/config.md, "Usage and cost").
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// CacheWrite1hTokens is the part of CacheWriteTokens written to
	// Anthropic's 1-hour cache, billed above the 5-minute cache's writes
	// (docs/config.md, "Usage and cost").
	CacheWrite1hTokens int `json:"cache_write_1h_tokens,omitempty"`
	// ReasoningTokens is the part of CompletionTokens the model spent
	// reasoning, where the upstream said (a client is shown it: operator
	// review 53b found the record alone silent on it); 0 when it did not.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// AudioInputTokens is the part of PromptTokens that was audio, and
	// AudioOutputTokens the part of CompletionTokens, where the upstream
	// said (OpenAI's prompt_tokens_details.audio_tokens and
	// completion_tokens_details.audio_tokens, Gemini's token details by
	// modality AUDIO): priced at a target's audio prices (docs/config.md,
	// "Usage and cost"). 0 when it did not say.
	AudioInputTokens  int `json:"audio_input_tokens,omitempty"`
	AudioOutputTokens int `json:"audio_output_tokens,omitempty"`
	// WebSearchRequests and WebFetchRequests are the uses of the
	// provider's server-run web search and web fetch the answer reported
	// (Anthropic's usage.server_tool_use), priced per 1,000 at a target's
	// web_search and web_fetch prices (docs/config.md, "Usage and cost").
	// Absent when 0.
	WebSearchRequests int `json:"web_search_requests,omitempty"`
	WebFetchRequests  int `json:"web_fetch_requests,omitempty"`
	// Incomplete marks counts known to be a lower bound: a stream was cut
	// after its commit point, so an upstream's count is partial or missing
	// (docs/behaviour.md#decision-record). Absent when false.
	Incomplete bool `json:"incomplete,omitempty"`
	// Capped marks a count the upstream reported past what the answer
	// could have used (the request's and the answer's sizes bound it),
	// replaced by Detour's estimate (docs/config.md, "Usage and cost").
	// Absent when false.
	Capped bool `json:"capped,omitempty"`
}

// Input splits the prompt into the input neither read from nor written to
// the provider's cache, the part read from it and the part written to it
// (docs/config.md, "Usage and cost"), each within [0, PromptTokens] and
// together never more: the recorder bounds what it files, but a log read
// back may hold any counts.
func (u *Usage) Input() (plain, cached, written int) {
	prompt := max(u.PromptTokens, 0)
	cached = min(max(u.CachedTokens, 0), prompt)
	written = min(max(u.CacheWriteTokens, 0), prompt-cached)
	return prompt - cached - written, cached, written
}

// Written1h is the part of Input's written input that went to the 1-hour
// cache, within [0, written].
func (u *Usage) Written1h() int {
	_, _, written := u.Input()
	return min(max(u.CacheWrite1hTokens, 0), written)
}

// Audio is the audio part of Input's plain input, and of the output, each
// within [0, that part]: a prompt's cached or cache-written tokens are
// priced as cached or written whatever they were.
func (u *Usage) Audio() (in, out int) {
	plain, _, _ := u.Input()
	return min(max(u.AudioInputTokens, 0), plain), min(max(u.AudioOutputTokens, 0), max(u.CompletionTokens, 0))
}

// ToolUses is the web searches and web fetches, each within [0, 2^53]: a
// log read back may hold any counts.
func (u *Usage) ToolUses() (searches, fetches int) {
	return min(max(u.WebSearchRequests, 0), 1<<53), min(max(u.WebFetchRequests, 0), 1<<53)
}

// Add adds v to u; the sum is incomplete when either is.
func (u *Usage) Add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
	u.CachedTokens += v.CachedTokens
	u.CacheWriteTokens += v.CacheWriteTokens
	u.CacheWrite1hTokens += v.CacheWrite1hTokens
	u.ReasoningTokens += v.ReasoningTokens
	u.AudioInputTokens += v.AudioInputTokens
	u.AudioOutputTokens += v.AudioOutputTokens
	u.WebSearchRequests += v.WebSearchRequests
	u.WebFetchRequests += v.WebFetchRequests
	u.Incomplete = u.Incomplete || v.Incomplete
	u.Capped = u.Capped || v.Capped
}

// Skip is a candidate endpoint that was not tried, and why.
type Skip struct {
	Target   string `json:"target"`
	Provider string `json:"provider"`
	Reason   string `json:"reason"`
}

// Transition is a health state change the request caused.
type Transition struct {
	Scope string `json:"scope"`
	Name  string `json:"name"`
	From  string `json:"from"`
	To    string `json:"to"`
	Class string `json:"class,omitempty"`
	// Until is when the cooldown a change to cooling began ends (UTC);
	// zero for any other change. The change out of cooling is recorded only
	// by the request that next probes, maybe long after (operator review
	// 52b: how long a provider cooled was in the process's log alone).
	Until time.Time `json:"until,omitzero"`
	// Since is, on a change to healthy, since when the endpoint or account
	// had been out: the first cooldown since it last served (UTC); zero
	// when not known and for any other change.
	Since time.Time `json:"since,omitzero"`
}

// NewID returns a random 16-hex-digit decision id.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Millis converts a duration to milliseconds with microsecond precision.
func Millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
