package classify

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// A feature the account was not granted, refused to a request that asked
// for it (review 67d): "The long context beta is not yet available for
// this subscription." (Anthropic, to a request whose anthropic-beta header
// asked for it), "vision is not enabled for this organization" (GitHub
// Copilot, to a request with an image), "Multimodal is not enabled for
// your organization and model" (Cerebras, likewise), "`service_tier`
// `auto` is not available for this org" (Groq, to a request naming that
// tier). Every request that does not ask for the feature is served there,
// so the refusal says nothing about the endpoint: as forbidden (counted),
// three such requests of one client cooled the endpoint for every client,
// and each failed probe doubled the cooldown. It is a capability gap of
// this account for this request: unknown (the walk moves on, nothing is
// counted or cooled). A gate on the model itself ("The model x is not
// available for this account"), on a credential or on the whole service
// ("Inference gateway is not enabled for your organization") names no
// feature of the request and stays forbidden.

// featureGated is v, but a forbidden verdict whose answer refuses a
// feature of this request the account lacks (requestFeatureGate) is
// unknown: a gap, not the endpoint's.
func (ts *textScan) featureGated(v Verdict) Verdict {
	if v.Class == Forbidden && ts.requestFeatureGate() {
		return Verdict{Failed: true, Class: Unknown, Evidence: gatedEvidence(v.Evidence)}
	}
	return v
}

// gatedEvidence is ev+"+request-feature", made once per evidence: the
// concatenation at each gated answer was an allocation per classification
// (review 67h; review 62k holds the reads to none). The cache is bounded:
// past maxGatedEvidence kinds it concatenates.
func gatedEvidence(ev string) string {
	if g, ok := gatedEv.Load(ev); ok {
		return g.(string)
	}
	g := ev + "+request-feature"
	if gatedEvN.Add(1) <= maxGatedEvidence {
		gatedEv.Store(ev, g)
	}
	return g
}

const maxGatedEvidence = 512

var (
	gatedEv  sync.Map
	gatedEvN atomic.Int64
)

// gateLeads are the words that put a feature's refusal on the account: what
// stands before them in the same sentence is the feature.
var gateLeads = [...]string{"is not enabled for", "are not enabled for", "is not yet available for",
	"is not available for", "are not available for", "are not yet available for"}

// mediaKind is a set of the kinds of input a request may carry.
type mediaKind uint8

const (
	mediaImage mediaKind = 1 << iota
	mediaAudio
	mediaVideo
	mediaDoc
	mediaAny = mediaImage | mediaAudio | mediaVideo | mediaDoc
)

// mediaWords name a kind of input a request may carry, in a gate's
// subject, and which kinds each names ("multimodal": any).
var mediaWords = [...]struct {
	w string
	k mediaKind
}{{"vision", mediaImage}, {"multimodal", mediaAny}, {"multi-modal", mediaAny}, {"image", mediaImage},
	{"audio", mediaAudio}, {"video", mediaVideo}, {"pdf", mediaDoc}}

// mediaKeys are what a request carrying images, audio, video or documents
// holds, in the dialects the targets speak, and the kind each shows
// (Gemini's inline data: any, its MIME type aside).
var mediaKeys = [...]struct {
	k string
	m mediaKind
}{{`"image_url"`, mediaImage}, {`"input_image"`, mediaImage}, {`"image"`, mediaImage}, {`data:image/`, mediaImage},
	{`"input_audio"`, mediaAudio}, {`data:audio/`, mediaAudio}, {`data:video/`, mediaVideo},
	{`"file_data"`, mediaDoc}, {`"fileData"`, mediaDoc}, {`"document"`, mediaDoc}, {`data:application/pdf`, mediaDoc},
	{`"inline_data"`, mediaAny}, {`"inlineData"`, mediaAny}}

// mediaKeyBytes are mediaKeys' keys as bytes, made once (a conversion at
// each read allocated).
var mediaKeyBytes = func() (out [len(mediaKeys)][]byte) {
	for i, k := range mediaKeys {
		out[i] = []byte(k.k)
	}
	return out
}()

// requestFeatureGate reports whether some text of the answer refuses, as not
// granted to the account, a feature its subject shows the request asked
// for: a beta (only a request asks for one), a kind of input the request
// holds, or a member or value of the request named as such
// (`service_tier`, a tool's `web_search`).
func (ts *textScan) requestFeatureGate() bool {
	if len(ts.req) == 0 {
		return false
	}
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		if ts.verifiedToAsk(t) {
			return true
		}
		for _, lead := range gateLeads {
			for from := 0; from < len(t); {
				k := indexFold(t[from:], lead)
				if k < 0 {
					break
				}
				at := from + k
				from = at + len(lead)
				if ts.subjectIsRequests(gateSubject(t[:at])) {
					return true
				}
			}
		}
	}
	return false
}

