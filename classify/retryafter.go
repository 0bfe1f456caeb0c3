package classify

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// now is the clock used for Retry-After HTTP dates.
func now() time.Time { return time.Now() }

// maxRetryAfter bounds any hint: a bogus header cannot cool an endpoint for
// days.
const maxRetryAfter = 24 * time.Hour

// ParseRetryAfter returns how long the headers ask a client to wait, 0 when
// they give no usable hint. In order: retry-after-ms (milliseconds),
// Retry-After (seconds or an HTTP date, relative to now), then OpenAI-style
// x-ratelimit-reset-requests / x-ratelimit-reset-tokens durations ("1s",
// "6m0s", "20ms"): the reset of the window whose x-ratelimit-remaining-* is
// 0, none where no window says it is spent. The result is capped at 24h.
//
// A reset is the time until a window is whole again, sent with every
// answer: it is a wait only for a window that says it is spent. Where none
// does, neither reset is this answer's: a day's window refilling over
// 1h12m beside a minute's throttle is no hour-long wait (review 32e), nor
// is a requests window's 120ms beside a tokens-per-minute throttle a 120ms
// one (review 32h); the body's wait, else the configured cooldown, decides.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if len(h) == 0 {
		return 0
	}
	if d := explicitRetryAfter(h, now); d > 0 {
		return d
	}
	if strings.TrimSpace(h.Get("X-Ratelimit-Remaining-Requests")) == "0" {
		if d := resetDuration(h.Get("X-Ratelimit-Reset-Requests")); d > 0 {
			return capRetry(d)
		}
	}
	if strings.TrimSpace(h.Get("X-Ratelimit-Remaining-Tokens")) == "0" {
		if d := resetDuration(h.Get("X-Ratelimit-Reset-Tokens")); d > 0 {
			return capRetry(d)
		}
	}
	return 0
}

// explicitRetryAfter is the wait the standard headers name, 0 for none:
// retry-after-ms (milliseconds, a fraction rounded up to the next whole
// one, as the decision record counts), else Retry-After (seconds or an
// HTTP date, relative to now), capped at 24h. It is the hint of a server
// error, whose x-ratelimit-reset-* (sent with every OpenAI answer)
// describe the rate-limit window, not the outage.
func explicitRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 {
			return capRetry(seconds(math.Ceil(ms) / 1000))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			if secs > 0 {
				return capRetry(seconds(secs))
			}
		} else if t, err := http.ParseTime(v); err == nil {
			if d := t.Sub(now); d > 0 {
				return capRetry(d)
			}
		}
	}
	return 0
}

// anthropicWindows are the windows whose reset Anthropic names in
// anthropic-ratelimit-<window>-reset beside
// anthropic-ratelimit-<window>-remaining, in canonical form (no
// allocation per answer).
var anthropicWindows = [...]struct{ remaining, reset string }{
	{"Anthropic-Ratelimit-Requests-Remaining", "Anthropic-Ratelimit-Requests-Reset"},
	{"Anthropic-Ratelimit-Tokens-Remaining", "Anthropic-Ratelimit-Tokens-Reset"},
	{"Anthropic-Ratelimit-Input-Tokens-Remaining", "Anthropic-Ratelimit-Input-Tokens-Reset"},
	{"Anthropic-Ratelimit-Output-Tokens-Remaining", "Anthropic-Ratelimit-Output-Tokens-Reset"},
}

// spentWindowReset is the wait until a window that says it is spent is
// whole again, where the headers name it as a time, not a duration (hunt
// 56e rule 2): Anthropic's anthropic-ratelimit-<window>-reset (RFC 3339)
// beside that window's -remaining: 0, measured against the answer's Date
// when it has one that parses (the upstream's clock; "20:00:00Z" beside
// "19:59:59 GMT" is one second, whatever this clock says) when that Date
// is within dateSkew of now — a relay's or cache's stale Date a day off
// turned a 20-second throttle into the 24h bound, hence quota, paged
// (review 56b) —, else against now. A reset already past, or not an RFC 3339 time, is no hint; a far
// one is capped at 24h, as a Retry-After date is. Read only for a
// rate_limited verdict, after Retry-After and retry-after-ms (withRetry):
// it never decides a class that ParseRetryAfter's waits decide.
func spentWindowReset(h http.Header, now time.Time) time.Duration {
	if len(h) == 0 {
		return 0
	}
	dated := false
	for _, w := range anthropicWindows {
		if strings.TrimSpace(h.Get(w.remaining)) != "0" {
			continue
		}
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(h.Get(w.reset)))
		if err != nil {
			continue
		}
		if !dated {
			dated = true
			if d, err := http.ParseTime(strings.TrimSpace(h.Get("Date"))); err == nil && d.Sub(now).Abs() <= dateSkew {
				now = d
			}
		}
		if d := t.Sub(now); d > 0 {
			return capRetry(d)
		}
	}
	return bareReset(h, now)
}

