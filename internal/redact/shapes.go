package redact

import "strings"

// Key-shaped tokens, whoever's they are. Every rule starts with a literal;
// one scan of the lower-cased message finds the literals (see scan) and the
// few bytes around each hit are checked by hand. (A regular expression of
// the same rules cost thirty times more on a 4 KiB message.)

// keyPrefixes start a token that is replaced whole when at least minKeyRun
// key characters follow: sk-… (OpenAI, Anthropic sk-ant-…, OpenRouter
// sk-or-…), xai-…, gsk_… (Groq), pplx-…, nvapi-…, hf_…, r8_…, AIza…
// (Google), ya29.… (Google OAuth).
var keyPrefixes = []string{"sk-", "sk_", "xai-", "gsk_", "pplx-", "nvapi-", "hf_", "r8_", "aiza", "ya29."}

const minKeyRun = 12

// credentialNames are followed, after optional quotes and spaces, by ':' or
// '=' and a value (optionally "Bearer "/"Basic " first) that is replaced
// when it is at least minValue bytes long: "x-api-key: …", `"api_key": "…"`,
// "authorization: Bearer …", "password=…".
var credentialNames = []string{"x-api-key", "x-goog-api-key", "api-key", "api_key", "apikey", "access-token",
	"access_token", "refresh-token", "refresh_token", "client-secret", "client_secret", "authorization", "password"}

const minValue = 8

// queryNames are URL query parameters whose value (any length from
// minQueryValue) is a credential: ?key=…, &api_key=…, &token=…, &sig=….
var queryNames = []string{"key=", "api_key=", "api-key=", "apikey=", "access_token=", "token=", "sig=", "signature="}

const minQueryValue = 4

// netOps and netNames start the addresses of Go's network errors:
// "dial tcp ADDR: …", "read tcp LOCAL->REMOTE: …", "write udp …".
var (
	netOps   = []string{"dial ", "read ", "write "}
	netNames = []string{"tcp4 ", "tcp6 ", "udp4 ", "udp6 ", "tcp ", "udp "}
)

// Kinds of literal, for the one scan of a message.
const (
	litPrefix = iota
	litBearer
	litCredential
	litQuery
	litNetOp
	litLookup
)

type literal struct {
	s    string // lower case, at least two bytes
	kind int
}

// The literals are indexed by their first two bytes: a scan looks each
// position of the message up in a 64K-bit table and compares literals only
// where one may start.
var (
	bigrams  [1 << 16 / 64]uint64
	byBigram = map[uint16][]literal{}
)

func init() {
	add := func(kind int, ss ...string) {
		for _, s := range ss {
			bg := uint16(s[0])<<8 | uint16(s[1])
			bigrams[bg>>6] |= 1 << (bg & 63)
			byBigram[bg] = append(byBigram[bg], literal{s, kind})
		}
	}
	add(litPrefix, keyPrefixes...)
	add(litBearer, "bearer", "basic")
	add(litCredential, credentialNames...)
	add(litQuery, queryNames...)
	add(litNetOp, netOps...)
	add(litLookup, "lookup ")
}

// scan calls f for every literal occurring in lower, with its position.
func scan(lower string, f func(l literal, j int)) {
	for j := 0; j+1 < len(lower); j++ {
		bg := uint16(lower[j])<<8 | uint16(lower[j+1])
		if bigrams[bg>>6]&(1<<(bg&63)) == 0 {
			continue
		}
		for _, l := range byBigram[bg] {
			if strings.HasPrefix(lower[j:], l.s) {
				f(l, j)
			}
		}
	}
}

// shapeEdits adds an edit for every key-shaped token in msg (lower is msg
// lower-cased byte for byte) and returns where the addresses of Go network
// errors start, for addrEdits.
func shapeEdits(msg, lower string, eds *edits) (addrs []int) {
	scan(lower, func(l literal, j int) {
		k := j + len(l.s)
		switch l.kind {
		case litPrefix:
			if j > 0 && wordByte(msg[j-1]) {
				return
			}
			end := k
			for end < len(msg) && keyByte(msg[end]) {
				end++
			}
			if end-k >= minKeyRun {
				eds.add(j, end, Redacted)
			}
		case litBearer:
			if j > 0 && wordByte(msg[j-1]) {
				return
			}
			// A word such as "authentication" is not a token.
			if from, to := token(msg, k); to-from >= 20 || to-from >= minValue && strings.ContainsAny(msg[from:to], "0123456789") {
				eds.add(from, to, Redacted)
			}
		case litCredential:
			if j > 0 && alnum(msg[j-1]) { // "x-api-key" also finds "api-key": the same value
				return
			}
			if from, to := credential(msg, lower, k); to-from >= minValue {
				eds.add(from, to, Redacted)
			}
		case litQuery:
			if j == 0 || msg[j-1] != '?' && msg[j-1] != '&' {
				return
			}
			end := k
			for end < len(msg) && !urlEnd(msg[end]) && msg[end] != '&' && msg[end] != '#' {
				end++
			}
			if end-k >= minQueryValue {
				eds.add(k, end, Redacted)
			}
		case litNetOp:
			for _, n := range netNames {
				if strings.HasPrefix(lower[k:], n) {
					addrs = append(addrs, k+len(n))
					return
				}
			}
		case litLookup:
			for k < len(msg) && msg[k] > ' ' && msg[k] != ':' {
				k++
			}
			if strings.HasPrefix(msg[k:], " on ") {
				addrs = append(addrs, k+len(" on "))
			}
		}
	})
	return addrs
}

// credential returns the value after a credential name that ends at k:
// optional quotes and spaces, ':' or '=', optional quotes and spaces, an
// optional "Bearer "/"Basic ", then the value.
func credential(msg, lower string, k int) (from, to int) {
	k = skip(msg, k, `"'`)
	k = skip(msg, k, " \t")
	if k >= len(msg) || msg[k] != ':' && msg[k] != '=' {
		return k, k
	}
	k = skip(msg, k+1, " \t")
	k = skip(msg, k, `"'`)
	for _, w := range []string{"bearer", "basic"} {
		if strings.HasPrefix(lower[k:], w) && k+len(w) < len(msg) && (msg[k+len(w)] == ' ' || msg[k+len(w)] == '\t') {
			k = skip(msg, k+len(w), " \t")
			break
		}
	}
	to = k
	for to < len(msg) && valueByte(msg[to]) {
		to++
	}
	return k, to
}

// token returns the bearer token after whitespace at msg[k:], "=" padding
// included; from == to when there is none.
func token(msg string, k int) (from, to int) {
	from = skip(msg, k, " \t")
	if from == k {
		return k, k
	}
	to = from
	for to < len(msg) && (alnum(msg[to]) || strings.IndexByte("._~+/-", msg[to]) >= 0) {
		to++
	}
	for to > from && to < len(msg) && msg[to] == '=' {
		to++
	}
	return from, to
}

func skip(s string, k int, set string) int {
	for k < len(s) && strings.IndexByte(set, s[k]) >= 0 {
		k++
	}
	return k
}

func wordByte(c byte) bool { return alnum(c) || c == '_' }

func keyByte(c byte) bool { return alnum(c) || c == '_' || c == '-' }

// valueByte: c may be part of a credential value.
func valueByte(c byte) bool {
	return c > ' ' && c < 0x7f && strings.IndexByte(`"'&,;<>(){}[]`, c) < 0
}
