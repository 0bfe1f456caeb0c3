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
// names too, but for inline data (a data: URL, a long run of base64), which
// a provider counts far below its bytes. It reads at most what decides.
func requestTokensAbove(req []byte, limit int64) bool {
	if limit <= 0 || len(req) == 0 || limit > int64(len(req))/capBytesPerToken || marksCache(req) {
		return false
	}
	need := limit * capBytesPerToken
	var text int64
	depth := 0
	for i := 0; i < len(req); i++ {
		switch req[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth <= 0 {
				return false
			}
		case '"':
			end, inline := stringSpan(req, i+1)
			if !inline {
				if text += int64(end - i - 1); text > need {
					return true
				}
			}
			i = end
			if depth == 0 {
				return false
			}
		}
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
// (its closing quote, or len(req)), and whether it holds inline data: a
// data: URL, or minInlineRun and more characters of base64 alone (a '/'
// escaped "\/" among them: openai-php and other PHP clients send an
// image's base64 so).
func stringSpan(req []byte, from int) (end int, inline bool) {
	b64 := true
	i := from
	for ; i < len(req) && req[i] != '"'; i++ {
		c := req[i]
		if c == '\\' {
			// "\/" is a '/' as PHP's json_encode writes it by default;
			// any other escape is text's.
			b64 = b64 && i+1 < len(req) && req[i+1] == '/'
			i++
			continue
		}
		b64 = b64 && (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_')
	}
	s := req[from:min(i, len(req))]
	return i, b64 && len(s) >= minInlineRun || bytesHasPrefixFold(s, "data:")
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
		if e < 0 {
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

// asksFastMode reports a request (its body as the client wrote it, or as
// Detour sent it) asking for Anthropic's fast mode: "speed": "fast".
func asksFastMode(req []byte) bool {
	return bytes.Contains(req, []byte(`"speed":"fast"`)) || bytes.Contains(req, []byte(`"speed": "fast"`))
}
