package classify

import (
	"bytes"
	"time"
)

// metricPeriod reads the period of a Google quota metric named in a message
// ("Quota exceeded for aiplatform.googleapis.com/generate_content_requests_
// per_minute_per_project_per_base_model"): long for a day or longer, short
// for a minute or a second, neither when it names none or the client sent
// the name.
func (ts *textScan) metricPeriod() (long, short bool) {
	if ts.f == nil || !ts.f.parsed {
		return false, false
	}
	for i := 0; i < ts.f.nTexts; i++ {
		t := ts.f.texts[i]
		k := indexFold(t, "googleapis.com/")
		if k < 0 {
			continue
		}
		m := t[k+len("googleapis.com/"):]
		j := 0
		for j < len(m) && (wordTab[m[j]] == 1 && m[j] < 0x80 || m[j] == '_' || m[j] == '.' || m[j] == '-') {
			j++
		}
		m = m[:j]
		if len(ts.req) > 0 && echoed(ts.req, m) {
			ts.echo = true
			continue
		}
		switch {
		case containsFold(m, "per_day"), containsFold(m, "per_month"):
			return true, false
		case bytes.IndexByte(m, '_') >= 0: // a metric name, not a path (v1beta) or a type (google.rpc.Help)
			// Google's quota metrics name a long period when they have one
			// (…_per_day); one that names none (online_prediction_requests_
			// per_base_model) or a minute or second refills within minutes.
			return false, true
		}
	}
	return false, false
}

// windowPeriod reads the window a limit is counted over where a message
// names it as "<N requests|tokens> in <duration> window" (LocalAI's per-user
// quota rules, "60/60 requests in 1m window"; Go rate limiters, "100
// requests in 1m0s window") or as "per <duration>" in a limiter's seconds
// form (GitHub Models: "Rate limit of 50 per 86400s exceeded for
// UserByModelByDay", "… of 10 per 60s …"): long for a day or more,
// short under an hour, neither for an hour's or hours' window (a plan's
// five-hour window and an hourly reset mean different things), for none,
// or where the client sent the words. Units are read in lower case only,
// as Go's Duration.String writes them: "1M window" is a million tokens'.
func (ts *textScan) windowPeriod() (long, short bool) {
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		for off := 0; ; {
			k := indexFold(t[off:], "window")
			if k < 0 {
				break
			}
			k += off
			off = k + len("window")
			if k < 2 || t[k-1] != ' ' {
				continue
			}
			s, d := durationBefore(t, k-1)
			if d <= 0 {
				continue
			}
			long, short, stop := ts.windowLength(t, s, off, d)
			if long || short || stop {
				return long, short
			}
		}
		for off := 0; ; {
			k := indexFold(t[off:], "per ")
			if k < 0 {
				break
			}
			k += off
			off = k + len("per ")
			if k > 0 && wordTab[t[k-1]] == 1 {
				continue // "upper 60s", not a period
			}
			e, d := secondsAfter(t, off)
			if d <= 0 {
				continue
			}
			long, short, stop := ts.windowLength(t, k, e, d)
			if long || short || stop {
				return long, short
			}
		}
	}
	return false, false
}

// windowLength files a window of length d read in t[s:e]: long for a day
// or more, short under an hour; stop where the echo checks ran out (the
// window is then no evidence at all). A window whose words, with what
// precedes them, the client sent is skipped.
func (ts *textScan) windowLength(t []byte, s, e int, d time.Duration) (long, short, stop bool) {
	if len(ts.req) > 0 {
		// The words before the window too ("60/60 requests in 1m
		// window"): a prompt's "1m window" is not the count.
		if ts.checks >= maxEchoChecks {
			ts.echo = true
			return false, false, true
		}
		ts.checks++
		if echoed(ts.req, t[max(0, s-windowLead):e]) {
			ts.echo = true
			return false, false, false
		}
	}
	switch {
	case d >= 24*time.Hour:
		return true, false, false
	case d < time.Hour:
		return false, true, false
	}
	return false, false, false
}

