package classify

import "bytes"

// maxEchoChecks bounds the echo checks of one classification (each reads the
// whole request once). Past it, a phrase found counts as echoed: the answer
// falls back on codes, structure and its status, never on the client's text.
const maxEchoChecks = 8

// textScan finds the phrases of a body's human texts that count as
// evidence. The zero req checks nothing.
type textScan struct {
	f      *facts // nil or unparsed: body is the one text
	body   []byte // the one text when f is nil or unparsed: cut by bodyText
	req    []byte // the client's request body
	raw    []byte // the whole answer body (noDetails); nil reads as none
	model  string // the model Detour sent; "" for unknown
	checks int    // echo checks made
	echo   bool   // some phrase was discarded as echoed
	field  bool   // some phrase was discarded as a named field's content
	tmpl   int8   // whether the request carries its own template: 0 not read yet, 1 no, 2 yes
	rate   bool   // a rate-limited answer: notRate phrases are passed over, the next one decides
	url    int8   // whether the texts name a URL the client sent: 0 not read yet, 1 no, 2 yes
	fetch  int8   // whether they name a URL the client gave the upstream to fetch: as url
	media  uint8  // the kinds of input the request holds (hasMedia): 0 not read yet, else 1<<7 and the mediaKind bits
	beta   int8   // whether the evidence holds a beta the client asked for (hasBeta): as url
	gates  int    // passes over the request made for a feature gate (gateCheck)
}

// templated reports whether the client's request carries a template the
// upstream renders (vLLM's chat_template, "{{ raise_exception('…') }}"):
// then any words of the answer may be the client's, computed rather than
// echoed, so no phrase is evidence and the codes and the status decide.
func (ts *textScan) templated() bool {
	if ts.tmpl == 0 {
		ts.tmpl = 1
		if topMember(ts.req, templateKeys[:]) {
			ts.tmpl = 2
		}
	}
	return ts.tmpl == 2
}

// templateKeys are the request's top-level members that hold a template
// the upstream renders.
var templateKeys = [...]string{"chat_template"}

func (ts *textScan) texts() int {
	if ts.f == nil || !ts.f.parsed {
		return 1
	}
	return ts.f.nTexts
}

func (ts *textScan) text(i int) []byte {
	if ts.f == nil || !ts.f.parsed {
		return ts.body
	}
	return ts.f.texts[i]
}

// pick returns the index of the highest-priority phrase of s found in the
// texts that counts as evidence: its class is not in skip (such a phrase is
// discarded and noted in field) and its matched text is not in the client's
// request (noted in echo). It returns len(s.list) for none.
func (ts *textScan) pick(s *phraseSet, skip classMask) int {
	n := len(s.list)
	if ts.templated() {
		ts.echo = true
		return n
	}
	for lo := 0; ; {
		best, in := hit{idx: n}, 0
		for i := 0; i < ts.texts(); i++ {
			if h := s.find(ts.text(i), 0, lo, best.idx); h.idx < best.idx {
				best, in = h, i
			}
		}
		if best.idx == n {
			return n
		}
		next := best.idx + 1
		if t := ts.text(in); s.list[best.idx].feature && !namesRequestField(t[:sentenceStart(t, best.start)]) &&
			ts.namesModelBefore(t, best.start) {
			// Not a feature of the request: the model Detour sent is
			// gone, in the same words (gone.go).
			if best.idx = gone(s, best.idx); best.idx == n {
				lo = next
				continue
			}
		}
		if p := &s.list[best.idx]; p.goneNoun && ts.subjectEchoed(ts.text(in), best.start) {
			// What the sentence says is gone is something the client
			// named: no evidence about the endpoint (gone.go).
			ts.echo = true
			lo = next
			continue
		}
		if s.list[best.idx].class == Unavailable && orTheRequest(ts.text(in), best.end) {
			// "an unsupported model or your request did not allow …": the
			// model is one cause offered among the request's (gone.go).
			lo = next
			continue
		}
		if p := &s.list[best.idx]; p.ourModel && len(ts.model) >= 2 && !hasName(scope(ts.text(in), p.class), ts.model) {
			// Said of something other than the model Detour sent ("Tool
			// model not allowed: dall-e-2", "Your plan does not include
			// access to web search"): a feature's, no evidence here.
			lo = next
			continue
		}
		if t := ts.text(in); s.list[best.idx].bareModel && best.start > 0 && (t[best.start-1] == '.' || t[best.start-1] == ']') {
			// A sub-object's model ("session.model is required"): the
			// client's field, not the member Detour writes.
			lo = next
			continue
		}
		if t := ts.text(in); s.list[best.idx].opens && !opensClause(t, best.start) {
			// "Embedding model must be one of …": a qualified noun, another
			// member's model, not the one Detour writes.
			lo = next
			continue
		}
		if s.list[best.idx].noDetails && len(ts.raw) > 0 && detailsBeside(ts.raw, ts.text(in)) {
			// "Validation error" heading its details (Zod's {"error":
			// "Validation error", "details": […]}): they name the input.
			lo = next
			continue
		}
		if s.list[best.idx].notClient && ts.clientURL() || aboutProvider(s.list[best.idx].class) && ts.fetchedURL() {
			// "Failed to download file from https://…: 401 Unauthorized.
			// Please re-authenticate.": the client's resource asks it. So
			// is any word about an account or an endpoint beside a URL the
			// client gave the upstream to fetch: its host writes the status
			// line's reason phrase and its page as it likes, and a server
			// that fetched it quotes them ("Failed to download https://…:
			// 403 Account Suspended", requests' "429 Client Error: Rate
			// Limited for url: …"; review 61g: one such request cooled a
			// relay's account for an hour, for everyone). Not a link the
			// request holds elsewhere (review 61h: the provider's own docs
			// link, pasted in a message, hid its quota words).
			ts.echo = true
			lo = next
			continue
		}
		if skip.has(s.list[best.idx].class) {
			ts.field = true
			lo = next
			continue
		}
		if ts.rate && s.list[best.idx].notRate {
			// "too many tokens" or a bare "quota exceeded" from a throttle
			// says nothing the 429 does not; what ranks below it still may
			// ("… It will reset at …").
			lo = next
			continue
		}
		if len(ts.req) == 0 || ts.counts(s, best, in) {
			return best.idx
		}
		ts.echo = true
		if ts.checks >= maxEchoChecks {
			return n
		}
		lo = next
	}
}

