package dispatch

import (
	"net/http"
	"slices"
	"strings"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/rawjson"
)

// An embeddings client that names no encoding_format gets base64 from the
// official SDKs (openai-node, openai-python: "if not is_given(encoding_format):
// params["encoding_format"] = "base64"", quoted in plastic-labs/honcho#932),
// and some OpenAI-compatible servers refuse it: vLLM before 0.5.1 answers
// 400 "base64 encoding is not currently supported" (vllm-project/vllm#5734,
// #6174), Jina 400 "extra fields not permitted: ['encoding_format']"
// (1Panel-dev/MaxKB#2639). Both read unknown, and the walk moved on: to
// the route's next target, a model whose vectors the client's index cannot
// use, or, with none, the 400 reached the client, though the server serves
// floats, which Detour encodes itself (openai.checkVectors). Asking every
// OpenAI-compatible server for floats instead is no cure: Voyage AI
// refuses "float" (garrytan/gbrain#735) and ModelScope an absent member
// ("encoding_format must be 'float' or 'base64', got ''",
// AperturePlus/augmented-codebase-indexer#2), while both take base64; and
// floats are 2.3 times the bytes, which Detour then parses and re-encodes
// at some eight times the cost of checking base64
// (BenchmarkEmbeddingsFloatsVsBase64, 100 vectors of 1,536). So base64 goes
// as sent, and only an endpoint that refuses it by name is sent the request
// again, at once, without the member (OpenAI's default is float):
// docs/doors.md, "Embeddings".

// encodingMember is the member a refusal drops (walk.dropped).
const encodingMember = "encoding_format"

// refusedEncoding reports whether o is e's refusal of the client's
// encoding_format base64 (encodingRefusal), and if so drops the member from
// what e is sent from now on (walk.dropped, read by embedRequest): the same
// endpoint is tried again at once, as for a refused sampling member, and
// spends no same-endpoint retry. Once per endpoint: another endpoint is sent
// base64 as the client asked.
func (w *walk) refusedEncoding(e *endpointRT, o *outcome) bool {
	if !w.encodingRefusal(e, o) {
		return false
	}
	w.drop(e, encodingMember)
	return true
}

// encodingRefusal is refusedEncoding's test, changing nothing: finish reads
// it too (a probe whose request is sent again keeps its slot). It is an
// embeddings call whose client sent encoding_format "base64", to an
// openai-dialect endpoint not yet sent it without, answered 400 (the
// sourced refusals) or 422 (a FastAPI server's schema refusal, with
// param encoding_format in vectorize-io/hindsight#1154; a 413 or a 429 is
// another matter) as bad_request or unknown, whose answer names the member
// or the value in its own words (refusesEncoding).
func (w *walk) encodingRefusal(e *endpointRT, o *outcome) bool {
	if w.call.Op != OpEmbeddings || e.prov.cfg.Dialect != classify.OpenAI ||
		o.status != http.StatusBadRequest && o.status != http.StatusUnprocessableEntity ||
		o.verdict.Class != classify.BadRequest && o.verdict.Class != classify.Unknown ||
		slices.Contains(w.dropped[e.key], encodingMember) || !askedBase64(w.call.Body) {
		return false
	}
	return refusesEncoding(o.verdict.Param, o.message)
}

// askedBase64 reports whether an embeddings request body asks for
// encoding_format base64, its escapes decoded as the adapters decode them
// ("base\u0036\u0034" is base64 to them, and gets base64: review 64e).
func askedBase64(body []byte) bool {
	v, ok := rawjson.String(rawjson.Member(body, encodingMember))
	return ok && v == "base64"
}

// refusesEncoding reports whether an error answer whose param and message
// (the upstream's, as the classifier read them; a pydantic detail list's
// message names its loc, "body.encoding_format: Extra inputs are not
// permitted") are param and msg refuses encoding_format or its value
// base64: param is the member, or msg names either as a word of its own.
// The client's text quoted back ("Input 'how base64 encoding works' is too
// long") may read as a refusal too, and is left so on purpose: what it
// buys is one resend without the member, after a 4xx that is not billable,
// answered the same way or served once; nothing cools, pages or bills
// twice on it (docs/doors.md, "Servers that refuse base64").
func refusesEncoding(param, msg string) bool {
	if param == encodingMember {
		return true
	}
	i, _ := firstWord(msg, func(w string) bool { return w == encodingMember || strings.EqualFold(w, "base64") })
	return i >= 0
}
