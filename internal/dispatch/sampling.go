package dispatch

import (
	"net/http"
	"slices"
	"strings"

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
var samplingMembers = []string{"temperature", "top_p", "stop", "presence_penalty", "frequency_penalty",
	"logprobs", "top_logprobs", "seed", "logit_bias"}

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
	if w.dropped == nil {
		w.dropped = map[health.Key][]string{}
	}
	w.dropped[e.key] = append(w.dropped[e.key], name)
	return true
}

// samplingRefusal is the member o refuses that refusedSampling drops and
// sends e again without, "" for none. finish reads it too: a probe whose
// request is sent again keeps its slot for the resend (review 48c).
func (w *walk) samplingRefusal(e *endpointRT, o *outcome) string {
	if w.call.Native == nil || o.native || o.status != http.StatusBadRequest || o.verdict.Class != classify.BadRequest ||
		e.prov.cfg.Dialect != classify.OpenAI {
		return ""
	}
	name := refusedMember(o.message)
	if name == "" || !slices.Contains(samplingMembers, name) || slices.Contains(w.dropped[e.key], name) ||
		rawjson.Member(w.call.Body, name) == nil {
		return ""
	}
	return name
}

// refusedMember is the member OpenAI's refusal of one names, in its own
// words ("Unsupported parameter: 'stop' …", "Unsupported value:
// 'temperature' …"); "" for any other message.
func refusedMember(msg string) string {
	for _, p := range []string{"Unsupported parameter: '", "Unsupported value: '"} {
		if _, rest, ok := strings.Cut(msg, p); ok {
			if name, _, ok := strings.Cut(rest, "'"); ok {
				return name
			}
		}
	}
	return ""
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

// withoutDropped is r without the members e refused (refusedSampling).
func (w *walk) withoutDropped(e *endpointRT, r *provider.Request) *provider.Request {
	names := w.dropped[e.key]
	if len(names) == 0 {
		return r
	}
	cp := *r
	for _, n := range names {
		cp.Body = rawjson.Without(cp.Body, n)
	}
	return &cp
}
