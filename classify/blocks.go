package classify

import (
	"bytes"
	"net/http"
	"strings"
)

// A 2xx is a success unless its body shows an error or a block. Telling a
// well-formed answer from an unusable one (unparseable JSON, empty choices)
// is the adapters' job: the classifier returns Failed=false for those.
//
// Blocks (refusal, evidence naming the field):
//   - Gemini promptFeedback.blockReason (any value but BLOCK_REASON_UNSPECIFIED);
//   - Gemini candidates[].finishReason SAFETY, PROHIBITED_CONTENT, BLOCKLIST,
//     SPII, RECITATION, IMAGE_SAFETY, IMAGE_PROHIBITED_CONTENT,
//     IMAGE_RECITATION, MODEL_ARMOR (Vertex's Model Armor template) with
//     no content parts (a thought, or a part with only an empty text and a
//     thoughtSignature, is none: facts.endPart). RECITATION is a refusal: the
//     vendor's policy machinery withheld the answer (it would recite protected
//     text), no content came back, and another vendor may answer; it
//     describes the request, so it never cools the endpoint;
//   - OpenAI choices[].finish_reason content_filter with no content and no
//     tool call, and a Responses API answer (or response.incomplete event)
//     whose incomplete_details.reason is content_filter, with no output text
//     and no function call;
//   - Anthropic stop_reason "refusal" (the answer was stopped by the safety
//     classifiers; partial text is not the answer).
//
// OpenAI's message.refusal (a model politely declining in structured output)
// is an answer, not a block: it stays a success.
//
// No answer at all: a finish that says the model's own tool call failed
// (Gemini's MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, also as an
// OpenAI-shaped finish_reason a relay passes through) with no content and no
// tool call is unknown (UNEXPECTED_TOOL_CALL even beside its call, to a
// function the request never declared), as a provider's tool_use_failed is: neither the
// client's input nor the provider's outage, and another attempt or target
// may do better; so is TOO_MANY_TOOL_CALLS. So is an image model's NO_IMAGE
// ("expected to generate an image, but none was generated") or IMAGE_OTHER,
// and Gemini's MALFORMED_RESPONSE: its own output failed. So are LANGUAGE
// (a language this model does not serve) and MISSING_THOUGHT_SIGNATURE (a
// conversation this model wants its own signatures in): this endpoint's
// limits, which another vendor may not have. So is a Gemini
// candidate that stopped for an unspecified reason (OTHER) with no content:
// an answer that cannot be used, but which prompts end so depends on the
// prompt (as RECITATION does), so it moves on and cools nothing. An empty
// answer with any other finish is the adapters' to judge.

var geminiBlocks = map[string]string{}

var blockReasons = map[string]string{}

// toolFailures are the finishes of a model whose own tool call failed, with
// their evidence in each shape.
var toolFailures = [...]struct{ reason, gemini, openai string }{
	{"MALFORMED_FUNCTION_CALL", "gemini:finishReason=MALFORMED_FUNCTION_CALL", "openai:finish_reason=MALFORMED_FUNCTION_CALL"},
	{"UNEXPECTED_TOOL_CALL", "gemini:finishReason=UNEXPECTED_TOOL_CALL", "openai:finish_reason=UNEXPECTED_TOOL_CALL"},
	{"TOO_MANY_TOOL_CALLS", "gemini:finishReason=TOO_MANY_TOOL_CALLS", "openai:finish_reason=TOO_MANY_TOOL_CALLS"},
}

// vendorFinishes are OpenAI-shaped finish reasons other vendors document
// for an answer that did not happen: DeepSeek's insufficient_system_resource
// and Zhipu's network_error (the provider's failure), Zhipu's sensitive (a
// block), Zhipu's model_context_window_exceeded and Mistral's model_length
// (the window). With content the provider's failures still fail (the
// answer was cut); the others are an answer cut short, which the openai
// adapter writes with OpenAI's finish (content_filter, length). The
// adapter's lists are held equal to this one by
// internal/provider/openai/finish_agree_test.go, which reads it.
var vendorFinishes = map[string]struct {
	class Class
	ev    string
}{
	"insufficient_system_resource":  {ServerError, "openai:finish_reason=insufficient_system_resource"},
	"network_error":                 {ServerError, "openai:finish_reason=network_error"},
	"sensitive":                     {Refusal, "openai:finish_reason=sensitive"},
	"model_context_window_exceeded": {ContextLength, "openai:finish_reason=model_context_window_exceeded"},
	"model_length":                  {ContextLength, "openai:finish_reason=model_length"},
}

