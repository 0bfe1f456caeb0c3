package messagesfuzz

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

const secret = "sk-fuzz-provider-key-7Hq2"

const messagesCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
  - {name: cheap, targets: [gpt, claude]}
`

const anthropicMessage = `{"id":"msg_f","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}`

var anthropicEvents = []string{
	"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_f\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}",
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}",
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}",
	"event: message_stop\ndata: {\"type\":\"message_stop\"}",
}

type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// client bounds every request: a gateway that hangs fails the input.
var client = &http.Client{Timeout: 20 * time.Second}

func post(t *testing.T, url, body string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "anything")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// FuzzMessagesDoor sends arbitrary bodies to /v1/messages through a real
// gateway whose routes pass through to an Anthropic fake or translate for
// an OpenAI fake. Whatever the body: the gateway answers; a failure is
// Anthropic's envelope; a 200 is a Message or an SSE stream whose data
// lines are JSON; no provider key appears in the answer.
func FuzzMessagesDoor(f *testing.F) {
	for _, s := range []string{
		`{"model":"deep","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"cheap","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"cheap","max_tokens":99999,"system":[{"type":"text","text":"x-anthropic-billing-header: a"}],"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]},{"role":"system","content":"s"}]}`,
		`{"model":"cheap","max_tokens":5,"tools":[{"name":"t","input_schema":{}}],"tool_choice":{"type":"tool","name":"t"},"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"t","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"r"}],"is_error":true}]}]}`,
		`{"model":"deep","max_tokens":5,"mcp_servers":[{}],"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"cheap","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document"}]}]}`,
		`{"model":"deep"`, `[]`, `{"model":"cheap","messages":{}}`,
	} {
		f.Add(s)
	}
	fs := map[string]*upstreamtest.Server{}
	for name, sc := range map[string]upstreamtest.Script{
		"anthropic": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if r.Streamed() {
				return upstreamtest.Step{Events: anthropicEvents}
			}
			return upstreamtest.Step{Body: anthropicMessage}
		},
		"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if r.Streamed() {
				return upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-mini", "a", "b")}
			}
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "ok")}
		},
	} {
		fs[name] = upstreamtest.New(sc)
		f.Cleanup(fs[name].Close)
	}
	yaml := messagesCfg
	for name, s := range fs {
		yaml = strings.ReplaceAll(yaml, "{"+name+"}", s.URL)
	}
	url, _ := gatewaytest.Start(f, gatewaytest.Config(f, yaml), app.Options{Decisions: decision.Discard,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	f.Fuzz(func(t *testing.T, body string) {
		r := post(t, url, body)
		if strings.Contains(string(r.Body), secret) || strings.Contains(strings.Join(flatten(r.Header), " "), secret) {
			t.Fatalf("a provider key in the answer: %s", r.Body)
		}
		switch {
		case r.Status != http.StatusOK:
			var env struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if json.Unmarshal(r.Body, &env) != nil || env.Type != "error" || env.Error.Type == "" || env.Error.Message == "" {
				t.Fatalf("status %d with a body that is not Anthropic's envelope: %s", r.Status, r.Body)
			}
		case strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream"):
			for _, line := range bytes.Split(r.Body, []byte("\n")) {
				if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && !json.Valid(d) {
					t.Fatalf("stream data that is not JSON: %s", line)
				}
			}
		default:
			var m struct{ Type string }
			if json.Unmarshal(r.Body, &m) != nil || m.Type != "message" {
				t.Fatalf("200 that is not a Message: %s", r.Body)
			}
		}
	})
}

func flatten(h http.Header) []string {
	var out []string
	for k, vs := range h {
		out = append(out, k+": "+strings.Join(vs, ","))
	}
	return out
}
