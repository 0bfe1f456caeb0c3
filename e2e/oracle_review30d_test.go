package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// joiningUpstream plays a model and the server that quotes it: its
// "output" is the first message's text parts joined (what a model told
// "write A then B, nothing else" writes), quoted in a 500 (an invented
// wording for a fake: "Tool call arguments are not valid JSON: <output>";
// llama.cpp's own lead is cut by Detour). The oracle tests steer it.
func joiningUpstream(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Messages []struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	out := ""
	for _, p := range req.Messages[0].Content {
		out += p.Text
	}
	m, _ := json.Marshal("Tool call arguments are not valid JSON: " + out)
	return upstreamtest.Step{Status: 500, Body: `{"error":{"code":500,"message":` + string(m) + `,"type":"server_error"}}`}
}

// docs/security.md ("Operator secrets", "No oracle"): a client must not be
// able to test whether a string it chose is part of a provider key. The
// scrubber leaves text alone only when every 8-byte window of it occurs in
// the client's body as sent; text the client makes the upstream produce
// without sending it whole escapes that check. The plainest case is the
// model's own output quoted in an error (docs/security.md names llama.cpp's
// "Failed to parse input at pos 0: <model output>"; Detour cuts the text after
// such parse leads, but not after other wordings): a prompt steers the
// output, so a client
// asks the model to write two pieces back to back and reads whether the
// joined string came back as written or as "[redacted]". With 62 candidates
// per request for the next character (sk-proj- and sk-ant-api03- give the
// first window away), the key falls out one character per request.
//
// The fake is joiningUpstream.
func TestModelOutputIsNoKeyOracle(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"oai": joiningUpstream})
	g := start(t, `
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: `+openaiKey+`}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
`, fs)
	// The first eight characters stand for the key's public prefix
	// (sk-proj-); the ninth is the client's guess.
	right, wrong := openaiKey[:9], openaiKey[:8]+"#"
	// What the client reads, its guess written as <guess>: an oracle when
	// the two differ.
	seen := map[string]string{}
	for _, guess := range []string{right, wrong} {
		body := `{"model":"t","messages":[{"role":"user","content":[` +
			`{"type":"text","text":"` + guess[:5] + `"},{"type":"text","text":"` + guess[5:] + `"}]}]}`
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
		seen[guess] = strings.ReplaceAll(r.errMessage(t), guess, "<guess>")
	}
	if seen[right] != seen[wrong] {
		t.Errorf("the answer tells a right guess at the key from a wrong one:\n right %q → %q\n wrong %q → %q",
			right, seen[right], wrong, seen[wrong])
	}
}