// stopReasonEv is the evidence of each vendorFinishes reason read as an
// Anthropic stop_reason.
var stopReasonEv = func() map[string]string {
	m := make(map[string]string, len(vendorFinishes))
	for k := range vendorFinishes {
		m[k] = "anthropic:stop_reason=" + k
	}
	return m
}()

// unexpectedToolCall is UNEXPECTED_TOOL_CALL's index in toolFailures: a
// call to a function the request did not declare (or with no tools at
// all), a failure even with that call in the answer, which the client
// cannot run.
const unexpectedToolCall = 1

// toolFailure returns the index in toolFailures of the finish r names (case
// aside), -1 for none.
func toolFailure(r []byte) int {
	if i := bytes.LastIndex(r, []byte(": ")); i >= 0 {
		// Gemini's OpenAI-compatible endpoint names the filter that
		// dropped the call before the reason ("function_call_filter:
		// MALFORMED_FUNCTION_CALL"; round 58, hunt 58d): read the reason.
		r = r[i+2:]
	}
	for i := range toolFailures {
		if t := toolFailures[i].reason; len(r) == len(t) && bytes.EqualFold(r, []byte(t)) {
			return i
		}
	}
	return -1
}

func init() {
	for _, r := range []string{"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR"} {
		geminiBlocks[r] = "gemini:finishReason=" + r
	}
	for _, r := range []string{"SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY"} {
		blockReasons[r] = "gemini:blockReason=" + r
	}
}