// counts reports whether some occurrence of the phrase found at h in text
// in, or after it, is not echoed: neither whole, nor, for a two-part phrase,
// assembled from two of the client's own items (joined.go).
func (ts *textScan) counts(s *phraseSet, h hit, in int) bool {
	idx := h.idx
	for ts.checks < maxEchoChecks {
		ts.checks++
		t := ts.text(in)
		if !ts.echoedPhrase(&s.list[idx], t[h.start:h.end]) && (s.list[idx].b == "" || !ts.joinedFromClient(t, h, &s.list[idx])) {
			return true
		}
		if s.list[idx].b == "" {
			return false // a one-part phrase reads the same wherever it matched
		}
		h = s.find(ts.text(in), h.end, idx, idx+1)
		for h.idx != idx {
			if in++; in >= ts.texts() {
				return false
			}
			h = s.find(ts.text(in), 0, idx, idx+1)
		}
	}
	return false
}

// echoedPhrase reports whether the text m, matched by the phrase p, is
// echoed from the client's request. A bad-input phrase that is a request
// parameter's name (max_tokens, temperature, top_p: paramNamePhrase) is in
// every request that sets the parameter, as a member name, and the
// request's structure is not the client's words: such a match counts as
// echoed only where the request holds the name elsewhere too, inside a
// string (round 56, hunt 56c). Only bad_request phrases are read so: a
// member name never decides an account's, a key's or an endpoint's class.
func (ts *textScan) echoedPhrase(p *phrase, m []byte) bool {
	if !echoed(ts.req, m) {
		return false
	}
	if p.b != "" || p.class != BadRequest || !paramNamePhrase(p.a) {
		return true
	}
	return echoedOutsideMembers(ts.req, p.a, m)
}

