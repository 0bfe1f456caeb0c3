package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
)

// r37bGateway serves yaml, whose "{a}" is replaced by the URL of an
// upstream running h, and returns the gateway's URL and its records.
func r37bGateway(t *testing.T, yaml string, h http.HandlerFunc) (string, *gatewaytest.Records) {
	t.Helper()
	up := httptest.NewServer(h)
	t.Cleanup(up.Close)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, strings.ReplaceAll(yaml, "{a}", up.URL)), app.Options{Decisions: recs})
	return url, recs
}

func r37bSSE(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// fakePNG is size bytes of base64, as an image model's data URL carries.
func fakePNG(size int) string {
	raw := make([]byte, size*3/4)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// Review 37b. An image model behind an OpenAI-compatible relay
// (OpenRouter's google/gemini-2.5-flash-image, openai/gpt-5-image) streams
// its picture as one delta with "images": a data: URL of a PNG, 1–3 MB of
// base64 for one 1024×1024 image. docs/design.md calls image deltas
// content that commits the stream, and calls the 1 MiB event bound "far
// above what a working provider sends". The stream is cut after the
// commit: the client gets the text, then an error event, never the image,
// and the attempt is filed as the upstream's server_error (counted
// against its health).
func TestReview37bStreamedImageDeltaPastOneMiB(t *testing.T) {
	img := "data:image/png;base64," + fakePNG(1_500_000)
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"google/gemini-2.5-flash-image","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}` + "\n\n"
	}
	url, recs := r37bGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "{a}", api_key: sk-test}
targets:
  - {name: a, model: m, providers: [p]}
`, func(w http.ResponseWriter, r *http.Request) {
		r37bSSE(w,
			chunk(`{"role":"assistant","content":"Here is your cat."}`, ""),
			chunk(`{"images":[{"type":"image_url","image_url":{"url":"`+img+`"}}]}`, ""),
			chunk(`{}`, "stop"),
			"data: [DONE]\n\n")
	})
	resp, body := postWith(t, url, "/v1/chat/completions", `{"model":"a","stream":true,"messages":[{"role":"user","content":"draw a cat"}]}`)
	d := recs.Wait(t, 1)
	if !strings.Contains(body, img) || !strings.HasSuffix(body, "data: [DONE]\n\n") || d.Outcome != "ok" {
		at := d.Attempts[len(d.Attempts)-1]
		t.Errorf("a streamed image of %d bytes: status %d, image delivered %v, record outcome %s class %s evidence %q counted %v; tail of the stream: %s",
			len(img), resp.StatusCode, strings.Contains(body, img), d.Outcome, at.Class, at.Evidence, at.Counted, tail(body, 300))
	}
}

// Review 37b. The same at /v1/responses passed through to a responses:
// true OpenAI target with the image_generation tool, which the door
// refuses to translate precisely so that such a target serves it
// (docs/doors.md): OpenAI streams response.image_generation_call.
// partial_image events and the output_item.done and response.completed
// events carry the final image, base64, whole. None of these is content
// to the reader, and each is past 1 MiB: the request can never succeed.
func TestReview37bResponsesPassthroughImageGeneration(t *testing.T) {
	b64 := fakePNG(1_400_000)
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	item := `{"id":"ig_1","type":"image_generation_call","status":"completed","result":"` + b64 + `"}`
	url, recs := r37bGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "{a}", api_key: sk-test, responses: true}
targets:
  - {name: a, model: gpt-5, providers: [p]}
`, func(w http.ResponseWriter, r *http.Request) {
		r37bSSE(w,
			ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"gpt-5","output":[]}}`),
			ev("response.output_item.added", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"ig_1","type":"image_generation_call","status":"in_progress"}}`),
			ev("response.image_generation_call.generating", `{"type":"response.image_generation_call.generating","sequence_number":2,"output_index":0,"item_id":"ig_1"}`),
			ev("response.output_item.done", `{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":`+item+`}`),
			ev("response.completed", `{"type":"response.completed","sequence_number":4,"response":{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[`+item+`],"usage":{"input_tokens":10,"output_tokens":1500,"total_tokens":1510}}}`))
	})
	resp, body := postWith(t, url, "/v1/responses", `{"model":"a","stream":true,"input":"draw a cat","tools":[{"type":"image_generation"}]}`)
	d := recs.Wait(t, 1)
	if resp.StatusCode != 200 || !strings.Contains(body, b64) || d.Outcome != "ok" {
		at := d.Attempts[len(d.Attempts)-1]
		t.Errorf("image_generation through a responses: true target: status %d, image delivered %v, record outcome %s class %s evidence %q counted %v; body: %.300s",
			resp.StatusCode, strings.Contains(body, b64), d.Outcome, at.Class, at.Evidence, at.Counted, body)
	}
}