// success classifies a 2xx body. The allocation-free walk of scan.go is its
// own pre-check: on a normal answer it touches only the structure (strings
// are skipped with IndexByte), which measured six times faster than
// searching the body for markers.
func success(h http.Header, body []byte, stream bool, req []byte, model string) Verdict {
	if len(body) == 0 {
		return Verdict{}
	}
	s := scanners.Get()
	defer putScanner(s)
	s.readBody(body)
	f := &s.f
	if f.hasError {
		return decodedError(h, body, f, stream, req, model)
	}
	if br := f.blockReason; len(br) > 0 && !eq(br, "BLOCK_REASON_UNSPECIFIED") && !eq(br, "BLOCKED_REASON_UNSPECIFIED") { // both spellings of the default
		ev, ok := blockReasons[string(br)]
		if !ok {
			ev = "gemini:blockReason"
		}
		return Verdict{Failed: true, Class: Refusal, Evidence: ev}
	}
	// A filter's finishReason ends a candidate with no content, or one that
	// called a function: the client must not run a call the filter flagged
	// (a stream's last chunk too; the gemini adapter fails the stream
	// there). Text or an image before it is an answer, cut.
	if ev, ok := geminiBlocks[string(f.finishReason)]; ok && (!f.geminiParts || f.geminiCall) {
		return Verdict{Failed: true, Class: Refusal, Evidence: ev}
	}
	if eq(f.oaiFinish, "content_filter") && !f.oaiContent {
		return Verdict{Failed: true, Class: Refusal, Evidence: "openai:finish_reason=content_filter"}
	}
	if len(f.oaiFinish) > 0 {
		// An answer with content is not looked at, but for the provider's
		// own failure: that answer was cut, not finished (probe 57a: a cut
		// tool call read as one to run), and the walk moves on.
		if r, ok := vendorFinishes[string(f.oaiFinish)]; ok && (r.class == ServerError || !f.oaiContent && !f.oaiReasoning) {
			return Verdict{Failed: true, Class: r.class, Evidence: r.ev}
		}
	}
	if f.respFilter && !f.respContent {
		return Verdict{Failed: true, Class: Refusal, Evidence: "openai:incomplete_details.reason=content_filter"}
	}
	if eq(f.stopReason, "refusal") {
		return Verdict{Failed: true, Class: Refusal, Evidence: "anthropic:stop_reason=refusal"}
	}
	if !f.antContent && f.wholeStop && len(f.stopReason) > 0 {
		// An Anthropic-shaped whole message with no content whose stop
		// reason says the answer did not happen (Z.ai's Anthropic-compatible
		// endpoint: content [], stop_reason model_context_window_exceeded,
		// a 200, for a conversation past the window), read as the same
		// finish reason in OpenAI's shape is. With content, an answer cut
		// short, as Anthropic means it.
		if r, ok := vendorFinishes[string(f.stopReason)]; ok {
			return Verdict{Failed: true, Class: r.class, Evidence: stopReasonEv[string(f.stopReason)]}
		}
	}
	if i := toolFailure(f.finishReason); i >= 0 && (!f.geminiParts || i == unexpectedToolCall) {
		return Verdict{Failed: true, Class: Unknown, Evidence: toolFailures[i].gemini}
	}
	if !f.geminiParts {
		switch {
		case eq(f.finishReason, "NO_IMAGE"):
			return Verdict{Failed: true, Class: Unknown, Evidence: "gemini:finishReason=NO_IMAGE"}
		case eq(f.finishReason, "OTHER"):
			return Verdict{Failed: true, Class: Unknown, Evidence: "gemini:finishReason=OTHER"}
		case eq(f.finishReason, "FINISH_REASON_UNSPECIFIED"): // nothing generated and no reason given, as OTHER
			return Verdict{Failed: true, Class: Unknown, Evidence: "gemini:finishReason=FINISH_REASON_UNSPECIFIED"}
		case eq(f.finishReason, "IMAGE_OTHER"):
			return Verdict{Failed: true, Class: Unknown, Evidence: "gemini:finishReason=IMAGE_OTHER"}
		case eq(f.finishReason, "LANGUAGE"):
			return Verdict{Failed: true, Class: Unknown, Evidence: "gemini:finishReason=LANGUAGE"}
		case eq(f.finishReason, "MALFORMED_RESPONSE"):
			return Verdict{Failed: true, Class: Unknown, Evidence: "gemini:finishReason=MALFORMED_RESPONSE"}
		case eq(f.finishReason, "MISSING_THOUGHT_SIGNATURE"):
			return Verdict{Failed: true, Class: Unknown, Evidence: "gemini:finishReason=MISSING_THOUGHT_SIGNATURE"}
		}
	}
	if i := toolFailure(f.oaiFinish); i >= 0 && !f.oaiContent {
		return Verdict{Failed: true, Class: Unknown, Evidence: toolFailures[i].openai}
	}
	if eq(f.oaiFinish, "error") && !f.oaiContent {
		// OpenRouter's normalised finish_reason "error" with nothing
		// generated and no error member saying more: no answer, and no
		// proof of whose fault; the walk moves on.
		return Verdict{Failed: true, Class: Unknown, Evidence: "openai:finish_reason=error"}
	}
	return Verdict{}
}

// scanners keep success's scanners: every stream's first events and every
// whole answer are read by success, on the request's goroutine, and its
// kilobyte on the stack took a relayed stream's goroutine past 8 KiB of
// stack, which it keeps for the stream's life (docs/benchmarks.md,
// "Round 6").
var scanners = make(freeList[scanner], bufFree)

// putScanner hands s back, holding no body.
func putScanner(s *scanner) {
	*s = scanner{}
	scanners.Put(s)
}

// decodedError classifies the error in a 2xx body with its text decoded
// (unescape.go), f being the facts of body as it came.
func decodedError(h http.Header, body []byte, f *facts, stream bool, req []byte, model string) Verdict {
	d, buf := decoded(body)
	if buf == nil {
		return errorIn2xx(h, body, f, stream, req, model)
	}
	var s scanner
	s.readBody(d)
	v := errorIn2xx(h, d, &s.f, stream, req, model)
	textBufs.Put(buf)
	return v
}

