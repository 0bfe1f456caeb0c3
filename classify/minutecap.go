package classify

import "bytes"

// A per-minute token cap that one request alone is over (docs/behaviour.md,
// "How an answer is read"). Anthropic's "This request would exceed the rate
// limit for your organization of 30,000 input tokens per minute" and
// Gemini's free-tier "Quota exceeded for metric: …_input_token_count,
// limit: 250000" (a model with a 1,000,000-token window) state the cap but
// not the request's size, and are the same answer to a request that came
// in a full minute and to one that can never fit. Read as a throttle, every
// such request cooled the endpoint for every client (a tier-1 account and
// a 57,000-token uncached request: a cool-down a minute, each minute). The
// client's request says which: where its own text alone is over the cap,
// no wait lets it through and nothing else waits behind it.

// capBytesPerToken is the bytes of a request's text counted as one token:
// the usual English rate (Anthropic and OpenAI state about four characters
// a token), as Detour's budgets estimate input (docs/config.md,
// client_keys). A request read over the cap at that rate may in truth be
// a little under it: then one throttled request moves on without cooling
// the endpoint, which the next one cools.
const capBytesPerToken = 4

// perMinuteCap finds "<N> tokens per minute" or "<N> input tokens per
// minute" in t, or Google's "…_input_token_count, limit: <N>", and returns
// its span and N; end is 0 when there is none.
func perMinuteCap(t []byte) (start, end int, limit int64) {
	if k := indexFold(t, "input_token_count, limit: "); k >= 0 {
		i := k + len("input_token_count, limit: ")
		if n, ok := number(t[i:]); ok && n > 0 {
			return k, skipNumber(t, i), n
		}
	}
	const tail = "tokens per minute"
	for from := 0; from < len(t); {
		k := indexFold(t[from:], tail)
		if k < 0 {
			return 0, 0, 0
		}
		k += from
		from = k + len(tail)
		i := k
		if i >= len("input ") && bytesHasPrefixFold(t[i-len("input "):], "input ") {
			i -= len("input ")
		}
		if i < 2 || t[i-1] != ' ' {
			continue
		}
		s := i - 1
		for s > 0 && (t[s-1] >= '0' && t[s-1] <= '9' || t[s-1] == ',') {
			s--
		}
		if n, ok := number(t[s : i-1]); ok && n > 0 && s < i-1 && t[s] != ',' {
			return s, from, n
		}
	}
	return 0, 0, 0
}

// requestTokensAbove reports whether the client's request body, the first
// JSON value of req (classify.Response.Request), holds more than limit
// tokens of text at capBytesPerToken: the bytes of its strings, member
// names too, but for inline data (a data: URL, a long run of base64 as the
// value of an inline-data member, inlineDataMember), which a provider
// counts far below its bytes. It reads the request once.
//
// Only a member that carries inline data may hold it: base64 or a log
// whose lines begin "data:" pasted into a message is text the provider
// tokenises (review 68f), and read as nothing it made a request over the
// cap a throttle that cooled the endpoint for every tenant.
func requestTokensAbove(req []byte, limit int64) bool {
	text := int64(-1)
	return requestAbove(req, limit, &text)
}

// requestAbove is requestTokensAbove with the request's text, once read,
// kept in *text (-1: not yet read): an answer's several texts each stating
// a cap read the request once, not once each (review 68f: six texts and a
// megabyte's inline image, six passes over it).
func requestAbove(req []byte, limit int64, text *int64) bool {
	if limit <= 0 || len(req) == 0 || limit > int64(len(req))/capBytesPerToken {
		return false
	}
	if *text < 0 {
		*text = 0 // a cached request's size says nothing (marksCache)
		if !marksCache(req) {
			*text = requestText(req)
		}
	}
	return *text > limit*capBytesPerToken
}

// requestText is the bytes of text in the first JSON value of req
// (requestTokensAbove).
func requestText(req []byte) int64 {
	var text int64
	// key is the member name the next string is the value of: nil where
	// that string is no member's value (an array's element, past an
	// object or a list the value was: fuzz 69f, base64 text after
	// {"url":…} in a tool schema's examples list read as an image).
	var key []byte
	depth := 0
	for i := 0; i < len(req); i++ {
		switch req[i] {
		case '{', '[':
			depth++
			key = nil
		case '}', ']':
			key = nil
			if depth--; depth <= 0 {
				return text
			}
		case '"':
			end, n, inline := stringSpan(req, i+1)
			if isMemberName(req, end+1) {
				key = req[i+1 : min(end, len(req))]
			} else {
				if inline && inlineDataMember(key) {
					n = 0
				}
				key = nil
			}
			text += int64(n)
			i = end
			if depth == 0 {
				return text
			}
		}
	}
	return text
}