// responsesEvents is a responses: true upstream's stream: created, an
// item of typ added, n delta events of deltaType, the item done, and
// response.completed.
func responsesEvents(itemType, deltaType string, n int) []string {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	seq := 0
	next := func() string { seq++; return fmt.Sprint(seq) }
	out := []string{
		ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"gpt-5","output":[]}}`),
		ev("response.output_item.added", `{"type":"response.output_item.added","sequence_number":`+next()+`,"output_index":0,"item":{"id":"it_1","type":"`+itemType+`","status":"in_progress"}}`),
	}
	for i := 0; i < n; i++ {
		out = append(out, ev(deltaType, `{"type":"`+deltaType+`","sequence_number":`+next()+`,"item_id":"it_1","output_index":0,"content_index":0,"delta":"x`+fmt.Sprint(i)+` "}`))
	}
	out = append(out,
		ev("response.output_item.done", `{"type":"response.output_item.done","sequence_number":`+next()+`,"output_index":0,"item":{"id":"it_1","type":"`+itemType+`","status":"completed"}}`),
		ev("response.completed", `{"type":"response.completed","sequence_number":`+next()+`,"response":{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":10,"output_tokens":400,"total_tokens":410}}}`))
	return out
}

// Review 37b. A responses: true target's stream is read for content by a
// list of four delta types (openai.readResponsesEvent). OpenAI's other
// streamed output is not content: a custom tool call's input (Codex's
// apply_patch on GPT-5 — custom tools are refused by translation so that
// such a target serves them, docs/doors.md), raw reasoning text (gpt-oss
// behind vLLM, Groq or OpenRouter's Responses API), audio. A turn that
// writes a patch of a few hundred tokens before any text is held back
// whole: past 256 events it fails as the upstream's server_error
// (stream:held-back-cap), counted, and is paid for again at the next
// target; the client sees nothing of it until then.
func TestReview37bResponsesPassthroughOtherDeltasAreContent(t *testing.T) {
	for _, c := range []struct{ item, delta string }{
		{"custom_tool_call", "response.custom_tool_call_input.delta"},
		{"reasoning", "response.reasoning_text.delta"},
	} {
		t.Run(c.delta, func(t *testing.T) {
			evs := responsesEvents(c.item, c.delta, 300)
			url, recs := r37bGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "{a}", api_key: sk-test, responses: true}
targets:
  - {name: a, model: gpt-5, providers: [p]}
`, func(w http.ResponseWriter, r *http.Request) { r37bSSE(w, evs...) })
			resp, body := postWith(t, url, "/v1/responses", `{"model":"a","stream":true,"input":"patch it","tools":[{"type":"custom","name":"apply_patch"}]}`)
			d := recs.Wait(t, 1)
			if resp.StatusCode != 200 || !strings.Contains(body, "x299 ") || d.Outcome != "ok" {
				at := d.Attempts[len(d.Attempts)-1]
				t.Errorf("300 %s events through a responses: true target: status %d, delivered %v, record outcome %s class %s evidence %q counted %v billable %v; body: %.300s",
					c.delta, resp.StatusCode, strings.Contains(body, "x299 "), d.Outcome, at.Class, at.Evidence, at.Counted, at.Billable, body)
			}
		})
	}
}

// Review 37b. A structured answer whose schema is not an object goes to
// Claude as the forced tool detour_json_value, whose streamed input the
// adapter gathers and sends whole at content_block_stop
// (anthropic/structured.go: answerDelta). The gathered pieces are not
// content, so the first_token_timeout ran over the whole value: a value
// that took longer to write than first_token_timeout (400 ms here, a piece
// every 100 ms for 1.2 s) failed as the upstream's counted timeout. Each
// non-empty piece now restarts the clock (provider.Event.Progress), as an
// object schema's (detour_json_answer) pieces, sent as they come, do.
func TestReview37bGatheredJSONValueRestartsTheFirstTokenClock(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	slow := func(tool string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			write := func(s string) { io.WriteString(w, s); w.(http.Flusher).Flush() }
			write(ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`))
			write(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"`+tool+`","input":{}}}`))
			pieces := []string{`{"value": [`, `1,`, `2,`, `3,`, `4,`, `5,`, `6,`, `7,`, `8,`, `9,`, `10,`, `11]}`}
			if tool == "detour_json_answer" {
				pieces = []string{`{"v": [`, `1,`, `2,`, `3,`, `4,`, `5,`, `6,`, `7,`, `8,`, `9,`, `10,`, `11]}`}
			}
			for _, p := range pieces {
				b, _ := json.Marshal(p)
				write(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(b)+`}}`))
				time.Sleep(100 * time.Millisecond)
			}
			write(ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
			write(ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}`))
			write(ev("message_stop", `{"type":"message_stop"}`))
		}
	}
	cfg := `
providers:
  - {name: an, dialect: anthropic, base_url: "{a}", api_key: sk-test, first_token_timeout: 400ms, idle_timeout: 400ms}
targets:
  - {name: a, model: claude-x, providers: [an]}
`
	for _, c := range []struct{ tool, schema string }{
		{"detour_json_answer", `{"type":"object","properties":{"v":{"type":"array","items":{"type":"integer"}}}}`},
		{"detour_json_value", `{"type":"array","items":{"type":"integer"}}`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			url, recs := r37bGateway(t, cfg, slow(c.tool))
			body := `{"model":"a","stream":true,"messages":[{"role":"user","content":"count"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":` + c.schema + `}}}`
			resp, got := postWith(t, url, "/v1/chat/completions", body)
			d := recs.Wait(t, 1)
			if d.Outcome != "ok" || !strings.Contains(got, "11]") {
				at := d.Attempts[len(d.Attempts)-1]
				t.Errorf("a structured answer written over 1.2 s (first_token_timeout 400ms, a piece every 100ms): status %d, record %s class %s evidence %q counted %v billable %v; body %.300s",
					resp.StatusCode, d.Outcome, at.Class, at.Evidence, at.Counted, at.Billable, got)
			}
		})
	}
}

