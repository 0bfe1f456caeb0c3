package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/detour-llm/detour/internal/dispatch"
)

// POST /v1/completions: OpenAI's legacy Completions API ("prompt", often
// with "suffix" for fill-in-the-middle), which editor autocomplete, the
// OpenAI SDKs' completions resource, LangChain's OpenAI LLM and
// LlamaIndex's OpenAILike still call (docs/doors.md, "Legacy
// Completions"). It has no translation: the client's body goes, only
// "model" replaced, to the route's targets whose provider says
// completions: true (a passthrough, dispatch.Native), and their answer or
// events come back as they came. Any other target is passed over unsent
// (evidence "translate"). The front, limits, walk, record and metrics are
// the chat door's.

// completionsMembers are the top-level members Detour reads of a
// Completions body: model and stream at the front, prompt, n, best_of,
// max_tokens and logprobs for estimates and bounds (dispatch). A name
// differing from one only by case is refused, as on the chat door.
var completionsMembers = foldMap("model", "stream", "prompt", "suffix", "max_tokens", "n", "best_of",
	"logprobs", "echo", "stream_options")

// errCompletionsUnserved is why a target whose provider does not serve the
// Completions API is passed over without a call.
var errCompletionsUnserved = unservedError("only a provider with completions: true serves the legacy Completions API (/v1/completions), which has no translation")

// unservedError is the reason an API with no translation is not sent to a
// target; its code (dispatch.Native.Untranslated's ErrorCode) is the
// client's, should no target answer.
type unservedError string

func (e unservedError) Error() string     { return string(e) }
func (e unservedError) ErrorCode() string { return codeAPINotServed }

// codeAPINotServed is the code of a request whose route has no target
// serving its API.
const codeAPINotServed = "api_not_served"

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	d := openAIDoor("completions", dispatch.OpChat, completionsMembers)
	a := s.admit(w, r, d)
	if a == nil {
		return
	}
	defer s.end(a) // the body is kept for failover until the request ends
	if !a.st.Dispatcher.NativeOnRoute(a.model, dispatch.APICompletions) {
		s.refuse(w, d, http.StatusBadRequest, codeAPINotServed, completionsUnserved(a))
		return
	}
	if a.stream && dispatch.CompletionChoices(a.body) > dispatch.MaxStreamChoices {
		// Review 65f: a stream's reader follows at most MaxStreamChoices choices
		// and drops the chunks of any more as malformed; 1,100 prompts
		// streamed ended with [DONE], outcome ok, 76 completions missing.
		s.refuse(w, d, http.StatusBadRequest, "invalid_request", fmt.Sprintf(
			`a streamed /v1/completions request may have at most %d choices ("n" times the prompts) answered: send the prompts in smaller batches, or without "stream"`, dispatch.MaxStreamChoices))
		return
	}
	call := &dispatch.Call{Model: a.model, Stream: a.stream, API: dispatch.APICompletions,
		Native: &dispatch.Native{API: dispatch.APICompletions, Body: a.body, Untranslated: errCompletionsUnserved}}
	if !s.begin(w, r, d, a, call) {
		return
	}
	if call.Stream {
		// The upstream's chunks are written as data events as they came,
		// then [DONE]; a failure after the commit point is the chat
		// door's error event.
		call.Out = newSSEOutput(w, call.ID, call.Model)
	}
	s.do(w, r, d, a, call)
}

// completionsUnserved is the 400's message for a's route, none of whose
// targets serves the Completions API: which names the client key may call
// do.
func completionsUnserved(a *admitted) string {
	names := visible(a.st.Dispatcher.NativeNames(dispatch.APICompletions), a.st.Config.Allowed(a.client))
	msg := fmt.Sprintf("no target of %q serves /v1/completions, the legacy Completions API: Detour sends it only to a provider with completions: true, and does not translate it to Chat Completions; ",
		cut(a.model, maxModelQuote))
	if len(names) == 0 {
		return msg + "no route or target you may call serves it (use /v1/chat/completions)"
	}
	return msg + "routes and targets that serve it: " + strings.Join(names, ", ")
}
