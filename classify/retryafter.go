package classify

import (
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
// "6m0s", "20ms"): the one whose x-ratelimit-remaining-* is 0, else the
// longer. The result is capped at 24h.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if len(h) == 0 {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 {
			return capRetry(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			if secs > 0 {
				return capRetry(time.Duration(secs * float64(time.Second)))
			}
		} else if t, err := http.ParseTime(v); err == nil {
			if d := t.Sub(now); d > 0 {
				return capRetry(d)
			}
		}
	}
	req := resetDuration(h.Get("X-Ratelimit-Reset-Requests"))
	tok := resetDuration(h.Get("X-Ratelimit-Reset-Tokens"))
	switch {
	case strings.TrimSpace(h.Get("X-Ratelimit-Remaining-Requests")) == "0" && req > 0:
		return capRetry(req)
	case strings.TrimSpace(h.Get("X-Ratelimit-Remaining-Tokens")) == "0" && tok > 0:
		return capRetry(tok)
	}
	return capRetry(max(req, tok))
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
		return time.Duration(secs * float64(time.Second))
	}
	return 0
}

func capRetry(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}

// bodyRetryAfter reads a hint from the body: Gemini RetryInfo.retryDelay
// ("13s"), else "try again in 17.359s" / "try again in 9m38.016s" or "retry
// after 86400 seconds" wording.
func bodyRetryAfter(f *facts) time.Duration {
	if len(f.retryDelay) > 0 {
		return capRetry(resetDuration(string(f.retryDelay)))
	}
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if j := indexFold(t, "retry after "); j >= 0 {
			rest := t[j+len("retry after "):]
			if n, ok := number(rest); ok {
				k := 0
				for k < len(rest) && (rest[k] >= '0' && rest[k] <= '9' || rest[k] == ',') {
					k++
				}
				if containsFold(rest[k:min(len(rest), k+9)], " second") {
					return capRetry(time.Duration(n) * time.Second)
				}
			}
		}
		j := indexFold(t, "try again in ")
		if j < 0 {
			continue
		}
		t = t[j+len("try again in "):]
		k := 0
		for k < len(t) && (t[k] == '.' || (t[k] >= '0' && t[k] <= '9') || t[k] == 'h' || t[k] == 'm' || t[k] == 's') {
			k++
		}
		for k > 0 && t[k-1] == '.' {
			k--
		}
		if d := resetDuration(string(t[:k])); d > 0 {
			return capRetry(d)
		}
	}
	return 0
}
