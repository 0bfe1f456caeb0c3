package dispatch

import (
	"bytes"
	"strings"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/rawjson"
)

// A passthrough whose path is the operator's claim (a provider's
// completions: true or responses: true), not one every server of the
// dialect has, may meet a server without it: a 404 that says nothing else
// is read as that wrong claim (unknown, nothing cools), not as a gone
// model (docs/config.md, "completions"; docs/doors.md, "Legacy
// Completions").

// unservedPathEvidence is the evidence of a bare 404 to a passthrough
// whose path is the operator's claim (unservedPath), by API.
var unservedPathEvidence = map[string]string{
	APICompletions: decision.UnservedPathEvidence("/completions", "completions"),
	APIResponses:   decision.UnservedPathEvidence("/responses", "responses"),
}

// unservedPath reads v, the verdict of an error answer to attempt o, again
// when it is a bare 404 — one the classifier read only by its status (no
// code, no words: "Not Found", FastAPI's {"detail":"Not Found"}, Go's
// "404 page not found"), or one in a server's own missing-route words
// and nothing else (missingRoute) — to a passthrough whose path the operator
// claimed (completions: true, responses: true) rather than one every
// server of the dialect has. The claim is not a fact, and a server
// without the path answers so; a gone model says so, in words or a code,
// and stays unavailable. As unavailable, the wrong claim cooled the
// endpoint for unavailable_cooldown, taking it from the chat requests it
// serves, and stopped an ordered route's walk (review 65f). It is unknown
// instead: counted against nobody, no cooldown, the walk moves on, and
// the record's evidence says what to check. The classifier's status:404
// is also a 404 in words it does not know: one whose body (the first
// classify.MaxBody bytes) names model, the endpoint's, is about the model
// and stays unavailable (review 65h: "Deployment llama-3 has been
// retired" never cooled, and was recorded as having no words), but not
// where the name is only in text the client wrote and the upstream quoted
// back (namesModel: review 65k). One in other words it does not know is
// unknown too, but its evidence is not the bare 404's, which the console's
// Unknowns and --suggest leave out (review 65k: every such answer was
// recorded as having no words, and hidden from the operator who would
// place its words).
func (w *walk) unservedPath(v classify.Verdict, o *outcome, body []byte, model string) classify.Verdict {
	if !o.native || v.Class != classify.Unavailable {
		return v
	}
	ev, claimed := unservedPathEvidence[w.call.Native.API]
	if !claimed || w.namesModel(body, model) {
		return v
	}
	bare := bare404(body)
	switch {
	case v.Evidence == "status:404" && !bare:
		ev = unreadPathEvidence[w.call.Native.API]
	case v.Evidence != "status:404" && !(missingRoute[v.Evidence] && bare):
		return v
	}
	return classify.Verdict{Failed: true, Class: classify.Unknown, Evidence: ev}
}

// missingRoute holds the evidence of the classifier's verdicts that are a
// web server's missing route in its own words, when nothing else is said
// (bare404): llama.cpp's {"error":{"code":404,"message":"File Not
// Found","type":"not_found_error"}} and LM Studio's "Unexpected endpoint
// or method. (POST /v1/completions)". Sent to a path the operator claimed,
// they are that claim's fault, not a gone model's (round 65 left them
// cooling the endpoint). A not_found_error that names anything else
// (Anthropic's "model: claude-…") is no bare answer and stays.
var missingRoute = map[string]bool{
	"type:not_found_error":       true,
	"phrase:unexpected endpoint": true,
}

// unreadPathEvidence is the evidence of a 404 to a passthrough whose path
// is the operator's claim, in words the classifier does not know that do
// not name the model (unservedPath), by API.
var unreadPathEvidence = map[string]string{
	APICompletions: "status:404 (words unread, from {base_url}/completions: a gone model, or a server without the path; check the provider's completions: true)",
	APIResponses:   "status:404 (words unread, from {base_url}/responses: a gone model, or a server without the path; check the provider's responses: true)",
}

// bare404 reports whether body, a 404's, says nothing but that the path is
// not found: empty, a web server's HTML page, or a message (the whole body
// where it has none the classifier reads) whose words are those every web
// framework's missing route uses — FastAPI's {"detail":"Not Found"},
// Go's "404 page not found", llama.cpp's "File Not Found", Express's
// "Cannot POST /v1/completions", Spring's {"status":404,"error":"Not
// Found","path":…}, LM Studio's "Unexpected endpoint or method. (POST
// /v1/completions)" — and numbers.
func bare404(body []byte) bool {
	t := bytes.TrimSpace(body)
	if len(t) > 0 && t[0] == '<' {
		return true
	}
	if m := classify.AnswerMessage(body); m != "" {
		t = []byte(m)
	}
	for _, word := range bytes.FieldsFunc(bytes.ToLower(t), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if !bareWords[string(word)] && strings.Trim(string(word), "0123456789") != "" {
			return false
		}
	}
	return true
}

// bareWords are the words of a missing route's 404 (bare404), the JSON
// member names of its envelopes among them.
var bareWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`404 not found page file the requested url path route endpoint resource
		cannot post v1 completions responses error errors detail message status code type object null
		invalid request timestamp t unexpected or method`) {
		m[w] = true
	}
	return m
}()

// maxNamings bounds how many of a body's namings of the model namesModel
// reads, each a pass over the request: the upstream's own words come
// before what it quotes of the request, and a body quoting the client's
// text over and over costs no more.
const maxNamings = 4

// namesModel reports whether body, an error answer, names model (ASCII
// case folded) in the upstream's own words: in a JSON string, or the text
// between two, that the client's request does not hold (classify.Echoed,
// against the client's body without its top-level model, the route's
// name: review 65k, where a prompt naming the endpoint's model, quoted
// back by a server without the path, kept its bare 404 unavailable and
// cooled the endpoint for everyone).
func (w *walk) namesModel(body []byte, model string) bool {
	if model == "" {
		return false
	}
	lower, m := bytes.ToLower(body), []byte(strings.ToLower(model))
	var req []byte
	for at, n := 0, 0; n < maxNamings; n++ {
		i := bytes.Index(lower[at:], m)
		if i < 0 {
			return false
		}
		i += at
		s, e := i, i+len(m)
		for s > 0 && !(body[s-1] == '"' && !rawjson.EscapedAt(body, s-1)) {
			s--
		}
		for e < len(body) && !(body[e] == '"' && !rawjson.EscapedAt(body, e)) {
			e++
		}
		if req == nil {
			req = rawjson.Without(w.call.sent(), "model")
		}
		if !classify.Echoed(req, string(body[s:e])) {
			return true
		}
		at = i + len(m)
	}
	return false
}