// verifiedToAsk reads OpenAI's gate on an organisation not verified, where
// what it gates is something this request asked for: "Your organization
// must be verified to stream this model." (a request with "stream"),
// "… to generate reasoning summaries." (a request with a reasoning
// "summary"). Where it gates the model ("… to use the model `o3`"), every
// request there fails: forbidden.
func (ts *textScan) verifiedToAsk(t []byte) bool {
	const lead = "must be verified to "
	k := indexFold(t, lead)
	if k < 0 {
		return false
	}
	what := t[k+len(lead):]
	if e := bytes.IndexAny(what, ".!?\n"); e >= 0 {
		what = what[:e]
	}
	switch {
	case containsFold(what, "stream"):
		return memberNamed(ts.req, []byte(`"stream"`))
	case containsFold(what, "summar"):
		return memberNamed(ts.req, []byte(`"summary"`))
	}
	return false
}

// gateSubject is the end of t from its last sentence boundary: the words
// before a gate's lead.
// A full stop ends a sentence only before a blank: a model's name holds
// dots ("anthropic.claude-opus-4-7 is not available for this account").
func gateSubject(t []byte) []byte {
	for i := len(t) - 1; i >= 0; i-- {
		switch t[i] {
		case ':', ';', '\n', '"', '{', '}', '[', ']':
			return bytes.TrimSpace(t[i+1:])
		case '.', '!', '?':
			if i+1 < len(t) && t[i+1] == ' ' {
				return bytes.TrimSpace(t[i+1:])
			}
		}
	}
	return bytes.TrimSpace(t)
}

// subjectIsRequests reports whether a gate's subject is a feature of the
// request: never one that names the model Detour sent.
func (ts *textScan) subjectIsRequests(s []byte) bool {
	if len(s) == 0 || len(s) > 120 || ts.model != "" && wordIn(s, ts.model) {
		return false
	}
	// A beta the subject names by the words of its name ("The long context
	// beta" for context-1m-2025-08-07): a client that asked for another
	// (Claude Code asks for several on every request) did not ask for the
	// one an operator's provider headers add, which every request there
	// lacks (review 67h).
	if (wordIn(s, "beta") || wordIn(s, "betas")) && ts.hasBeta() && ts.gateCheck() && betaNamed(ts.req, s) {
		return true
	}
	for _, w := range mediaWords {
		// At a word's start: "Provisioned throughput" holds "vision"
		// (review 67h); of a kind the request holds ("audio is not
		// enabled" to a request with an image alone gates what it did not
		// ask for).
		if wordStarts(s, w.w) {
			return ts.hasMedia()&w.k != 0
		}
	}
	// A member or a value named as such: a token with an underscore that
	// the request holds whole as a member name or a string (a tool's
	// name: "web_search"; read by hand: bytes.FieldsFunc would make
	// every answer's texts escape, an allocation per classification).
	for i := 0; i < len(s); {
		for i < len(s) && !tokenByte(s[i]) {
			i++
		}
		j := i
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		tok := s[i:j]
		i = j
		if len(tok) < 4 || len(tok) > 64 || bytes.IndexByte(tok, '_') < 0 {
			continue
		}
		if !ts.gateCheck() {
			return false
		}
		var buf [66]byte
		if bytes.Contains(ts.req, append(append(append(buf[:0], '"'), tok...), '"')) {
			return true
		}
	}
	return false
}

// maxGateChecks bounds the passes over the request requestFeatureGate
// makes for one answer: each is a pass over up to megabytes, and an answer
// of 4 KiB repeating "image is not enabled for." made thirteen per
// sentence, a classification of three seconds (review 67h).
const maxGateChecks = 8

// gateCheck counts one pass over the request against maxGateChecks,
// false when none is left.
func (ts *textScan) gateCheck() bool {
	if ts.gates >= maxGateChecks {
		return false
	}
	ts.gates++
	return true
}

// hasMedia is the kinds of input the request holds (mediaKeys), read once.
func (ts *textScan) hasMedia() mediaKind {
	if ts.media == 0 {
		ts.media = 1 << 7 // read
		for i, k := range mediaKeyBytes {
			if mediaKind(ts.media)&mediaKeys[i].m != mediaKeys[i].m && bytes.Contains(ts.req, k) {
				ts.media |= uint8(mediaKeys[i].m)
			}
		}
	}
	return mediaKind(ts.media) & mediaAny
}

// hasBeta reports clientBeta(ts.req), read once.
func (ts *textScan) hasBeta() bool {
	if ts.beta == 0 {
		ts.beta = 1
		if clientBeta(ts.req) {
			ts.beta = 2
		}
	}
	return ts.beta == 2
}