// paramNamePhrase reports whether a phrase is an identifier a request member
// could be named: lower-case letters, digits and '_', no blank.
func paramNamePhrase(a string) bool {
	for i := 0; i < len(a); i++ {
		if c := a[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return a != ""
}

// echoedOutsideMembers reports whether m is echoed from req outside every
// member name equal to name (lower case; ASCII case aside in req; one
// written with escapes is not passed over): in the pieces of req between
// those names, so that only the name's other occurrences, inside the
// client's strings, count. Nothing is copied.
func echoedOutsideMembers(req []byte, name string, m []byte) bool {
	prev := 0
	found := members(req, func(s, e, _ int, _ bool) bool {
		if e-s == len(name) && indexFold(req[s:e], name) == 0 {
			if echoed(req[prev:s], m) {
				return true
			}
			prev = e
		}
		return false
	})
	return found || echoed(req[prev:], m)
}

// clientURL reports whether the answer's texts name a URL the client's
// request holds, read once per classification however many phrases ask.
func (ts *textScan) clientURL() bool { return ts.namesURL(&ts.url, false) }

// fetchedURL is clientURL for a URL the client gave the upstream to fetch
// (namesURL).
func (ts *textScan) fetchedURL() bool { return ts.namesURL(&ts.fetch, true) }

// namesURL answers clientURL (fetched false) or fetchedURL, remembered in
// *seen: 0 not read yet, 1 no, 2 yes.
func (ts *textScan) namesURL(seen *int8, fetched bool) bool {
	if *seen == 0 {
		*seen = 1
		for i := 0; i < ts.texts() && len(ts.req) > 0; i++ {
			if namesURL(ts.text(i), ts.req, fetched) {
				*seen = 2
				break
			}
		}
	}
	return *seen == 2
}

// bodyText is body as textScan reads it when f holds no texts of its own
// (nil or unparsed): cut by quotedCut, as facts' texts are.
func bodyText(f *facts, body []byte) []byte {
	if f != nil && f.parsed {
		return body
	}
	return quotedCut(body)
}

// detailKeys name the members a validation answer lists its failures in.
var detailKeys = []string{"details", "errors", "issues", "fields", "subErrors"}

// detailsBeside reports whether raw holds a list of details (detailKeys)
// beside the text t: one that does not hold t itself. A list holding the
// message is the answer's envelope ({"errors":[{"message":"Validation
// Error"}]}, as Cloudflare and GraphQL-style servers write), not details
// naming the input.
func detailsBeside(raw, t []byte) bool {
	return members(raw, func(s, e, _ int, _ bool) bool {
		if !isKey(raw[s:e], detailKeys) {
			return false
		}
		j := skipBlanks(raw, e+1)
		if j >= len(raw) || raw[j] != ':' {
			return true
		}
		j = skipBlanks(raw, j+1)
		if j >= len(raw) || raw[j] != '[' && raw[j] != '{' {
			return true // a details string ("details":"Invalid max_tokens value")
		}
		n := objectEnd(raw[j:])
		return n == 0 || len(t) == 0 || !bytes.Contains(raw[j:j+n], t)
	})
}

// litellmSuffixes open what LiteLLM's router adds to the errors it relays
// ("… Received Model Group=gpt-4o\nAvailable Model Group Fallbacks=None",
// and before it, where fallbacks exist for other groups only, "No fallback
// model group found for original model_group=gpt-4o. Fallbacks=[…]"): the
// model it was sent, which is Detour's whatever the error is about.
var litellmSuffixes = [...]string{"received model group=", "no fallback model group found for"}

// ownWords is t without a relay's suffix naming the model it was sent: the
// upstream's own words (review28b, review28c).
func ownWords(t []byte) []byte {
	for _, p := range litellmSuffixes {
		if k := indexFold(t, p); k >= 0 {
			t = t[:k]
		}
	}
	return t
}

// scope is where a phrase of class c scoped to the model Detour sent must
// find it: the upstream's own words, but for a gone model, which may be
// found by the suffix too. Behind LiteLLM the model Detour sends is a
// group's alias, and the upstream names the deployment's model
// ("non-serverless model Qwen/…"); a tool's model the client named is
// read as the client's before this (modelNamed), so the alias's link is
// the one left (review28c).
func scope(t []byte, c Class) []byte {
	if c == Unavailable {
		return t
	}
	return ownWords(t)
}

// opensClause reports whether no word stands between the start of the
// sentence or clause holding t[i] and t[i]: only blanks, digits and
// punctuation ("400 - Embedding Module: Model name must be one of"),
// or a relay's label (relayLabel: "[groq] ", "OpenAIException - ").
func opensClause(t []byte, i int) bool {
	s := sentenceStart(t, i)
	if l := relayLabel(t); s < l && l <= i {
		s = l
	}
	for _, c := range t[s:i] {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			return false
		}
	}
	return true
}

// aboutProvider reports whether c is a class about the provider's account
// or endpoint, which words beside a URL the client sent never prove
// (pick): the classes that cool or page. Not timeout: a fetch of the
// client's URL that timed out is read by its own rules (clientThing
// phrases; server.go's timeoutPhrases beside a client URL: unknown).
func aboutProvider(c Class) bool {
	switch c {
	case Quota, Auth, Forbidden, RateLimited, Unavailable, ServerError:
		return true
	case Timeout, Overflow, ContextLength, Refusal, BadRequest, Unknown, numClasses:
		return false
	}
	return false
}