// isMemberName reports whether the string that closed before req[from] is a
// member's name: a colon follows it.
func isMemberName(req []byte, from int) bool {
	for ; from < len(req); from++ {
		switch req[from] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// inlineDataMember reports a member whose value the APIs define as inline
// data: Anthropic's source.data, Gemini's inlineData.data, OpenAI's
// input_audio.data and image_url.url, the Responses API's image_url and
// file_data.
func inlineDataMember(key []byte) bool {
	switch string(key) {
	case "data", "url", "image_url", "file_data":
		return true
	}
	return false
}

// marksCache reports a request (or the body Detour sent for it) that asks
// for a prompt cache: Anthropic counts no cached input read against its
// per-minute input cap (its rate-limits page), so an agent's 100,000-token
// request whose prefix is cached fits a 30,000 cap, and its size says
// nothing of whether the minute was full (last look 68g).
func marksCache(req []byte) bool {
	for _, m := range cacheMembers {
		if bytes.Contains(req, []byte(m)) {
			return true
		}
	}
	return false
}

// cacheMembers name a prompt cache: Anthropic's cache_control (and the
// top-level one that caches automatically), OpenAI's prompt_cache_key and
// prompt_cache_breakpoint (which Detour writes as cache_control for a
// Claude target), Gemini's cached content.
var cacheMembers = [...]string{`"cache_control"`, `"prompt_cache_key"`, `"prompt_cache_breakpoint"`, `"cachedContent"`, `"cached_content"`}

// stringSpan returns where the JSON string opened before req[from] closes
// (its closing quote, or len(req)), the bytes of its text (an escape
// counted as the UTF-8 it stands for: a client's encoder that writes
// "\u4e2d" for 中, as Python's json.dumps does by default, or one that
// escapes every letter, writes no more text; review 68f), and whether it
// holds inline data: a data: URL, or minInlineRun and more characters of
// base64 alone (a '/' escaped "\/" among them: openai-php and other PHP
// clients send an image's base64 so).
func stringSpan(req []byte, from int) (end, n int, inline bool) {
	b64 := true
	i := from
	for ; i < len(req) && req[i] != '"'; i++ {
		c := req[i]
		n++
		if c == '\\' {
			// "\/" is a '/' as PHP's json_encode writes it by default;
			// any other escape is text's.
			b64 = b64 && i+1 < len(req) && req[i+1] == '/'
			if i+5 < len(req) && req[i+1] == 'u' {
				n += escapedLen(req[i+2:i+6]) - 1
				i += 5
				continue
			}
			i++
			continue
		}
		b64 = b64 && (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_')
	}
	s := req[from:min(i, len(req))]
	return i, n, b64 && len(s) >= minInlineRun || bytesHasPrefixFold(s, "data:")
}

// escapedLen is the bytes of UTF-8 the four hex digits of a \u escape
// stand for (a surrogate counted as half of its pair's four; not four hex
// digits: one byte).
func escapedLen(h []byte) int {
	v, ok := hex4(h, 0)
	switch {
	case !ok, v < 0x80:
		return 1
	case v < 0x800, v >= 0xd800 && v < 0xe000:
		return 2
	}
	return 3
}

// minInlineRun is the length from which a string of base64 characters alone
// is taken for inline data, not text.
const minInlineRun = 1024

// zeroCap reads a per-minute cap of nothing ("This request would exceed your
// rate limit of 0 fast mode input tokens per minute", Anthropic's answer to
// fast mode at an organization granted none: hunt 68h): no wait lets any
// such request through, so not rate_limited. Where the cap is of a mode
// this request asked for (fast mode, "speed": "fast"), it is the request's
// own choice that another target may serve: unknown, nothing cooled or
// paged (one client's fast-mode requests would cool or page the account
// every other client's requests are served by). Otherwise quota, as a
// zero allowance is (the corpus's Gemini "limit: 0").
func (ts *textScan) zeroCap() (Verdict, bool) {
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		k := indexFold(t, "limit of 0 ")
		if k < 0 {
			continue
		}
		rest := t[k : k+min(len(t)-k, 80)]
		e := indexFold(rest, "per minute")
		if e < 0 || !capWords(rest[len("limit of 0 "):e]) {
			continue
		}
		if len(ts.req) > 0 && echoed(ts.req, rest[:e+len("per minute")]) {
			ts.echo = true
			continue
		}
		if indexFold(rest[:e], "fast mode") >= 0 && asksFastMode(ts.req) {
			return Verdict{Failed: true, Class: Unknown, Evidence: "phrase:limit of 0+fast mode asked"}, true
		}
		return Verdict{Failed: true, Class: Quota, Evidence: "phrase:limit of 0"}, true
	}
	return Verdict{}, false
}

// capWords reports the words between "limit of 0 " and "per minute" of
// one stated cap ("fast mode input tokens ", "tokens "): letters, blanks
// and '-' alone. Anything else (a quote, a colon, a digit) is the join of
// two texts, as where a client's "… limit of 0 " quoted in an answer is
// followed by the upstream's own "on tokens per minute" (review 68l): the
// echo check looked for the whole span, which no request held.
func capWords(w []byte) bool {
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ' ' || c == '-') {
			return false
		}
	}
	return true
}

// asksFastMode reports a request (its body as the client wrote it, or as
// Detour sent it) asking for Anthropic's fast mode: a top-level "speed"
// whose value is "fast", read as JSON (review 68l: the body Detour sends
// Anthropic at /v1/messages is the client's with its model replaced, and
// "speed" : "fast", a tab or a line break after the colon, or an escape,
// is fast mode to Anthropic all the same; matched as bytes, it read quota
// and cooled and paged the account every client is served by).
func asksFastMode(req []byte) bool {
	return topValueIs(req, "speed", []byte("fast"))
}
