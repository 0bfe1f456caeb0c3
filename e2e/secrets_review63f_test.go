package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63f: no secret leaves the process.

// A Mistral-shaped key: 32 letters and digits, no prefix the redact
// package knows (Azure OpenAI's are 32 hex digits, Cohere's 40 letters and
// digits): only the configured-key rule knows it.
const key63f = "Qm7Zt2Lw9Xc4Vb8Nk3Jh6Gf1Ds5Ap0Ry"

// relay63fCfg is a gateway with one provider, "up", keyed with key63f,
// serving target "t".
const relay63fCfg = `
providers:
  - {name: up, dialect: openai, base_url: "{up}/v1", api_key: ` + key63f + `}
targets:
  - {name: t, model: gpt-4o, providers: [up]}
`

// relay63fLead and relay63fMid frame the client's text and the key in
// relayEcho63f's answer.
const (
	relay63fLead = "Rejected request with content '"
	relay63fMid  = "'. Incorrect API key provided: "
)

// relayEcho63f is a relay whose plain-text 400 quotes the client's first
// message text and then the credential it forwarded (a debugging relay:
// MECHANISM ONLY, not a cited answer).
func relayEcho63f(shape string) upstreamtest.Script {
	json_ := shape != "plain"
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		text := ""
		if len(req.Messages) > 0 {
			text = req.Messages[0].Content
		}
		msg := relay63fLead + text + relay63fMid + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if shape == "stream" {
			m, _ := json.Marshal(msg)
			return upstreamtest.Step{Events: []string{upstreamtest.ChatStream("m", "Hel")[1], `data: {"error":{"message":` + string(m) + `,"type":"invalid_request_error"}}`}}
		}
		if json_ {
			m, _ := json.Marshal(msg)
			return upstreamtest.Step{Status: 400, Body: `{"error":{"message":` + string(m) + `,"type":"invalid_request_error"}}`}
		}
		return upstreamtest.Step{Status: 400, Header: map[string]string{"Content-Type": "text/plain"}, Body: msg}
	}
}

// TestReview63fTruncationCutsAnEchoedKeyIntoAKeptPrefix: the upstream
// echoes the whole key, which the client scrubber would hide; but the
// client pads its own text so that Detour's 4 KiB read of the answer cuts
// the key after 31 bytes: a fragment shorter than ClientStretch that does
// not end the key, which ForClient keeps. Before round 63 the client read
// 31 bytes of a 32-byte key; now the message is cut never through a secret
// the answer holds whole (redact.Scrubber.Cut, dispatch messageOf).
func TestReview63fTruncationCutsAnEchoedKeyIntoAKeptPrefix(t *testing.T) {
	for _, shape := range []string{"plain", "json", "stream"} {
		t.Run(shape, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"up": relayEcho63f(shape)})
			g := start(t, relay63fCfg, fs)
			best := ""
			// The client does not know the exact framing: it tries a few
			// paddings and keeps the longest key-looking run.
			for _, keep := range []int{31, 30, 24, 16} {
				lead, mid := relay63fLead, relay63fMid
				pad := 4096 - len(lead) - len(mid) - keep
				if shape != "plain" {
					pad -= len(`{"error":{"message":"`)
				}
				stream := ""
				if shape == "stream" {
					stream = `,"stream":true`
				}
				content := strings.Repeat("a", pad)
				r := g.raw(t, http.MethodPost, "/v1/chat/completions",
					`{"model":"t","messages":[{"role":"user","content":"`+content+`"}]`+stream+`}`)
				msg := string(r.Body)
				if i := strings.Index(msg, "provided: "); i >= 0 {
					i += len("provided: ")
					j := i
					for j < len(msg) && strings.ContainsRune(key63f, rune(msg[j])) {
						j++
					}
					if frag := msg[i:j]; len(frag) > len(best) {
						best = frag
					}
				}
				t.Logf("keep %d: status %d, tail %q", keep, r.Status, tail63f(msg, 120))
			}
			// What held: the operator's side (any 8-byte window).
			h := g.raw(t, http.MethodGet, "/v1/health", "")
			if l := leaks(string(h.Body), []string{key63f}, nil); len(l) > 0 {
				t.Errorf("/v1/health leaks %v", l)
			}
			for n := 1; n <= 4; n++ {
				if l := leaks(recordJSON(t, g.recs.wait(t, n)), []string{key63f}, nil); len(l) > 0 {
					t.Errorf("decision record %d leaks %v", n, l)
				}
			}
			if len(best) > 8 && strings.HasPrefix(key63f, best) {
				t.Errorf("the client read %d of the key's %d bytes: %q (key %q)", len(best), len(key63f), best, key63f)
			}
		})
	}
}