// wordStarts reports whether w occurs in s at a word's start, ASCII case
// aside ("images" holds "image"; "provisioned" does not hold "vision").
func wordStarts(s []byte, w string) bool {
	for from := 0; from < len(s); {
		k := indexFold(s[from:], w)
		if k < 0 {
			return false
		}
		if at := from + k; at == 0 || !alnumByte(s[at-1]) {
			return true
		}
		from += k + 1
	}
	return false
}

// betaNamed reports whether a beta the client asked for (clientBeta) is
// named in s by its name before the date: each word of it of four letters
// or more, and at least one ("context" of context-1m-2025-08-07). One
// shared word is not enough: Claude Code asks for context-management on
// every request, and "The long context beta" is context-1m's, which an
// operator's provider headers may add (review 67i).
func betaNamed(req, s []byte) bool {
	for len(req) > 0 {
		var name []byte
		name, req = nextField(req)
		if !datedName(name) {
			continue
		}
		words := name[:len(name)-len("-2025-08-07")]
		named, all := false, true
		for len(words) > 0 {
			w := words
			if i := bytes.IndexByte(words, '-'); i >= 0 {
				w, words = words[:i], words[i+1:]
			} else {
				words = nil
			}
			if len(w) >= 4 {
				if wordInBytes(s, w) {
					named = true
				} else {
					all = false
				}
			}
		}
		if named && all {
			return true
		}
	}
	return false
}

// wordInBytes is wordIn for a word held as bytes (by hand: string(w)
// would allocate).
func wordInBytes(s, w []byte) bool {
	for at := 0; at+len(w) <= len(s); at++ {
		end := at + len(w)
		if bytes.EqualFold(s[at:end], w) && (at == 0 || !alnumByte(s[at-1])) && (end == len(s) || !alnumByte(s[end])) {
			return true
		}
	}
	return false
}

// clientBeta reports whether the request evidence holds a beta the client
// asked for: a forwarded anthropic-beta value, which comes on a line of its
// own after the body (Response.Request), a comma-separated list of
// Anthropic's dated names ("context-1m-2025-08-07"). A line of the body
// itself never is one (a JSON text's lines open with a blank, a brace, a
// bracket or a quote: a raw line break inside a string is no JSON), nor a
// body Detour sent, nor a beta the operator's provider headers add (never
// in the evidence), nor anthropic-version's bare date.
func clientBeta(req []byte) bool {
	for len(req) > 0 {
		var name []byte
		if name, req = nextField(req); datedName(name) {
			return true
		}
	}
	return false
}

// nextField is the part of b before its first line break or comma, blanks
// trimmed, and what follows that separator (nil at the end): the request
// evidence read as anthropic-beta lists, one per line (clientBeta,
// betaNamed). A dated name holds neither separator, so one cut for both
// reads the lines' lists. By hand: bytes.Split would allocate.
func nextField(b []byte) (field, rest []byte) {
	i := bytes.IndexAny(b, "\n,")
	if i < 0 {
		return bytes.TrimSpace(b), nil
	}
	return bytes.TrimSpace(b[:i]), b[i+1:]
}

// datedName reports whether b is a name ending in a date: letters or
// digits and dashes, then -YYYY-MM-DD, with a letter before the date.
func datedName(b []byte) bool {
	const date = len("-2025-08-07")
	if len(b) <= date || b[0] < 'a' || b[0] > 'z' {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	d := b[len(b)-date:]
	return d[0] == '-' && d[5] == '-' && d[8] == '-' && bytes.IndexByte(d[1:5], '-') < 0 && bytes.IndexByte(d[6:8], '-') < 0 &&
		bytes.IndexByte(d[9:], '-') < 0 && d[1] == '2'
}

// wordIn reports whether w occurs in s as a whole word, ASCII case aside.
func wordIn(s []byte, w string) bool {
	for from := 0; from < len(s); {
		k := indexFold(s[from:], w)
		if k < 0 {
			return false
		}
		at := from + k
		end := at + len(w)
		if (at == 0 || !alnumByte(s[at-1])) && (end == len(s) || !alnumByte(s[end])) {
			return true
		}
		from = at + 1
	}
	return false
}

// tokenByte is a byte of a member name.
func tokenByte(c byte) bool { return alnumByte(c) || c == '-' }

func alnumByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// memberNamed reports whether req holds quoted as a member name (followed
// by a colon, blanks aside).
func memberNamed(req, quoted []byte) bool {
	for from := 0; from < len(req); {
		k := bytes.Index(req[from:], quoted)
		if k < 0 {
			return false
		}
		j := from + k + len(quoted)
		for j < len(req) && (req[j] == ' ' || req[j] == '\t' || req[j] == '\n' || req[j] == '\r') {
			j++
		}
		if j < len(req) && req[j] == ':' {
			return true
		}
		from = from + k + 1
	}
	return false
}
