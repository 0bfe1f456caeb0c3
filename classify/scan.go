package classify

import "bytes"

// A tolerant, allocation-free JSON walker that pulls out of a (possibly
// truncated) vendor body only the members the rules look at. It stops at the
// first syntax error or at the end of the bytes and keeps what it found, so a
// body cut at 4 KiB still yields its leading fields. Strings are kept raw
// (escapes included); codes never carry escapes and phrases are matched on the
// raw text, treating \n, \t and \r escapes as whitespace.

const (
	maxKeyDepth = 8  // keys remembered per path
	maxNesting  = 64 // deeper nesting stops the walk
	maxTexts    = 6  // human texts kept for phrase matching
	maxReasons  = 4  // Gemini details[].reason values kept
)

// A scanner is declared by the function that reads the facts (var s
// scanner; s.readBody(body); f := &s.f), once: the facts live in the
// scanner, by value (behind a pointer the recursive walk would move them to
// the heap), and are never copied. A stream's first events are classified
// on the handler's goroutine under the whole relay; one 0.6 KiB copy more
// there grew every streaming handler's stack from 8 to 16 KiB
// (docs/benchmarks.md, "Round 6").
type scanner struct {
	b     []byte
	i     int
	nest  int
	path  [maxKeyDepth][]byte
	f     facts
	found bool
}

// scanJSON adds to s.f what b holds; a b that is not JSON at all leaves
// s.f as it was.
func (s *scanner) scanJSON(b []byte) {
	s.b, s.i, s.nest, s.found = b, 0, 0, false
	clear(s.path[:])
	s.ws()
	if s.i >= len(b) || (b[s.i] != '{' && b[s.i] != '[') {
		return
	}
	for s.value(0) { // NDJSON (Ollama's stream): one value per line
		s.ws()
		if s.i >= len(b) || b[s.i] != '{' {
			break
		}
	}
	s.f.parsed = s.f.parsed || s.found
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str reads a string starting at the opening quote and returns its raw
// contents; ok is false when the string is cut off.
func (s *scanner) str() (raw []byte, ok bool) {
	start := s.i + 1
	j := start
	// q is the first quote at or after j (len(s.b) when there is none),
	// kept across escapes: a text with many escapes is crossed once, not
	// once per escape.
	q := -1
	for j < len(s.b) {
		if q < j {
			if k := bytes.IndexByte(s.b[j:], '"'); k >= 0 {
				q = j + k
			} else {
				q = len(s.b)
			}
		}
		if bs := bytes.IndexByte(s.b[j:q], '\\'); bs >= 0 {
			j += bs + 2 // skip the escaped byte
			continue
		}
		if q == len(s.b) {
			break
		}
		s.i = q + 1
		return s.b[start:q], true
	}
	s.i = len(s.b)
	return s.b[start:], false
}

// value parses one value at key depth d. It returns false to stop the walk.
func (s *scanner) value(d int) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '{':
		if s.nest++; s.nest > maxNesting {
			return false
		}
		s.container(d, c)
		s.i++
		for {
			s.ws()
			if s.i >= len(s.b) {
				return false
			}
			if s.b[s.i] == '}' {
				s.i++
				s.nest--
				return true
			}
			if s.b[s.i] == ',' {
				s.i++
				continue
			}
			if s.b[s.i] != '"' {
				return false
			}
			key, ok := s.str()
			if !ok {
				return false
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return false
			}
			s.i++
			s.found = true
			if d < maxKeyDepth {
				s.path[d] = key
			}
			if !s.value(d + 1) {
				return false
			}
		}
	case '[':
		if s.nest++; s.nest > maxNesting {
			return false
		}
		s.container(d, c)
		s.i++
		for {
			s.ws()
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case ']':
				s.i++
				s.nest--
				return true
			case ',':
				s.i++
				continue
			}
			if !s.value(d) {
				return false
			}
		}
	case '"':
		raw, ok := s.str()
		s.scalar(d, raw, true)
		return ok
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				goto done
			}
			s.i++
		}
	done:
		if s.i == start {
			return false
		}
		s.scalar(d, s.b[start:s.i], false)
		return true
	}
}

func eq(b []byte, s string) bool { return string(b) == s }

// key returns the key at depth k of the current path ("" past the kept depth).
func (s *scanner) key(k int) []byte {
	if k < maxKeyDepth {
		return s.path[k]
	}
	return nil
}

// container notes an object or array opening at key depth d.
func (s *scanner) container(d int, c byte) {
	if d == 1 && eq(s.path[0], "error") {
		s.f.hasError = true
	}
	if d >= 2 && c == '[' {
		switch string(s.key(d - 1)) {
		case "fieldViolations":
			s.f.fieldViolations = true
		case "loc":
			s.f.detailLoc = true
		}
	}
	if d == 2 && eq(s.path[0], "choices") && eq(s.path[1], "error") {
		s.f.hasError = true // OpenRouter's in-band choice error
	}
	if d == 2 && c == '{' && eq(s.path[0], "response") && eq(s.path[1], "error") {
		s.f.hasError = true // Responses API: response.failed carries response.error
	}
}