// secondsAfter reads the duration that starts at t[s] in a limiter's
// seconds form, Go's compact form ending in seconds ("60s", "86400s",
// "1m0s", "24h0m0s"), up to the word's end: where it ends and its length, 0
// for none. "per 1m tokens" (a million) and "per 1k" are no durations.
func secondsAfter(t []byte, s int) (int, time.Duration) {
	e := s
	for e < len(t) && (t[e] >= 'a' && t[e] <= 'z' || t[e] >= '0' && t[e] <= '9' || t[e] == '.') {
		e++
	}
	if e == s || t[s] < '0' || t[s] > '9' || t[e-1] != 's' || (e < len(t) && wordTab[t[e]] == 1) {
		return 0, 0
	}
	return e, durationBytes(t[s:e])
}

// windowLead is how much of what precedes a window's duration its echo
// check reads with it.
const windowLead = 24

// durationBefore reads the duration that ends at t[e] (exclusive), in
// Go's compact form and its kin with days ("1m", "30s", "1m0s", "1h30m",
// "7d"; durationBytes, which saturates at a day): where it starts and its
// length, 0 for none.
func durationBefore(t []byte, e int) (int, time.Duration) {
	s := e
	for s > 0 && (t[s-1] >= 'a' && t[s-1] <= 'z' || t[s-1] >= '0' && t[s-1] <= '9' || t[s-1] == '.') {
		s--
	}
	if s == e || (s > 0 && wordTab[t[s-1]] == 1) {
		return 0, 0
	}
	return s, durationBytes(t[s:e])
}

// windowKeys are the member names that name a limit's window as an
// identifier (a GLM coding-plan relay's {"error":"usage limit exceeded",
// "window_type":"five_hour"}; OpenCode Go's metadata.limitName "5 hour").
var windowKeys = [...]string{"window_type", "windowType", "window", "limit_window", "limitWindow",
	"limitName", "limit_name", "rateLimitType", "rate_limit_type"}

// windowMember reads a window member's value as its prose is read: a plan's
// window of hours ("five_hour", "5 hour": "5 hour usage limit"), a day, a
// week, a month or a total allowance is long (quota); a minute or a second
// is short (rate_limited); anything else (a number, "hourly", "sliding")
// neither. Only where the answer's words speak of a limit, usage or quota
// (a context "window" beside other words is not one), and not where the
// client sent the value. ev is the evidence: "window-member:long" or
// "window-member:minutes-or-seconds" (withRetry reads the latter as a
// short period).
func (ts *textScan) windowMember() (long, short bool, ev string) {
	f := ts.f
	if f == nil || f.windowKey == nil || len(f.windowVal) > 24 {
		return false, false, ""
	}
	limitWords := false
	for i := 0; i < ts.texts() && !limitWords; i++ {
		t := ts.text(i)
		limitWords = indexFold(t, "limit") >= 0 || indexFold(t, "usage") >= 0 || indexFold(t, "quota") >= 0
	}
	if !limitWords {
		return false, false, ""
	}
	var b [24]byte
	w := b[:0]
	for _, c := range f.windowVal {
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == '_' || c == '-':
			c = ' '
		}
		w = append(w, c)
	}
	switch string(w) {
	case "five hour", "5 hour", "5 hours", "5h", "seven day", "7 day", "7 days",
		"day", "daily", "week", "weekly", "month", "monthly", "total", "lifetime":
		long = true
	case "minute", "per minute", "1 minute", "second", "per second", "1 second":
		short = true
	default:
		return false, false, ""
	}
	if len(ts.req) > 0 && echoed(ts.req, f.windowVal) {
		ts.echo = true
		return false, false, ""
	}
	if long {
		return true, false, "window-member:long"
	}
	return false, true, "window-member:minutes-or-seconds"
}
