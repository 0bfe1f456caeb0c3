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
	s.f.endPart() // the last part read (a body cut at MaxBody ends inside it)
	s.f.parsed = s.f.parsed || s.found
	if s.f.codeInBody == "body:error_code" && len(s.f.workerText) > 0 {
		// FastChat's worker envelope {"text","error_code"}: with a code, its
		// text is the error message, not the model's output.
		s.f.addText(s.f.workerText)
	}
	s.f.workerText = nil
	s.statusObject()
	s.statusEnvelope()
}

// statusObject reads a top-level status object as an error object
// (NAVER CLOVA Studio's common response format: {"status":{"code":"20000",
// "message":"OK"},"result":{…}} on success, {"status":{"code":"40080",
// "message":"model not found"}} on error): where its code is 400 or more
// and no success code (CLOVA writes an HTTP status times a hundred, 20000
// and 20400 for success), its message is the error's text, with any HTTP
// status, 200 included. A code of 0, a 2xx or 2xxxx, or no code at all is
// no error: the message is not read.
func (s *scanner) statusObject() {
	f := &s.f
	n := atoi(f.statusCode)
	if len(f.statusMsg) == 0 || n < 400 || n >= 20000 && n < 30000 {
		return
	}
	f.hasError = true
	if f.codeInBody == "" {
		f.codeInBody = "body:status.code"
	}
	f.addText(f.statusMsg)
}

// statusEnvelope reads a vendor's own status envelope, which carries its
// errors with any HTTP status, 200 included ({"status":"434","msg":"Invalid
// apiKey","body":null}, {"code":10003,"msg":"…"}): a top-level integer status
// or code of 400 or more, beside a top-level message, in a body with no
// error member and no answer member (choices, content, data, … set). The
// structure proves the error, not the words: a 0, a 2xx or any code below
// 400 is a success or means different things to different vendors, and a
// body with an answer in it is an answer. Its msg then counts as a text.
func (s *scanner) statusEnvelope() {
	f := &s.f
	if f.hasError || f.payload || (len(f.topMsg) == 0 && !f.topText) {
		return
	}
	switch {
	case f.topKeys == 1 && f.topText:
		// A body that is one message and nothing else ({"message":"…"},
		// AWS's error shape, FastAPI's {"detail":"…"}): no dialect answers
		// so; its words decide the class, unknown where they say nothing.
		f.codeInBody = "body:message"
		f.hasError = true
		return
	case f.topStatus >= 400:
		f.codeInBody = "body:status"
	case f.numCode >= 400, atoi(f.topCode) >= 400:
		f.codeInBody = "body:code"
	default:
		return
	}
	f.hasError = true
	f.addText(f.topMsg)
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
		entry := d >= 1 && d <= 3 && eq(s.key(d-1), "detail")
		if entry {
			s.f.item, s.f.detailOpen = detailEntry{}, true
		}
		s.i++
		for {
			s.ws()
			if s.i >= len(s.b) {
				return false
			}
			if s.b[s.i] == '}' {
				s.i++
				s.nest--
				if entry {
					s.f.endDetailEntry()
				}
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
			if d == 0 {
				s.f.topKeys++
			}
			if d < maxKeyDepth {
				if len(key) > 0 && key[0] >= 'A' && key[0] <= 'Z' {
					key = canonKey(key)
				}
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

// canonKey is key with an error envelope's member names in the lower case
// every reader here names them in: servers written in C#, Go or for AWS
// write them capitalised ({"Error":{"Message":…,"Code":…}}: ParagonAPI,
// Tencent Cloud, AWS's query APIs), and an envelope read under no name was
// no error at all ("Error" with code model_not_found read status:400).
//
// Not inlined: the scanner's frame, which a stream's events recurse
// through on the handler's stack, stays as it was (docs/benchmarks.md,
// "Round 32").
//
//go:noinline
func canonKey(key []byte) []byte {
	for i, k := range capitalKeys {
		if string(key) == k {
			return lowerKeys[i]
		}
	}
	return key
}

// capitalKeys are an envelope member's capitalised names, lowerKeys its own.
var (
	capitalKeys = [...]string{"Error", "ERROR", "Message", "Code", "Type", "Param", "Status", "Details"}
	lowerKeys   = [len(capitalKeys)][]byte{[]byte("error"), []byte("error"), []byte("message"), []byte("code"),
		[]byte("type"), []byte("param"), []byte("status"), []byte("details")}
)

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
	if d == 1 && payloadKey(s.path[0]) {
		s.f.payload = true
	}
	if d >= 2 && c == '[' {
		switch string(s.key(d - 1)) {
		case "fieldViolations":
			s.f.fieldViolations = true
		case "loc":
			s.f.detailLoc = true
		}
	}
	if d >= 3 && eq(s.path[0], "candidates") && eq(s.path[1], "content") && eq(s.path[2], "parts") {
		switch {
		case d == 3 && c == '{': // a Gemini content part begins
			s.f.endPart()
			s.f.part.open = true
		case d >= 4 && !eq(s.path[3], "thought") && !eq(s.path[3], "thoughtSignature"):
			s.f.part.other = true // an object or list inside a part: a function call, an image, …
			s.f.geminiCall = s.f.geminiCall || eq(s.path[3], "functionCall")
		}
	}
	if d == 2 && eq(s.path[0], "choices") && eq(s.path[1], "error") {
		s.f.hasError = true // OpenRouter's in-band choice error
	}
	if d == 2 && c == '{' && eq(s.path[0], "response") && eq(s.path[1], "error") {
		s.f.hasError = true // Responses API: response.failed carries response.error
	}
}
