package classify

import "bytes"

// modelRefusesDelivery reports OpenAI's unsupported_value refusal of the
// request's delivery mode or of a role of its conversation "with this
// model" (o1 at launch: "Unsupported value: 'stream' does not support true
// with this model. Only the default (false) value is supported."; o1-mini:
// "Unsupported value: 'messages[0].role' does not support 'system' with
// this model."), and which of the two it is ("stream" or "role"). Round 44
// made a model's refusal of a named parameter the client's; as a hosted
// tool (round 46), streaming and the roles of a conversation are what the
// client asks for, not a knob it can drop for one target, and other models
// serve them: a capability gap (docs/behaviour.md, "A capability gap
// outranks a bare param"). The param is the answer's own param member, the
// code its unsupported_value, and the message must open with OpenAI's words
// naming that very param; a message the client's request holds is no proof.
func modelRefusesDelivery(f *facts, req []byte) string {
	if !eq(f.errCode, "unsupported_value") {
		return ""
	}
	p := paramValue(f.param)
	what := ""
	switch {
	case eq(p, "stream"):
		what = "unsupported_value:stream"
	case messageRole(p):
		what = "unsupported_value:role"
	default:
		return ""
	}
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		t = t[relayLabel(t):]
		if !hasPrefixFold(t, "unsupported value: '") {
			continue
		}
		t = t[len("unsupported value: '"):]
		if !bytes.HasPrefix(t, p) || !hasPrefixFold(t[len(p):], "' does not support ") || !containsFold(t, "with this model") {
			continue
		}
		if len(req) > 0 && echoed(req, t) {
			return ""
		}
		return what
	}
	return ""
}

// messageRole reports a param naming a message's role: messages[N].role
// (input[N].role on the Responses API).
func messageRole(p []byte) bool {
	for _, pre := range [...]string{"messages[", "input["} {
		if !bytes.HasPrefix(p, []byte(pre)) {
			continue
		}
		rest := p[len(pre):]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		return j > 0 && string(rest[j:]) == "].role"
	}
	return false
}

// modelGapPhrases read a 405 whose words say a model lacks what the
// request asks (TrueFoundry relaying DeepInfra with the upstream's code
// copied into the HTTP status: "deepinfra error: json_object response
// format is not supported for model: stepfun-ai/Step-3.5-Flash"): not
// Method Not Allowed, a capability gap of one model, which other models
// serve (round 54c). Said of a model only; a 405 that names an HTTP method
// anywhere stays fixed (methodWords).
var modelGapPhrases = newPhraseSet([]phrase{
	{a: "not supported for model", class: Unknown, evidence: "405:model-gap"},
	{a: "not supported by this model", class: Unknown, evidence: "405:model-gap"},
	{a: "model", b: "does not support", gap: 40, clause: true, class: Unknown, evidence: "405:model-gap"},
})

// httpMethods are the request methods a 405 names when it is what its
// status says (Cloudflare's "GET not supported for requested URI.",
// GPT4All's "Only POST requests are accepted.").
var httpMethods = [...]string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}

// methodWords reports whether any text or the code of f names an HTTP
// method: a method as a whole upper-case word, or the words "method" or
// "requests are accepted".
func methodWords(f *facts) bool {
	if containsFold(f.errCode, "method") {
		return true
	}
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if containsFold(t, "method") || containsFold(t, "requests are accepted") {
			return true
		}
		for _, m := range httpMethods {
			for j := 0; j+len(m) <= len(t); {
				k := bytes.Index(t[j:], []byte(m))
				if k < 0 {
					break
				}
				k += j
				end := k + len(m)
				if (k == 0 || !wordByte(t[k-1])) && (end == len(t) || !wordByte(t[end])) {
					return true
				}
				j = end
			}
		}
	}
	return false
}

// wordByte reports an ASCII letter, digit or underscore.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
