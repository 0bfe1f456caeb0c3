package classify

import "bytes"

// facts is what a body says, in the shapes of every dialect.
type facts struct {
	parsed   bool // the body began as JSON and at least one member was read
	hasError bool // an error object/string, "type":"error" or "object":"error"
	sseError bool // an SSE `event: error`
	// validation: TGI's stream error of its input checks ("error_type":
	// "validation"): the request's, not the provider's failure.
	validation bool
	plain      bool // a plain-text error body, read as its one text (readAnswer)

	// codeInBody names a vendor envelope that reports errors with any
	// status, 200 included, and a code in the body (Baidu's non-zero
	// error_code, MiniMax's base_resp.status_code, a vendor's status
	// envelope: statusEnvelope): such a status says
	// nothing, so a 2xx carrying one defaults to unknown, not server_error.
	codeInBody string

	errCode, errType, errStatus, param, innerCode []byte // error.* (or top level)
	topCode, topType, amzType                     []byte // top-level code/type, __type
	topCodeIn                                     string // the top-level member topCode was read in: "code", "errorCode", "error_code", "reason", "errors", "detail"
	numCode                                       int    // a numeric error.code / code (HTTP-like)
	baseCode                                      []byte // MiniMax base_resp.status_code, when not 0

	// A vendor's own status envelope ({"status":"434","msg":"…","body":null},
	// {"code":10003,"message":"…"}): a top-level integer status, a top-level
	// msg/errmsg, a top-level message-like text, and whether any top-level
	// member carries an answer (payload). scanJSON reads them together
	// (statusEnvelope).
	topStatus int
	topMsg    []byte
	// A top-level status object (NAVER CLOVA Studio: {"status":{"code":
	// "40003","message":"…"}}): its code and message, read together
	// (statusObject).
	statusCode, statusMsg []byte
	topText               bool
	payload               bool
	topKeys               int // top-level members read (a lone message: statusEnvelope)

	texts  [maxTexts][]byte // messages, error strings, metadata.raw
	nTexts int

	workerText []byte // a top-level "text": FastChat's worker error message beside its error_code

	// An OAuth 2.0 token endpoint's error (RFC 6749 §5.2:
	// {"error":"invalid_grant","error_description":"…"}): the top-level
	// error string, and whether an error_description stood beside it.
	oauthError []byte
	oauthDesc  bool

	reasons  [maxReasons][]byte // Gemini ErrorInfo reasons
	nReasons int

	detailCode []byte // Anthropic's error.details.error_code (details.go)
	// OpenRouter's error_type (error.metadata, error, response, top
	// level, choices[].error.metadata) and error.availability.code
	// (openrouter.go).
	routerType, routerAvail []byte

	perDay, perMinute bool   // Gemini QuotaFailure quotaId periods
	inputQuota        bool   // the Gemini violation being read counts input tokens (quotaPeriod)
	tokenCap          int64  // that violation's quotaValue (minutecap.go)
	retryDelay        []byte // Gemini RetryInfo.retryDelay
	retryMember       []byte // a numeric retry_after / retryAfter / retry_after_seconds (retryMember)
	retryKey          []byte // which of those names it had
	resetMember       []byte // a numeric error.reset_seconds / error.resets_in_seconds (resetMember)
	resetKey          []byte // which of those names it had
	fieldViolations   bool   // Gemini BadRequest.fieldViolations
	detailLoc         bool   // a FastAPI/pydantic detail[].loc naming the field

	// A FastAPI/pydantic detail list's entries, read as the walk closes
	// each (lagmember.go): how many closed, one begun and not closed (a
	// cut body), and whether every closed one is extra_forbidden at a
	// documented Chat Completions member, or literal_error at a tool's
	// type; item is the entry being read.
	detailN                 uint8
	detailOpen              bool
	detailExtra, detailTool bool
	item                    detailEntry
	fieldErrors             bool // a Zod {"<field>":{"_errors":[…]}} naming the field

	// A limit's window named by a member (window_type, limitName, …; the
	// first string one, any depth): windowMember reads it (period.go).
	windowKey, windowVal []byte

	// A relay's answer carrying its upstream's (OpenRouter: error.metadata
	// {raw, provider_name, is_byok}); ownKey: is_byok false, the relay
	// called its upstream with its own key, not one of the operator's.
	relayRaw, relayOwnKey bool

	blockReason  []byte // Gemini promptFeedback.blockReason
	finishReason []byte // Gemini candidates[].finishReason (first)
	// geminiParts: some candidate carries a part the client gets. A
	// thought, or a part with nothing but an empty text and the turn's
	// thoughtSignature (Gemini 3), is none: a blocked or failed candidate
	// beside one is still a candidate with no content.
	geminiParts bool
	// geminiCall: some candidate carries a functionCall part, which a
	// filter's finishReason beside it makes a refusal (blocks.go).
	geminiCall bool
	// antContent: an Anthropic message's top-level content holds a block
	// (some member of one was read); false for content: [].
	antContent bool
	// wholeStop: stopReason is a whole message's (top level), not a
	// stream's message_delta's, whose content came in earlier events.
	wholeStop bool
	part      geminiPart // the candidates[].content.parts[] object being read

	oaiFinish  []byte // OpenAI choices[].finish_reason (first)
	oaiContent bool   // some choice carries content (a string, or text in a content array) or a tool call
	// oaiReasoning: some choice carries reasoning (reasoning_content,
	// reasoning, a thinking chunk): an answer spent on thinking is still one.
	oaiReasoning bool
	// respFilter: a Responses API answer is incomplete for content_filter
	// (incomplete_details.reason, whole or in a response.incomplete event);
	// respContent: its output carries text or a function call.
	respFilter, respContent bool
	stopReason              []byte // Anthropic stop_reason (top level or delta)
}