// Review 37b. The same bound at /v1/messages passed through to Claude:
// the web_fetch server tool returns a fetched PDF as a base64 document
// inside its web_fetch_tool_result block, which a stream carries whole in
// one content_block_start event. A 1.2 MB PDF (1.6 MB of base64) cuts the
// stream after the commit, as the upstream's server_error.
func TestReview37bMessagesPassthroughWebFetchPDF(t *testing.T) {
	pdf := fakePNG(1_600_000)
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	url, recs := r37bGateway(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "{a}", api_key: sk-test}
targets:
  - {name: a, model: claude-x, providers: [an]}
`, func(w http.ResponseWriter, r *http.Request) {
		r37bSSE(w,
			ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`),
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me fetch it."}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
			ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{"url":"https://example.com/paper.pdf"}}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":1}`),
			ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_fetch_result","url":"https://example.com/paper.pdf","content":{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"`+pdf+`"}}}}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":2}`),
			ev("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"The paper says."}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":3}`),
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":40}}`),
			ev("message_stop", `{"type":"message_stop"}`))
	})
	body := `{"model":"a","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"summarise https://example.com/paper.pdf"}],"tools":[{"type":"web_fetch_20250910","name":"web_fetch","max_uses":1}]}`
	resp, got := postWith(t, url, "/v1/messages", body, "anthropic-version", "2023-06-01", "anthropic-beta", "web-fetch-2025-09-10")
	d := recs.Wait(t, 1)
	if d.Outcome != "ok" || !strings.Contains(got, "The paper says.") {
		at := d.Attempts[len(d.Attempts)-1]
		t.Errorf("a web_fetch of a 1.2 MB PDF passed through: status %d, record %s class %s evidence %q counted %v; tail %s",
			resp.StatusCode, d.Outcome, at.Class, at.Evidence, at.Counted, tail(got, 300))
	}
}

