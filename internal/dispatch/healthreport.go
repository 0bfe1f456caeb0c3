package dispatch

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
)

// report turns a failure into what health must do, by the policy table
// (but for a server error's named wait: coolDeferred).
func (w *walk) report(rule policy.Row, o *outcome) health.Report {
	// Count follows the rule, so the endpoint's failures in /v1/health agree
	// with the attempt's "counted" (unavailable, quota and auth count and
	// also cool at once).
	r := health.Report{Class: o.verdict.Class.String(), Count: rule.Counted, Stream: o.streamed}
	switch rule.Cool {
	case policy.CoolThreshold:
	case policy.CoolRetryAfter:
		// The upstream's hint, which health caps at max_cooldown.
		r.Cool, r.CoolFor = health.ScopeEndpoint, w.r.table.CoolFor(rule.Class, o.verdict.RetryAfter)
		r.Hinted = o.verdict.RetryAfter > 0
	case policy.CoolUnavailable:
		r.Cool, r.CoolFor = health.ScopeEndpoint, w.r.table.CoolFor(rule.Class, o.verdict.RetryAfter)
		r.Words = w.words(o)
	case policy.CoolAccount:
		r.Cool, r.CoolFor = health.ScopeAccount, w.r.table.CoolFor(rule.Class, o.verdict.RetryAfter)
		r.Words = w.words(o)
	case policy.CoolNone:
	}
	return r
}

// words gives health, for a cooldown a human must end (a retired model,
// a spent quota, a rejected key), the upstream's own words for it
// (causeWords), made only if health asks: when the cooldown's cause
// starts, not at every failure while it runs. nil without a scrubber for
// them (Options.ScrubForHealth).
func (w *walk) words(o *outcome) func() string {
	scrub := w.d.opt.ScrubForHealth
	if scrub == nil || o.message == "" {
		return nil
	}
	msg, call := o.message, w.call
	return func() string { return causeWords(msg, call.evidence(true), scrub) }
}

// maxWords bounds the upstream's words health keeps for a cooldown, in
// bytes; longWord is the shortest word masked alone when the client's
// request holds it, echoRun the fewest words in a row masked when it
// holds them.
const (
	maxWords = 160
	longWord = 12
	echoRun  = 3
)

// echoedIn is the echo check causeWords makes, each a read of the whole
// request (classify.Echoed); a variable so that a test can count them.
var echoedIn = classify.Echoed

// unspacedRun is the fewest bytes in a row masked inside a word of a
// script written without blanks (Chinese, Japanese, Thai …) when the
// client's request holds them: four characters of those scripts, about
// two words, as echoRun allows two. It counts bytes, not characters of
// those scripts alone, so that what the client wrote between them — a
// zero-width space, a halfwidth voiced mark, a combining mark, Latin
// letters glued to the upstream's Chinese — never splits its text into
// runs too short to be looked for (review 41h).
const unspacedRun = longWord