// scalar records a string (str) or literal value at key depth d.
func (s *scanner) scalar(d int, v []byte, str bool) {
	f := &s.f
	if d == 0 {
		return
	}
	if !str && eq(v, "null") {
		return
	}
	k0, last := s.path[0], s.key(d-1)
	switch d {
	case 1:
		switch string(k0) {
		case "error":
			f.hasError = true
			f.addText(v)
		case "message", "detail", "error_message", "error_msg":
			if str {
				f.addText(v)
			}
		case "error_code": // Baidu: {"error_code":17,"error_msg":"…"}
			if nonZero(v) {
				f.hasError = true
				f.codeInBody = "body:error_code"
				if str {
					f.topCode = v
				}
			}
		case "type":
			f.topType = v
			if eq(v, "error") {
				f.hasError = true
			}
		case "object":
			if eq(v, "error") {
				f.hasError = true
			}
		case "code":
			s.code(&f.topCode, v, str)
		case "__type":
			f.amzType = v
		case "param":
			f.param = paramValue(v)
		case "stop_reason":
			f.stopReason = v
		}
		return
	case 2:
		switch string(k0) {
		case "base_resp": // MiniMax: {"base_resp":{"status_code":1008,"status_msg":"…"}}
			switch string(last) {
			case "status_code":
				if nonZero(v) {
					f.hasError = true
					f.codeInBody = "body:base_resp"
				}
			case "status_msg":
				if str {
					f.addText(v)
				}
			}
			return
		case "errors": // Cloudflare: {"success":false,"errors":[{"code":7003,"message":"…"}]}
			if str && eq(last, "message") {
				f.addText(v)
			}
			return
		case "external_model_message": // Databricks: {"error":"Received error from …","external_model_message":{"error_code":"…","message":"…"}}
			if str && eq(last, "message") {
				f.addText(v)
			}
			return
		case "detail": // FastAPI: {"detail":{"error":"Not authenticated"}}, KoboldCpp's {"detail":{"msg":"…","type":"…"}}
			if str && (eq(last, "error") || eq(last, "message") || eq(last, "msg")) {
				f.addText(v)
			}
			return
		case "header": // iFlytek Spark: {"header":{"code":11200,"message":"…","sid":"…"}}
			switch string(last) {
			case "code":
				if nonZero(v) && !eq(v, "200") { // 0 (Spark) or an HTTP-like 200 is a success
					f.hasError = true
					f.codeInBody = "body:header.code"
				}
			case "message":
				if str {
					f.addText(v)
				}
			}
			return
		}
		if eq(k0, "error") {
			switch string(last) {
			case "message":
				f.addText(v)
			case "type":
				f.errType = v
			case "code":
				s.code(&f.errCode, v, str)
			case "status":
				if str {
					f.errStatus = v
				} else if f.numCode == 0 {
					f.numCode = atoi(v)
				}
			case "param":
				f.param = paramValue(v)
			}
			return
		}
		switch string(last) {
		case "blockReason":
			if eq(k0, "promptFeedback") {
				f.blockReason = v
			}
		case "finishReason":
			if eq(k0, "candidates") && f.finishReason == nil {
				f.finishReason = v
			}
		case "finish_reason":
			if eq(k0, "choices") && f.oaiFinish == nil {
				f.oaiFinish = v
			}
		case "stop_reason":
			if eq(k0, "delta") {
				f.stopReason = v
			}
		}
		return
	}
	if str && eq(last, "msg") { // pydantic detail[].msg, at any depth
		f.addText(v)
	}
	if str && eq(last, "_errors") { // Zod's formatted error: {"field":{"_errors":["Field is required"]}}
		f.addText(v)
		switch string(s.key(d - 2)) {
		case "details", "error", "errors": // the form's own _errors, under its wrapper
		default:
			f.fieldErrors = true
		}
	}
	// d >= 3
	k1 := s.path[1]
	switch string(k0) {
	case "error":
		switch {
		case eq(k1, "details"):
			// Only where Google puts them (ErrorInfo.reason, RetryInfo.
			// retryDelay, QuotaFailure.violations[].quotaId): deeper, a
			// value may be the client's JSON quoted back.
			switch {
			case d == 3 && eq(last, "reason"):
				if f.nReasons < maxReasons {
					f.reasons[f.nReasons] = v
					f.nReasons++
				}
			case d == 4 && eq(last, "quotaId") && eq(s.key(2), "violations"):
				quotaPeriod(f, v)
			case d == 3 && eq(last, "retryDelay"):
				f.retryDelay = v
			}
			if d >= 4 && eq(s.key(2), "fieldViolations") {
				f.fieldViolations = true
			}
		case eq(k1, "innererror") && d == 3 && eq(last, "code"):
			f.innerCode = v
		case eq(k1, "metadata") && d == 3 && eq(last, "raw") && str:
			f.addText(v)
		}
	case "response": // Responses API: {"type":"response.failed","response":{"error":{…}}}
		if d == 3 && eq(k1, "error") {
			switch string(last) {
			case "message":
				f.addText(v)
			case "code":
				s.code(&f.errCode, v, str)
			case "type":
				f.errType = v
			}
		}
	case "candidates":
		if d >= 4 && eq(k1, "content") && eq(s.key(2), "parts") {
			f.geminiParts = true
		}
	case "choices":
		if d == 3 && eq(k1, "error") {
			switch string(last) {
			case "message":
				f.addText(v)
			case "code":
				s.code(&f.errCode, v, str)
			}
		}
		if eq(k1, "message") || eq(k1, "delta") {
			switch {
			case d == 3 && (eq(last, "content")) && str && len(v) > 0:
				f.oaiContent = true
			case eq(s.key(2), "tool_calls") || eq(s.key(2), "function_call"):
				f.oaiContent = true
			}
		}
	}
}

// code stores a code member: a string, or a number kept as numCode.
func (s *scanner) code(dst *[]byte, v []byte, str bool) {
	if str {
		*dst = v
		return
	}
	if n := atoi(v); n != 0 && s.f.numCode == 0 {
		s.f.numCode = n
	}
}