// Review 37b. An upstream that answers a stream request with a whole JSON
// answer (it ignores "stream") is streamed to the client from
// chat.WholeChunks, which keeps content, refusal and tool calls only: the
// answer's reasoning (reasoning_content, DeepSeek's and vLLM's name) is
// lost, where the same answer to a whole request reaches the client —
// at /v1/messages as a thinking block (docs/doors.md, "Answers").
func TestReview37bWholeAnswerToAStreamKeepsReasoning(t *testing.T) {
	whole := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"Let me think: 6 times 7.","content":"42"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}}`
	url, _ := r37bGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "{a}", api_key: sk-test}
targets:
  - {name: a, model: deepseek-reasoner, providers: [p]}
`, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, whole)
	})
	for _, stream := range []bool{false, true} {
		body := fmt.Sprintf(`{"model":"a","max_tokens":100,"stream":%v,"messages":[{"role":"user","content":"6*7?"}]}`, stream)
		_, got := postWith(t, url, "/v1/messages", body, "anthropic-version", "2023-06-01")
		if !strings.Contains(got, "6 times 7") {
			t.Errorf("/v1/messages, stream %v, an upstream's whole answer with reasoning: the thinking is lost: %.600s", stream, got)
		}
	}
}

// Review 37b. After the commit the same list decides the idle clock
// (dispatch.stream restarts it on content only): a turn that commits on
// its reasoning summary and then writes an apply_patch custom tool call
// for longer than idle_timeout (400 ms here; a piece every 100 ms for
// 1.5 s) is cut as the upstream's timeout:idle while it streams steadily.
func TestReview37bResponsesPassthroughCustomToolInputIsProgress(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	url, recs := r37bGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "{a}", api_key: sk-test, responses: true, idle_timeout: 400ms}
targets:
  - {name: a, model: gpt-5-codex, providers: [p]}
`, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		write := func(s string) { io.WriteString(w, s); w.(http.Flusher).Flush() }
		write(ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"gpt-5-codex","output":[]}}`))
		write(ev("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","sequence_number":1,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Patching the file."}`))
		write(ev("response.output_item.added", `{"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"id":"ctc_1","type":"custom_tool_call","status":"in_progress","call_id":"call_1","name":"apply_patch","input":""}}`))
		for i := 0; i < 15; i++ {
			write(ev("response.custom_tool_call_input.delta", fmt.Sprintf(`{"type":"response.custom_tool_call_input.delta","sequence_number":%d,"item_id":"ctc_1","output_index":1,"delta":"+line %d\n"}`, 3+i, i)))
			time.Sleep(100 * time.Millisecond)
		}
		write(ev("response.output_item.done", `{"type":"response.output_item.done","sequence_number":18,"output_index":1,"item":{"id":"ctc_1","type":"custom_tool_call","status":"completed","call_id":"call_1","name":"apply_patch","input":"…"}}`))
		write(ev("response.completed", `{"type":"response.completed","sequence_number":19,"response":{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5-codex","output":[],"usage":{"input_tokens":10,"output_tokens":400,"total_tokens":410}}}`))
	})
	resp, got := postWith(t, url, "/v1/responses", `{"model":"a","stream":true,"input":"patch it","tools":[{"type":"custom","name":"apply_patch"}]}`)
	d := recs.Wait(t, 1)
	if d.Outcome != "ok" {
		at := d.Attempts[len(d.Attempts)-1]
		t.Errorf("a patch streamed steadily for 1.5 s after the commit (idle_timeout 400ms): status %d, record %s class %s evidence %q counted %v; tail %s",
			resp.StatusCode, d.Outcome, at.Class, at.Evidence, at.Counted, tail(got, 300))
	}
}

