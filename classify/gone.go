package classify

import "bytes"

// A "not supported" about a model says it is gone only where the model
// itself is what is unsupported ("Model X is not currently supported",
// "Unsupported model X"). Where a feature of it is ("This model does not
// support image input. Image inputs are not currently supported", "Image
// input for this model is not supported", "Unsupported model for this
// feature: logprobs"), the answer is a capability gap the client's request
// ran into: reading it as a gone model would let any client cool the
// endpoint for everyone by asking for what the model lacks
// (docs/behaviour.md, "A gone model is the model, not a feature of it").

// modelIsSubject reports whether the word "model" matched at t[i:end] is
// the subject of the sentence, not the object of a preposition ("for this
// model", "with the model") or followed by what it is unsupported for
// ("unsupported model for this feature").
func modelIsSubject(t []byte, i, end int) bool {
	w1s, w1e := prevWord(t, i)
	if w1s >= 0 && determiner(t[w1s:w1e]) {
		if w2s, w2e := prevWord(t, w1s); w2s >= 0 && preposition(t[w2s:w2e]) {
			return false
		}
	} else if w1s >= 0 && preposition(t[w1s:w1e]) {
		return false
	}
	// "unsupported model for …": what follows says for what.
	j := end
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	_, forWhat := prefixAt(t, j, "for ")
	if j > end && forWhat {
		return false
	}
	// "Requests ending with a model turn are not supported": "model"
	// names a kind of turn, message or output, not the model.
	if j > end {
		for _, n := range modelNouns {
			if e, ok := prefixAt(t, j, n); ok && (e == len(t) || wordTab[t[e]] == 0) {
				return false
			}
		}
	}
	return true
}

// modelNouns follow "model" where it qualifies another noun.
var modelNouns = [...]string{"turn", "turns", "role", "message", "messages", "response", "responses", "output", "outputs", "part", "parts", "content"}

// featureBetween reports whether the gap between "model" and "not
// supported" speaks of support, lists something (a colon and a blank: a
// model id may hold a colon) or ends a sentence: the model
// supports, or lacks, a feature, which is what is not supported.
func featureBetween(gap []byte) bool {
	return containsFold(gap, "support") || containsFold(gap, ": ") || sentenceEnds(gap)
}

// goneNouns are the words naming what an endpoint serves: a model, the
// endpoint or API itself, a version of it, a deployment. "X is no longer
// supported" is about the endpoint only when X is one of them.
var goneNouns = [...]string{"model", "models", "endpoint", "endpoints", "api", "apis", "version", "deployment"}

// goneNounsCJK are goneNouns in Chinese: a model, an interface (an API), a
// version, an endpoint (推理接入点, Ark's).
var goneNounsCJK = [...][]byte{[]byte("模型"), []byte("接口"), []byte("版本"), []byte("接入点")}

// maxSubjectBack bounds how far back goneSubject reads for the subject.
const maxSubjectBack = 160

// goneSubject reports whether what the sentence ending at t[i] says is
// gone ("… is no longer supported", "… is deprecated") is the endpoint's:
// the words before it in the sentence name a model, an endpoint, an API
// or a version (goneNouns), or there are none ("No longer supported."). A
// sentence that names something else ("Live search is deprecated", xAI's
// 410 to a request carrying search_parameters; "The functions parameter is
// no longer supported") says a feature of the request is gone: the
// request moves on, and nothing cools for everyone (docs/behaviour.md,
// "A gone model is the model, not a feature of it").
func goneSubject(t []byte, i int) bool {
	s := sentenceStart(t, i)
	for _, n := range goneNounsCJK {
		// Chinese runs its words together: the noun inside the subject
		// ("该模型已下线", the model taken offline).
		if bytes.Contains(t[s:i], n) {
			return true
		}
	}
	named, quoted := false, false
	for j := s; j < i; {
		for j < i && !accountWordByte(t[j]) {
			if isQuote(t, j) && (quoted || closes(t, j, i)) {
				// A quote that closes nowhere before the match opens
				// the whole message (a relay's 'Gemini 1.0 … has been
				// deprecated'), not a name.
				quoted = !quoted
			}
			j++
		}
		k := j
		for k < i && accountWordByte(t[k]) { // a field's snake_case name is one word: service_tier is no service
			k++
		}
		if k == j {
			break
		}
		named = true
		for _, n := range goneNouns {
			if eqFold(t[j:k], n) && !requestPartNext(t, k, i) {
				return true
			}
		}
		if !quoted && versionWord(t, j, k) {
			return true
		}
		j = k
	}
	return !named
}