// unspaced reports a character of a script written without blanks
// between its words, where one "word" between blanks is a whole phrase:
// the upstream's own words and the client's text it quotes, together.
func unspaced(r rune) bool {
	return r == 'ー' || r == '々' || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// maskUnspaced masks in wd, a word that holds a character of an unspaced
// script, as "…" once a run, every run of unspacedRun bytes or more
// (from a character to a character) that req holds (review 40h left such
// text shown unless quoted or echoed whole). It reads req once per
// character, so it reads only the first maxWords+longWord bytes, what
// /v1/health could show: the rest of a longer word (an upstream's error in
// Chinese is one word, up to the 4 KiB the classifier reads) is cut, "…"
// (review 41h: a 4 KiB word and a large request held the request that met
// the answer for seconds).
//
// coarse reads it once per run of unspacedRun bytes instead of once per
// character (a record's words, whose reads are few: recordWords): an echo
// of two runs or more is still found, as one run at least lies whole in
// it. limit bounds what is read, as maskWords' limit.
func maskUnspaced(wd string, echoed func(string) bool, coarse bool, limit int) string {
	if len(wd) < unspacedRun || !strings.ContainsFunc(wd, unspaced) {
		return wd
	}
	tail := ""
	if len(wd) > limit+longWord {
		wd, tail = wd[:cutWord(wd, limit+longWord)], decision.Masked
	}
	mask := make([]bool, len(wd))
	hit := false
	for i := 0; i+unspacedRun <= len(wd); {
		j := i + unspacedRun
		for j < len(wd) && !utf8.RuneStart(wd[j]) {
			j++
		}
		if echoed(wd[i:j]) {
			hit = true
			for k := i; k < j; k++ {
				mask[k] = true
			}
		}
		if coarse {
			i = j
			continue
		}
		_, n := utf8.DecodeRuneInString(wd[i:])
		i += n
	}
	if !hit {
		return wd + tail
	}
	var b strings.Builder
	for i := 0; i < len(wd); i++ {
		switch {
		case !mask[i]:
			b.WriteByte(wd[i])
		case i == 0 || !mask[i-1]:
			b.WriteString(decision.Masked)
		}
	}
	b.WriteString(tail)
	return b.String()
}

// cutWord is where a word longer than n bytes is cut: at a character at
// most n bytes in, and not after fewer than 8 ASCII bytes in a row (a
// key's fragment shorter than the scrubber's window, redact.Window, would
// be left; one of 8 or more is scrubbed).
func cutWord(wd string, n int) int {
	for n > 0 && !utf8.RuneStart(wd[n]) {
		n--
	}
	k := n
	for k > 0 && n-k < 8 && wd[k-1] > ' ' && wd[k-1] < utf8.RuneSelf {
		k--
	}
	if n-k < 8 {
		return k
	}
	return n
}

// edgePunct is punctuation an upstream puts around the words it quotes
// ("Last input: <words>."), trimmed from a run before it is looked for;
// so is every opening, closing and quotation mark Unicode knows (isEdge).
const edgePunct = ".,;:!?()[]{}<>"

// isEdge reports a character trimmed from the ends of a word or run
// before the echo check: edgePunct, and brackets and quotation marks of
// any script (“…”, «…», 「…」, （…）), which stuck to the client's words
// hid them from it (review 40h).
func isEdge(r rune) bool {
	return strings.ContainsRune(edgePunct, r) || unicode.In(r, unicode.Ps, unicode.Pe, unicode.Pi, unicode.Pf)
}

// typoQuotes pairs the quotation marks beside ASCII's that an upstream
// may quote a value between, opening to closing: their values are masked
// as decision.MaskQuoted masks those between ASCII quotes (review 40h: a
// value in “…” kept the client's text, and text without blanks, Chinese
// or Japanese, is one word the echo check reads only whole).
var typoQuotes = map[rune]rune{'“': '”', '„': '“', '‘': '’', '«': '»', '‹': '›', '「': '」', '『': '』'}

// maskTypoQuoted masks the values between typoQuotes in s as "…"; a value
// never closed is masked to the end.
func maskTypoQuoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+n])
		i += n
		cl, ok := typoQuotes[r]
		if !ok {
			continue
		}
		b.WriteString(decision.Masked)
		j := strings.IndexRune(s[i:], cl)
		if j < 0 {
			return b.String()
		}
		b.WriteRune(cl)
		i += j + utf8.RuneLen(cl)
	}
	return b.String()
}

// causeWords is what /v1/health shows of the upstream's message msg for a
// cooldown: anyone who can reach /v1/health may read it, and text a client
// supplied is never evidence (docs/security.md). So every quoted value is
// masked ("…": that is where upstreams quote the request back), and so is
// every run of echoRun words or more, and every word of longWord bytes or
// more, that req (the client's request, as the echo rule reads it) holds,
// and inside a word of a script written without blanks every run of
// unspacedRun bytes or more that req holds (maskUnspaced); blanks fold to
// one space; scrub removes keys, addresses and the
// operator's account ids; and at most maxWords bytes are kept, cut
// between words ("…" ends what was cut). "" when nothing is left.
func causeWords(msg string, req []byte, scrub func(string) string) string {
	return maskWords(msg, func(s string) bool { return echoedIn(req, s) }, scrub, maxWords, false)
}

// maxRecordChecks bounds the echo checks recordWords makes, each a read of
// the whole request, and maxRecordRead the bytes they read together: a
// failed attempt's record is written for every failure, on the walk's way
// to the next attempt, not once a cooldown as health's words are (review
// r50b: 24 reads of an 8 MiB request took a second).
const (
	maxRecordChecks = 24
	maxRecordRead   = 32 << 20
)

// attemptMessage is a failed attempt's recorded Message. An unknown's is
// the upstream's as it came, quoted values masked: `detour classify
// --suggest` makes a rule of it that must match the upstream's body
// (review r50b: a masked word made the rule match nothing). Any other's
// has what the client sent masked too (recordWords).
func attemptMessage(c classify.Class, msg string, req []byte) string {
	if c == classify.Unknown {
		return decision.UpstreamMessage(msg)
	}
	return decision.UpstreamMessage(recordWords(msg, req))
}

