package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Review 37d. A gathered piece of Claude's detour_json_value (answerDelta)
// sets Event.Progress, which re-arms the first-token clock before the
// commit and the idle clock after it (dispatch/stream.go). An EMPTY
// partial_json adds nothing to the value and never brings the 8 MiB bound
// closer: it is a keep-alive, and docs/behaviour.md ("Timers") says an
// upstream hung mid-answer that keeps sending keep-alives still times out.
func r37dEmptyPieces(text bool, stop <-chan struct{}) http.HandlerFunc {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		write := func(s string) { io.WriteString(w, s); w.(http.Flusher).Flush() }
		write(ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`))
		idx := "0"
		if text {
			write(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
			write(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Here:"}}`))
			write(ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
			idx = "1"
		}
		write(ev("content_block_start", `{"type":"content_block_start","index":`+idx+`,"content_block":{"type":"tool_use","id":"toolu_1","name":"detour_json_value","input":{}}}`))
		end := time.After(8 * time.Second)
		for {
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-end:
				return
			case <-time.After(100 * time.Millisecond):
			}
			// The upstream hung: it writes nothing of the value, only empty pieces.
			write(ev("content_block_delta", `{"type":"content_block_delta","index":`+idx+`,"delta":{"type":"input_json_delta","partial_json":""}}`))
		}
	}
}

const r37dArraySchema = `{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"array","items":{"type":"integer"}}}}`

// After the commit (a text block first), empty pieces every 100 ms hold the
// client's stream open past idle_timeout (400 ms): it should end with a
// timeout error event about 400 ms after the text.
func TestReview37dEmptyGatheredPiecesDoNotHoldACommittedStream(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	url, recs := r37bGateway(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "{a}", api_key: sk-test, first_token_timeout: 400ms, idle_timeout: 400ms}
targets:
  - {name: a, model: claude-x, providers: [an]}
`, r37dEmptyPieces(true, stop))
	start := time.Now()
	resp, body := postWith(t, url, "/v1/chat/completions",
		`{"model":"a","stream":true,"messages":[{"role":"user","content":"count"}],"response_format":`+r37dArraySchema+`}`)
	took := time.Since(start)
	d := recs.Wait(t, 1)
	at := d.Attempts[len(d.Attempts)-1]
	t.Logf("status %d, took %v, record %s class %s evidence %q; body %.400s", resp.StatusCode, took, d.Outcome, at.Class, at.Evidence, body)
	if took > 3*time.Second || at.Class != "timeout" {
		t.Errorf("an upstream hung after its text, sending only empty partial_json every 100 ms (idle_timeout 400ms): the stream ran %v (until the upstream itself gave up), class %q evidence %q; want an idle timeout ~400 ms after the text",
			took.Round(100*time.Millisecond), at.Class, at.Evidence)
	}
}

// Before the commit, the same empty pieces re-arm first_token_timeout
// (400 ms) for ever: the route's deadline (3 s here, 120 s by default),
// which counts against nobody, ends the request with 504, and the second
// target, which would have answered at once, is never asked.
func TestReview37dEmptyGatheredPiecesDoNotDefeatFirstTokenTimeout(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	good := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"[1,2]"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}
	hang := r37dEmptyPieces(false, stop)
	url, recs := r37bGateway(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "{a}/an", api_key: sk-test, first_token_timeout: 400ms, idle_timeout: 400ms}
  - {name: oa, dialect: openai, base_url: "{a}/oa", api_key: sk-test}
targets:
  - {name: a, model: claude-x, providers: [an]}
  - {name: b, model: m, providers: [oa]}
routes:
  - {name: r, targets: [a, b], deadline: 3s}
`, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/oa") {
			good(w, r)
			return
		}
		hang(w, r)
	})
	start := time.Now()
	resp, body := postWith(t, url, "/v1/chat/completions",
		`{"model":"r","stream":true,"messages":[{"role":"user","content":"count"}],"response_format":`+r37dArraySchema+`}`)
	took := time.Since(start)
	d := recs.Wait(t, 1)
	var trail []string
	for _, at := range d.Attempts {
		trail = append(trail, at.Target+":"+at.Class+"/"+at.Evidence)
	}
	t.Logf("status %d, took %v, outcome %s, attempts %v; body %.300s", resp.StatusCode, took, d.Outcome, trail, body)
	if resp.StatusCode != 200 || !strings.Contains(body, "[1,2]") {
		t.Errorf("first target hung sending only empty partial_json (first_token_timeout 400ms): status %d after %v, attempts %v; want the first attempt timed out at ~400 ms and the second target's answer",
			resp.StatusCode, took.Round(100*time.Millisecond), trail)
	}
}