// requestPartNouns name a part of a request. After a gone-noun they make
// it a modifier: "The legacy Interactions API schema is no longer
// supported" (hunt 54b, Gemini) says the request's shape is gone, not the
// API; "the model parameter", "the endpoint header" likewise.
var requestPartNouns = [...]string{"schema", "schemas", "parameter", "parameters", "param", "params", "field", "fields", "format", "formats", "header", "headers", "option", "options", "argument", "arguments", "property", "properties", "member", "members", "setting", "settings"}

// requestPartNext reports whether the word after t[:k], before i, names a
// part of a request (requestPartNouns).
func requestPartNext(t []byte, k, i int) bool {
	j := k
	for j < i && t[j] == ' ' {
		j++
	}
	if j == k {
		return false
	}
	e := j
	for e < i && accountWordByte(t[e]) {
		e++
	}
	for _, n := range requestPartNouns {
		if eqFold(t[j:e], n) {
			return true
		}
	}
	return false
}

// versionWord reports whether t[j:k], a word of a sentence's subject, is
// a number outside any identifier: a model's display name carries its
// version ("Gemini 1.0 Pro Vision", "Claude 2"), which a feature's name
// ("Live search", "The functions parameter", "Web search 2") does not: the
// number must follow a capitalised name. A number in a field's index
// (tools[0]) or quoted (`web-search-2025-03-05`, a beta the client named)
// is not one.
func versionWord(t []byte, j, k int) bool {
	for _, c := range t[j:k] {
		if c < '0' || c > '9' {
			return false
		}
	}
	joined := func(c byte) bool { return c == '_' || c == '[' || c == ']' }
	if j > 0 && joined(t[j-1]) || k < len(t) && joined(t[k]) {
		return false
	}
	// A name's version is dotted, or follows the name, which is
	// capitalised ("Gemini 1.0", "Claude 2", "GPT-4"); "Web search 2"
	// names a feature.
	if k+1 < len(t) && t[k] == '.' && t[k+1] >= '0' && t[k+1] <= '9' {
		return true // a dotted version: "1.0", "2.5", in any letter case
	}
	p := j
	for p > 0 && (t[p-1] == ' ' || t[p-1] == '-') {
		p--
	}
	s := p
	for s > 0 && wordTab[t[s-1]] == 1 {
		s--
	}
	return s < p && t[s] >= 'A' && t[s] <= 'Z'
}

// namesModelBefore reports whether the sentence before t[i] names the
// model Detour sent ("grok-beta is deprecated"): what is gone is the
// endpoint's model, however the sentence words it.
func (ts *textScan) namesModelBefore(t []byte, i int) bool {
	if len(ts.model) < 2 {
		return false
	}
	return hasName(t[sentenceStart(t, i):i], ts.model)
}

// hasName reports whether t holds the model name m whole, ASCII case aside
// ("DeepSeek-R1" as "deepseek-r1"), not as a piece of another name ("o3" in
// a client's tool "o3-helper"); a full stop may follow it.
func hasName(t []byte, m string) bool {
	if len(m) == 0 {
		return false
	}
	c0 := lowerTab[m[0]]
	for k := 0; k+len(m) <= len(t); k++ {
		if lowerTab[t[k]] != c0 {
			continue
		}
		end := k + len(m)
		if eqFold(t[k:end], m) && (k == 0 || !idByte(t[k-1])) && (end == len(t) || !idByte(t[end]) ||
			t[end] == '.' && (end+1 == len(t) || !idByte(t[end+1]))) {
			return true
		}
	}
	return false
}

// subjectEchoed reports whether the sentence before t[i] names something
// the client sent (a quoted span, or a name holding a digit, '-', '_' or
// '.', found in the request): "Invalid 'tools[0].name': 'o3-helper' is
// deprecated" speaks of the client's tool, not of the endpoint, whatever
// words it uses (docs/behaviour.md, "Echo rule").
func (ts *textScan) subjectEchoed(t []byte, i int) bool {
	if len(ts.req) == 0 {
		return false
	}
	subj := t[sentenceStart(t, i):i]
	for j := 0; j < len(subj); {
		if isQuote(subj, j) {
			q := subj[j]
			e := j + 1
			for e < len(subj) && subj[e] != q {
				e++
			}
			if e < len(subj) && e-j-1 >= 3 && echoed(ts.req, subj[j+1:e]) {
				return true
			}
			j = e + 1
			continue
		}
		if !idByte(subj[j]) {
			j++
			continue
		}
		e := j
		named := false // a name, not a word: it holds a digit, '-', '_' or '.'
		for e < len(subj) && idByte(subj[e]) {
			c := subj[e]
			named = named || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
			e++
		}
		// The request's top-level model is the route, which may be named
		// after the model Detour sent: a name found only there is the
		// endpoint's ("Gemini 3.5 Flash is no longer available" for
		// gemini-3.5-flash), one found anywhere else the client's.
		if named && e-j >= 3 && !eqFold(subj[j:e], ts.model) && echoedBesideModel(ts.req, subj[j:e]) {
			return true
		}
		j = e
	}
	return false
}

