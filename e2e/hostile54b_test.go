package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 54b. docs/doors.md "Gemini thought signatures" says the tag the
// gateway puts on every Gemini thought signature it hands a client is
// "twelve hex digits of a SHA-256 over the provider's name, the model and
// its key: nothing of the key can be read from it". The provider's name
// is in every answer's X-Detour-Provider header, the model in the answer's
// "model", and the construction is in this open-source gateway
// (internal/provider/signature.go): the tag is an unkeyed hash of one
// secret next to public inputs, so any client holding one tagged call can
// test guesses of the provider's key offline, as fast as SHA-256 runs. A
// weak key (a self-hosted Gemini-dialect server's "changeme", a key from an
// old leak the operator may still use) is found in microseconds.

const h54bWeakKey = "changeme"

const h54bCfg = `
providers:
  - {name: gemini-a, dialect: gemini, base_url: "{a}", api_key: ` + h54bWeakKey + `}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a]}
routes:
  - {name: gem3, targets: [g3]}
`

func TestHostile54bSignatureTagLetsAClientTestProviderKeyGuesses(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"a": p53dGemini3(false)})
	g := start(t, h54bCfg, fs)

	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	var hr *http.Response
	res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "gem3",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")}, Tools: p53dTools},
		option.WithResponseInto(&hr))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Choices) == 0 || len(res.Choices[0].Message.ToolCalls) == 0 {
		t.Fatalf("no tool call: %s", res.RawJSON())
	}
	raw := res.Choices[0].Message.ToolCalls[0].RawJSON()
	i := strings.Index(raw, `"detour1.`)
	if i < 0 {
		t.Fatalf("no tagged signature in %s", raw)
	}
	tag := raw[i+len(`"detour1.`):][:12]
	provider, model := hr.Header.Get("X-Detour-Provider"), res.Model
	t.Logf("client sees tag %s, X-Detour-Provider %q, model %q", tag, provider, model)

	// What any client can run offline: a dictionary of guesses.
	guesses := []string{"password", "secret", "test", "sk-test", "admin", "changeme", "letmein", "gemini", "12345678"}
	for _, k := range guesses {
		h := sha256.New()
		h.Write([]byte("detour thought signature\x00" + provider + "\x00" + strings.TrimPrefix(model, "models/") + "\x00" + k))
		if hex.EncodeToString(h.Sum(nil)[:6]) == tag {
			t.Errorf("a client recovered the provider's API key %q from the thought signature's tag %s (docs/doors.md: \"nothing of the key can be read from it\"); the tag must be keyed by a secret the client does not have (an HMAC), not an unkeyed hash of the key", k, tag)
		}
	}
}

// Hostile 54b: docs/doors.md says "for a signature it did not tag (one a
// client got elsewhere), the first call of a step gets the placeholder".
// But the tag names the endpoint only, the same for every signature and
// stable across restarts; nothing binds it to the signature, so anyone who
// has seen one tagged call from that endpoint (any client of the gateway,
// a transcript, or a hostile OpenAI-compatible upstream in the same route,
// whose tool calls' extra_content reach the client verbatim) can write
// "detour1.<tag>.<any bytes>" and the gateway sends those bytes to that
// Gemini account as Gemini's own thoughtSignature. Gemini refuses them
// ("Corrupted thought signature.", a bad_request that ends the walk with
// no failover), where the placeholder would have served the step.
func TestHostile54bForgedSignatureUnderARealTagReachesGemini(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"a": p53dGemini3(false)})
	g := start(t, h54bCfg, fs)
	r := g.raw(t, "POST", "/v1/chat/completions", `{"model":"gem3","messages":[{"role":"user","content":"weather in Paris?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}`)
	i := strings.Index(string(r.Body), `"detour1.`)
	if r.Status != 200 || i < 0 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	tag := string(r.Body)[i+len(`"detour1.`):][:12]
	const forged = "Rk9SR0VELUJZLUFOLU9USEVSLVBBUlRZ" // base64 "FORGED-BY-AN-OTHER-PARTY"
	body := `{"model":"gem3","messages":[{"role":"user","content":"weather in Paris?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"detour1.` + tag + `.` + forged + `"}}}]},` +
		`{"role":"tool","tool_call_id":"call_x","content":"sunny"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}`
	g.raw(t, "POST", "/v1/chat/completions", body)
	reqs := fs["a"].Requests()
	if len(reqs) < 2 {
		t.Fatalf("gemini-a got %d requests", len(reqs))
	}
	if strings.Contains(string(reqs[1].Body), forged) {
		t.Errorf("gemini-a was sent the forged bytes as Gemini's own thoughtSignature (the gateway never wrote them): %s", reqs[1].Body)
	}
}
