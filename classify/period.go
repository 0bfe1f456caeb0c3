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
// requests in 1m0s window"; "a 60-second window"): long for a day or more,
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
			if len(ts.req) > 0 {
				// The words before the window too ("60/60 requests in 1m
				// window"): a prompt's "1m window" is not the count.
				if ts.checks >= maxEchoChecks {
					ts.echo = true
					return false, false
				}
				ts.checks++
				if echoed(ts.req, t[max(0, s-windowLead):off]) {
					ts.echo = true
					continue
				}
			}
			switch {
			case d >= 24*time.Hour:
				return true, false
			case d < time.Hour:
				return false, true
			}
		}
	}
	return false, false
}

// windowLead is how much of what precedes a window's duration its echo
// check reads with it.
const windowLead = 24

// longest is the duration any longer one reads as: far past a day, and far
// from time.Duration's overflow.
const longest = 100 * 365 * 24 * time.Hour

// durationBefore reads the duration that ends at t[e] (exclusive): Go's
// compact form ("1m", "30s", "1m0s", "1h30m", "7d") or a number and a
// unit's word joined by a blank or a hyphen ("60 second", "1-minute",
// "5 mins"). It returns where the duration starts and its length, 0 for
// none.
func durationBefore(t []byte, e int) (int, time.Duration) {
	s := e
	for s > 0 && (t[s-1] >= 'a' && t[s-1] <= 'z' || t[s-1] >= '0' && t[s-1] <= '9' || t[s-1] == '.') {
		s--
	}
	if s == e || (s > 0 && wordTab[t[s-1]] == 1 && t[s-1] != ' ' && t[s-1] != '-') {
		return 0, 0
	}
	tok := t[s:e]
	if d := compactDuration(tok); d > 0 {
		return s, d
	}
	unit := unitWord(tok)
	if unit == 0 || s < 2 || (t[s-1] != ' ' && t[s-1] != '-') {
		return 0, 0
	}
	n := s - 1
	for n > 0 && t[n-1] >= '0' && t[n-1] <= '9' {
		n--
	}
	if n == s-1 || (n > 0 && wordTab[t[n-1]] == 1) {
		return 0, 0
	}
	count := 0
	for _, c := range t[n : s-1] {
		if count = count*10 + int(c-'0'); count > 1<<20 {
			return n, longest
		}
	}
	return n, min(time.Duration(count)*unit, longest)
}

// compactDuration reads Go's Duration.String and its kin with days and
// weeks ("1m0s", "500ms", "7d"); 0 where tok is not one.
func compactDuration(tok []byte) time.Duration {
	var d time.Duration
	for len(tok) > 0 {
		i := 0
		for i < len(tok) && (tok[i] >= '0' && tok[i] <= '9' || tok[i] == '.') {
			i++
		}
		if i == 0 || i > 9 {
			return 0
		}
		n, frac, _ := bytes.Cut(tok[:i], []byte("."))
		tok = tok[i:]
		j := 0
		for j < len(tok) && tok[j] >= 'a' && tok[j] <= 'z' {
			j++
		}
		var unit time.Duration
		switch string(tok[:j]) {
		case "ms":
			unit = time.Millisecond
		case "s":
			unit = time.Second
		case "m":
			unit = time.Minute
		case "h":
			unit = time.Hour
		case "d":
			unit = 24 * time.Hour
		case "w":
			unit = 7 * 24 * time.Hour
		default:
			return 0
		}
		tok = tok[j:]
		v := time.Duration(0)
		for _, c := range n {
			if c < '0' || c > '9' {
				return 0
			}
			v = v*10 + time.Duration(c-'0') // at most nine digits (above)
		}
		if v > longest/unit {
			v = longest / unit
		}
		if d += v * unit; d > longest {
			d = longest
		}
		if len(frac) > 0 && frac[0] >= '0' && frac[0] <= '9' {
			d += time.Duration(frac[0]-'0') * unit / 10
		}
	}
	return d
}

// unitWord is the length of a unit's word ("second", "mins", "day"); 0 for
// none.
func unitWord(w []byte) time.Duration {
	switch string(w) {
	case "second", "seconds", "sec", "secs":
		return time.Second
	case "minute", "minutes", "min", "mins":
		return time.Minute
	case "hour", "hours":
		return time.Hour
	case "day", "days":
		return 24 * time.Hour
	case "week", "weeks":
		return 7 * 24 * time.Hour
	}
	return 0
}
