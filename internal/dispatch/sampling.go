package dispatch

import (
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// samplingMembers are the Chat Completions members a door's translation
// carries from the client's sampling settings, which OpenAI's reasoning
// models refuse by name (gpt-5 and the o-series: 400 "Unsupported
// parameter: 'stop' is not supported with this model", "Unsupported value:
// 'temperature' does not support 0.2 with this model. Only the default (1)
// value is supported."; smolagents#1671, johny-b/llmcomp#69).
// parallel_tool_calls is one too: the door writes it from Anthropic's
// disable_parallel_tool_use, and o3 and o4-mini refuse it by name
// ("Unsupported parameter: 'parallel_tool_calls' is not supported with
// this model.", evalstate/fast-agent#279): without it the model may call
// two tools at once, which every Messages client takes.
var samplingMembers = []string{"temperature", "top_p", "stop", "presence_penalty", "frequency_penalty",
	"logprobs", "top_logprobs", "seed", "logit_bias", "parallel_tool_calls"}

// refusedSampling reports whether o is an openai-dialect endpoint's 400
// refusing a sampling member of a door's translation (the Messages or
// Responses door: the client chose the setting for whichever model the
// route gives it, not for this one), and if so drops that member from
// what e is sent from now on: the same endpoint is tried again at once,
// and the refusal never reaches the client (docs/doors.md, "How the door
// is wired"). A Chat Completions client's own body is its own: its 400 is
// the answer, as before.
func (w *walk) refusedSampling(e *endpointRT, o *outcome) bool {
	name := w.samplingRefusal(e, o)
	if name == "" {
		return false
	}
	w.drop(e, name)
	return true
}

// drop leaves the member name out of what e is sent from now on
// (withoutDropped), and says so on the attempt that refused it.
func (w *walk) drop(e *endpointRT, name string) {
	if w.dropped == nil {
		w.dropped = map[health.Key][]string{}
	}
	w.dropped[e.key] = append(w.dropped[e.key], name)
	w.resentWithout(name)
}

// resentWithout records on the last attempt what its refusal made the
// walk leave out of the request it sends the same endpoint again
// (decision.Attempt.ResentWithout); "" where the walk's budget then
// sends nothing again (endpoint).
func (w *walk) resentWithout(what string) {
	if n := len(w.rec.Attempts); n > 0 {
		w.rec.Attempts[n-1].ResentWithout = what
	}
}

// samplingRefusal is the member o refuses that refusedSampling drops and
// sends e again without, "" for none. finish reads it too: a probe whose
// request is sent again keeps its slot for the resend (review 48c).
func (w *walk) samplingRefusal(e *endpointRT, o *outcome) string {
	if w.call.Native == nil || o.native || o.status != http.StatusBadRequest ||
		o.verdict.Class != classify.BadRequest && o.verdict.Class != classify.Unknown || e.prov.cfg.Dialect != classify.OpenAI {
		return ""
	}
	return refusedMember(o.verdict.Param, o.message, func(name string) bool {
		return !slices.Contains(w.dropped[e.key], name) && rawjson.Member(w.call.Body, name) != nil
	}, func(words string) bool { return classify.Echoed(w.call.sent(), words) })
}

// refusedMember is the sampling member a bad_request refuses, read from
// its structured param first, else from the first member its message
// names as a word of its own: vendors word it differently (OpenAI
// "Unsupported value: 'temperature' …", Moonshot "invalid temperature:
// only 1 is allowed …", xAI "Argument not supported on this model: stop",
// NVIDIA "`top_p` is immutable …"; SambaNova names it in param alone).
// Only a member sent (sent reports one the body carries, not yet dropped)
// counts, and only the first the message names: where the words around it
// are the client's own quoted back (echoed: a vLLM 400 quoting a client's
// file name), there is none. So at most three echo checks are made, each a
// read of the request (review r50: a message of hundreds of members cost
// seconds). A message that names a member by chance costs one resend that
// fails the same way: dropping only ever removes the client's own
// setting, at the endpoint that refused.
func refusedMember(param, msg string, sent, echoed func(string) bool) string {
	if slices.Contains(samplingMembers, param) && sent(param) {
		return param
	}
	i, j := firstWord(msg, func(w string) bool { return slices.Contains(samplingMembers, w) && sent(w) })
	if i < 0 || quoted(msg, i, j, echoed) {
		return ""
	}
	return msg[i:j]
}

// firstWord is where the first word of msg (a run of wordByte) that match
// takes lies, msg[i:j]; i is -1 where none does.
func firstWord(msg string, match func(string) bool) (i, j int) {
	for i = 0; i < len(msg); {
		j = i
		for j < len(msg) && wordByte(msg[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		if match(msg[i:j]) {
			return i, j
		}
		i = j
	}
	return -1, -1
}

// quoted reports whether the member msg[i:j] is the client's text quoted
// back. Its blank-delimited token, edges trimmed, holding more than the
// member (a path, a file name: "/home/alice/temperature.png") is judged
// alone. Otherwise the token with the word before it, and with the word
// after it, are: an echo runs on into the client's own words on one side
// at least, where the upstream's framing sits on the other ("The file
// path /data/red stop sign.jpg must be a subpath"). A prompt that holds
// the member beside the same word as the refusal does ("what `top_p` is")
// makes the refusal read as an echo: the client's text is never evidence,
// so its setting is then kept and the 400 is its answer (reviews r50,
// r50b). At most three reads of the request.
func quoted(msg string, i, j int, echoed func(string) bool) bool {
	ti := strings.LastIndexByte(msg[:i], ' ') + 1
	tj := j + strings.IndexByte(msg[j:]+" ", ' ')
	if core := strings.TrimFunc(msg[ti:tj], func(r rune) bool { return r < utf8.RuneSelf && !wordByte(byte(r)) }); core != msg[i:j] {
		return echoed(core)
	}
	// A side with no word beside the token proves nothing: the member's
	// name alone is in every request that sets it.
	if ti > 1 {
		if from := strings.LastIndexByte(msg[:ti-1], ' ') + 1; from < ti-1 && echoed(msg[from:tj]) {
			return true
		}
	}
	if tj < len(msg) {
		if to := tj + 1 + strings.IndexByte(msg[tj+1:]+" ", ' '); to > tj+1 {
			return echoed(msg[ti:to])
		}
	}
	return false
}

// wordByte reports a byte of a member name: a letter, a digit or '_'.
func wordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// giveBackProbe gives back the probe slot a walk holds at e: one kept for
// a resend (samplingRefusal) that the budget then did not allow. A
// function of its own, so endpoint's frame, which a relayed stream stays
// parked under, does not grow (TestDoorStreamHandlerStackStays8KiB).
//
//go:noinline
func (w *walk) giveBackProbe(e *endpointRT) {
	w.tell(e.key, health.Report{Release: true, Lease: w.leaseOf(e.key)})
}

// withoutDropped is r without the members e refused (refusedSampling, and
// an embeddings request's encoding_format: refusedEncoding), and without
// the thought signatures it refused (refusedSignature).
func (w *walk) withoutDropped(e *endpointRT, r *provider.Request) *provider.Request {
	names := w.dropped[e.key]
	if len(names) == 0 && !w.unsealed[e] {
		return r
	}
	cp := *r
	cp.Unsealed = w.unsealed[e]
	for _, n := range names {
		cp.Body = rawjson.Without(cp.Body, n)
	}
	return &cp
}