// Review 37b. Mistral's reasoning models (Magistral) stream their
// thinking as a delta whose content is a list of chunks
// ({"type":"thinking","thinking":[{"type":"text","text":…}]}), the
// answer then as strings. The OpenAI reader takes content for a string
// only: every thinking chunk is "malformed", skipped and never relayed,
// and is no progress, so a model that thinks longer than
// first_token_timeout (400 ms here, a chunk every 100 ms for 1.2 s) fails
// as the upstream's timeout before its answer begins.
func TestReview37bContentAsAListOfChunks(t *testing.T) {
	chunk := func(delta, finish string) string {
		return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"magistral-medium-2509","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	url, recs := r37bGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "{a}", api_key: sk-test, first_token_timeout: 400ms}
targets:
  - {name: a, model: magistral-medium-2509, providers: [p]}
`, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		write := func(s string) { io.WriteString(w, s); w.(http.Flusher).Flush() }
		write(chunk(`{"role":"assistant","content":""}`, "null"))
		for i := 0; i < 12; i++ {
			write(chunk(fmt.Sprintf(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"step %d. "}]}]}`, i), "null"))
			time.Sleep(100 * time.Millisecond)
		}
		write(chunk(`{"content":"42"}`, "null"))
		write(chunk(`{}`, `"stop"`))
		write("data: [DONE]\n\n")
	})
	resp, got := postWith(t, url, "/v1/chat/completions", `{"model":"a","stream":true,"messages":[{"role":"user","content":"6*7?"}]}`)
	d := recs.Wait(t, 1)
	if d.Outcome != "ok" {
		at := d.Attempts[len(d.Attempts)-1]
		t.Errorf("a model thinking for 1.2 s in list-of-chunks content (first_token_timeout 400ms): status %d, record %s class %s evidence %q malformed %d counted %v; body %.300s",
			resp.StatusCode, d.Outcome, at.Class, at.Evidence, at.Malformed, at.Counted, got)
	}
	// The client reads OpenAI's words: the thinking as reasoning_content,
	// the answer as content, every chunk relayed.
	if !strings.Contains(got, `"reasoning_content":"step 0. "`) || !strings.Contains(got, `"reasoning_content":"step 11. "`) ||
		!strings.Contains(got, `"content":"42"`) || strings.Contains(got, `"type":"thinking"`) {
		t.Errorf("the client's stream: %.600s", got)
	}
}

// Review 37b, held. A Claude stream written one byte per flush, with CRLF
// line ends split across writes, and an error event after content: the
// chat client gets the text, then the error event in the OpenAI envelope,
// no [DONE]; the attempt is the upstream's server_error, billable.
func TestReview37bByteSplitStreamAndErrorAfterContent(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\r\ndata: " + data + "\r\n\r\n" }
	stream := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo wörld"}}`) +
		ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	url, recs := r37bGateway(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "{a}", api_key: sk-test}
targets:
  - {name: a, model: claude-x, providers: [an]}
`, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < len(stream); i++ {
			w.Write([]byte{stream[i]})
			w.(http.Flusher).Flush()
		}
	})
	_, got := postWith(t, url, "/v1/chat/completions", `{"model":"a","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	d := recs.Wait(t, 1)
	at := d.Attempts[0]
	if !strings.Contains(got, "héllo wörld") || !strings.Contains(got, "event: error\ndata: {\"error\":") || strings.Contains(got, "[DONE]") ||
		at.Class != "server_error" || !at.Billable {
		t.Errorf("byte-split Claude stream with an error after content: class %s billable %v; body %s", at.Class, at.Billable, got)
	}
}

// Review 37b. A Gemini image model (gemini-2.5-flash-image) answers with
// an inlineData part, often with no text at all. The adapter read text and
// function calls only: the picture was dropped and the client got an empty
// answer, finish_reason "stop", recorded as a success and billed. The
// image now reaches a chat client as OpenRouter carries one
// (message.images, delta.images: an image_url with a data: URL), whole and
// streamed alike.
func TestReview37bGeminiImageAnswerIsNotAnEmptySuccess(t *testing.T) {
	b64 := fakePNG(20_000)
	cand := `{"content":{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"` + b64 + `"}}]},"finishReason":"STOP","index":0}`
	answer := `{"candidates":[` + cand + `],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1290,"totalTokenCount":1295},"modelVersion":"gemini-2.5-flash-image"}`
	url, recs := r37bGateway(t, `
providers:
  - {name: g, dialect: gemini, base_url: "{a}", api_key: sk-test}
targets:
  - {name: a, model: gemini-2.5-flash-image, providers: [g]}
`, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "streamGenerateContent") {
			r37bSSE(w, "data: "+answer+"\r\n\r\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	})
	for i, stream := range []bool{false, true} {
		body := fmt.Sprintf(`{"model":"a","stream":%v,"messages":[{"role":"user","content":"draw a cat"}]}`, stream)
		resp, got := postWith(t, url, "/v1/chat/completions", body)
		d := recs.Wait(t, i+1)
		if !strings.Contains(got, `"images":[{"type":"image_url","image_url":{"url":"data:image/png;base64,`+b64[:100]) || d.Outcome != "ok" {
			t.Errorf("stream %v: an image-only Gemini answer reached the client as %d with no image (%.250s), recorded %s, billable %v",
				stream, resp.StatusCode, got, d.Outcome, d.Attempts[0].Billable)
		}
	}
}