// bareReset is the wait a bare X-RateLimit-Reset names beside
// X-RateLimit-Remaining: 0 (round 57, hunt 57d: OpenRouter's 429 sends
// "X-RateLimit-Reset: 1754667660000" with "X-RateLimit-Remaining: 0", 26 s
// after its Date). No unit is said, so the magnitude tells it: above 1e12
// epoch milliseconds, above 1e9 epoch seconds (a time, measured against a
// Date within dateSkew of now, else now), else seconds from now. Not a
// finite positive number, a time already past, or an epoch beyond 1e13 ms
// (no clock reads so; a unit mistaken) is no hint; a far one is capped at
// 24h. A window not said spent is none (its reset is sent with every
// answer). Read after spentWindowReset's Anthropic windows, so after
// Retry-After and every other header's own wait.
func bareReset(h http.Header, now time.Time) time.Duration {
	if strings.TrimSpace(h.Get("X-Ratelimit-Remaining")) != "0" {
		return 0
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(h.Get("X-Ratelimit-Reset")), 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n <= 0 || n >= 1e13 {
		return 0
	}
	if n <= 1e9 {
		return capRetry(seconds(n))
	}
	if d, err := http.ParseTime(strings.TrimSpace(h.Get("Date"))); err == nil && d.Sub(now).Abs() <= dateSkew {
		now = d
	}
	var t time.Time
	if n > 1e12 {
		t = time.UnixMilli(int64(n))
	} else {
		t = time.Unix(int64(n), 0)
	}
	if d := t.Sub(now); d > 0 {
		return capRetry(d)
	}
	return 0
}

// dateSkew is how far an answer's Date may be from this clock and still be
// the clock a reset time is measured against.
const dateSkew = 5 * time.Minute

// hyphenReset is the wait Azure OpenAI names on a 429 that has no
// Retry-After (nor retry-after-ms): x-rate-limit-reset-tokens or
// x-rate-limit-reset-requests (hyphenated, unlike OpenAI's
// x-ratelimit-reset-*), in seconds (openai/openai-python#937: "55" beside
// policy-id DeploymentRatelimit-Token and nothing else; hunt 56e rule 3).
// Where both are given, only the one whose x-ratelimit-remaining-* is 0 is
// this answer's; neither when none says so (review 32h). Negative, zero or
// not a number is no hint; a huge one is capped at 24h.
func hyphenReset(st int, h http.Header) time.Duration {
	if st != 429 || len(h) == 0 || h.Get("Retry-After") != "" || h.Get("Retry-After-Ms") != "" {
		return 0
	}
	tok, req := h.Get("X-Rate-Limit-Reset-Tokens"), h.Get("X-Rate-Limit-Reset-Requests")
	switch {
	case tok != "" && req != "":
		switch {
		case strings.TrimSpace(h.Get("X-Ratelimit-Remaining-Tokens")) == "0":
			req = ""
		case strings.TrimSpace(h.Get("X-Ratelimit-Remaining-Requests")) == "0":
			tok = ""
		default:
			return 0
		}
	}
	v := strings.TrimSpace(tok + req)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs > 0 {
		return capRetry(seconds(secs))
	}
	return 0
}

// resetDuration parses an OpenAI-style reset ("6m0s", "20ms", "1.5s", or a
// bare number of seconds).
func resetDuration(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs > 0 {
		return seconds(secs)
	}
	return 0
}

// seconds converts a hint in seconds, saturating at the cap: 1e10 or Inf
// is a very long wait, not an overflow to a negative (ignored) one.
func seconds(secs float64) time.Duration {
	if secs >= maxRetryAfter.Seconds() {
		return maxRetryAfter
	}
	return time.Duration(secs * float64(time.Second))
}

func capRetry(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}

// bodyRetryAfter reads a hint from the body: Gemini RetryInfo.retryDelay
// ("13s"), else a retry_after member's seconds (retryMember), else "try again in 17.359s" / "try again in 9m38.016s" / "try
// again in 2 seconds" or "retry after 86400 seconds" wording, and, with
// resets, "resets in 7d" (a plan's window; not where the verdict came from
// a minute's or a second's wording, which another window's reset beside it
// would overrule). A wording the client's request req holds is the
// client's text, not the provider's hint (docs/behaviour.md, "Echo rule"):
// it is passed over.
func bodyRetryAfter(f *facts, req []byte, resets bool) time.Duration {
	if len(f.retryDelay) > 0 {
		return capRetry(durationBytes(f.retryDelay))
	}
	if secs, ok := number(f.retryMember); ok && secs > 0 && !echoed(req, f.retryKey) {
		return capRetry(seconds(float64(secs))) // whole seconds; a fraction is dropped
	}
	if len(f.resetMember) > 0 && !echoed(req, f.resetKey) {
		// A JSON number ("561635", "1e300"): NaN, negative or zero is no
		// hint, anything past the bound saturates at it.
		if secs, err := strconv.ParseFloat(string(f.resetMember), 64); err == nil && secs > 0 {
			return capRetry(seconds(secs))
		}
	}
	for i := 0; i < f.nTexts; i++ {
		for t := f.texts[i]; len(t) > 0; {
			d, span, rest := nextRetryHint(t, resets)
			if span == nil {
				break
			}
			if d > 0 && !echoed(req, span) {
				return d
			}
			t = rest
		}
	}
	return 0
}

// nextRetryHint finds the first "retry after N <unit>", "try again in
// <duration>", "retry in <duration>", "resets in <duration>", "to reset
// in <duration>" or "reset after <duration>" (with resets) or "wait N
// seconds" in
// t: the wait it says (0 when it says none), the matched words and the text
// after them; span is nil when there is none.
func nextRetryHint(t []byte, resets bool) (d time.Duration, span, rest []byte) {
	a, b := indexFold(t, "retry after "), indexFold(t, "try again in ")
	lead := len("try again in ")
	// "Please retry in 31.44s." (Gemini's quota message, whose RetryInfo a
	// relay may drop): read as "try again in", where it comes first.
	if r := indexFold(t, "retry in "); r >= 0 && (b < 0 || r < b) {
		b, lead = r, len("retry in ")
	}
	// "The limit resets in 7d" (a plan's window, Cline's): read as "try
	// again in", where it comes first.
	if r := indexFold(t, "resets in "); resets && r >= 0 && (b < 0 || r < b) {
		b, lead = r, len("resets in ")
	}
	// "… wait for your limit to reset in 23 hours" (GitHub Copilot's 429):
	// the same, in the infinitive.
	if r := indexFold(t, "to reset in "); resets && r >= 0 && (b < 0 || r < b) {
		b, lead = r, len("to reset in ")
	}
	// "All kiro accounts have exhausted their quota (reset after 140h 21m
	// 10s)" (OmniRoute), "Your quota will reset after 2h1m1s" (Code
	// Assist, relayed without its details): the same, in other words.
	if r := indexFold(t, "reset after "); resets && r >= 0 && (b < 0 || r < b) {
		b, lead = r, len("reset after ")
	}
	// "Please wait 25 seconds before retrying" (GitHub Models), when it
	// comes first.
	if c := wordIndexFold(t, "wait "); c >= 0 && (a < 0 || c < a) && (b < 0 || c < b) {
		d, n := wordsDurationLen(t[c+len("wait "):])
		end := c + len("wait ") + n
		return capRetry(d), t[c:end], t[end:]
	}
	switch {
	case a < 0 && b < 0:
		return 0, nil, nil
	case a >= 0 && (b < 0 || a < b):
		s := t[a+len("retry after "):]
		k := 0
		for k < len(s) && (s[k] >= '0' && s[k] <= '9' || s[k] == ',') {
			k++
		}
		end := a + len("retry after ") + k
		if w, n := wordsDurationLen(s); w > 0 { // "Retry after 2 hours."
			end = a + len("retry after ") + n
			return capRetry(w), t[a:end], t[end:]
		}
		if n, ok := number(s); ok && containsFold(s[k:min(len(s), k+9)], " second") {
			d = capRetry(seconds(float64(n)))
			end += len(" second")
		}
		return d, t[a:end], t[end:]
	}
	s := t[b+lead:]
	k := durationLen(s)
	end := b + lead + k
	if d = durationBytes(s[:k]); d > 0 {
		return capRetry(d), t[b:end], t[end:]
	}
	if d, n := wordsDurationLen(s); d > 0 { // "Try again in 2 seconds." (Azure API Management, LiteLLM)
		end = b + lead + n
		return d, t[b:end], t[end:]
	}
	return 0, t[b:end], t[end:]
}

// durationLen is how many bytes of s, from its start, a duration in
// durationBytes' form takes: its digits, points and units, the groups one
// blank apart ("140h 21m 10s"), a full stop after it left out. A group
// after a full stop opens the next sentence ("try again in 20s. 5m …"),
// not this duration (review 40h).
func durationLen(s []byte) int {
	k := 0
	for {
		for k < len(s) && durationByte(s[k]) {
			k++
		}
		if g := unitGroup(s, k+1); k > 0 && s[k-1] != '.' && k < len(s) && s[k] == ' ' && g > k+1 {
			k = g
			continue
		}
		break
	}
	for k > 0 && s[k-1] == '.' {
		k--
	}
	return k
}

func durationByte(c byte) bool {
	return c == '.' || (c >= '0' && c <= '9') || c == 'd' || c == 'h' || c == 'm' || c == 's'
}

// unitGroup returns the end of one duration group at s[i] (digits, then
// one unit of durationBytes, ending its word: "21m", "10s", "20ms"), i
// where there is none ("3 times", "5min").
func unitGroup(s []byte, i int) int {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return i
	}
	u := j
	for u < len(s) && durationByte(s[u]) && (s[u] < '0' || s[u] > '9') && s[u] != '.' {
		u++
	}
	if u == j || u-j > 2 || u < len(s) && wordTab[s[u]] == 1 {
		return i
	}
	return u
}

