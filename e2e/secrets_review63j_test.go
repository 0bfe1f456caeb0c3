package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

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
	g := start(t, `
providers:
  - {name: up, dialect: openai, base_url: "{up}/v1", api_key: `+probeKey63f+`}
targets:
  - {name: t, model: gpt-4o, providers: [up]}
`, fs)
	best := ""
	for _, keep := range []int{31, 30, 24, 16} {
		lead := "Rejected request with content '"
		mid := "'. Incorrect API key provided: "
		var b strings.Builder
		for i := 0; i < 20; i++ {
			b.WriteString("sk-proj-" + strings.Repeat("Z", 300) + " ")
		}
		pad := 8193 - keep - len(lead) - len(mid) - b.Len()
		b.WriteString(strings.Repeat("a", pad))
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"t","messages":[{"role":"user","content":"`+b.String()+`"}]}`)
		frag := longestPrefix63j(string(r.Body), probeKey63f)
		if len(frag) > len(best) {
			best = frag
		}
		t.Logf("keep %d: status %d, %d bytes, tail %q", keep, r.Status, len(r.Body), tail63f(string(r.Body), 100))
	}
	if len(best) > 8 {
		t.Errorf("the client read %d of the key's %d bytes: %q", len(best), len(probeKey63f), best)
	}
}

// (2) Escapes: the scrub of the wide body reads it raw. A relay whose JSON
// encoder escapes '/' (PHP's json_encode does by default) writes a key
// holding '/' as "…\/…": no run of the raw body is long enough to scrub,
// and the message cut at 4 KiB keeps the fragment review 63f closed.
func TestReview63jEscapedKeyCutAtTheMessage(t *testing.T) {
	const key = "Qm7Zt2Lw9Xc4Vb8N/k3Jh6Gf1Ds5Ap0Ry7Tu" // 36 bytes, one '/'
	relay := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		msg := "Rejected request with content '" + req.Messages[0].Content + "'. Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		m, _ := json.Marshal(msg)
		php := strings.ReplaceAll(string(m), "/", `\/`)
		return upstreamtest.Step{Status: 400, Body: `{"error":{"message":` + php + `,"type":"invalid_request_error"}}`}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"up": relay})
	g := start(t, `
providers:
  - {name: up, dialect: openai, base_url: "{up}/v1", api_key: "`+key+`"}
targets:
  - {name: t, model: gpt-4o, providers: [up]}
`, fs)
	best := ""
	for keep := 17; keep <= 33; keep++ { // raw bytes of the key before the 4 KiB cut (one more for the escape)
		lead := `{"error":{"message":"Rejected request with content '`
		mid := "'. Incorrect API key provided: "
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
