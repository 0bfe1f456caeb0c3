package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
)

// Review 38a: the Gemini dialect against Google's GenerateContentResponse
// (https://ai.google.dev/api/generate-content#generatecontentresponse;
// googleapis/go-genai types.go for FinishReason, BlockedReason and
// GenerateContentResponseUsageMetadata). Each gateway below has a priced
// gemini target first and an OpenAI-compatible target after it on one
// route, so a test sees whether an answer was handed to the client or
// replayed at the other vendor.

// r38aGateway serves the route r = [gem, b]: gem answers with gem's
// events (one whole body, or SSE data events when the request streams), b
// with "from b". It returns the gateway's URL, its records and b's calls.
func r38aGateway(t *testing.T, gem ...string) (string, *gatewaytest.Records, *atomic.Int32) {
	t.Helper()
	g := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if !strings.Contains(r.URL.Path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, gem[0])
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range gem {
			io.WriteString(w, "data: "+e+"\r\n\r\n")
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(g.Close)
	var bCalls atomic.Int32
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bCalls.Add(1)
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"from b"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"from b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	t.Cleanup(b.Close)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: ge, dialect: gemini, base_url: "`+g.URL+`", api_key: g-test}
  - {name: oa, dialect: openai, base_url: "`+b.URL+`", api_key: sk-test}
targets:
  - {name: gem, model: gemini-3-pro, providers: [ge], price: {input: 1, output: 10, cached_input: 0.1}}
  - {name: b, model: m, providers: [oa]}
routes:
  - {name: r, targets: [gem, b]}
`), app.Options{Decisions: recs})
	return url, recs, &bCalls
}

// r38aPaths are the three doors, and a request body for each.
var r38aDoors = []struct{ door, path, body string }{
	{"chat", "/v1/chat/completions", `{"model":"r",%s"messages":[{"role":"user","content":"hi"}]}`},
	{"messages", "/v1/messages", `{"model":"r",%s"max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`},
	{"responses", "/v1/responses", `{"model":"r",%s"input":"hi"}`},
}

func r38aBody(tmpl string, stream bool) string {
	s := ""
	if stream {
		s = `"stream":true,`
	}
	return strings.Replace(tmpl, "%s", s, 1)
}

func r38aAttempts(d *decision.Decision) string {
	b, _ := json.Marshal(d.Attempts)
	return string(b)
}

// TestReview38aGeminiBlockBesideUnseenParts: a Gemini thinking model's
// blocked or failed candidate may carry parts the client never gets — a
// thought, or an empty text holding the turn's thoughtSignature. A user
// relies on a SAFETY block being a refusal like any other (the client gets
// content_filter, the prompt is not replayed at another vendor, the
// endpoint is not cooled, the prompt's tokens are billed at their price),
// and on OTHER or MALFORMED_FUNCTION_CALL with nothing to say moving on
// without cooling the endpoint. Before, a whole answer was the endpoint's
// server_error ("decode": counted, retried, then replayed at b, its cost
// unknown), and a stream was committed as an empty success.
func TestReview38aGeminiBlockBesideUnseenParts(t *testing.T) {
	const sig = `"thoughtSignature":"CiQB0e2Kb1Yx7Z3lFq9v2bWc0QmV8r3dJ5nTz1pXh4u6sYk="`
	usage := `"usageMetadata":{"promptTokenCount":5,"thoughtsTokenCount":40,"totalTokenCount":45}`
	for _, c := range []struct {
		name, body string
		refusal    bool // else the walk moves on to b
	}{
		{"SAFETY beside a signature", `{"candidates":[{"content":{"parts":[{"text":"",` + sig + `}],"role":"model"},"finishReason":"SAFETY","index":0}],` + usage + `}`, true},
		{"PROHIBITED_CONTENT beside a thought", `{"candidates":[{"content":{"parts":[{"text":"Weighing the request","thought":true}],"role":"model"},"finishReason":"PROHIBITED_CONTENT","index":0}],` + usage + `}`, true},
		{"OTHER beside a thought", `{"candidates":[{"content":{"parts":[{"text":"Weighing the request","thought":true}],"role":"model"},"finishReason":"OTHER","index":0}],` + usage + `}`, false},
		{"MALFORMED_FUNCTION_CALL beside a signature", `{"candidates":[{"content":{"parts":[{"text":"",` + sig + `}],"role":"model"},"finishReason":"MALFORMED_FUNCTION_CALL","index":0}],` + usage + `}`, false},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(c.name+map[bool]string{false: " whole", true: " streamed"}[stream], func(t *testing.T) {
				url, recs, bCalls := r38aGateway(t, c.body)
				resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, stream))
				d := recs.Wait(t, 1)
				first := d.Attempts[0]
				if first.Counted {
					t.Errorf("the endpoint was counted against its health for one prompt's answer: %s", r38aAttempts(d))
				}
				if c.refusal {
					if resp.StatusCode != 400 || !strings.Contains(body, `"code":"content_filter"`) || bCalls.Load() != 0 || len(d.Attempts) != 1 || first.Class != "refusal" {
						t.Errorf("want the block handed to the client (400 content_filter), not replayed at b: status %d, b called %d times, attempts %s; body %s",
							resp.StatusCode, bCalls.Load(), r38aAttempts(d), body)
					}
					if !stream && (first.Usage == nil || first.Usage.PromptTokens != 5 || first.CostUSD == nil || first.CostUnknown) {
						t.Errorf("the block's counted tokens are billed at their price: %s", r38aAttempts(d))
					}
					return
				}
				if resp.StatusCode != 200 || !strings.Contains(body, "from b") || first.Class != "unknown" {
					t.Errorf("want an unknown failure at gem and b's answer: status %d, attempts %s; body %s", resp.StatusCode, r38aAttempts(d), body)
				}
			})
		}
	}
}