// wordIndexFold is indexFold for p starting a word: "wait " is not the end
// of "await ".
func wordIndexFold(t []byte, p string) int {
	for at := 0; at < len(t); {
		i := indexFold(t[at:], p)
		if i < 0 {
			return -1
		}
		if at+i == 0 || wordTab[t[at+i-1]] == 0 {
			return at + i
		}
		at += i + 1
	}
	return -1
}

// wordsDurationLen reads "N second(s)", "N minute(s)", "N hour(s)" or "N
// day(s)" at the start of t
// and how many bytes it took; 0 for anything else.
func wordsDurationLen(t []byte) (time.Duration, int) {
	n, ok := number(t)
	if !ok {
		return 0, 0
	}
	k := 0
	for k < len(t) && (t[k] >= '0' && t[k] <= '9' || t[k] == ',') {
		k++
	}
	unit := t[k:min(len(t), k+8)]
	switch {
	case indexFold(unit, " second") == 0:
		return seconds(float64(n)), k + len(" second")
	case indexFold(unit, " minute") == 0:
		return seconds(float64(n) * 60), k + len(" minute")
	case indexFold(unit, " hour") == 0:
		return seconds(float64(n) * 3600), k + len(" hour")
	case indexFold(unit, " day") == 0:
		return seconds(float64(n) * 86400), k + len(" day")
	}
	return 0, 0
}