// geminiPart is what one Gemini content part showed so far: a non-empty
// text, "thought": true, any member but text, thought and
// thoughtSignature.
type geminiPart struct{ open, text, thought, other bool }

// endPart files the part being read: content unless it was a thought or
// held nothing but an empty text and a signature.
func (f *facts) endPart() {
	if p := &f.part; p.open && (p.other || p.text && !p.thought) {
		f.geminiParts = true
	}
	f.part = geminiPart{}
}

func (f *facts) addText(b []byte) {
	if len(b) > 0 && f.nTexts < maxTexts {
		f.texts[f.nTexts] = fallbackCut(quotedCut(b))
		f.nTexts++
	}
}

// fallbackLead introduces, in a relay's message, the errors of the targets
// it fell back to after its primary one failed (LiteLLM: "…\nError doing the
// fallback: …"). The answer's own error is the primary target's, before the
// lead; each later one is another target's answer, which Detour's own
// failover meets for itself.
const fallbackLead = "error doing the fallback"

// fallbackCut returns t up to fallbackLead, or t whole; a text that opens
// with the lead is kept whole (nothing precedes it to read).
func fallbackCut(t []byte) []byte {
	if !bytes.Contains(t, []byte("allback")) {
		return t
	}
	if k := indexFold(t, fallbackLead); k > 0 {
		return t[:k]
	}
	return t
}

// quotedLeads introduce text a server quotes because it could not read it:
// the model's own output ("Failed to parse input at pos 0: <generated
// text>", llama.cpp) or the client's input. Whatever follows the lead's
// colon can be steered by the client, through its prompt, so it is no
// evidence about the provider.
var quotedLeads = [...]string{"failed to parse", "could not parse", "unable to parse", "cannot parse", "error parsing"}

// quotedCut returns t up to the colon that ends a quotedLeads lead (within
// 80 bytes of it), or t whole (a lead in mixed case other than "Parse"
// and "PARSE" is not looked for).
func quotedCut(t []byte) []byte {
	// Every lead has "pars": one fast pass for most texts.
	if !bytes.Contains(t, []byte("pars")) && !bytes.Contains(t, []byte("Pars")) && !bytes.Contains(t, []byte("PARS")) {
		return t
	}
	for _, l := range quotedLeads {
		k := indexFold(t, l)
		if k < 0 {
			continue
		}
		e := k + len(l)
		if r, d := messagesDump(t, e); d > 0 {
			t = t[r:d] // the reason alone: the lead is llama.cpp's frame
			continue
		}
		if c := bytes.IndexByte(t[e:min(len(t), e+80)], ':'); c >= 0 {
			t = t[:e+c+1]
		}
	}
	return t
}

// messagesDump returns the bounds of the reason in llama.cpp's "Failed to
// parse messages: <reason>", the lead ending at t[e], which older servers
// follow with "; messages = <dump>": the reason is the server's own words
// about the request (a content part type it does not take), to be read
// alone; the dump is the client's. What fails to parse there is the
// client's messages, never the model's output. d is 0 when t is not so
// written.
func messagesDump(t []byte, e int) (r, d int) {
	const lead, dump = " messages: ", "; messages = "
	r, ok := prefixAt(t, e, lead)
	if !ok || r == len(t) {
		return 0, 0
	}
	if d := bytes.Index(t[r:], []byte(dump)); d > 0 {
		return r, r + d
	}
	return r, len(t)
}

// nonZero reports a code that is set: not empty, null, false, or all zeros.
func nonZero(v []byte) bool {
	if len(v) == 0 || eq(v, "null") || eq(v, "false") {
		return false
	}
	for _, c := range v {
		if c != '0' {
			return true
		}
	}
	return false
}

// atoi parses a small non-negative decimal; 0 when v is not one.
func atoi(v []byte) int {
	if len(v) == 0 || len(v) > 6 {
		return 0
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// quotaPeriod notes whether a Gemini quotaId names a long or a short period,
// and whether it counts input tokens (GenerateContentInputTokensPerModel
// PerMinute-FreeTier), whose quotaValue follows it in its violation.
func quotaPeriod(f *facts, id []byte) {
	f.inputQuota = containsFold(id, "inputtokens")
	switch {
	case containsFold(id, "perday"), containsFold(id, "permonth"), containsFold(id, "peryear"):
		f.perDay = true
	case containsFold(id, "perminute"), containsFold(id, "persecond"), containsFold(id, "perhour"):
		f.perMinute = true
	}
}

// paramValue is a param member's value as a field name, nil where it names
// none: LiteLLM prints an absent param as the string "None", and a value
// with a blank is prose, not a field or a path (Groq's param "tool
// calling" beside "`tool calling` is not supported with this model", a
// feature the model lacks). Nor does a number: new-api and one-api put
// the status their upstream answered in param beside their
// bad_response_status_code ({"type":"upstream_error","param":"400"}),
// and no member is named by digits alone (probe 65a: claude-code-router
// quoting such a relay's 400 read it as a named field).
func paramValue(v []byte) []byte {
	if len(v) == 0 || eq(v, "None") || bytes.IndexByte(v, ' ') >= 0 || allDigits(v) {
		return nil
	}
	return v
}

// allDigits reports whether v is ASCII digits only.
func allDigits(v []byte) bool {
	for _, c := range v {
		if !digit(c) {
			return false
		}
	}
	return len(v) > 0
}

// proseParam reads a param that is prose, not a field name (MiMo's
// {"message":"Param Incorrect","param":"Not supported model bad model"}),
// as one of the answer's texts: the words are the upstream's.
func proseParam(f *facts, v []byte, str bool) {
	if str && bytes.IndexByte(v, ' ') >= 0 {
		f.addText(v)
	}
}