// recordWords is what a failed attempt's decision record keeps of the
// upstream's message msg (Attempt.Message): causeWords' masking, what the
// client's request req holds masked, up to decision.MaxMessage bytes,
// with at most maxRecordChecks reads of req (fewer for a large one:
// maxRecordRead); once they are spent every
// later check counts as an echo, so the rest is masked, never shown
// unchecked (review r50: a vLLM 400 quoting a client's file path put the
// client's words in the record). The record's sink scrubs secrets.
func recordWords(msg string, req []byte) string {
	left := min(maxRecordChecks, maxRecordRead/max(len(req), 1))
	return maskWords(msg, func(s string) bool {
		if left == 0 {
			return true
		}
		left--
		return echoedIn(req, s)
	}, func(s string) string { return s }, decision.MaxMessage, true)
}

// maskWords masks msg as causeWords says, echoed telling what the client
// sent, and keeps at most limit bytes; coarse, as maskUnspaced.
func maskWords(msg string, echoed func(string) bool, scrub func(string) string, limit int, coarse bool) string {
	words := strings.Fields(maskTypoQuoted(decision.MaskQuoted(msg)))
	size := 0
	for i, wd := range words { // what could be kept, and a word more
		if size += len(wd) + 1; size > limit+longWord {
			words = words[:i+1]
			break
		}
	}
	echo := make([]bool, len(words))
	for i, wd := range words {
		if len(wd) >= longWord && echoed(strings.TrimFunc(wd, isEdge)) {
			echo[i] = true
		}
		if i+echoRun <= len(words) && echoed(strings.TrimFunc(strings.Join(words[i:i+echoRun], " "), isEdge)) {
			for j := i; j < i+echoRun; j++ {
				echo[j] = true
			}
		}
	}
	var b strings.Builder
	for i, wd := range words {
		if echo[i] {
			if i > 0 && echo[i-1] {
				continue // one mark for the run
			}
			wd = decision.Masked
		} else {
			wd = maskUnspaced(wd, echoed, coarse, limit)
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(wd)
	}
	s := strings.TrimSpace(scrub(b.String()))
	if len(s) <= limit {
		return s
	}
	cut := strings.LastIndexByte(s[:limit-len(decision.Masked)+1], ' ')
	if cut <= 0 { // one long word: cut at a character
		cut = limit - len(decision.Masked)
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut]) + decision.Masked
}

// tell reports an attempt's outcome at endpoint k to health, and whether
// the report cooled k. What the report's update found cooling goes into
// the walk's view of health too, where no transition says so: another
// request (or replica) that cooled k or its account a moment before left
// this report none to see.
func (w *walk) tell(k health.Key, r health.Report) (cooled bool) {
	var seen health.Seen
	cooled = w.transitions(k, w.d.opt.Health.ReportSeen(w.bg, k, r, &seen), &r)
	if !seen.EndpointUntil.IsZero() {
		w.cooled(k, health.Transition{Scope: health.ScopeEndpoint, To: health.Cooling, Until: seen.EndpointUntil})
	}
	if !seen.AccountUntil.IsZero() {
		w.cooled(k, health.Transition{Scope: health.ScopeAccount, To: health.Cooling, Until: seen.AccountUntil})
	}
	return cooled
}

// transitions records health changes in the decision, the log and metrics,
// and reports whether one of them cooled k. trs came from a call about
// endpoint k: an endpoint transition is k's, an account transition is k's
// provider's (health touches nothing else). r is the report that made
// them, nil for none (a probe's lease).
func (w *walk) transitions(k health.Key, trs []health.Transition, r *health.Report) (cooled bool) {
	for _, tr := range trs {
		if tr.To == health.Cooling {
			w.cooled(k, tr)
			cooled = true
			w.d.opt.Metrics.Cooldown(tr.Scope.String(), k.Target, k.Provider, tr.Class)
		}
		w.rec.Transitions = append(w.rec.Transitions, decision.Transition{Scope: tr.Scope.String(), Name: tr.Name,
			From: tr.From.String(), To: tr.To.String(), Class: tr.Class, Until: tr.Until.UTC(), Since: tr.Since.UTC()})
		args := []any{"scope", tr.Scope.String(), "name", tr.Name, "from", tr.From.String(), "to", tr.To.String(), "class", tr.Class}
		if !tr.Until.IsZero() {
			args = append(args, "until", tr.Until.UTC().Format(time.RFC3339))
		}
		if !tr.Since.IsZero() {
			args = append(args, "since", tr.Since.UTC().Format(time.RFC3339))
		}
		if why := coolReason(r, tr); why != "" {
			args = append(args, "reason", why)
		}
		w.d.log.Info("health transition", args...)
		w.recovered(k, tr)
		if tr.Scope == health.ScopeAccount {
			w.d.opt.Metrics.AccountState(k.Provider, tr.To.String())
		} else {
			w.d.opt.Metrics.EndpointState(k.Target, k.Provider, tr.To.String())
		}
	}
	return cooled
}

