package server_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 36c. A continuation by prefill at an Anthropic target reserves
// two decodes (native.go: the prefill's and the translation's), and since
// e306fc1 an attempt whose reservation passes MaxTranslationCost is never
// made. A chat body whose translation alone fits (30×, the cap is 40× of
// max_body_bytes) is thus never continued at its Anthropic target after a
// cut, although a continuation by replay (one decode) would fit: the
// attempt is skipped as translation_too_costly and the client's stream
// ends with the cut. A Codex session grown to 90% of max_body_bytes is 34×
// in chat (realclients_review36c_test.go): past the cap twice over.
func TestReview36cAPrefillPastTheCapFallsBackToReplay(t *testing.T) {
	turn := `{"role":"user","content":"` + strings.Repeat("a", 60) + `"},{"role":"assistant","content":"` + strings.Repeat("b", 60) + `"},`
	continuedAtAnthropic(t, `{"model":"r","stream":true,"messages":[`+strings.Repeat(turn, 1000_000/len(turn))+`{"role":"user","content":"go on"}]}`)
}

// Review 36d. A body whose translation fits the cap (128 × max_body_bytes)
// but not twice — tiny text parts, about 76 bytes a byte — continues by
// replay at the Anthropic target, which decodes once; it was skipped as
// too costly, and the client's stream ended with the cut.
func TestReview36dAPrefillPastTheCapContinuesByReplay(t *testing.T) {
	part := `{"type":"text","text":"a"},`
	body := `{"model":"r","stream":true,"messages":[{"role":"user","content":[` + strings.TrimSuffix(strings.Repeat(part, 1000_000/len(part)), ",") + `]}]}`
	continuedAtAnthropic(t, body)
}

// continuedAtAnthropic streams body on a route whose OpenAI target cuts
// the stream after its first part and whose Anthropic target continues it;
// the client must read the whole answer.
func continuedAtAnthropic(t *testing.T, body string) {
	t.Helper()
	evs := upstreamtest.ChatStream("m", "first ", "second")
	oai := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Events: evs[:2], Cut: true} // role, "first ", then the connection drops
	})
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data }
	anth := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Events: []string{
			ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":3,"output_tokens":0}}}`),
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"first second"}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}`),
			ev("message_stop", `{"type":"message_stop"}`),
		}}
	})
	t.Cleanup(oai.Close)
	t.Cleanup(anth.Close)
	cfg := overdraftConfig(anth, oai, "[b, claude], on_stream_cut: continue")
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{})

	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	got := out.String()
	if anth.Calls() == 0 || !strings.Contains(got, "[DONE]") || strings.Contains(got, "error") {
		t.Errorf("a %d-byte chat stream cut after its first part, on a route whose next target is Anthropic: Anthropic called %d times; the client read:\n%.1500s",
			len(body), anth.Calls(), got)
	}
}
