package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A responses: true endpoint that answers a stream request with a whole
// answer (a server that ignores "stream") ran the request and billed it,
// but the door cannot relay a whole Responses object as a stream. Asked
// again it answers the same way and bills again, so the walk moves on at
// once: one call there, not two (review 43f found the same-endpoint retry).
func TestResponsesStreamAnsweredWholeIsNotAskedAgain(t *testing.T) {
	whole := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"whole","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`
	first := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: whole} })
	second := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: []string{
		`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_2","object":"response","status":"in_progress","output":[]}}`,
		`event: response.output_text.delta` + "\n" + `data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_2","output_index":0,"content_index":0,"delta":"streamed"}`,
		`event: response.completed` + "\n" + `data: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_2","object":"response","status":"completed","output":[],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}}`,
	}}))
	t.Cleanup(first.Close)
	t.Cleanup(second.Close)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: a, dialect: openai, base_url: "`+first.URL+`", api_key: sk-a, responses: true}
  - {name: b, dialect: openai, base_url: "`+second.URL+`", api_key: sk-b, responses: true}
targets:
  - {name: ta, model: gpt-5, providers: [a]}
  - {name: tb, model: gpt-5, providers: [b]}
routes:
  - {name: r, targets: [ta, tb]}
`), app.Options{Decisions: recs})
	resp, body := post(t, url, "/v1/responses", `{"model":"r","input":"hi","stream":true}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"delta":"streamed"`) {
		t.Fatalf("%d %.400s", resp.StatusCode, body)
	}
	if first.Calls() != 1 {
		t.Errorf("the endpoint that answered whole was asked %d times, want once", first.Calls())
	}
	d := recs.Wait(t, 1)
	// It was billed, and what it used is recorded (and counted by limits).
	if len(d.Attempts) != 2 || !d.Attempts[0].Billable || d.Attempts[0].Action != "next_target" || d.Attempts[0].Usage == nil {
		t.Errorf("attempts %+v", d.Attempts)
	}
}