// gone returns the index in s of the endpoint's reading (goneNoun) of the
// feature phrase at idx, the same words; n when there is none.
func gone(s *phraseSet, idx int) int {
	for i := range s.list {
		if p := &s.list[i]; p.goneNoun && p.a == s.list[idx].a && p.b == s.list[idx].b {
			return i
		}
	}
	return len(s.list)
}

// requestCauses are the words that offer the request as another cause of
// what a gone-model phrase said.
var requestCauses = [...]string{"or your request", "or the request", "or this request"}

// orTheRequest reports whether the sentence that goes on at t[end] offers
// the request as another cause ("You invoked an unsupported model or your
// request did not allow prompt caching", Bedrock's answer to a request
// with cache points): the model is then not proven gone, and reading it so
// would let one client's request cool the endpoint for a day.
func orTheRequest(t []byte, end int) bool {
	e := sentenceEnd(t, end)
	for _, w := range requestCauses {
		for at := end; at < e; {
			i := indexFold(t[at:e], w)
			if i < 0 {
				break
			}
			// "or" a word of its own: "for the requested model" offers
			// no other cause.
			if at+i == 0 || wordTab[t[at+i-1]] == 0 {
				return true
			}
			at += i + 1
		}
	}
	return false
}

// namesRequestField reports whether t names a request field with an index
// or a member after it ("Invalid 'tools[0].name': 'o3' is deprecated"):
// what follows speaks of that field's value, the client's, even where it
// spells the model Detour sent.
func namesRequestField(t []byte) bool {
	for _, root := range requestRoots {
		for at := 0; ; {
			i := bytes.Index(t[at:], []byte(root))
			if i < 0 {
				break
			}
			e := at + i + len(root)
			if e < len(t) && (t[e] == '[' || t[e] == '.') && (at+i == 0 || !idByte(t[at+i-1])) {
				return true
			}
			at = e
		}
	}
	return false
}

// clientThings are the words for what a client's request points to and an
// upstream fetches: a URL, an image, a file.
var clientThings = [...]string{"http", "image", "file", "url", "audio", "video", "document", "media", "attachment"}

// namesClientThing reports whether t names something the client's request
// points to (clientThings): a fetch of it that timed out is the client's
// host, not the server's own timer ("failed to fetch model weights:
// timeout" names none).
func namesClientThing(t []byte) bool {
	for _, w := range clientThings {
		if containsFold(t, w) {
			return true
		}
	}
	return false
}

// capabilities are what a model may lack that a request asks of it: a
// kind of input or output, a way of answering, a feature of the API, or
// the API itself (a door, as OpenCode's "not supported for format
// oa-compat"). Each is one word or words ending at a word's end.
var capabilities = [...]string{
	"vision", "image", "images", "image input", "image inputs", "audio", "audio input", "video", "videos",
	"multimodal", "multi-modal", "files", "file input", "pdf", "documents",
	"tools", "tool use", "tool calling", "tool calls", "function calling", "functions", "function calls",
	"streaming", "stream", "reasoning", "thinking", "structured output", "structured outputs",
	"json mode", "json output", "logprobs", "embeddings", "embedding", "chat", "chat completions",
	"completions", "responses", "format", "this feature",
}

// capabilityAfter reports whether a capability (capabilities) follows
// t[:i] after blanks, and where it ends: "… not supported for vision",
// "… for image input". Not a word that runs on ("for tool_choice", "for
// visionary").
func capabilityAfter(t []byte, i int) (int, bool) {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	best := -1
	for _, c := range capabilities {
		if e, ok := prefixAt(t, i, c); ok && e > best && (e == len(t) || wordTab[t[e]] == 0 && t[e] != '_' && t[e] != '-') {
			best = e
		}
	}
	if best < 0 {
		return 0, false
	}
	return best, true
}