// recovered posts an account's return after a paged cooldown (its class
// pages in the route's table: quota, auth): health announces the close
// once across replicas, in the request whose success made it.
func (w *walk) recovered(k health.Key, tr health.Transition) {
	if tr.Scope != health.ScopeAccount || tr.To != health.Healthy || tr.From == health.Healthy || w.d.opt.Alerts == nil {
		return
	}
	if c, err := classify.ParseClass(tr.Class); err == nil && w.r.table.Row(c).Page {
		w.d.opt.Alerts.Recovered(tr.Name, tr.Class, k.Target, tr.Since, w.d.opt.Health.Now())
	}
}

// cooled marks what a transition just cooled in this request's view of
// health, so the rest of the walk puts those endpoints last too: after a
// quota or auth verdict, the account's endpoints in later targets.
func (w *walk) cooled(k health.Key, tr health.Transition) {
	for i, o := range w.status.keys {
		if i >= len(w.status.sts) {
			break
		}
		if tr.Scope == health.ScopeAccount && o.Provider == k.Provider ||
			tr.Scope == health.ScopeEndpoint && o == k {
			st := &w.status.sts[i]
			st.Phase = health.Cooling
			if tr.Until.After(st.Until) {
				st.Until = tr.Until
			}
		}
	}
}

// lateError files a success whose upstream sent an error event after the
// answer was complete (stream.go, erredAfterFinish): the attempt keeps the
// event's class and evidence in its evidence, and stays a success — no
// class, not counted. Health hears of the event only as far as its class
// says something of the account or the endpoint beyond this request, by
// cooling at once: rate_limited (for its wait), unavailable, quota and auth
// (the account, paged). A class that counts toward failure_threshold
// (server_error, timeout, forbidden) counts failed requests, and this one
// did not fail: health hears of a success.
func (w *walk) lateError(e *endpointRT, o *outcome, a *decision.Attempt, took time.Duration) {
	v := o.late
	a.Evidence = "stream:error after finish (" + v.Class.String() + ": " + v.Evidence + ")"
	row := w.r.table.Row(v.Class)
	switch row.Cool {
	case policy.CoolRetryAfter, policy.CoolUnavailable, policy.CoolAccount:
		rep := w.report(row, &outcome{verdict: v})
		rep.Count = false
		w.tell(e.key, rep)
		if row.Page && w.d.opt.Alerts != nil {
			w.d.opt.Alerts.NotifyUntil(e.key.Provider, v.Class.String(), a.Evidence, "", w.coolsUntil(e.key.Provider, v.Class, &outcome{verdict: v}))
		}
	case policy.CoolThreshold, policy.CoolNone:
		w.tell(e.key, health.Report{OK: true, Latency: o.latency(), Whole: !o.streamed, Took: took})
	}
}

// coolReason is why an endpoint's transition to cooling began, for its log
// line (docs/scale.md, "Logs"): its probe failed, the upstream's
// Retry-After, the class's own endpoint cooldown in the route's table, or
// failure_threshold counted failures in a row. "" for an account (its
// class is its reason) and for any other transition.
func coolReason(r *health.Report, tr health.Transition) string {
	switch {
	case r == nil || tr.Scope != health.ScopeEndpoint || tr.To != health.Cooling:
		return ""
	case tr.From == health.Probing:
		return "probe_failed"
	case r.Cool == health.ScopeEndpoint && r.CoolFor > 0 && r.Hinted:
		return "retry_after"
	case r.Cool == health.ScopeEndpoint && r.CoolFor > 0:
		return "class"
	case r.Count:
		return "failure_threshold"
	}
	return ""
}

// coolsUntil is when the cooldown a paged verdict of class c at provider
// began ends (the account's: quota and auth), for the page
// (alert.NotifyUntil): the end health recorded for the account's change to
// cooling in this request, which runs on the fleet's clock and doubles
// after a failed probe (hostile 55c: the page counted from this host's
// clock); else the tracker's now and the class's cooldown.
func (w *walk) coolsUntil(provider string, c classify.Class, o *outcome) time.Time {
	for i := len(w.rec.Transitions) - 1; i >= 0; i-- {
		tr := &w.rec.Transitions[i]
		if tr.Scope == health.ScopeAccount.String() && tr.Name == provider && tr.To == health.Cooling.String() && !tr.Until.IsZero() {
			return tr.Until
		}
	}
	d := w.r.table.CoolFor(c, o.verdict.RetryAfter)
	if d <= 0 {
		return time.Time{}
	}
	return w.d.opt.Health.Now().Add(d)
}