// TestReview38aGeminiFilterFinishReachesEveryDoor: Gemini ends an image
// model's candidate with IMAGE_PROHIBITED_CONTENT or IMAGE_RECITATION, and
// Vertex a Model Armor block with MODEL_ARMOR, after part of the answer
// was written (go-genai's FinishReason: "generated images have prohibited
// content", "may be a recitation from a source"). A client relies on being
// told the answer was cut by a filter — finish_reason content_filter,
// stop_reason refusal, a Responses answer incomplete for content_filter —
// as for SAFETY, never that it ended naturally (stop, end_turn,
// completed), whole or streamed.
func TestReview38aGeminiFilterFinishReachesEveryDoor(t *testing.T) {
	want := map[string]string{"chat": `"finish_reason":"content_filter"`, "messages": `"stop_reason":"refusal"`, "responses": `"reason":"content_filter"`}
	for _, reason := range []string{"IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR"} {
		whole := `{"candidates":[{"content":{"parts":[{"text":"Here is the start"}],"role":"model"},"finishReason":"` + reason + `","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":4,"totalTokenCount":9}}`
		events := []string{`{"candidates":[{"content":{"parts":[{"text":"Here is the start"}],"role":"model"},"index":0}]}`,
			`{"candidates":[{"finishReason":"` + reason + `","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":4,"totalTokenCount":9}}`}
		for _, dr := range r38aDoors {
			for _, stream := range []bool{false, true} {
				evs := []string{whole}
				if stream {
					evs = events
				}
				url, recs, _ := r38aGateway(t, evs...)
				resp, body := postWith(t, url, dr.path, r38aBody(dr.body, stream))
				d := recs.Wait(t, 1)
				if resp.StatusCode != 200 || !strings.Contains(body, "Here is the start") || !strings.Contains(body, want[dr.door]) {
					t.Errorf("%s at %s (stream %v): status %d, want the text and %s; body %.600s; attempts %s", reason, dr.door, stream, resp.StatusCode, want[dr.door], body, r38aAttempts(d))
				}
			}
		}
	}
}

// TestReview38aGeminiUnspecifiedBlockReasonInAStream: promptFeedback with
// blockReason BLOCK_REASON_UNSPECIFIED (the enum's default; go-genai spells
// it BLOCKED_REASON_UNSPECIFIED) blocks nothing, as docs/behaviour.md says
// and as a whole answer is read. A streaming client relies on getting the
// answer that came with it; before, the stream's chunk was taken for an
// error event and the request was replayed at b.
func TestReview38aGeminiUnspecifiedBlockReasonInAStream(t *testing.T) {
	for _, r := range []string{"BLOCK_REASON_UNSPECIFIED", "BLOCKED_REASON_UNSPECIFIED"} {
		url, recs, bCalls := r38aGateway(t,
			`{"candidates":[{"content":{"parts":[{"text":"Hello from Gemini"}],"role":"model"},"finishReason":"STOP","index":0}],"promptFeedback":{"blockReason":"`+r+`"},"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8}}`)
		resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, true))
		d := recs.Wait(t, 1)
		if resp.StatusCode != 200 || !strings.Contains(body, "Hello from Gemini") || bCalls.Load() != 0 || d.Outcome != "ok" {
			t.Errorf("%s: status %d, b called %d times, outcome %s, attempts %s; body %.400s", r, resp.StatusCode, bCalls.Load(), d.Outcome, r38aAttempts(d), body)
		}
	}
}