// errorIn2xx classifies an error carried by a 2xx body or an SSE error event,
// like the same error sent as a status: a numeric HTTP-like code
// (OpenRouter's {"error":{"code":402}}, vLLM's "code":400) stands for the
// status; without one the default is server_error (the provider accepted the
// request and then failed it), except in an envelope that carries every error
// with a 200 (Baidu error_code, MiniMax base_resp, a vendor's own status
// envelope: scan.go, statusEnvelope), where the default is unknown: that 200
// says nothing, as a 400 says nothing.
func errorIn2xx(h http.Header, body []byte, f *facts, stream bool, req []byte, model string) Verdict {
	st := f.numCode
	if st < 400 || st > 599 {
		st = 0
	}
	evs, echoLead := &codeStatusEvidence, false
	if st == 0 {
		// A server that prints its status before its message, inside an
		// error event ("400: Invalid value: Response with id … not found",
		// Llama Stack's stream): the answer it would have sent with it.
		// Where the client's request holds that message, the event is the
		// client's text: it cools nothing (unknown), whatever it says.
		var s int
		if s, echoLead = colonStatusLead(f, req); s > 0 {
			st, evs = s, &relayedEvidence
		}
	}
	switch {
	case st >= 500:
		return fiveXX(st, evs[st], h, body, f, req, model)
	case st >= 400 && statusFixed[st]:
		return withRetry(fixedVerdict(st, evs[st], f, body, req, model), h, f, req)
	case st >= 400:
		if v, ok := ownRequest(f, body, req, model); ok {
			return v
		}
		// Read as the same answer sent with that status is: a model's
		// status it relays (SageMaker), an upstream answer it quotes.
		if v, ok := relayedAnswer(st, h, body, req, model); ok {
			return v
		}
		if v, ok := relayedByModel(h, body, f, req, model); ok {
			return v
		}
		v := priced(decide(statusClass[st], evs[st], h, body, f, req, model), f, body, req, model)
		if st == 424 && v.Failed && v.Class == Unknown && v.Evidence == evs[st] {
			v = failedDependency(v, f, body, req, model)
		}
		return withRetry(v, h, f, req)
	}
	if f.codeInBody != "" {
		return withRetry(decide(Unknown, f.codeInBody, h, body, f, req, model), h, f, req)
	}
	if f.validation {
		// The same checks TGI answers with a 422 before a stream starts: as
		// the 422 says nothing, the words decide.
		return withRetry(decide(Unknown, "tgi:error_type=validation", h, body, f, req, model), h, f, req)
	}
	// An error event whose type says the request was refused as invalid
	// (Anthropic's invalid_request_error mid-stream, as relays send it once
	// the stream has begun; OpenAI's Responses stream names the type
	// invalid_request): read as the 400 it stands for, so its words
	// decide where they prove something; where they prove nothing the
	// event stays the server's.
	if (eq(f.errType, "invalid_request_error") || eq(f.errType, "invalid_request")) && !echoLead {
		ty := "type:invalid_request_error"
		if eq(f.errType, "invalid_request") {
			ty = "type:invalid_request"
		}
		if v := decide(Unknown, ty, h, body, f, req, model); !strings.HasPrefix(v.Evidence, ty) {
			return withRetry(v, h, f, req)
		}
		// Words that prove nothing ("Upstream request failed", a relay's
		// own failure stamped with the type): the server's, as before.
	}
	ev, def := "body:error", ServerError
	if stream || f.sseError {
		ev = "stream:error"
	}
	if echoLead {
		ev, def = ev+"+echo", Unknown
	}
	v := decide(def, ev, h, body, f, req, model)
	if v.Evidence == ev && !echoLead {
		// Nothing else spoke: words only a generation that failed to parse
		// writes in a 2xx (twoXXPhrases).
		ts := textScan{f: f, body: bodyText(f, body), raw: body, req: req, model: model}
		if i := ts.pick(twoXXPhrases, 0); i < len(twoXXPhrases.list) {
			p := &twoXXPhrases.list[i]
			v = Verdict{Failed: true, Class: p.class, Evidence: p.evidence}
		}
	}
	return withRetry(v, h, f, req)
}