func tail63f(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestReview63fBaseURLUserinfoSentAsBasicEchoed: a base_url with a user and
// password (a proxy in front of an Anthropic endpoint) makes Go's client
// send "Authorization: Basic base64(user:password)": a credential derived
// from the configured secrets, which the scrubber does not know. An
// upstream that echoes the credential it got (MECHANISM ONLY) with or
// without its scheme word.
func TestReview63fBaseURLUserinfoSentAsBasicEchoed(t *testing.T) {
	const user, pass = "proxyuser", "Xq9Lm2Vb7Nc4Zt8Kw3Pj"
	for _, shape := range []string{"with-scheme", "bare"} {
		t.Run(shape, func(t *testing.T) {
			var got string
			fs := fakes(t, map[string]upstreamtest.Script{"up": func(_ int, r upstreamtest.Request) upstreamtest.Step {
				got = r.Header.Get("Authorization")
				cred := got
				if shape == "bare" {
					cred = strings.TrimPrefix(cred, "Basic ")
				}
				m, _ := json.Marshal("invalid proxy credentials " + cred)
				return upstreamtest.Step{Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":` + string(m) + `}}`}
			}})
			base := strings.Replace(fs["up"].URL, "http://", "http://"+user+":"+pass+"@", 1)
			g := start(t, `
providers:
  - {name: up, dialect: anthropic, base_url: "`+base+`", api_key: antH5dQw2E9rTy6UiO1pAs7Dz}
targets:
  - {name: t, model: claude-sonnet-4-5, providers: [up]}
`, fs)
			r := g.post(t, "t", "")
			t.Logf("upstream got Authorization %q; client got %d %s", got, r.Status, r.Body)
			b64 := strings.TrimPrefix(got, "Basic ")
			if len(b64) > 8 && strings.Contains(string(r.Body), b64[:len(b64)-2]) {
				t.Errorf("the client read the Basic credential %q (base64 of %s:%s)", b64, user, pass)
			}
			d := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
			if rec := recordJSON(t, d); len(b64) > 8 && strings.Contains(rec, b64[:8]) {
				t.Errorf("the decision record holds the Basic credential: %s", rec)
			}
		})
	}
}

// Review 63j on messageOf (review 63f's first fix): the answer was read 4
// KiB past the classifier's read, scrubbed whole, then its message cut at 4
// KiB. Both attacks below read a key's fragment through that fix; since,
// the message is cut never through a secret the body holds whole
// (redact.Scrubber.Cut), and nothing is scrubbed before the cut.

// longestPrefix63j is the longest prefix of key that follows "provided: " in msg.
func longestPrefix63j(msg, key string) string {
	best := ""
	for rest := msg; ; {
		i := strings.Index(rest, "provided: ")
		if i < 0 {
			return best
		}
		rest = rest[i+len("provided: "):]
		n := 0
		for n < len(rest) && n < len(key) && rest[n] == key[n] {
			n++
		}
		if n > len(best) {
			best = key[:n]
		}
	}
}

// (1) Shrink: the scrub of the wide body replaces text of the client's own
// (key-shaped strings: "sk-proj-" and a long run) with "[redacted]", so the
// scrubbed body is shorter, and what stood near the wide read's end — the
// real key, cut by the 8 KiB read into a fragment under ClientStretch —
// moves inside the first 4 KiB the message keeps.
func TestReview63jScrubShrinkPullsTheWideCutIntoTheMessage(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"up": relayEcho63f("plain")})
	g := start(t, relay63fCfg, fs)
	best := ""
	for _, keep := range []int{31, 30, 24, 16} {
		lead, mid := relay63fLead, relay63fMid
		var b strings.Builder
		for i := 0; i < 20; i++ {
			b.WriteString("sk-proj-" + strings.Repeat("Z", 300) + " ")
		}
		pad := 8193 - keep - len(lead) - len(mid) - b.Len()
		b.WriteString(strings.Repeat("a", pad))
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"t","messages":[{"role":"user","content":"`+b.String()+`"}]}`)
		frag := longestPrefix63j(string(r.Body), key63f)
		if len(frag) > len(best) {
			best = frag
		}
		t.Logf("keep %d: status %d, %d bytes, tail %q", keep, r.Status, len(r.Body), tail63f(string(r.Body), 100))
	}
	if len(best) > 8 {
		t.Errorf("the client read %d of the key's %d bytes: %q", len(best), len(key63f), best)
	}
}

// (2) Escapes: the scrub of the wide body reads it raw. A relay whose JSON
// encoder escapes '/' (PHP's json_encode does by default) writes a key
// holding '/' as "…\/…": no run of the raw body is long enough to scrub,
// and the message cut at 4 KiB keeps the fragment review 63f closed.
func TestReview63jEscapedKeyCutAtTheMessage(t *testing.T) {
	const key = "Qm7Zt2Lw9Xc4Vb8N/k3Jh6Gf1Ds5Ap0Ry7Tu" // 36 bytes, one '/'
	relay := keyEchoRelay63(func(k string) string { return k }, func(m string) string { return strings.ReplaceAll(m, "/", `\/`) })
	fs := fakes(t, map[string]upstreamtest.Script{"up": relay})
	g := start(t, `
providers:
  - {name: up, dialect: openai, base_url: "{up}/v1", api_key: "`+key+`"}
targets:
  - {name: t, model: gpt-4o, providers: [up]}
`, fs)
	best := ""
	for keep := 17; keep <= 33; keep++ { // raw bytes of the key before the 4 KiB cut (one more for the escape)
		lead, mid := `{"error":{"message":"`+relay63fLead, relay63fMid
		pad := 4096 - len(lead) - len(mid) - keep
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"t","messages":[{"role":"user","content":"`+strings.Repeat("a", pad)+`"}]}`)
		frag := longestPrefix63j(string(r.Body), key)
		if len(frag) > len(best) {
			best = frag
		}
	}
	t.Logf("longest key prefix the client read: %q", best)
	if len(best) > 16 {
		t.Errorf("the client read %d of the key's %d bytes: %q", len(best), len(key), best)
	}
}

// Review 63n: a relay whose JSON encoder writes '=' as \u003d (Gson's
// default HTML-safe escaping; Go's encoding/json does the same for '&',
// '<', '>') echoes a key ending in base64 padding. Scrubber.Cut looks for
// the key raw and with '/' escaped only: the 4 KiB cut went through it,
// and the message read decodes the escapes (MECHANISM ONLY relay). Since,
// Cut reads the window around the cut with JSON escapes decoded.
func TestReview63nUnicodeEscapedKeyCutAtTheMessage(t *testing.T) {
	const key = "Qm7Zt2Lw9Xc4Vb8Nk3Jh6Gf1Ds5Ap0Ry7Tu==" // 37 bytes
	relay := keyEchoRelay63(func(k string) string { return k }, func(m string) string { return strings.ReplaceAll(m, "=", `\u003d`) })
	fs := fakes(t, map[string]upstreamtest.Script{"up": relay})
	g := start(t, `
providers:
  - {name: up, dialect: openai, base_url: "{up}/v1", api_key: "`+key+`"}
targets:
  - {name: t, model: gpt-4o, providers: [up]}
`, fs)
	best := ""
	for keep := 9; keep <= 31; keep += 2 {
		lead, mid := `{"error":{"message":"`+relay63fLead, relay63fMid
		pad := 4096 - len(lead) - len(mid) - keep
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"t","messages":[{"role":"user","content":"`+strings.Repeat("a", pad)+`"}]}`)
		if frag := longestPrefix63j(string(r.Body), key); len(frag) > len(best) {
			best = frag
		}
		if keep == 31 {
			t.Logf("keep %d: status %d, tail %q", keep, r.Status, tail63f(string(r.Body), 120))
		}
	}
	if len(best) > 8 {
		t.Errorf("the client read %d of the key's %d bytes: %q", len(best), len(key), best)
	}
}

// Review 63n: the mark's room (8f6f7548) moves the cut back to
// at-len("[redacted]") when a secret straddles at, through a secret that
// ended whole just before: a relay that writes the key twice, close
// ("KEY (KEY)"; MECHANISM ONLY), the second across the 4 KiB cut. Since,
// Cut checks the moved cut again, until no secret crosses it.
func TestReview63nMarkRoomCutsTheFirstOfTwoKeys(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"up": keyEchoRelay63(func(k string) string { return k + " (" + k + ")" }, func(m string) string { return m })})
	g := start(t, relay63fCfg, fs)
	best := ""
	for k := 1; k <= 8; k++ { // bytes of the second key before the cut
		lead, mid := `{"error":{"message":"`+relay63fLead, relay63fMid
		pad := 4096 - len(lead) - len(mid) - len(key63f) - 2 - k
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"t","messages":[{"role":"user","content":"`+strings.Repeat("a", pad)+`"}]}`)
		if frag := longestPrefix63j(string(r.Body), key63f); len(frag) > len(best) {
			best = frag
			t.Logf("k %d: status %d, tail %q", k, r.Status, tail63f(string(r.Body), 120))
		}
	}
	if len(best) > 8 {
		t.Errorf("the client read %d of the key's %d bytes: %q", len(best), len(key63f), best)
	}
}

// keyEchoRelay63 is a relay that answers 400 quoting the client's first
// message and then the key it was sent (as echo writes it), its message
// JSON-encoded and then rewritten by escape (a PHP or Gson encoder's
// escapes; MECHANISM ONLY).
func keyEchoRelay63(echo, escape func(string) string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		m, _ := json.Marshal(relay63fLead + req.Messages[0].Content + relay63fMid + echo(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
		return upstreamtest.Step{Status: 400, Body: `{"error":{"message":` + escape(string(m)) + `,"type":"invalid_request_error"}}`}
	}
}