// TestReview38aGeminiToolUsePromptTokensAreInput: usageMetadata's
// toolUsePromptTokenCount counts "the results from tool executions, which
// are provided back to the model as input" (go-genai), beside
// promptTokenCount and inside totalTokenCount. An operator relies on input
// being priced as input: before, the gateway found those tokens in the
// total beyond prompt and completion and priced them as output (10× here).
// The client's usage says the same input.
func TestReview38aGeminiToolUsePromptTokensAreInput(t *testing.T) {
	answer := `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1000,"candidatesTokenCount":10,"thoughtsTokenCount":100,"cachedContentTokenCount":800,"toolUsePromptTokenCount":50,"totalTokenCount":1160}}`
	for _, stream := range []bool{false, true} {
		url, recs, _ := r38aGateway(t, answer)
		// A streaming client asks for the usage chunk (OpenAI's
		// stream_options.include_usage); one that does not gets none.
		req := strings.Replace(r38aBody(r38aDoors[0].body, stream), `"stream":true,`, `"stream":true,"stream_options":{"include_usage":true},`, 1)
		_, body := postWith(t, url, "/v1/chat/completions", req)
		d := recs.Wait(t, 1)
		u := d.Attempts[0].Usage
		// 1050 input, 800 of them cached; 110 output (10 + 100 thoughts).
		const wantCost = (250*1 + 800*0.1 + 110*10) / 1e6
		if u == nil || u.PromptTokens != 1050 || u.CachedTokens != 800 || u.CompletionTokens != 110 || u.TotalTokens != 1160 ||
			d.Attempts[0].CostUSD == nil || float64(*d.Attempts[0].CostUSD)-wantCost > 1e-12 || wantCost-float64(*d.Attempts[0].CostUSD) > 1e-12 {
			t.Errorf("stream %v: attempts %s; want prompt 1050 (cached 800), completion 110, cost %g", stream, r38aAttempts(d), wantCost)
		}
		if !strings.Contains(body, `"prompt_tokens":1050`) {
			t.Errorf("stream %v: the client's usage does not count the tool-use input: %.600s", stream, body)
		}
	}
}

// TestReview38aGeminiHostileAnswers: a Gemini upstream that answers with
// arguments nested past what a JSON decoder takes, bytes that are not
// UTF-8, candidate indices no request asked for, thousands of candidates,
// or megabytes of arguments must never crash or hang the gateway, nor
// reach a client as JSON it cannot read. A user relies on each such
// answer either reaching the client in valid JSON (text made valid UTF-8)
// or failing over as the upstream's fault. Passed when written: kept as a
// guard.
func TestReview38aGeminiHostileAnswers(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	many := make([]string, 3000)
	for i := range many {
		many[i] = `{"content":{"parts":[{"text":"c"}],"role":"model"},"finishReason":"STOP","index":` + strings.Repeat("1", 1+i%3) + `}`
	}
	bad := "\xff\xfe bad \xc3"
	for _, c := range []struct {
		name, answer string
		served       bool // by gem; else the walk moved on to b
	}{
		{"arguments nested 20000 deep", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":` + deep + `}}],"role":"model"},"finishReason":"STOP","index":0}]}`, false},
		{"bytes that are not UTF-8", `{"candidates":[{"content":{"parts":[{"text":"` + bad + `"},{"functionCall":{"name":"f","args":{"k":"` + bad + `"}}}],"role":"model"},"finishReason":"STOP","index":0}]}`, true},
		{"indices no request asked for", `{"candidates":[{"content":{"parts":[{"text":"neg"}],"role":"model"},"finishReason":"STOP","index":-7},{"content":{"parts":[{"text":"huge"}],"role":"model"},"finishReason":"STOP","index":9223372036854775807}]}`, true},
		{"3 MiB of arguments", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"k":"` + strings.Repeat("x", 3<<20) + `"}}}],"role":"model"},"finishReason":"STOP","index":0}]}`, true},
	} {
		for _, stream := range []bool{false, true} {
			url, recs, bCalls := r38aGateway(t, c.answer)
			resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, stream))
			d := recs.Wait(t, 1)
			ok := resp.StatusCode == 200 && d.Outcome == "ok" && utf8.ValidString(body) && (stream || json.Valid([]byte(body)))
			if c.served {
				ok = ok && bCalls.Load() == 0
			} else {
				ok = ok && bCalls.Load() == 1 && d.Attempts[0].Class == "server_error"
			}
			if !ok {
				t.Errorf("%s (stream %v): status %d, b called %d times, outcome %s, attempts %.600s; body %.300q", c.name, stream, resp.StatusCode, bCalls.Load(), d.Outcome, r38aAttempts(d), body)
			}
		}
	}
	// Thousands of candidates in one answer: a whole one is translated
	// choice by choice; a streamed chunk opening more than provider.MaxParts
	// is skipped as malformed, and the stream, left with no content, fails
	// over.
	url, recs, bCalls := r38aGateway(t, `{"candidates":[`+strings.Join(many, ",")+`]}`)
	resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, false))
	if d := recs.Wait(t, 1); resp.StatusCode != 200 || !json.Valid([]byte(body)) || bCalls.Load() != 0 {
		t.Errorf("3000 candidates, whole: status %d, b called %d times, attempts %.400s", resp.StatusCode, bCalls.Load(), r38aAttempts(d))
	}
}