// durationBytes parses a Go-style duration ("13s", "9m38.016s", "20ms",
// "1.5s", "7d" for days, and groups one blank apart, "140h 21m 10s")
// without allocating; 0 when b is not one.
func durationBytes(b []byte) time.Duration {
	var total float64
	for first := true; len(b) > 0; first = false {
		if b[0] == ' ' && !first && len(b) > 1 && b[1] != ' ' { // "140h 21m 10s": groups one blank apart
			b = b[1:]
		}
		i := 0
		for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == '.') {
			i++
		}
		if i == 0 {
			return 0
		}
		v, ok := decimal(b[:i])
		if !ok {
			return 0
		}
		b = b[i:]
		var unit float64
		switch {
		case len(b) >= 2 && b[0] == 'm' && b[1] == 's':
			unit, b = float64(time.Millisecond), b[2:]
		case len(b) >= 2 && (b[0] == 'u' || b[0] == 'n') && b[1] == 's':
			unit = float64(time.Microsecond)
			if b[0] == 'n' {
				unit = float64(time.Nanosecond)
			}
			b = b[2:]
		case len(b) >= 1 && b[0] == 'd': // a day ("resets in 7d"); not Go's syntax
			unit, b = float64(24*time.Hour), b[1:]
		case len(b) >= 1 && b[0] == 'h':
			unit, b = float64(time.Hour), b[1:]
		case len(b) >= 1 && b[0] == 'm':
			unit, b = float64(time.Minute), b[1:]
		case len(b) >= 1 && b[0] == 's':
			unit, b = float64(time.Second), b[1:]
		default:
			return 0
		}
		total += v * unit
		if total > float64(maxRetryAfter) {
			return maxRetryAfter
		}
	}
	return time.Duration(total)
}

// decimal parses digits with at most one '.'.
func decimal(b []byte) (float64, bool) {
	var v, scale float64 = 0, 0
	for _, c := range b {
		if c == '.' {
			if scale != 0 {
				return 0, false
			}
			scale = 1
			continue
		}
		v = v*10 + float64(c-'0')
		if scale != 0 {
			scale *= 10
		}
	}
	if scale > 1 {
		v /= scale
	}
	return v, true
}
