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
// requests in 1m0s window"): long for a day or more,
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
