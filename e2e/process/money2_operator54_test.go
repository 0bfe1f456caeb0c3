package process

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An Anthropic Messages stream (platform.claude.com/docs/en/build-with-claude/streaming, "Basic
// streaming request"): message_start carries the input count and output_tokens 1; the final count
// comes in message_delta. cut: the connection drops after three text deltas.
func op54ClaudeStream(model string, input int, cut bool) upstreamtest.Step {
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data }
	evs := []string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg_01op54","type":"message","role":"assistant","content":[],"model":"`+model+`","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+itoa(input)+`,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("ping", `{"type": "ping"}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Once upon "}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a time "}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"there was"}}`),
	}
	if cut {
		return upstreamtest.Step{Events: evs, Cut: true}
	}
	evs = append(evs,
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`),
		ev("message_stop", `{"type":"message_stop"}`))
	return upstreamtest.Step{Events: evs}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const op54StreamCfg = `
admin_keys: [op54-admin-key-0001]
client_keys:
  - {name: team-a, key: key-team-a-0001, budget: {usd_per_day: 50}}
  - {name: team-b, key: key-team-b-0001}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: sk-ant-op54-aaaaaaaaaaaaaaaaaaaa}
  - {name: anthropic2, dialect: anthropic, base_url: "{anthropic2}", api_key: sk-ant-op54-eeeeeeeeeeeeeeeeeeee}
  - {name: openai, dialect: openai, base_url: "{openai}/v1", api_key: sk-op54-bbbbbbbbbbbbbbbbbbbbbbbb}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic], price: {input: 3, output: 15, cached_input: 0.3, cache_write: 3.75}}
  - {name: sonnet2, model: claude-sonnet-4-5, providers: [anthropic2], price: {input: 3, output: 15, cached_input: 0.3, cache_write: 3.75}}
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10, cached_input: 1.25}}
routes:
  - {name: cont, targets: [sonnet, sonnet2], on_stream_cut: continue}
`

func (g *gateway) op54Stream(key, model string) string {
	g.t.Helper()
	body := `{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"Tell me a story"}]}`
	req, _ := http.NewRequest("POST", g.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		sb.WriteString(sc.Text() + "\n")
	}
	return sb.String()
}
